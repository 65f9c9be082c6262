"""The audit trail in the database: append-only, hash-chained events per job, Merkle commits.

`AuditLog.append(job_id, events)` numbers and chains events under a per-job lock (a PostgreSQL
advisory lock; SQLite has one writer at a time anyway), and the unique keys (job, seq) and
(job, event id) make a race or a repeated task harmless: a writer that loses a race retries on the
new tail, and an event already in the log (same job, kind and body: the same decision logged by a
task delivered twice) is skipped. `commit_job` commits the Merkle root over a job's event hashes
(at the job's end, again if events were added later); `commit_global` commits, chained to the
previous global commit, the job commits not yet covered, and appends the global root to an anchor
file outside the database when one is configured.

`audit_verify.verify_job` / `verify_all` check all of it and name the first bad event: its chain,
its commits, the global commits covering them, the anchor file, and whether the stored verdicts are
the ones the log recorded.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from aletheia.core.audit_chain import (
    GENESIS,
    AuditEntry,
    MerkleAccumulator,
    canonical_json,
    canonical_ts,
    content_hash,
    global_leaves,
    merkle_root,
    seal,
    verify_chain,
)
from aletheia.core.errors import AletheiaError
from aletheia.storage.db import session_factory
from aletheia.storage.models import AuditEvent, MerkleCommit, utcnow

logger = logging.getLogger(__name__)

GLOBAL_SCOPE = "global"
# Advisory-lock namespace of the audit trail on PostgreSQL (pg_advisory_xact_lock(int, int)).
_LOCK_NAMESPACE = 71520261
_APPEND_ATTEMPTS = 20
_IN_CHUNK = 500


class AuditChainBroken(RuntimeError, AletheiaError):
    """Refusing to commit a root over a chain that does not verify."""


@dataclass(frozen=True)
class CommitInfo:
    scope: str
    root: str
    prior: str | None
    event_count: int
    id: int


def _row_entry(row: AuditEvent) -> AuditEntry:
    return AuditEntry(
        job_id=row.job_id,
        seq=row.seq,
        ts=canonical_ts(row.ts),
        event=row.event,
        event_id=row.event_id or "",
        body=row.body,
        prev_hash=row.prev_hash,
        hash=row.hash,
    )


class AuditLog:
    def __init__(self, engine: Engine, *, anchor_file: Path | None = None) -> None:
        self.engine = engine
        self.sessions = session_factory(engine)
        self.anchor_file = anchor_file
        self._postgres = engine.dialect.name == "postgresql"
        self._local_locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    # --- locking --------------------------------------------------------------------------------

    def _local_lock(self, key: str) -> threading.Lock:
        with self._guard:
            return self._local_locks.setdefault(key, threading.Lock())

    def _db_lock(self, s: Session, key: str) -> None:
        if self._postgres:
            s.execute(
                text("SELECT pg_advisory_xact_lock(:ns, hashtext(:key))"), {"ns": _LOCK_NAMESPACE, "key": key}
            )

    # --- appending -----------------------------------------------------------------------------

    def append(self, job_id: str, events: Sequence[tuple[str, Mapping[str, Any]]]) -> int:
        """Append `(event, body)` pairs to the job's chain, in order; events already in the log are
        skipped. Returns how many were added. Safe from several threads and processes at once."""
        if not events:
            return 0
        added = self._append_retrying(job_id, events, None)
        assert added is not None  # no condition: always appended
        return added

    def append_if(
        self,
        job_id: str,
        events: Sequence[tuple[str, Mapping[str, Any]]],
        condition: Callable[[Session], bool],
    ) -> bool:
        """Append the events in the same transaction as `condition(session)`, and only if it holds:
        a verdict and the events that explain it are written together or not at all (a process
        that dies between them leaves neither; one that lost its item's claim writes neither).
        False, and nothing written, when the condition did not hold."""
        return self._append_retrying(job_id, events, condition) is not None

    def _append_retrying(
        self,
        job_id: str,
        events: Sequence[tuple[str, Mapping[str, Any]]],
        condition: Callable[[Session], bool] | None,
    ) -> int | None:
        """One transaction: `condition` (when given; None returned, nothing written, when it does
        not hold), then the events. Retried on a conflict."""
        # What is stored is exactly what is hashed: the body after a canonical JSON round trip.
        prepared = [(name, json.loads(canonical_json(dict(body)))) for name, body in events]
        last_error: Exception | None = None
        for attempt in range(_APPEND_ATTEMPTS):
            try:
                with self._local_lock(job_id), self.sessions() as s, s.begin():
                    if condition is not None and not condition(s):
                        s.rollback()  # leaves the `begin()` block with nothing to commit
                        return None
                    return self._append_locked(s, job_id, prepared)
            except (IntegrityError, OperationalError) as exc:
                # Another writer took the next seq (or wrote the same event) first, or SQLite's
                # writer lock was busy: read the new tail and try again. PostgreSQL being down is
                # an OperationalError too; after the last attempt it propagates to the caller.
                last_error = exc
                time.sleep(min(0.01 * (2**attempt), 0.5))
        assert last_error is not None
        raise last_error

    def _append_locked(self, s: Session, job_id: str, events: list[tuple[str, dict[str, Any]]]) -> int:
        self._db_lock(s, f"job:{job_id}")
        sealed_ids = [
            (name, body, content_hash({"job_id": job_id, "event": name, "body": body}))
            for name, body in events
        ]
        wanted = list(dict.fromkeys(eid for _, _, eid in sealed_ids))
        existing: set[str] = set()
        for start in range(0, len(wanted), _IN_CHUNK):
            chunk = wanted[start : start + _IN_CHUNK]
            existing.update(
                s.scalars(
                    select(AuditEvent.event_id).where(
                        AuditEvent.job_id == job_id, AuditEvent.event_id.in_(chunk)
                    )
                )
            )
        tail = s.execute(
            select(AuditEvent.seq, AuditEvent.hash)
            .where(AuditEvent.job_id == job_id)
            .order_by(AuditEvent.seq.desc())
            .limit(1)
        ).first()
        seq, prev = (tail[0], tail[1]) if tail is not None else (0, GENESIS)
        rows: list[dict[str, Any]] = []
        now = utcnow()
        for name, body, eid in sealed_ids:
            if eid in existing:
                continue
            existing.add(eid)
            seq += 1
            entry = seal(job_id=job_id, seq=seq, ts=now, event=name, body=body, prev_hash=prev)
            rows.append(
                {"job_id": job_id, "seq": seq, "ts": now, "event": name, "event_id": entry.event_id,
                 "body": body, "prev_hash": prev, "hash": entry.hash}
            )  # fmt: skip
            prev = entry.hash
        if rows:
            s.execute(insert(AuditEvent), rows)
        return len(rows)

    # --- reading -------------------------------------------------------------------------------

    def entries(self, job_id: str) -> list[AuditEntry]:
        with self.sessions() as s:
            rows = s.scalars(
                select(AuditEvent).where(AuditEvent.job_id == job_id).order_by(AuditEvent.seq, AuditEvent.id)
            )
            return [_row_entry(r) for r in rows]

    def job_ids(self) -> list[str]:
        """Every job with events or a commit, oldest first."""
        with self.sessions() as s:
            first_event = dict(
                s.execute(
                    select(AuditEvent.job_id, func.min(AuditEvent.id)).group_by(AuditEvent.job_id)
                ).all()
            )
            committed = s.scalars(select(MerkleCommit.scope).where(MerkleCommit.scope != GLOBAL_SCOPE)).all()
        order = dict(first_event)
        for job in committed:
            order.setdefault(job, 1 << 62)
        return sorted(order, key=lambda j: (order[j], j))

    def commits(self, scope: str) -> list[CommitInfo]:
        with self.sessions() as s:
            rows = s.scalars(
                select(MerkleCommit).where(MerkleCommit.scope == scope).order_by(MerkleCommit.id)
            )
            return [CommitInfo(r.scope, r.root, r.prior, r.event_count, r.id) for r in rows]

    # --- committing ----------------------------------------------------------------------------

    def commit_job(self, job_id: str) -> CommitInfo | None:
        """Commit the Merkle root over the job's events; None when there is nothing new to commit.

        Refuses (AuditChainBroken) when the chain does not verify: a root over edited events would
        make the edit look legitimate."""
        with self._local_lock(job_id), self.sessions.begin() as s:
            self._db_lock(s, f"job:{job_id}")
            # Streamed in chunks, the chain checked and the root folded as rows go by: memory stays
            # flat however many events the job has (a 100,000-reference job has about a million).
            accumulator = MerkleAccumulator()

            def streamed() -> Iterator[AuditEntry]:
                rows = s.scalars(
                    select(AuditEvent)
                    .where(AuditEvent.job_id == job_id)
                    .order_by(AuditEvent.seq)
                    .execution_options(yield_per=2000)
                )
                for row in rows:
                    entry = _row_entry(row)
                    accumulator.add(entry.hash)
                    yield entry
                    s.expunge(row)

            broken = verify_chain(streamed(), job_id=job_id)
            if broken is not None:
                raise AuditChainBroken(f"job {job_id}, event seq {broken.seq}: {broken.problem}")
            last = s.scalars(
                select(MerkleCommit)
                .where(MerkleCommit.scope == job_id)
                .order_by(MerkleCommit.id.desc())
                .limit(1)
            ).first()
            count = accumulator.count
            if not count or (last is not None and last.event_count == count):
                return None
            root = accumulator.root()
            row = MerkleCommit(
                scope=job_id,
                root=root,
                prior=last.root if last else None,
                event_count=count,
                committed_at=utcnow(),
            )
            s.add(row)
            s.flush()
            return CommitInfo(job_id, root, row.prior, row.event_count, row.id)

    def commit_global(self) -> CommitInfo | None:
        """Commit every job commit not yet covered, chained to the previous global commit; None when
        there is none. The new root is appended to the anchor file, if one is configured."""
        for attempt in range(_APPEND_ATTEMPTS):
            try:
                info = self._commit_global_once()
            except (IntegrityError, OperationalError, _LostRace):
                time.sleep(min(0.01 * (2**attempt), 0.5))
                continue
            if info is not None:
                self._anchor(info)
            return info
        raise RuntimeError("could not commit the global audit root: too much contention")

    def _commit_global_once(self) -> CommitInfo | None:
        with self.sessions() as s, s.begin():
            self._db_lock(s, "global")
            # Writing first makes this the only writer from here on under SQLite too (its writer
            # lock is taken on the first write and held to the commit).
            row = MerkleCommit(
                scope=GLOBAL_SCOPE, root=GENESIS, prior=None, event_count=0, committed_at=utcnow()
            )
            s.add(row)
            s.flush()
            previous = s.scalars(
                select(MerkleCommit)
                .where(MerkleCommit.scope == GLOBAL_SCOPE, MerkleCommit.id != row.id)
                .order_by(MerkleCommit.id.desc())
                .limit(1)
            ).first()
            covered = s.scalars(
                select(MerkleCommit)
                .where(MerkleCommit.scope != GLOBAL_SCOPE, MerkleCommit.covered_by.is_(None))
                .order_by(MerkleCommit.id)
            ).all()
            if not covered:
                s.rollback()  # leaves the `begin()` block with nothing to commit
                return None
            prior = previous.root if previous is not None else None
            ids = [c.id for c in covered]
            row.prior = prior
            row.event_count = len(covered)
            row.root = merkle_root(global_leaves(prior, [(c.scope, c.root, c.event_count) for c in covered]))
            result = s.execute(
                update(MerkleCommit)
                .where(MerkleCommit.id.in_(ids), MerkleCommit.covered_by.is_(None))
                .values(covered_by=row.id)
            )
            if result.rowcount != len(ids):  # type: ignore[attr-defined]
                raise _LostRace
            return CommitInfo(GLOBAL_SCOPE, row.root, prior, row.event_count, row.id)

    def commit_global_if_due(self, max_age_seconds: float) -> CommitInfo | None:
        with self.sessions() as s:
            last = s.scalar(
                select(func.max(MerkleCommit.committed_at)).where(MerkleCommit.scope == GLOBAL_SCOPE)
            )
        if last is not None:
            last_aware = last if last.tzinfo is not None else last.replace(tzinfo=UTC)
            if utcnow() - last_aware < timedelta(seconds=max_age_seconds):
                return None
        return self.commit_global()

    def _anchor(self, info: CommitInfo) -> None:
        if self.anchor_file is None:
            return
        line = {"id": info.id, "root": info.root, "prior": info.prior, "job_commits": info.event_count}
        self.anchor_file.parent.mkdir(parents=True, exist_ok=True)
        with self.anchor_file.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, sort_keys=True) + "\n")
            fh.flush()


class _LostRace(Exception):
    """Another global commit covered some of the same job commits first."""


def iter_event_lines(entries: Iterable[AuditEntry]) -> Iterable[str]:
    """The log as JSON lines (what `aletheia audit-log show` prints)."""
    for e in entries:
        yield json.dumps(
            {
                "seq": e.seq,
                "ts": e.ts,
                "event": e.event,
                "body": e.body,
                "hash": e.hash,
                "prev_hash": e.prev_hash,
            },
            ensure_ascii=False,
            sort_keys=True,
        )
