"""The queue-backed service, as plain functions: each Celery task calls exactly one of them.

A job is a row state machine (docs/service.md):

    queued ──start──► running ──last item settled──► (report rendered) done
       │                 │
       └────────────────►┴──► failed  (the job cannot go on: unreadable input, no claim pipeline)

Items move pending -> running -> done | failed, and progress is always counted from the item rows.
Every step is idempotent, so a message delivered twice (late acknowledgement, a re-drive after a
crash) leaves the same rows and the same files as one delivery: item positions and verdicts are
upserts on their natural keys, a settled item is skipped, report files are rewritten only when
their content changes and recorded by (repository, path).

Steps talk to each other only through a `Dispatcher` (`send(task_name, *args)`), always after the
rows they depend on are committed. The workers' dispatcher publishes Celery messages; the
`InlineDispatcher` runs the same steps in this process: the embedded pipeline without the queue.
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import hashlib
import io
import json
import logging
import os
import random
import re
import tempfile
import threading
import uuid
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol, TypeVar

from sqlalchemy import case, select, text, update

from aletheia.config import Settings
from aletheia.core.bibliography.problems import InputError, InputProblem
from aletheia.core.evidence import Evidence, Outcome
from aletheia.core.records import CitedReference
from aletheia.core.verdicts import LOGIC_VERSION, Reason, Verdict, VerdictStatus
from aletheia.pipeline.audit import (
    audit_log_for,
    commit_job_trail,
    record_artifact_written,
    record_decision_events,
)
from aletheia.pipeline.evidence import ReferenceOutcome, verify_reference
from aletheia.pipeline.gateway import SourceGateway
from aletheia.pipeline.joblog import job_context
from aletheia.pipeline.report import BibtexSink, reference_json, render_html
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.verify import VerifySummary, remember_verified
from aletheia.sources.base import RateLimitedError
from aletheia.sources.ratelimit import RateLimiter, build_rate_limiter
from aletheia.storage.models import ArtifactRow, Item, ItemStatus, Job, JobStatus, Repository, utcnow

logger = logging.getLogger(__name__)

T = TypeVar("T")

# --- job kinds and task names (the interface between producers, workers and this module) ---------

KIND_BIBLIOGRAPHY = "bibliography"
KIND_CLAIM = "claim"
KIND_SWEEP = "sweep"
KIND_AUDIT = "audit"

START_BIBLIOGRAPHY = "aletheia.control.start_bibliography_job"
EXPAND_DOCUMENTS = "aletheia.parsing.expand_job"
VERIFY_ITEM = "aletheia.retrieval.verify_item"
VERIFY_CLAIM = "aletheia.evidence.verify_claim"
RENDER_REPORT = "aletheia.writer.render_report"
START_SWEEP = "aletheia.control.start_sweep"
AUDIT = "aletheia.control.audit"
REDRIVE = "aletheia.control.redrive"
REFRESH_RETRACTIONS = "aletheia.control.refresh_retractions"
COMMIT_AUDIT_ROOT = "aletheia.control.commit_audit_root"

TASK_NAMES = (
    START_BIBLIOGRAPHY, EXPAND_DOCUMENTS, VERIFY_ITEM, VERIFY_CLAIM, RENDER_REPORT,
    START_SWEEP, AUDIT, REDRIVE, REFRESH_RETRACTIONS,
)  # fmt: skip

FINISHED = (JobStatus.DONE, JobStatus.FAILED)
UNSETTLED = (ItemStatus.PENDING, ItemStatus.RUNNING)
# Extensions whose conversion is CPU-heavy: their expansion goes to the parsing pool.
HEAVY_EXTENSIONS = frozenset({".pdf", ".html", ".htm", ".docx"})
BIBLIOGRAPHY_EXTENSIONS = frozenset({".bib", ".bbl"})
CITATIONS_DIR = "docs/citations"
# Directories a sweep never descends into.
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox", "build", "dist"}
)
MAX_ITEM_ATTEMPTS = 5


class Dispatcher(Protocol):
    def send(self, task: str, *args: Any) -> None:
        """Ask for `task(*args)` to run; called only after the rows it reads are committed."""
        ...


class AsyncRunner(Protocol):
    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T: ...


Verifier = Callable[[CitedReference], Awaitable[ReferenceOutcome]]


class JobNotFound(LookupError):
    pass


class TokenDeferred(Exception):
    """A source had no rate-limit token soon enough: run the step again after `wait` seconds."""

    def __init__(self, wait: float) -> None:
        super().__init__(wait)
        self.wait = wait

    def countdown(self) -> float:
        # Jitter: every item denied at the same moment must not come back at the same moment.
        return round(self.wait * (1.0 + random.random()) + 0.05, 3)


# --- the event loop every synchronous step runs its coroutines on ---------------------------------


class LoopThread:
    """One asyncio loop in a daemon thread, shared by every task of a worker process.

    Why not `asyncio.run` per task: the gateway holds one `httpx.AsyncClient` (connection reuse),
    a `redis.asyncio` limiter bound to the loop it first connected in, and the clients' request
    coalescing windows, which batch lookups only when concurrent tasks share them. Task threads
    hand their coroutines over and wait for the result (`run`).
    """

    def __init__(self, name: str = "aletheia-loop") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()


# --- polite limits without sleeping in a worker slot ----------------------------------------------

DEFERRED_MARK = "deferred to the queue"
_DEFERRED_WAIT = re.compile(re.escape(DEFERRED_MARK) + r" for ([0-9.]+)s")


class DeferringLimiter:
    """A `RateLimiter` whose waits for a token are bounded by `max_wait`: a longer wait raises a
    `RateLimitedError` (no HTTP status, so the transport does not retry it) whose message says how
    long to wait. `deferral_wait` finds it in the evidence and the step becomes a queue retry."""

    def __init__(self, inner: RateLimiter, max_wait: float) -> None:
        self.inner = inner
        self.max_wait = max_wait

    async def try_acquire(self, bucket: str, rate: float, burst: int) -> float:
        return await self.inner.try_acquire(bucket, rate, burst)

    async def acquire(self, bucket: str, rate: float, burst: int, *, max_wait: float | None = None) -> None:
        bound = self.max_wait if max_wait is None else min(max_wait, self.max_wait)
        try:
            await self.inner.acquire(bucket, rate, burst, max_wait=bound)
        except RateLimitedError as exc:
            if exc.status_code is not None:
                raise
            wait = exc.retry_after if exc.retry_after is not None else 1.0 / rate
            raise RateLimitedError(
                exc.source,
                f"no token in {bucket!r}: {DEFERRED_MARK} for {wait:.3f}s",
                status_code=None,
                retry_after=wait,
            ) from None

    async def penalize(self, bucket: str, seconds: float) -> None:
        await self.inner.penalize(bucket, seconds)

    def slot(self, source: str, limit: int) -> AbstractAsyncContextManager[None]:
        return self.inner.slot(source, limit)

    async def aclose(self) -> None:
        await self.inner.aclose()


def deferral_wait(evidence: Evidence) -> float | None:
    """The longest wait asked for by a deferred lookup in `evidence`, or None when none was."""
    waits = []
    for answer in evidence.answers:
        if answer.outcome is Outcome.FAILED and answer.error and DEFERRED_MARK in answer.error:
            found = _DEFERRED_WAIT.search(answer.error)
            waits.append(float(found.group(1)) if found else 1.0)
    return max(waits) if waits else None


# --- the context a step runs in -------------------------------------------------------------------


@dataclass
class ServiceContext:
    runtime: Runtime
    dispatcher: Dispatcher
    runner: AsyncRunner
    verifier: Verifier | None = None
    gateway: SourceGateway | None = None
    defer_tokens: bool = True  # workers: a long wait for a token becomes a queue retry
    _gateway_cm: AbstractAsyncContextManager[SourceGateway] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    def source_gateway(self) -> SourceGateway:
        with self._lock:
            if self.gateway is None:
                self.gateway = self.runner.run(self._open_gateway())
            return self.gateway

    async def _open_gateway(self) -> SourceGateway:
        limiter: RateLimiter = build_rate_limiter(
            self.settings, max_connections=max(self.settings.redis_max_connections, 8)
        )
        if self.defer_tokens:
            limiter = DeferringLimiter(limiter, self.settings.retrieval_token_wait_seconds)
        self._gateway_cm = self.runtime.gateway(limiter=limiter)
        return await self._gateway_cm.__aenter__()

    def close(self) -> None:
        if self._gateway_cm is not None:
            self.runner.run(self._gateway_cm.__aexit__(None, None, None))
            self._gateway_cm = None
            self.gateway = None
        if isinstance(self.runner, LoopThread):
            self.runner.close()


def _run_in_job(ctx: ServiceContext, job_id: str, coro: Coroutine[Any, Any, T]) -> T:
    async def wrapped() -> T:
        with job_context(job_id):
            return await coro

    return ctx.runner.run(wrapped())


# --- submission (producers) -----------------------------------------------------------------------


@dataclass(frozen=True)
class InputDocument:
    """A submitted file, carried in the job row so any worker on any host can read it."""

    name: str
    data: bytes
    role: str = "bibliography"  # bibliography | artifact

    def as_json(self) -> dict[str, Any]:
        try:
            return {"name": self.name, "role": self.role, "text": self.data.decode("utf-8")}
        except UnicodeDecodeError:
            return {
                "name": self.name,
                "role": self.role,
                "base64": base64.b64encode(self.data).decode("ascii"),
            }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> InputDocument:
        data = obj["text"].encode("utf-8") if "text" in obj else base64.b64decode(obj["base64"])
        return cls(name=obj["name"], data=data, role=obj.get("role", "bibliography"))

    @classmethod
    def read(cls, path: Path, *, role: str = "bibliography", name: str | None = None) -> InputDocument:
        return cls(name=name or str(path), data=path.read_bytes(), role=role)


def submit_bibliography(
    runtime: Runtime,
    dispatcher: Dispatcher,
    documents: Sequence[InputDocument],
    *,
    submitted_by: str | None = None,
    parent_id: str | None = None,
    repository: str | None = None,
    job_id: str | None = None,
) -> str:
    """Create a bibliography job from the documents' contents, then ask for it to start."""
    if not documents:
        raise ValueError("a bibliography job needs at least one document")
    total = sum(len(d.data) for d in documents)
    if total > runtime.settings.max_input_bytes:
        raise ValueError(
            f"input of {total} bytes exceeds max_input_bytes ({runtime.settings.max_input_bytes})"
        )
    job_input: dict[str, Any] = {"documents": [d.as_json() for d in documents]}
    if repository is not None:
        job_input["repository"] = repository
    job_id = runtime.jobs.create_job(
        KIND_BIBLIOGRAPHY, job_input, submitted_by=submitted_by, parent_id=parent_id, job_id=job_id
    )
    dispatcher.send(START_BIBLIOGRAPHY, job_id)  # after the commit create_job made
    return job_id


