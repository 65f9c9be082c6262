"""`aletheia fix FILE.bib` on the embedded default: every entry verified through the engine (a
bibliography job run in this process), then the plan of edits for the values the sources
contradict (`aletheia.core.bib_fix` decides; `reports/bib_fix.py` writes).

The fixed text is the original with value spans replaced and comment lines inserted: nothing else
changes, so a file with nothing to fix comes out byte for byte the same.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from aletheia.core.bib_fix import FixPlan, plan_fix
from aletheia.core.bibliography import InputProblem, iter_bibtex
from aletheia.core.records import CitedReference
from aletheia.core.verdicts import LOGIC_VERSION, Verdict
from aletheia.pipeline.jobs.in_process import DEFAULT_CONCURRENCY
from aletheia.pipeline.jobs.in_process import verify_references as through_the_engine
from aletheia.pipeline.runtime import Runtime


def read_bibtex(text: str, origin: str) -> tuple[list[CitedReference], list[InputProblem]]:
    refs: list[CitedReference] = []
    problems: list[InputProblem] = []
    for item in iter_bibtex([text], origin=origin):
        (problems if isinstance(item, InputProblem) else refs).append(item)  # type: ignore[arg-type]
    return refs, problems


def verify_references(
    runtime: Runtime, refs: list[CitedReference], *, origin: str, concurrency: int = DEFAULT_CONCURRENCY
) -> tuple[list[tuple[CitedReference, Verdict]], dict[str, int]]:
    """Each reference's verdict, in input order, and the count by verdict: verified through the
    engine (a bibliography job run in this process: item rows, the audit trail, the steps'
    failure policy), as `aletheia verify` does."""
    run = through_the_engine(
        runtime, refs, input_description={"fix": origin}, concurrency=concurrency, submitted_by="fix"
    )
    results = [(outcome.cited, outcome.verdict) for outcome in run.outcomes]
    counts = Counter(verdict.status.value for _, verdict in results)
    return results, dict(sorted(counts.items()))


def fix_bibtex_text(
    runtime: Runtime, text: str, *, origin: str, concurrency: int = DEFAULT_CONCURRENCY
) -> tuple[FixPlan, dict[str, Any]]:
    """The plan (edits, changes, marks) and a report document for `text`."""
    refs, problems = read_bibtex(text, origin)
    results, by_verdict = verify_references(runtime, refs, origin=origin, concurrency=concurrency)
    plan = plan_fix(text, results, problems)
    report = {
        "input": origin,
        **plan.as_json(),
        "by_verdict": by_verdict,
        "problems": [p.model_dump(mode="json") for p in problems],
        "logic_version": LOGIC_VERSION,
    }
    return plan, report
