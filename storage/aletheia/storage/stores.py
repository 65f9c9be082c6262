"""Repositories over the schema: jobs and items, verdicts, the raw cache, the Tier-0 library.

Every write is an idempotent upsert keyed by what makes the row unique (item position in its job,
verdict per item and logic version, raw record per source and key), so a task that runs twice
leaves the same rows as a task that ran once.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import ColumnElement, Engine, case, select, update

from aletheia.core.verdicts import LOGIC_VERSION
from aletheia.sources.base import CachedRaw
from aletheia.sources.cache import namespace_ttl
from aletheia.storage.db import session_factory, upsert
from aletheia.storage.job_reads import read_counts

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

from aletheia.storage.models import (
    UNSETTLED_ITEMS,
    Item,
    ItemStatus,
    Job,
    JobStatus,
    SourceRecordRow,
    VerdictRow,
    as_utc,
    new_id,
    utcnow,
)

# The threads of the raw cache's and the library's database calls: the sources' event loop hands
# them over and serves other requests meanwhile. One on SQLite, not the default executor's
# several: on two cores, threads contending for SQLite and the GIL made a 200-reference run 20%
# slower. A few on PostgreSQL, where a worker's many items wait on the network, not on a file lock.
_DATABASE_THREADS: dict[str, ThreadPoolExecutor] = {}
_DATABASE_THREADS_GUARD = threading.Lock()
_T = TypeVar("_T")


def database_threads(engine: Engine) -> ThreadPoolExecutor:
    name = engine.dialect.name
    with _DATABASE_THREADS_GUARD:
        if name not in _DATABASE_THREADS:
            size = 1 if name == "sqlite" else 4
            _DATABASE_THREADS[name] = ThreadPoolExecutor(size, thread_name_prefix=f"aletheia-{name}")
        return _DATABASE_THREADS[name]


async def off_loop(threads: ThreadPoolExecutor, call: Callable[..., _T], *args: Any) -> _T:
    return await asyncio.get_running_loop().run_in_executor(threads, call, *args)


@dataclass(frozen=True)
class JobProgress:
    job_id: str
    status: str
    total: int
    done: int
    failed: int
    pending: int
    by_verdict: dict[str, int]


class JobStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessions = session_factory(engine)

    # --- jobs ----------------------------------------------------------------------------------

    def create_job(
        self,
        kind: str,
        input: dict[str, Any],
        *,
        submitted_by: str | None = None,
        parent_id: str | None = None,
        job_id: str | None = None,
    ) -> str:
        job_id = job_id or new_id()
        with self.sessions.begin() as s:
            s.add(
                Job(
                    id=job_id,
                    kind=kind,
                    input=input,
                    submitted_by=submitted_by,
                    parent_id=parent_id,
                    logic_version=LOGIC_VERSION,
                    status=JobStatus.QUEUED,
                )
            )
        return job_id

    def add_items(self, job_id: str, items: Iterable[tuple[int, str, str, dict[str, Any]]]) -> int:
        """Add (position, key, kind, payload) items; re-adding the same positions changes nothing."""
        rows = [
            {
                "id": new_id(),
                "job_id": job_id,
                "position": pos,
                "key": key[:500],
                "kind": kind,
                "payload": payload,
                "status": ItemStatus.PENDING,
                "attempts": 0,
                "updated_at": utcnow(),
            }
            for pos, key, kind, payload in items
        ]
        with self.sessions.begin() as s:
            for start in range(0, len(rows), 500):
                upsert(
                    s, Item.__table__, rows[start : start + 500], conflict=["job_id", "position"], update=[]
                )
        return len(rows)

    def set_job_status(self, job_id: str, status: str, *, error: str | None = None) -> None:
        values: dict[str, Any] = {"status": status}
        now = utcnow()
        if status == JobStatus.RUNNING:
            values["started_at"] = now
        if status in (JobStatus.DONE, JobStatus.FAILED):
            values["finished_at"] = now
        if error is not None:
            values["error"] = error
        with self.sessions.begin() as s:
            s.execute(update(Job).where(Job.id == job_id).values(**values))

    def set_summary(self, job_id: str, summary: dict[str, Any]) -> None:
        with self.sessions.begin() as s:
            s.execute(update(Job).where(Job.id == job_id).values(summary=summary))

    def job(self, job_id: str) -> Job | None:
        with self.sessions() as s:
            return s.get(Job, job_id)

    def items(self, job_id: str, *, status: str | None = None) -> list[Item]:
        with self.sessions() as s:
            q = select(Item).where(Item.job_id == job_id)
            if status is not None:
                q = q.where(Item.status == status)
            return list(s.scalars(q.order_by(Item.position)))

    def item(self, item_id: str) -> Item | None:
        with self.sessions() as s:
            return s.get(Item, item_id)

    def mark_item(self, item_id: str, status: str, *, error: str | None = None) -> None:
        with self.sessions.begin() as s:
            values: dict[str, Any] = {"status": status, "updated_at": utcnow()}
            if status == ItemStatus.RUNNING:
                values["attempts"] = Item.attempts + 1
            if error is not None:
                values["error"] = error[:4000]
            s.execute(update(Item).where(Item.id == item_id).values(**values))

    def transition(self, job_id: str, source: str, target: str, **values: Any) -> bool:
        """Compare-and-set of the job's status (`source` -> `target`, with `values` beside it): only
        one of two racing steps wins a transition."""
        with self.sessions.begin() as s:
            result = s.execute(
                update(Job).where(Job.id == job_id, Job.status == source).values(status=target, **values)
            )
            return bool(result.rowcount)  # type: ignore[attr-defined]

    def children(self, job_id: str) -> list[Job]:
        """A sweep's jobs, in the order they were created."""
        with self.sessions() as s:
            q = select(Job).where(Job.parent_id == job_id).order_by(Job.created_at, Job.id)
            return list(s.scalars(q))

    def settle_problem_items(self, job_id: str) -> None:
        """Input problems are settled at once (failed: nothing to verify)."""
        with self.sessions.begin() as s:
            s.execute(
                update(Item)
                .where(Item.job_id == job_id, Item.kind == "problem")
                .values(status=ItemStatus.FAILED, error="input problem")
            )

    def requeue_item(self, item_id: str) -> None:
        """A running item back to pending, giving back the attempt `mark_item(RUNNING)` counted (a
        deferral is not an attempt)."""
        with self.sessions.begin() as s:
            s.execute(
                update(Item)
                .where(Item.id == item_id, Item.status == ItemStatus.RUNNING)
                .values(
                    status=ItemStatus.PENDING,
                    attempts=case((Item.attempts > 0, Item.attempts - 1), else_=0),
                    updated_at=utcnow(),
                )
            )

    def unfinished_jobs(self) -> list[Job]:
        with self.sessions() as s:
            return list(s.scalars(select(Job).where(Job.status.in_([JobStatus.QUEUED, JobStatus.RUNNING]))))

    # --- verdicts ------------------------------------------------------------------------------

    def claim_item(self, item_id: str) -> int | None:
        """Take the item for this delivery of its step: a `pending` or a `running` one (a running
        item is taken over: the delivery that held it is dead, as when the broker redelivers a
        killed worker's message, or is this delivery's own earlier attempt, as when a task retries
        after a database outage, or is only slow; whichever, the one that held it can no longer
        record). Returns the claim (the item's attempt number, shown when it records, `settle`),
        None when the item is settled."""
        with self.sessions.begin() as s:
            taken = s.execute(
                update(Item)
                .where(Item.id == item_id, Item.status.in_((ItemStatus.PENDING, ItemStatus.RUNNING)))
                .values(status=ItemStatus.RUNNING, attempts=Item.attempts + 1, updated_at=utcnow())
            )
            if not taken.rowcount:  # type: ignore[attr-defined]
                return None
            return int(s.scalar(select(Item.attempts).where(Item.id == item_id)) or 0)

    def settle(
        self,
        s: Session,
        job_id: str,
        item_id: str,
        *,
        claim: int,
        verdict: dict[str, Any],
        evidence: dict[str, Any],
        counters: dict[str, Any] | None,
    ) -> bool:
        """In the caller's transaction (the one that appends the decision's events to the trail,
        `AuditLog.append_if`): the item `done` and its verdict stored, if `claim` (from
        `claim_item`) is still the item's. False, and nothing written, when another delivery
        claimed the item since or it is settled: the transaction then writes no event either."""
        held = (Item.status == ItemStatus.RUNNING) & (Item.attempts == claim)
        return self._settle_if(s, job_id, item_id, held, ItemStatus.DONE, None, verdict, evidence, counters)

    def settle_failed(
        self,
        s: Session,
        job_id: str,
        item_id: str,
        *,
        verdict: dict[str, Any],
        evidence: dict[str, Any],
        error: str,
    ) -> bool:
        """In the caller's transaction (with the decision's events): an item that failed for good
        `failed`, with its default-deny verdict, unless a delivery settled it meanwhile."""
        unsettled = Item.status.in_(UNSETTLED_ITEMS)
        return self._settle_if(
            s, job_id, item_id, unsettled, ItemStatus.FAILED, error, verdict, evidence, None
        )

    def _settle_if(
        self,
        s: Session,
        job_id: str,
        item_id: str,
        held: ColumnElement[bool],
        status: ItemStatus,
        error: str | None,
        verdict: dict[str, Any],
        evidence: dict[str, Any],
        counters: dict[str, Any] | None,
    ) -> bool:
        """The item to `status` and its verdict stored, if the item is still as `held` says."""
        settled = s.execute(
            update(Item)
            .where(Item.id == item_id, held)
            .values(status=status, updated_at=utcnow(), error=None if error is None else error[:4000])
        )
        if not settled.rowcount:  # type: ignore[attr-defined]
            return False
        upsert(
            s,
            VerdictRow.__table__,
            [
                {
                    "item_id": item_id,
                    "job_id": job_id,
                    "status": verdict["status"],
                    "severity": verdict.get("severity"),
                    "logic_version": verdict.get("logic_version", LOGIC_VERSION),
                    "verdict": verdict,
                    "evidence": evidence,
                    "counters": counters,
                    "decided_at": utcnow(),
                }
            ],
            conflict=["item_id", "logic_version"],
            update=["status", "severity", "verdict", "evidence", "counters", "decided_at"],
        )
        return True

    def has_unsettled(self, job_id: str) -> bool:
        """Whether any of the job's items still waits for its verdict (the writer's fan-in, asked
        after every verdict: one probe of the (job, status) index, whatever the job's size)."""
        with self.sessions() as s:
            probe = select(Item.id).where(Item.job_id == job_id, Item.status.in_(UNSETTLED_ITEMS)).limit(1)
            return s.scalar(probe) is not None

    def has_items(self, job_id: str) -> bool:
        with self.sessions() as s:
            return s.scalar(select(Item.id).where(Item.job_id == job_id).limit(1)) is not None

    def unsettled_item_ids(self, job_id: str) -> list[str]:
        """The ids of the job's unsettled items, in input order (what the expansion fans out),
        without loading the items themselves."""
        with self.sessions() as s:
            q = select(Item.id).where(Item.job_id == job_id, Item.status.in_(UNSETTLED_ITEMS))
            return list(s.scalars(q.order_by(Item.position)))

    def verdicts(self, job_id: str) -> list[tuple[Item, VerdictRow | None]]:
        """Every item of the job with its verdict under today's logic (None: not yet), in input
        order."""
        return list(self.iter_verdicts(job_id))

    def iter_verdicts(self, job_id: str, *, chunk: int = 500) -> Iterator[tuple[Item, VerdictRow | None]]:
        """`verdicts`, read `chunk` rows at a time: a job's summary tallies 100,000 references
        without holding their evidence all at once."""
        with self.sessions() as s:
            result = s.execute(
                select(Item, VerdictRow)
                .outerjoin(
                    VerdictRow, (VerdictRow.item_id == Item.id) & (VerdictRow.logic_version == LOGIC_VERSION)
                )
                .where(Item.job_id == job_id)
                .order_by(Item.position)
                .execution_options(yield_per=chunk)
            )
            for row in result:
                yield row[0], row[1]
            s.expunge_all()

    def newest_verdicts(self, job_id: str) -> list[tuple[Item, VerdictRow | None]]:
        """Every item of the job with its newest stored verdict, whatever logic version decided it
        (what a replay recomputes), in input order."""
        with self.sessions() as s:
            rows = s.execute(
                select(Item, VerdictRow)
                .outerjoin(VerdictRow, VerdictRow.item_id == Item.id)
                .where(Item.job_id == job_id)
                .order_by(Item.position, VerdictRow.decided_at, VerdictRow.id)
            ).all()
        newest: dict[str, tuple[Item, VerdictRow | None]] = {}
        for item, row in rows:
            newest[item.id] = (item, row)  # ordered by decision time: the last one wins
        return sorted(newest.values(), key=lambda pair: pair[0].position)

    def progress(self, job_id: str) -> JobProgress:
        job = self.job(job_id)
        if job is None:
            raise KeyError(job_id)
        counts = read_counts(self.engine, job_id, logic_version=LOGIC_VERSION)  # as `aletheia status`
        return JobProgress(
            job_id=job_id,
            status=job.status,
            total=sum(counts.items.values()),
            done=counts.items.get(ItemStatus.DONE, 0),
            failed=counts.items.get(ItemStatus.FAILED, 0),
            pending=sum(counts.items.get(status, 0) for status in UNSETTLED_ITEMS),
            by_verdict=counts.verdicts,
        )