def submit_claim(
    runtime: Runtime,
    dispatcher: Dispatcher,
    claim: str,
    *,
    submitted_by: str | None = None,
    hint: str | None = None,
    repository: str | Path | None = None,
) -> str:
    """A claim job; its citation artifact goes to `repository`/docs/citations (default: the job's
    report folder)."""
    claim = claim.strip()
    if not claim:
        raise ValueError("the claim is empty")
    job_input: dict[str, Any] = {"claim": claim}
    if hint:
        job_input["hint"] = hint
    if repository is not None:
        job_input["repository"] = str(Path(repository).resolve())
    job_id = runtime.jobs.create_job(KIND_CLAIM, job_input, submitted_by=submitted_by)
    runtime.jobs.add_items(job_id, [(1, claim[:80], "claim", {"claim": claim})])
    dispatcher.send(VERIFY_CLAIM, job_id)
    return job_id


def submit_sweep(
    runtime: Runtime,
    dispatcher: Dispatcher,
    repositories: Sequence[str | Path],
    *,
    submitted_by: str | None = None,
    kind: str = KIND_SWEEP,
    register: bool = True,
) -> str:
    """Re-verify every citation artifact and bibliography of each repository (one child job each)."""
    paths = sorted({str(Path(p).resolve()) for p in repositories})
    for path in paths:
        if not Path(path).is_dir():
            raise FileNotFoundError(f"not a directory: {path}")
    if register:
        register_repositories(runtime, paths)
    job_id = runtime.jobs.create_job(kind, {"repositories": paths}, submitted_by=submitted_by)
    dispatcher.send(START_SWEEP, job_id)
    return job_id


