"""`verify.verify_references`: references verified through the engine for a producer that wants
their outcomes (`aletheia fix`, the cited references of `aletheia claims`, the benchmarks) — a
bibliography job whose steps run in this process — instead of the second driver it replaces
(`evidence/stream.verify_stream`: no item rows, no audit events, no deferral; issue 31)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.bibliography import InputProblem
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import CitedReference, SourceName
from aletheia.core.verdicts import Reason, Verdict, VerdictStatus
from aletheia.pipeline.audit.events import VERDICT, audit_log_for
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.jobs import bibliography
from aletheia.pipeline.jobs.context import DEFERRED_MARK, LoopThread
from aletheia.pipeline.jobs.in_process import verify_references
from aletheia.pipeline.runtime import Runtime
from tests.unit.engine_fixtures import Gateway, offline_runtime


class Sources:
    """The sources as a script: "real" in a title is found; `defer_once` has no token the first
    time (a deferral); `fail` always raises."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.defer_once = {"c"}
        self.fail = {"e"}

    async def __call__(self, cited: CitedReference, gateway: Any, *, current_year: int) -> ReferenceOutcome:
        self.calls[cited.key] += 1
        if cited.key in self.fail:
            raise RuntimeError(f"boom on {cited.key}")
        answers: tuple[SourceAnswer, ...] = ()
        if cited.key in self.defer_once:
            self.defer_once.discard(cited.key)
            error = f"no token: {DEFERRED_MARK} for 0.010s"
            answers = (
                SourceAnswer(
                    source=SourceName.CROSSREF,
                    kind=QueryKind.DOI,
                    query="x",
                    outcome=Outcome.FAILED,
                    error=error,
                ),
            )
        status = VerdictStatus.VERIFIED if "real" in (cited.title or "") else VerdictStatus.NOT_FOUND
        verdict = Verdict(status=status, reasons=() if status == "verified" else (Reason.NO_MATCH_FOUND,))
        return ReferenceOutcome(cited=cited, verdict=verdict, evidence=Evidence(answers=answers), raw=[])


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    return offline_runtime(tmp_path, monkeypatch)


def test_outcomes_in_input_order_with_rows_trail_deferrals_and_the_failure_policy(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources = Sources()
    monkeypatch.setattr(bibliography, "verify_reference", sources)
    monkeypatch.setattr("aletheia.pipeline.jobs.inline.INLINE_MAX_BACKOFF", 0.01)
    refs: list[CitedReference | InputProblem] = [
        CitedReference(key="a", title="a real paper"),
        InputProblem(origin="refs.bib", line=3, message="unreadable entry"),
        CitedReference(key="b", title="made up"),
        CitedReference(key="c", title="real, but its source had no token"),
        CitedReference(key="e", title="a real paper nobody could check"),
    ]
    loop = LoopThread()
    try:
        run = verify_references(
            runtime,
            refs,
            input_description={"test": True},
            gateway=Gateway(),  # type: ignore[arg-type]
            runner=loop,
        )
    finally:
        loop.close()

    assert [(o.cited.key, o.verdict.status.value) for o in run.outcomes] == [
        ("a", "verified"), ("b", "not_found"), ("c", "verified"), ("e", "unverifiable"),
    ]  # fmt: skip
    assert [p.message for p in run.problems] == ["unreadable entry"]
    assert sources.calls["c"] == 2  # deferred, then run again: not recorded twice
    assert sources.calls["e"] == bibliography.MAX_ITEM_ATTEMPTS  # the step's failure policy
    job = runtime.jobs.job(run.job_id)
    assert job is not None and job.status == "done"
    rows = [(item.key, row and row.verdict["status"]) for item, row in runtime.jobs.verdicts(run.job_id)]
    assert rows == [
        ("a", "verified"),
        ("problem-2", None),
        ("b", "not_found"),
        ("c", "verified"),
        ("e", "unverifiable"),
    ]
    events = Counter(entry.event for entry in audit_log_for(runtime).entries(run.job_id))
    assert events[VERDICT] == 4
