"""`aletheia verify` on the embedded default: the bibliography job's steps, run in this process.

The references the command read become a job (`jobs/submission.submit_references`), and the inline
dispatcher runs the steps the queued service's workers run — expand, `verify_item` per reference,
the writer's `render_report` — on the same rows. The terminal is fed each reference as its verdict
is recorded, in input order, then the summary `aletheia report JOB` would give.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from aletheia.core.bibliography import InputProblem
from aletheia.core.records import CitedReference
from aletheia.pipeline.documents.signals import DocumentCheck
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.jobs.documents import bibliography_exit_code
from aletheia.pipeline.jobs.in_process import DEFAULT_CONCURRENCY, run_bibliography_job
from aletheia.pipeline.jobs.reports import job_summary, reference_entry
from aletheia.pipeline.runtime import Runtime


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
    read = run_bibliography_job(
        runtime,
        refs,
        order,
        input_description=input_description,
        concurrency=concurrency,
        submitted_by=submitted_by,
        document_signals=lambda: list(documents.signals) if documents is not None else [],
        on_read=order.expect,
    )
    # The summary alone, from the rows (the sink adds the document-level signals from the
    # references it was given, as `aletheia report` does): nothing holds the whole job at once.
    summary = job_summary(runtime, read.job_id)
    sink.summary(summary)
    return VerifyRun(job_id=read.job_id, summary=summary, problems=read.problems)