def register_repositories(runtime: Runtime, paths: Iterable[str]) -> None:
    from aletheia.storage.db import upsert

    rows = [{"path": p, "registered_at": utcnow()} for p in paths]
    with runtime.jobs.sessions.begin() as s:
        upsert(s, Repository.__table__, rows, conflict=["path"], update=[])


# --- bibliography jobs ----------------------------------------------------------------------------


def _job(runtime: Runtime, job_id: str) -> Job:
    job = runtime.jobs.job(job_id)
    if job is None:
        raise JobNotFound(job_id)
    return job


def _documents(job: Job) -> list[InputDocument]:
    return [InputDocument.from_json(d) for d in job.input.get("documents", [])]


def needs_parsing_pool(job: Job) -> bool:
    return any(Path(d.name).suffix.lower() in HEAVY_EXTENSIONS for d in _documents(job))


def start_bibliography_job(ctx: ServiceContext, job_id: str, *, in_parsing_pool: bool = False) -> None:
    """Expand the job's documents into items (here, or in the parsing pool when they are heavy)."""
    with job_context(job_id):
        job = _job(ctx.runtime, job_id)
        if job.status in FINISHED:
            return
        if not in_parsing_pool and needs_parsing_pool(job):
            ctx.dispatcher.send(EXPAND_DOCUMENTS, job_id)
            return
        expand_job(ctx, job_id)


def _cited_from_artifact(text_: str, origin: str, key: str) -> CitedReference:
    from aletheia.core.artifacts import parse_artifact
    from aletheia.core.authors import parse_name

    front = parse_artifact(text_).frontmatter
    return CitedReference(
        key=key,
        title=front.title,
        authors=tuple(parse_name(a) for a in front.authors),
        year=front.year,
        venue=front.venue,
        doi=front.doi,
        arxiv_id=front.arxiv_id,
        pmid=front.pmid,
        origin=origin,
    )


def read_references(
    documents: Sequence[InputDocument], max_bytes: int
) -> Iterator[CitedReference | InputProblem]:
    """References and problems of the documents, in order (bibliographies through the input
    parsers, citation artifacts through their frontmatter)."""
    with tempfile.TemporaryDirectory(prefix="aletheia-job-") as tmp:
        for index, doc in enumerate(documents):
            if doc.role == "artifact":
                key = Path(doc.name).stem
                try:
                    yield _cited_from_artifact(doc.data.decode("utf-8"), doc.name, key)
                except (ValueError, UnicodeDecodeError) as exc:
                    yield InputProblem(origin=doc.name, message=f"unreadable citation artifact: {exc}")
                continue
            from aletheia.pipeline.inputs import iter_references

            # The parsers detect formats by name and content: keep the name, in a folder of its own.
            folder = Path(tmp) / str(index)
            folder.mkdir()
            path = folder / (Path(doc.name).name or "input")
            path.write_bytes(doc.data)
            try:
                for ref in iter_references([str(path)], stdin=None, max_bytes=max_bytes):
                    yield _relabel(ref, str(path), doc.name)
            except InputError as exc:  # this document as a whole; the others still count
                yield InputProblem(origin=doc.name, message=str(exc).replace(str(path), doc.name))


def _relabel(ref: CitedReference | InputProblem, tmp_path: str, name: str) -> CitedReference | InputProblem:
    origin = ref.origin
    if origin and tmp_path in origin:
        return ref.model_copy(update={"origin": origin.replace(tmp_path, name)})
    return ref


