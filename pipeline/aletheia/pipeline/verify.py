"""Verify a bibliography: the service function behind `aletheia verify` and the queue's tasks.

References stream in from the input parsers and out as results, in input order, with at most
`concurrency` in flight: memory does not grow with the input. Every result is recorded in the
database (job, item, verdict with its evidence) in batches, and verified works are remembered in
the Tier-0 library for reuse.
"""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aletheia.core.bibliography import InputProblem
from aletheia.core.records import CitedReference
from aletheia.core.transparency_counts import TransparencyCounts
from aletheia.core.verdicts import LOGIC_VERSION, Verdict, VerdictStatus
from aletheia.pipeline.audit.events import audit_log_for, commit_job_trail, record_decisions
from aletheia.pipeline.documents.signals import DocumentCheck
from aletheia.pipeline.evidence.gateway import SourceGateway, request_figures, requests_by_kind
from aletheia.pipeline.evidence.gather import ReferenceOutcome, verify_reference
from aletheia.pipeline.evidence.web_tiers import NOT_LIBRARY_SOURCES
from aletheia.pipeline.jobs.kinds import JobKind
from aletheia.pipeline.reports.formats import reference_json
from aletheia.pipeline.reports.signals import refresh_predatory_list
from aletheia.pipeline.runtime import Runtime
from aletheia.storage.models import JobStatus

DEFAULT_CONCURRENCY = 32
# Outcomes finished ahead of the one to yield next, at most this many times `concurrency`.
LOOKAHEAD = 4


@dataclass
class VerifySummary:
    total: int = 0
    by_verdict: Counter[str] = field(default_factory=Counter)
    flagged: int = 0
    # ADR 004's counts next to by_verdict: by verification status and by tier (issue 12)
    transparency: TransparencyCounts = field(default_factory=TransparencyCounts)
    problems: list[InputProblem] = field(default_factory=list)
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: dict[str, Any] = field(default_factory=dict)
    job_id: str | None = None
    # Signals of the input documents themselves (a paper given as input: `document_signals`)
    document_signals: list[dict[str, Any]] = field(default_factory=list)
    # Per source, the verdicts that needed it when it could not be asked (`sources_block`)
    affected: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, verdict: Verdict) -> None:
        """Count one verdict: both paths tally through here (the in-process run as it streams, the
        queued report from the stored rows, `jobs/reports.py`)."""
        self.total += 1
        self.by_verdict[verdict.status.value] += 1
        self.flagged += int(verdict.flagged)
        self.transparency.add(verdict)
        for source in verdict.sources_unavailable:
            self.affected.setdefault(source.value, Counter())[verdict.status.value] += 1

    def as_json(self) -> dict[str, Any]:
        extra = {"document_signals": self.document_signals} if self.document_signals else {}
        return {
            "total": self.total,
            "by_verdict": dict(sorted(self.by_verdict.items())),
            "flagged": self.flagged,
            **self.transparency.as_json(),
            "problems": [p.model_dump(mode="json") for p in self.problems],
            "sources": self.sources,
            "requests": self.requests,
            "logic_version": LOGIC_VERSION,
            "job_id": self.job_id,
            **extra,
        }

    def exit_code(self) -> int:
        """1 something flagged (input problems too are listed: a duplicate key or a malformed
        entry does not hide a flagged reference, issue 20); 2 input problems and nothing flagged;
        3 only unverifiable doubts; 0 nothing flagged."""
        if self.flagged:
            return 1
        if self.problems:
            return 2
        if self.by_verdict.get(VerdictStatus.UNVERIFIABLE.value, 0):
            return 3
        return 0


async def verify_stream(
    refs: Iterable[CitedReference | InputProblem],
    gateway: SourceGateway,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    current_year: int | None = None,
    problems: list[InputProblem] | None = None,
) -> AsyncIterator[ReferenceOutcome]:
    """Yield one outcome per reference, in input order, with `concurrency` references in flight.

    A reference is started whenever one finishes, not when the oldest is yielded: one reference
    waiting for a slow source (arXiv: one request per 3 s) must not idle the others (head-of-line
    blocking), which would also leave the coalescers too few lookups to batch. Finished outcomes
    wait for their turn in a buffer of at most `LOOKAHEAD` x `concurrency` references."""
    year = current_year or datetime.now(UTC).year
    window: deque[asyncio.Task[ReferenceOutcome]] = deque()
    it = iter(refs)
    exhausted = closed = False
    running = 0

    def finished(_: asyncio.Task[ReferenceOutcome]) -> None:
        nonlocal running
        running -= 1
        refill()

    def refill() -> None:
        nonlocal exhausted, running
        while (
            not exhausted and not closed and running < concurrency and len(window) < LOOKAHEAD * concurrency
        ):
            try:
                item = next(it)
            except StopIteration:
                exhausted = True
                return
            if isinstance(item, InputProblem):
                if problems is not None:
                    problems.append(item)
                continue
            task = asyncio.create_task(verify_reference(item, gateway, current_year=year))
            running += 1
            task.add_done_callback(finished)
            window.append(task)

    refill()
    try:
        while window:
            outcome = await window.popleft()
            refill()
            yield outcome
    finally:
        closed = True
        for task in window:
            task.cancel()


