"""A bibliography job's summary, tallied from its verdicts: counts by verdict, ADR 004's
transparency counts, input problems, and per source its counters and the verdicts its absence
affected. `aletheia verify` and `aletheia report` read the same one (`jobs/reports.py` builds it from
the stored rows for both).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from aletheia.core.bibliography import InputProblem
from aletheia.core.transparency_counts import TransparencyCounts
from aletheia.core.verdicts import LOGIC_VERSION, Verdict, VerdictStatus


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
        return summary_exit_code(
            {"flagged": self.flagged, "problems": self.problems, "by_verdict": self.by_verdict}
        )


def summary_exit_code(summary: dict[str, Any]) -> int:
    """`aletheia verify`'s and `aletheia report`'s exit code from a bibliography summary: 1
    something flagged (input problems too are listed: a duplicate key or a malformed entry does not
    hide a flagged reference, issue 20); 2 input problems and nothing flagged; 3 only unverifiable
    doubts; 0 nothing flagged."""
    if int(summary.get("flagged") or 0):
        return 1
    if summary.get("problems"):
        return 2
    return 3 if int((summary.get("by_verdict") or {}).get(VerdictStatus.UNVERIFIABLE.value, 0)) else 0


# The counters of one source in `summary.sources`, besides the verdicts its absence affected.
COUNTER_FIELDS = ("requests", "errors", "status", "rate_limited", "cache_hits", "requests_by_kind")


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