def expand_job(ctx: ServiceContext, job_id: str) -> None:
    """Items from the job's input (idempotent: positions are unique), then fan out the unsettled."""
    rt = ctx.runtime
    with job_context(job_id):
        job = _job(rt, job_id)
        if job.status in FINISHED:
            return
        if not rt.jobs.items(job_id):
            try:
                entries = list(read_references(_documents(job), rt.settings.max_input_bytes))
            except Exception as exc:
                logger.exception("input of job %s is unreadable", job_id)
                rt.jobs.set_job_status(
                    job_id, JobStatus.FAILED, error=f"input error: {type(exc).__name__}: {exc}"
                )
                _notify_parent(ctx, job)
                return
            rows: list[tuple[int, str, str, dict[str, Any]]] = []
            for position, entry in enumerate(entries, 1):
                if isinstance(entry, InputProblem):
                    rows.append((position, f"problem-{position}", "problem", entry.model_dump(mode="json")))
                else:
                    rows.append((position, entry.key, "reference", entry.model_dump(mode="json")))
            rt.jobs.add_items(job_id, rows)
            with rt.jobs.sessions.begin() as s:  # problems are settled at once: nothing to verify
                s.execute(
                    update(Item)
                    .where(Item.job_id == job_id, Item.kind == "problem")
                    .values(status=ItemStatus.FAILED, error="input problem")
                )
        _transition(rt, job_id, JobStatus.QUEUED, JobStatus.RUNNING)
        pending = [it for it in rt.jobs.items(job_id) if it.status in UNSETTLED]
        logger.info("job expanded", extra={"items": len(pending)})
        for item in pending:
            ctx.dispatcher.send(VERIFY_ITEM, item.id)
        if not pending:
            ctx.dispatcher.send(RENDER_REPORT, job_id)


def _transition(runtime: Runtime, job_id: str, source: str, target: str) -> bool:
    """Compare-and-set of the job's status: only one of two racing steps wins a transition."""
    values: dict[str, Any] = {"status": target}
    if target == JobStatus.RUNNING:
        values["started_at"] = utcnow()
    if target in FINISHED:
        values["finished_at"] = utcnow()
    with runtime.jobs.sessions.begin() as s:
        result = s.execute(update(Job).where(Job.id == job_id, Job.status == source).values(**values))
        return bool(result.rowcount)  # type: ignore[attr-defined]


def verify_item(ctx: ServiceContext, item_id: str) -> None:
    """Verify one reference and record its verdict; the last one settled asks for the report.

    Raises `TokenDeferred` when a source had no token soon enough (nothing is recorded then)."""
    rt = ctx.runtime
    item = rt.jobs.item(item_id)
    if item is None:
        logger.warning("item %s does not exist", item_id)
        return
    with job_context(item.job_id):
        job = _job(rt, item.job_id)
        if job.status in FINISHED:
            return
        if item.status not in UNSETTLED:  # a second delivery of a settled item
            _maybe_finish(ctx, item.job_id)
            return
        rt.jobs.mark_item(item_id, ItemStatus.RUNNING)
        cited = CitedReference.model_validate(item.payload)
        outcome = _verify(ctx, item.job_id, cited)
        wait = deferral_wait(outcome.evidence)
        if wait is not None:
            _requeue_item(rt, item_id)
            raise TokenDeferred(wait)
        # The decision events first: a crash between the two leaves events and no verdict, and the
        # re-run appends nothing new (events are de-duplicated) before recording the verdict.
        record_decision_events(audit_log_for(rt), item.job_id, item.key, outcome, position=item.position)
        rt.jobs.record_verdict(
            item.job_id,
            item_id,
            outcome.verdict.model_dump(mode="json"),
            outcome.evidence.model_dump(mode="json"),
        )
        _run_in_job(ctx, item.job_id, remember_verified(rt, outcome))
        _maybe_finish(ctx, item.job_id)


def _verify(ctx: ServiceContext, job_id: str, cited: CitedReference) -> ReferenceOutcome:
    if ctx.verifier is not None:
        return _run_in_job(ctx, job_id, _as_coroutine(ctx.verifier(cited)))
    gateway = ctx.source_gateway()
    year = datetime.now(UTC).year
    return _run_in_job(ctx, job_id, verify_reference(cited, gateway, current_year=year))


async def _as_coroutine(awaitable: Awaitable[T]) -> T:
    return await awaitable


def _requeue_item(runtime: Runtime, item_id: str) -> None:
    # A deferral is not an attempt: give back the one `mark_item(RUNNING)` counted.
    with runtime.jobs.sessions.begin() as s:
        s.execute(
            update(Item)
            .where(Item.id == item_id, Item.status == ItemStatus.RUNNING)
            .values(
                status=ItemStatus.PENDING,
                attempts=case((Item.attempts > 0, Item.attempts - 1), else_=0),
                updated_at=utcnow(),
            )
        )


def item_failed(ctx: ServiceContext, item_id: str, error: BaseException | str, *, final: bool) -> bool:
    """After an unexpected error: True when the step should be retried, else the item is settled
    as unverifiable (default-deny: a reference nobody could check is never passed)."""
    rt = ctx.runtime
    item = rt.jobs.item(item_id)
    if item is None:
        return False
    message = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    with job_context(item.job_id):
        if not final and item.attempts < MAX_ITEM_ATTEMPTS:
            rt.jobs.mark_item(item_id, ItemStatus.PENDING, error=message)
            return True
        verdict = Verdict(
            status=VerdictStatus.UNVERIFIABLE,
            reasons=(Reason.SOURCE_UNAVAILABLE,),
            notes=(f"verification failed after {item.attempts} attempt(s): {message}"[:500],),
        )
        cited = CitedReference.model_validate(item.payload)
        record_decision_events(
            audit_log_for(rt),
            item.job_id,
            item.key,
            ReferenceOutcome(cited=cited, verdict=verdict, evidence=Evidence(), raw=[]),
            position=item.position,
        )
        rt.jobs.record_verdict(
            item.job_id, item_id, verdict.model_dump(mode="json"), Evidence().model_dump(mode="json")
        )
        rt.jobs.mark_item(item_id, ItemStatus.FAILED, error=message)
        logger.error("item failed for good: %s", message, extra={"item_id": item_id})
        _maybe_finish(ctx, item.job_id)
        return False