class Recorder:
    """Writes outcomes to the job's rows in batches (idempotent: positions are unique per job)."""

    def __init__(self, runtime: Runtime, job_id: str, *, batch: int = 100) -> None:
        self.runtime = runtime
        self.job_id = job_id
        self.batch_size = batch
        self.pending: list[tuple[int, ReferenceOutcome]] = []
        self.audit = audit_log_for(runtime)

    def add(self, position: int, outcome: ReferenceOutcome) -> None:
        self.pending.append((position, outcome))
        if len(self.pending) >= self.batch_size:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        # The trail first: a verdict row never exists without the events that explain it.
        record_decisions(self.audit, self.job_id, [(pos, o.cited.key, o) for pos, o in self.pending])
        jobs = self.runtime.jobs
        jobs.add_items(
            self.job_id,
            [(pos, o.cited.key, "reference", o.cited.model_dump(mode="json")) for pos, o in self.pending],
        )
        by_pos = jobs.item_ids_at(self.job_id, [pos for pos, _ in self.pending])
        for pos, o in self.pending:
            jobs.record_verdict(
                self.job_id,
                by_pos[pos],
                o.verdict.model_dump(mode="json"),
                o.evidence.model_dump(mode="json"),
            )
        self.pending = []

    def commit(self) -> None:
        """Commit the job's Merkle root, and the global root when one is due."""
        commit_job_trail(self.runtime, self.job_id)


# The counters of one source in `summary.sources`, besides the verdicts its absence affected.
COUNTER_FIELDS = ("requests", "errors", "status", "rate_limited", "cache_hits", "requests_by_kind")


def gateway_counters(gateway: SourceGateway) -> dict[str, dict[str, Any]]:
    """Per source, what the in-process run's one gateway counted: requests sent, errors, 429s,
    cache hits, requests by kind, and the source's state."""
    return {
        name: {"requests": st.requests, "errors": st.errors, "status": st.status,
               "rate_limited": st.rate_limited, "cache_hits": st.cache_hits,
               "requests_by_kind": requests_by_kind(st)}
        for name, st in gateway.stats().items()
    }  # fmt: skip


def sources_block(
    counters: dict[str, dict[str, Any]], affected: dict[str, Counter[str]]
) -> dict[str, dict[str, Any]]:
    """`summary.sources`, built here for both paths: per source its counters (`COUNTER_FIELDS`) and
    the verdicts its unavailability affected (the references that list it in
    `sources_unavailable`, counted by verdict)."""
    out: dict[str, dict[str, Any]] = {}
    for name, counted in counters.items():
        hit = affected.get(name, Counter())
        out[name] = {
            **{key: counted.get(key, 0) for key in COUNTER_FIELDS},
            "affected": sum(hit.values()),
            "affected_verdicts": dict(sorted(hit.items())),
        }
    return out


async def remember_verified(runtime: Runtime, outcome: ReferenceOutcome) -> None:
    verdict: Verdict = outcome.verdict
    if verdict.status is not VerdictStatus.VERIFIED or verdict.match is None:
        return
    # Web pages, web search results and LLM suggestions are no scholarly works for the library.
    fresh = [r for r in outcome.raw if not r.from_cache and r.source not in NOT_LIBRARY_SOURCES]
    if fresh:
        await runtime.library.remember(fresh)


async def verify_to_sink(
    runtime: Runtime,
    refs: Iterable[CitedReference | InputProblem],
    sink: Any,
    *,
    input_description: dict[str, Any],
    concurrency: int = DEFAULT_CONCURRENCY,
    current_year: int | None = None,
    submitted_by: str | None = None,
    documents: DocumentCheck | None = None,
) -> VerifySummary:
    """Run the whole job in-process (the embedded default): verify, record, and feed the sink.
    `documents`: the check `refs` were read with (`iter_references(on_text=documents.observe)`),
    whose signals about the input papers join the summary."""
    summary = VerifySummary()
    job_id = runtime.jobs.create_job(JobKind.BIBLIOGRAPHY, input_description, submitted_by=submitted_by)
    summary.job_id = job_id
    runtime.jobs.set_job_status(job_id, JobStatus.RUNNING)
    recorder = Recorder(runtime, job_id)
    predatory = refresh_predatory_list(runtime.jobs.engine)  # the list `aletheia library predatory` loaded
    try:
        async with runtime.gateway() as gateway:
            position = 0
            async for outcome in verify_stream(
                refs, gateway, concurrency=concurrency, current_year=current_year, problems=summary.problems
            ):
                position += 1
                summary.add(outcome.verdict)
                recorder.add(position, outcome)
                await remember_verified(runtime, outcome)
                sink.reference(reference_json(outcome, predatory=predatory))
            summary.sources = sources_block(gateway_counters(gateway), summary.affected)
            summary.document_signals = list(documents.signals) if documents is not None else []
            summary.requests = request_figures(gateway.stats(), summary.total)
        recorder.flush()
        recorder.commit()
        runtime.jobs.set_summary(job_id, summary.as_json())
        runtime.jobs.set_job_status(job_id, JobStatus.DONE)
    except BaseException as exc:
        try:
            recorder.flush()
            recorder.commit()
        finally:
            runtime.jobs.set_job_status(job_id, JobStatus.FAILED, error=f"{type(exc).__name__}: {exc}")
        raise
    sink.summary(summary.as_json())
    return summary
