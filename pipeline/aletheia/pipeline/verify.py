"""`aletheia verify` on the embedded default: the bibliography job's steps, run in this process.

The references the command read become a job (`jobs/submission.submit_references`), and the inline
dispatcher runs the steps the queued service's workers run — expand, `verify_item` per reference,
the writer's `render_report` — on the same rows. The terminal is fed each reference as its verdict
is recorded, in input order, then the summary `aletheia report JOB` would give.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from aletheia.core.bibliography import InputProblem
from aletheia.core.records import CitedReference
from aletheia.pipeline.documents.signals import DocumentCheck
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.jobs.context import AsyncRunner, LoopThread, ServiceContext
from aletheia.pipeline.jobs.documents import bibliography_exit_code
from aletheia.pipeline.jobs.inline import InlineDispatcher
from aletheia.pipeline.jobs.reports import job_summary, reference_entry
from aletheia.pipeline.jobs.submission import ReadReferences, submit_references
from aletheia.pipeline.runtime import Runtime
from aletheia.storage.models import JobStatus

DEFAULT_CONCURRENCY = 32
T = TypeVar("T")


@dataclass
class VerifyRun:
    """What `aletheia verify` ran: the job (its rows are the record), its report's summary (the
    one `aletheia report JOB` gives) and the input problems the parsers met."""

    job_id: str
    summary: dict[str, Any]
    problems: list[InputProblem]

    def exit_code(self) -> int:
        return bibliography_exit_code(self.summary)


class InputOrder:
    """Hands the sink each reference's report entry in input order as verdicts are recorded, in
    whatever order the items finish (a reference waiting for a slow source holds back only the
    lines after it, not the work)."""

    def __init__(self, sink: Any) -> None:
        self.sink = sink
        self.waiting: deque[int] = deque()
        self.ready: dict[int, dict[str, Any]] = {}
        self.guard = threading.Lock()

    def expect(self, positions: Iterable[int]) -> None:
        """The positions of the references, in input order (known once the input is read)."""
        with self.guard:
            self.waiting.extend(sorted(positions))

    def __call__(self, job_id: str, position: int, outcome: ReferenceOutcome) -> None:
        entry = reference_entry(outcome.cited, outcome.verdict, outcome.evidence)
        with self.guard:  # items finish on the dispatcher's threads
            self.ready[position] = entry
            while self.waiting and self.waiting[0] in self.ready:
                self.sink.reference(self.ready.pop(self.waiting.popleft()))


def verify_to_sink(
    runtime: Runtime,
    refs: Iterable[CitedReference | InputProblem],
    sink: Any,
    *,
    input_description: dict[str, Any],
    concurrency: int = DEFAULT_CONCURRENCY,
    submitted_by: str | None = None,
    documents: DocumentCheck | None = None,
) -> VerifyRun:
    """`aletheia verify` (the embedded default): the references, read by the caller, become a
    bibliography job, and its steps run in this process through the inline dispatcher — the same
    functions the queued service's tasks call (expand, `verify_item` per reference, the writer's
    `render_report`), on the same rows. The sink is fed each reference as it is decided, in input
    order, then the report's summary, built from the rows as `aletheia report JOB` builds it.
    `documents`: the check `refs` were read with, whose signals about the input papers join the
    summary."""

    order = InputOrder(sink)
    read = _run_job(
        runtime,
        refs,
        order,
        input_description=input_description,
        concurrency=concurrency,
        submitted_by=submitted_by,
        document_signals=lambda: list(documents.signals) if documents is not None else [],
    )
    # The summary alone, from the rows (the sink adds the document-level signals from the
    # references it was given, as `aletheia report` does): nothing holds the whole job at once.
    summary = job_summary(runtime, read.job_id)
    sink.summary(summary)
    return VerifyRun(job_id=read.job_id, summary=summary, problems=read.problems)


@dataclass
class EngineRun:
    """References verified through the engine: the job that holds their rows and trail, and each
    reference's outcome in input order (input problems are kept apart, as the parsers gave them)."""

    job_id: str
    outcomes: list[ReferenceOutcome]
    problems: list[InputProblem]


def verify_references(
    runtime: Runtime,
    refs: Iterable[CitedReference | InputProblem],
    *,
    input_description: dict[str, Any],
    concurrency: int = DEFAULT_CONCURRENCY,
    gateway: SourceGateway | None = None,
    runner: AsyncRunner | None = None,
    submitted_by: str | None = None,
) -> EngineRun:
    """Every reference through the engine — a bibliography job whose steps run in this process
    (item rows, audit events, deferrals, the steps' failure policy) — for a producer that wants
    the outcomes themselves: `aletheia fix`, the cited references of `aletheia claims` (inside its
    step, on the queue too) and the benchmarks (on a store of their own). `gateway`: an open one
    to ask (else the runtime's, opened and closed here); `runner`: the event loop it was opened on
    and the steps' coroutines share (else a loop of this run's own)."""
    outcomes: dict[int, ReferenceOutcome] = {}
    guard = threading.Lock()

    def collect(_job_id: str, position: int, outcome: ReferenceOutcome) -> None:
        with guard:  # items finish on the dispatcher's threads
            outcomes[position] = outcome

    read = _run_job(
        runtime,
        refs,
        collect,
        input_description=input_description,
        concurrency=concurrency,
        submitted_by=submitted_by,
        gateway=gateway,
        runner=runner,
    )
    return EngineRun(
        job_id=read.job_id,
        outcomes=[outcomes[position] for position in read.reference_positions if position in outcomes],
        problems=read.problems,
    )


class _SharedRunner:
    """A runner lent by the caller: used, never closed here (`ServiceContext.close` closes a
    `LoopThread` of its own)."""

    def __init__(self, inner: AsyncRunner) -> None:
        self.inner = inner

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        return self.inner.run(coro, timeout)


def _run_job(
    runtime: Runtime,
    refs: Iterable[CitedReference | InputProblem],
    on_verdict: Callable[[str, int, ReferenceOutcome], None],
    *,
    input_description: dict[str, Any],
    concurrency: int,
    submitted_by: str | None,
    document_signals: Callable[[], list[dict[str, Any]]] = list,
    gateway: SourceGateway | None = None,
    runner: AsyncRunner | None = None,
) -> ReadReferences:
    """The references as a bibliography job, its steps drained in this process."""
    dispatcher = InlineDispatcher(concurrency=concurrency)
    ctx = ServiceContext(
        runtime=runtime,
        dispatcher=dispatcher,
        runner=LoopThread() if runner is None else _SharedRunner(runner),
        gateway=gateway,
        defer_tokens=False,
        on_verdict=on_verdict,
    )
    read = submit_references(
        runtime,
        dispatcher,
        refs,
        input_description=input_description,
        document_signals=document_signals,
        submitted_by=submitted_by,
    )
    if isinstance(on_verdict, InputOrder):
        on_verdict.expect(read.reference_positions)
    try:
        dispatcher.drain(ctx)
    except BaseException as exc:
        runtime.jobs.set_job_status(read.job_id, JobStatus.FAILED, error=f"{type(exc).__name__}: {exc}")
        raise
    finally:
        if gateway is not None:
            ctx.gateway = None  # the caller's, closed by the caller
        ctx.close()
    return read