def _maybe_finish(ctx: ServiceContext, job_id: str) -> None:
    """Fan-in: once no item is unsettled, ask the writer for the report (twice is harmless)."""
    if ctx.runtime.jobs.progress(job_id).pending == 0:
        ctx.dispatcher.send(RENDER_REPORT, job_id)


# --- claims ---------------------------------------------------------------------------------------

CLAIM_PIPELINE_MISSING = (
    "the claim pipeline (aletheia.pipeline.claims.verify_and_cite) is not installed in this version"
)


def verify_claim(ctx: ServiceContext, job_id: str) -> None:
    rt = ctx.runtime
    with job_context(job_id):
        job = _job(rt, job_id)
        if job.status in FINISHED:
            return
        try:
            from aletheia.pipeline.claims import verify_and_cite  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            rt.jobs.set_job_status(job_id, JobStatus.FAILED, error=CLAIM_PIPELINE_MISSING)
            for item in rt.jobs.items(job_id):
                rt.jobs.mark_item(item.id, ItemStatus.FAILED, error=CLAIM_PIPELINE_MISSING)
            logger.error(CLAIM_PIPELINE_MISSING)
            return
        _transition(rt, job_id, JobStatus.QUEUED, JobStatus.RUNNING)
        gateway = ctx.source_gateway()
        root = Path(job.input.get("repository") or rt.settings.reports_path() / job_id)
        root.mkdir(parents=True, exist_ok=True)
        citation, outcome = _run_in_job(
            ctx,
            job_id,
            verify_and_cite(
                job.input["claim"],
                job.input.get("hint"),
                project_root=root,
                gateway=gateway,
                settings=rt.settings,
            ),
        )
        summary: dict[str, Any] = {"claim": job.input["claim"], "logic_version": LOGIC_VERSION}
        if citation is not None:
            artifact = Path(str(outcome))
            summary |= {"verified": True, "citation": _jsonable(citation), "artifact": str(artifact)}
            digest = hashlib.sha256(artifact.read_bytes()).hexdigest()
            record_artifact(rt, job_id, str(root), artifact, "citation", digest)
        else:  # default-deny: why it could not be proven
            summary |= {"verified": False, "conflict": _jsonable(outcome)}
        rt.jobs.set_summary(job_id, summary)
        for item in rt.jobs.items(job_id):
            rt.jobs.mark_item(item.id, ItemStatus.DONE)
        ctx.dispatcher.send(RENDER_REPORT, job_id)


