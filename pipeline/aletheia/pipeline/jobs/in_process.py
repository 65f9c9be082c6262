"""A bibliography job run in this process: its steps drained by the inline dispatcher, the same
functions the queued service's tasks call, on the same rows (item rows, audit events, deferrals,
each step's failure policy). `aletheia verify` feeds a terminal from it (`pipeline/verify.py`);
`aletheia fix`, the cited references of `aletheia claims` and the benchmarks take the outcomes
themselves (`verify_references`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from aletheia.core.bibliography import InputProblem
from aletheia.core.records import CitedReference
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.jobs.context import AsyncRunner, LoopThread, ServiceContext
from aletheia.pipeline.jobs.inline import InlineDispatcher
from aletheia.pipeline.jobs.submission import ReadReferences, submit_references
from aletheia.pipeline.runtime import Runtime
from aletheia.storage.models import JobStatus

# References in flight at once. Under the sources' limits a reference spends most of its time
# waiting for a token, and the more are in flight, the more of their lookups share a batch: on
# HALLMARK dev (3 s window) 64 made 0.95 requests a reference with a wall 1.54 x the bound, 128 made
# 0.90 at 1.13 x, 256 made 0.83 at 1.45 x with a 429 (docs/benchmarks.md, section 8).
DEFAULT_CONCURRENCY = 128
T = TypeVar("T")


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

    read = run_bibliography_job(
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


def run_bibliography_job(
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
    on_read: Callable[[list[int]], None] | None = None,
) -> ReadReferences:
    """The references as a bibliography job, its steps drained in this process. `on_read`: told
    the references' positions in input order once the input is read (before any verdict)."""
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
    if on_read is not None:
        on_read(list(read.reference_positions))
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