class SqlRawCache:
    """The raw-payload cache, in the `source_records` table (implements `RawCache`)."""

    def __init__(
        self,
        engine: Engine,
        *,
        ttl: float,
        negative_ttl: float,
        ttls_by_namespace: Mapping[str, tuple[float, float]] | None = None,
    ) -> None:
        self.sessions = session_factory(engine)
        self.threads = database_threads(engine)
        self.ttl = timedelta(seconds=ttl)
        self.negative_ttl = timedelta(seconds=negative_ttl)
        # Namespaces kept longer (venue registries' answers: `cache.namespace_ttls`).
        self.ttls_by_namespace = dict(ttls_by_namespace or {})

    # The sources' event loop never waits on the database: the synchronous SQLAlchemy calls run
    # in the database threads (`database_threads`), the loop serves other requests meanwhile.
    async def get(self, source: str, key: str) -> CachedRaw | None:
        return await off_loop(self.threads, self.get_sync, source, key)

    async def put(self, source: str, key: str, raw: Any, *, found: bool, url: str | None = None) -> None:
        await off_loop(self.threads, functools.partial(self.put_sync, found=found, url=url), source, key, raw)

    def get_sync(self, source: str, key: str) -> CachedRaw | None:
        with self.sessions() as s:
            row = s.scalar(
                select(SourceRecordRow).where(SourceRecordRow.source == source, SourceRecordRow.key == key)
            )
        if row is None:
            return None
        fetched = as_utc(row.fetched_at)
        default = self.ttl if row.found else self.negative_ttl
        ttl = timedelta(
            seconds=namespace_ttl(
                self.ttls_by_namespace, key, found=row.found, default=default.total_seconds()
            )
        )
        if utcnow() - fetched > ttl:
            return None
        return CachedRaw(raw=row.raw, fetched_at=fetched, found=row.found, url=row.url)

    def put_sync(self, source: str, key: str, raw: Any, *, found: bool, url: str | None = None) -> None:
        with self.sessions.begin() as s:
            upsert(
                s,
                SourceRecordRow.__table__,
                [
                    {
                        "source": source,
                        "key": key[:600],
                        "found": found,
                        "raw": raw,
                        "url": url,
                        "fetched_at": utcnow(),
                    }
                ],
                conflict=["source", "key"],
                update=["found", "raw", "url", "fetched_at"],
            )