def _jsonable(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return json.loads(json.dumps(asdict(value), default=str))
    return json.loads(json.dumps(value, default=str))


# --- sweeps and audits ----------------------------------------------------------------------------


def discover(repository: Path) -> list[InputDocument]:
    """The citation artifacts (docs/citations/*.md) and bibliographies (*.bib, *.bbl) of a repository."""
    found: list[InputDocument] = []
    citations = repository / CITATIONS_DIR
    if citations.is_dir():
        for path in sorted(citations.glob("*.md")):
            if path.name.lower() != "readme.md":
                found.append(
                    InputDocument.read(path, role="artifact", name=str(path.relative_to(repository)))
                )
    for dirpath, dirnames, filenames in os.walk(repository):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for filename in sorted(filenames):
            if Path(filename).suffix.lower() in BIBLIOGRAPHY_EXTENSIONS:
                path = Path(dirpath) / filename
                found.append(InputDocument.read(path, name=str(path.relative_to(repository))))
    return found


def child_job_id(parent_id: str, repository: str) -> str:
    """Deterministic, so a repeated fan-out finds the child it created before."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"aletheia:{parent_id}:{repository}").hex


def start_sweep(ctx: ServiceContext, job_id: str) -> None:
    rt = ctx.runtime
    with job_context(job_id):
        job = _job(rt, job_id)
        if job.status in FINISHED:
            return
        started: list[str] = []
        for repository in job.input.get("repositories", []):
            child = child_job_id(job_id, repository)
            if rt.jobs.job(child) is None:
                repo = Path(repository)
                documents = discover(repo) if repo.is_dir() else []
                if documents:
                    submit_bibliography(
                        rt, ctx.dispatcher, documents, submitted_by=job.submitted_by, parent_id=job_id,
                        repository=repository, job_id=child,
                    )  # fmt: skip
                else:
                    rt.jobs.create_job(
                        KIND_BIBLIOGRAPHY,
                        {"documents": [], "repository": repository},
                        parent_id=job_id,
                        job_id=child,
                    )
                    problem = (
                        "no citation artifacts or bibliographies" if repo.is_dir() else "not a directory"
                    )
                    rt.jobs.set_summary(child, {"repository": repository, "total": 0, "note": problem})
                    rt.jobs.set_job_status(child, JobStatus.DONE)
            else:
                existing = rt.jobs.job(child)
                if existing is not None and existing.status == JobStatus.QUEUED:
                    ctx.dispatcher.send(START_BIBLIOGRAPHY, child)
            started.append(child)
        _transition(rt, job_id, JobStatus.QUEUED, JobStatus.RUNNING)
        logger.info("sweep fanned out", extra={"children": len(started)})
        _maybe_finish_parent(ctx, job_id)


def children(runtime: Runtime, job_id: str) -> list[Job]:
    with runtime.jobs.sessions() as s:
        return list(s.scalars(select(Job).where(Job.parent_id == job_id).order_by(Job.created_at, Job.id)))


def _maybe_finish_parent(ctx: ServiceContext, parent_id: str) -> None:
    kids = children(ctx.runtime, parent_id)
    parent = ctx.runtime.jobs.job(parent_id)
    if parent is None or parent.status in FINISHED:
        return
    if len(kids) >= len(parent.input.get("repositories", [])) and all(k.status in FINISHED for k in kids):
        ctx.dispatcher.send(RENDER_REPORT, parent_id)


def _notify_parent(ctx: ServiceContext, job: Job) -> None:
    if job.parent_id is not None:
        _maybe_finish_parent(ctx, job.parent_id)


def start_audit(ctx: ServiceContext, *, submitted_by: str = "beat") -> str | None:
    """The weekly audit: one sweep over every registered repository and every repository holding a
    stored artifact."""
    with ctx.runtime.jobs.sessions() as s:
        paths = set(s.scalars(select(Repository.path)))
        paths |= set(s.scalars(select(ArtifactRow.repository).where(ArtifactRow.kind == "citation")))
    existing = sorted(p for p in paths if Path(p).is_dir())
    if not existing:
        logger.info("audit: no registered repository")
        return None
    job_id = submit_sweep(
        ctx.runtime, ctx.dispatcher, existing, submitted_by=submitted_by, kind=KIND_AUDIT, register=False
    )
    with ctx.runtime.jobs.sessions.begin() as s:
        s.execute(update(Repository).where(Repository.path.in_(existing)).values(last_audit_job=job_id))
    return job_id


def refresh_retractions(ctx: ServiceContext) -> int | None:
    """Reload the Retraction Watch CSV named in settings (the periodic refresh); None when unset."""
    csv = ctx.settings.retraction_watch_csv
    if not csv or not Path(csv).is_file():
        logger.info("retraction refresh skipped: ALETHEIA_RETRACTION_WATCH_CSV is not a file")
        return None
    count = ctx.runtime.load_retractions(csv)
    logger.info("retraction data refreshed", extra={"rows": count})
    return count


def commit_audit_root(ctx: ServiceContext) -> str | None:
    """The periodic Merkle commit across jobs (seed 002): every job root not yet covered."""
    info = audit_log_for(ctx.runtime).commit_global()
    return None if info is None else info.root


# --- reports (the writer) -------------------------------------------------------------------------


def job_summary(runtime: Runtime, job_id: str) -> dict[str, Any]:
    job = _job(runtime, job_id)
    if job.kind == KIND_CLAIM:
        return dict(job.summary or {}) | {"job_id": job_id, "status": job.status, "error": job.error}
    if job.kind in (KIND_SWEEP, KIND_AUDIT):
        return sweep_summary(runtime, job)
    summary = VerifySummary(job_id=job_id)
    for item, row in runtime.jobs.verdicts(job_id):
        if item.kind == "problem":
            summary.problems.append(InputProblem.model_validate(item.payload))
        elif row is not None:
            verdict = Verdict.model_validate(row.verdict)
            summary.total += 1
            summary.by_verdict[verdict.status.value] += 1
            summary.flagged += int(verdict.flagged)
    out = summary.as_json()
    out["status"] = job.status
    if job.input.get("repository"):
        out["repository"] = job.input["repository"]
    return out


def sweep_summary(runtime: Runtime, job: Job) -> dict[str, Any]:
    repositories = []
    totals: Counter[str] = Counter()
    flagged = 0
    for kid in children(runtime, job.id):
        child = job_summary(runtime, kid.id)
        totals.update(child.get("by_verdict", {}))
        flagged += int(child.get("flagged", 0))
        repositories.append(
            {"repository": kid.input.get("repository"), "job_id": kid.id, "status": kid.status,
             "total": child.get("total", 0), "by_verdict": child.get("by_verdict", {}),
             "flagged": child.get("flagged", 0), "error": kid.error}
        )  # fmt: skip
    return {
        "job_id": job.id,
        "kind": job.kind,
        "status": job.status,
        "total": sum(totals.values()),
        "by_verdict": dict(sorted(totals.items())),
        "flagged": flagged,
        "repositories": repositories,
        "logic_version": LOGIC_VERSION,
    }


def stored_reference_json(item: Item, verdict_row: Any) -> dict[str, Any]:
    """The report entry of an item, rebuilt from its stored verdict and evidence."""
    evidence = Evidence.model_validate(verdict_row.evidence)
    outcome = ReferenceOutcome(
        cited=CitedReference.model_validate(item.payload),
        verdict=Verdict.model_validate(verdict_row.verdict),
        evidence=evidence,
        raw=[],
    )
    entry = reference_json(outcome)
    if entry["match"] is not None:
        entry["match"]["sources"] = sorted({r.source.value for a in evidence.answers for r in a.records})
    return entry


def job_document(runtime: Runtime, job_id: str) -> dict[str, Any]:
    """The report of a job, from its rows: `{"summary": ..., "references": [...]}`."""
    summary = job_summary(runtime, job_id)
    references = [
        stored_reference_json(item, row)
        for item, row in runtime.jobs.verdicts(job_id)
        if item.kind == "reference" and row is not None
    ]
    return {"summary": summary, "references": references}


_LOCAL_REPOSITORY_LOCKS: dict[str, threading.Lock] = {}
_LOCAL_LOCKS_GUARD = threading.Lock()


@contextmanager
def repository_lock(runtime: Runtime, repository: str) -> Iterator[None]:
    """Serialise writes for one repository path: across hosts on PostgreSQL (an advisory lock held
    for the transaction), within the process otherwise (SQLite is single-host anyway)."""
    engine = runtime.jobs.engine
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.execute(
                text("SELECT pg_advisory_xact_lock(hashtext(:repo))"),
                {"repo": f"aletheia-writer:{repository}"},
            )
            yield
        return
    with _LOCAL_LOCKS_GUARD:
        lock = _LOCAL_REPOSITORY_LOCKS.setdefault(repository, threading.Lock())
    with lock:
        yield


def write_artifact(
    runtime: Runtime, job_id: str, repository: str, path: Path, content: str, kind: str
) -> str:
    """Write `content` atomically (unchanged content is not rewritten) and record it by path."""
    data = content.encode("utf-8")
    digest = hashlib.sha256(data).hexdigest()
    path.parent.mkdir(parents=True, exist_ok=True)
    if not (path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == digest):
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            Path(tmp).replace(path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    record_artifact(runtime, job_id, repository, path, kind, digest)
    return digest


def record_artifact(
    runtime: Runtime, job_id: str, repository: str, path: Path, kind: str, digest: str
) -> None:
    """Record a written file by path (idempotent) and append `artifact_written` to the job's trail."""
    from aletheia.storage.db import upsert

    with runtime.jobs.sessions.begin() as s:
        upsert(
            s,
            ArtifactRow.__table__,
            [{"job_id": job_id, "repository": repository, "path": str(path), "kind": kind,
              "content_hash": digest, "written_at": utcnow()}],
            conflict=["repository", "path"],
            update=["job_id", "kind", "content_hash", "written_at"],
        )  # fmt: skip
    record_artifact_written(
        audit_log_for(runtime),
        job_id,
        repository=repository,
        path=str(path),
        kind=kind,
        content_sha256=digest,
    )


def report_files(runtime: Runtime, job_id: str) -> dict[str, str]:
    """The files the writer produces for a job: name -> content (deterministic from the rows)."""
    job = _job(runtime, job_id)
    if job.kind != KIND_BIBLIOGRAPHY:
        summary = job_summary(runtime, job_id)
        summary["status"] = JobStatus.DONE
        return {"report.json": json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True) + "\n"}
    doc = job_document(runtime, job_id)
    doc["summary"]["status"] = JobStatus.DONE  # what the job is once these files exist
    files = {"report.json": json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=True) + "\n"}
    files["report.html"] = render_html(doc)
    if doc["references"]:
        buffer = io.StringIO()
        sink = BibtexSink(buffer)
        for ref in doc["references"]:
            sink.reference(ref)
        sink.summary(doc["summary"])
        files["corrected.bib"] = buffer.getvalue()
    return files


def render_report(ctx: ServiceContext, job_id: str) -> list[str]:
    """The writer: the job's report files, then the job is done (and its parent told)."""
    rt = ctx.runtime
    with job_context(job_id):
        job = _job(rt, job_id)
        if job.status in FINISHED:
            return []
        if job.kind == KIND_BIBLIOGRAPHY and rt.jobs.progress(job_id).pending:
            return []  # an early message; the last item asks again
        if job.kind in (KIND_SWEEP, KIND_AUDIT) and any(
            k.status not in FINISHED for k in children(rt, job_id)
        ):
            return []
        repository = str(job.input.get("repository") or rt.settings.reports_path())
        folder = rt.settings.reports_path() / job_id
        written = []
        with repository_lock(rt, repository):
            for name, content in sorted(report_files(rt, job_id).items()):
                kind = "bibliography" if name.endswith(".bib") else "report"
                write_artifact(rt, job_id, repository, folder / name, content, kind)
                written.append(str(folder / name))
        summary = job_summary(rt, job_id)
        summary["status"] = JobStatus.DONE
        summary["artifacts"] = written
        rt.jobs.set_summary(job_id, summary)
        commit_job_trail(rt, job_id)  # the job's Merkle root, before it is marked done
        if _transition(rt, job_id, JobStatus.RUNNING, JobStatus.DONE) or _transition(
            rt, job_id, JobStatus.QUEUED, JobStatus.DONE
        ):
            logger.info("job done", extra={"artifacts": len(written)})
        _notify_parent(ctx, job)
        return written


# --- re-drive -------------------------------------------------------------------------------------


@dataclass
class RedriveReport:
    jobs: list[str] = field(default_factory=list)
    items: int = 0
    reports: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"jobs": self.jobs, "items": self.items, "reports": self.reports}


def redrive(ctx: ServiceContext, *, older_than: float | None = None) -> RedriveReport:
    """Re-enqueue whatever an unfinished job is waiting for and has not moved for `older_than`
    seconds (default: the visibility timeout): lost messages after a crash or a broker restart."""
    rt = ctx.runtime
    age = float(rt.settings.visibility_timeout_seconds if older_than is None else older_than)
    cutoff = utcnow() - timedelta(seconds=age)
    report = RedriveReport()
    for job in rt.jobs.unfinished_jobs():
        with job_context(job.id):
            stamp = _aware(job.started_at or job.created_at)
            if job.kind == KIND_BIBLIOGRAPHY:
                if job.status == JobStatus.QUEUED:
                    if stamp <= cutoff:
                        ctx.dispatcher.send(START_BIBLIOGRAPHY, job.id)
                        report.jobs.append(job.id)
                    continue
                stale = _stale_items(rt, job.id, cutoff)
                for item_id in stale:
                    ctx.dispatcher.send(VERIFY_ITEM, item_id)
                report.items += len(stale)
                if stale:
                    report.jobs.append(job.id)
                elif rt.jobs.progress(job.id).pending == 0 and stamp <= cutoff:
                    ctx.dispatcher.send(RENDER_REPORT, job.id)
                    report.reports += 1
            elif job.kind == KIND_CLAIM and stamp <= cutoff:
                ctx.dispatcher.send(VERIFY_CLAIM, job.id)
                report.jobs.append(job.id)
            elif job.kind in (KIND_SWEEP, KIND_AUDIT) and stamp <= cutoff:
                if job.status == JobStatus.QUEUED or len(children(rt, job.id)) < len(
                    job.input.get("repositories", [])
                ):
                    ctx.dispatcher.send(START_SWEEP, job.id)
                    report.jobs.append(job.id)
                else:
                    _maybe_finish_parent(ctx, job.id)
    if report.jobs or report.reports:
        logger.warning("re-drove unfinished work", extra=report.as_json())
    return report


def _aware(ts: datetime) -> datetime:
    return ts if ts.tzinfo is not None else ts.replace(tzinfo=UTC)


def _stale_items(runtime: Runtime, job_id: str, cutoff: datetime) -> list[str]:
    """Unsettled items untouched since `cutoff`; their clock restarts so the next pass waits again."""
    with runtime.jobs.sessions.begin() as s:
        # SKIP LOCKED: two re-drives running at once split the rows instead of both sending them.
        rows = list(
            s.scalars(
                select(Item.id)
                .where(Item.job_id == job_id, Item.status.in_(UNSETTLED), Item.updated_at <= cutoff)
                .with_for_update(skip_locked=True)
            )
        )
        if rows:
            s.execute(update(Item).where(Item.id.in_(rows)).values(updated_at=utcnow()))
    return rows


# --- progress for producers -----------------------------------------------------------------------


def job_status(runtime: Runtime, job_id: str) -> dict[str, Any]:
    job = _job(runtime, job_id)
    progress = runtime.jobs.progress(job_id)
    out: dict[str, Any] = {
        "job_id": job_id,
        "kind": job.kind,
        "status": job.status,
        "submitted_by": job.submitted_by,
        "parent_id": job.parent_id,
        "total": progress.total,
        "done": progress.done,
        "failed": progress.failed,
        "pending": progress.pending,
        "by_verdict": progress.by_verdict,
        "error": job.error,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }
    if job.kind in (KIND_SWEEP, KIND_AUDIT):
        kids = children(runtime, job_id)
        out["children"] = {"total": len(kids), "finished": sum(k.status in FINISHED for k in kids)}
    if job.summary and "artifacts" in job.summary:
        out["artifacts"] = job.summary["artifacts"]
    return out


# --- the embedded dispatcher ----------------------------------------------------------------------


def run_step(ctx: ServiceContext, task: str, *args: Any) -> None:
    """Run one named step in this process (what the matching Celery task does, minus the queue)."""
    if task == START_BIBLIOGRAPHY:
        start_bibliography_job(ctx, args[0])
    elif task == EXPAND_DOCUMENTS:
        start_bibliography_job(ctx, args[0], in_parsing_pool=True)
    elif task == VERIFY_ITEM:
        verify_item(ctx, args[0])
    elif task == VERIFY_CLAIM:
        verify_claim(ctx, args[0])
    elif task == RENDER_REPORT:
        render_report(ctx, args[0])
    elif task == START_SWEEP:
        start_sweep(ctx, args[0])
    elif task == AUDIT:
        start_audit(ctx)
    elif task == REDRIVE:
        redrive(ctx, older_than=args[0] if args else None)
    elif task == REFRESH_RETRACTIONS:
        refresh_retractions(ctx)
    else:
        raise ValueError(f"unknown task {task!r}")


class InlineDispatcher:
    """Runs the steps in this process, wave by wave: the items of a wave concurrently in threads
    (their coroutines share the context's event loop), the steps they send in the next wave."""

    def __init__(self, *, concurrency: int = 16, sleep: Callable[[float], None] | None = None) -> None:
        self.queue: deque[tuple[str, tuple[Any, ...]]] = deque()
        self.concurrency = concurrency
        self.sent: list[tuple[str, tuple[Any, ...]]] = []
        self._sleep = sleep
        self._guard = threading.Lock()

    def send(self, task: str, *args: Any) -> None:
        with self._guard:
            self.queue.append((task, args))
            self.sent.append((task, args))

    def drain(self, ctx: ServiceContext) -> None:
        with concurrent.futures.ThreadPoolExecutor(
            self.concurrency, thread_name_prefix="aletheia-inline"
        ) as pool:
            while True:
                with self._guard:
                    wave = list(dict.fromkeys(self.queue))  # a step sent twice in a wave runs once
                    self.queue.clear()
                if not wave:
                    return
                for (task, args), future in zip(
                    wave, [pool.submit(run_step, ctx, t, *a) for t, a in wave], strict=True
                ):
                    try:
                        future.result()
                    except TokenDeferred as deferred:
                        (self._sleep or _sleep)(deferred.wait)
                        self.send(task, *args)


def _sleep(seconds: float) -> None:
    import time

    time.sleep(seconds)
