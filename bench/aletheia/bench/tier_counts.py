"""Counts by tier and by verification status for the benches (issue 12): the same counts as a
report's summary (`core.transparency_counts`), and a text table of tier x verdict status.

The ICLR bench also says how the references no scholarly API knows are decided
(`decisions_by_group`): per group (a non-scholarly kind, DBLP-only), how many references came out
with which verdict, tier and content type ("out_of_scope · no tier", "verified · tier 4 web · web
resource").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from aletheia.core.transparency import transparency
from aletheia.core.transparency_counts import TransparencyCounts, tier_label
from aletheia.core.verdicts import Verdict, VerdictStatus

__all__ = [
    "decision_label",
    "decisions_by_group",
    "format_tier_table",
    "matched_sources_by_tier",
    "non_scholarly_group",
    "tier_figures",
]

_VERIFICATION = ("verified", "partially_verified", "unverified")
_SHORT = {"verified": "verif", "partially_verified": "partial", "unverified": "unverif"}
# Hosts of code, models and data (the rest of a non-scholarly URL is a web page).
CODE_HOSTS = (
    "github.com",
    "github.io",
    "gitlab.com",
    "huggingface.co",
    "kaggle.com",
    "pypi.org",
    "zenodo.org",
)


def tier_figures(verdicts: Iterable[Verdict]) -> dict[str, Any]:
    """`{"by_verification_status": ..., "by_tier": [...]}`, as a report's summary has them."""
    return TransparencyCounts.of(verdicts).as_json()


def format_tier_table(figures: Mapping[str, Any], *, title: str = "by tier") -> str:
    """Tier x verdict status, with the verification statuses beside; one row per tier that decided
    something, "no tier" last, and a total row."""
    rows = list(figures.get("by_tier") or ())
    if not rows:
        return f"{title}: nothing counted"
    seen = {s for r in rows for s in r["by_verdict"]}
    statuses = [s.value for s in VerdictStatus if s.value in seen] + sorted(seen - set(VerdictStatus))
    header = ["tier", "refs", *statuses, *(_SHORT[v] for v in _VERIFICATION)]
    table = [header]
    for r in rows:
        table.append(
            [
                tier_label(r["tier"]),
                str(r["total"]),
                *(str(r["by_verdict"].get(s, "")) for s in statuses),
                *(str(r["by_verification_status"].get(v, "")) for v in _VERIFICATION),
            ]
        )
    by_status = figures.get("by_verification_status") or {}
    table.append(
        [
            "total",
            str(sum(r["total"] for r in rows)),
            *(str(sum(r["by_verdict"].get(s, 0) for r in rows)) for s in statuses),
            *(str(by_status.get(v, 0)) for v in _VERIFICATION),
        ]
    )
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = [f"{title} (tier x verdict; verification status):"]
    for row in table:
        lines.append(
            "  "
            + "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
    return "\n".join(lines)


def decision_label(verdict: Verdict) -> str:
    """The verdict, the tier with the matched work's source, and the content type: e.g.
    "verified · tier 2 scholarly (openalex)", "verified · tier 4 web (web) · web resource",
    "out_of_scope · no tier"."""
    fields = transparency(verdict)
    tier = tier_label(fields.tier)
    if verdict.match is not None:
        tier += f" ({verdict.match.source.value})"
    parts = [verdict.status.value, tier]
    if fields.content_type is not None:
        parts.append(fields.content_type.value.replace("_", " "))
    return " · ".join(parts)


def matched_sources_by_tier(verdicts: Iterable[Verdict]) -> dict[str, dict[str, int]]:
    """Per tier that decided, the sources of the matched works ("tier 2 scholarly": {"crossref":
    ...}); "(no match)" for a tier that decided without one (not_found, fabricated)."""
    out: dict[str, Counter[str]] = {}
    for verdict in verdicts:
        tier = transparency(verdict).tier
        if tier is None:
            continue
        source = verdict.match.source.value if verdict.match is not None else "(no match)"
        out.setdefault(tier_label(tier), Counter())[source] += 1
    return {label: dict(c.most_common()) for label, c in sorted(out.items())}


def non_scholarly_group(reason: str) -> str:
    """The kind of a non-scholarly reference, from `iclr_universe.non_scholarly_reason`'s words."""
    if reason.startswith(("url at ", "a web page at ")):
        host = reason.rsplit(" ", 1)[-1]
        if any(host == h or host.endswith("." + h) for h in CODE_HOSTS):
            return "code, model or data host (GitHub, Hugging Face, ...)"
        return "web page"
    if reason == "a group's web page":
        return "web page"
    if reason == "book":
        return "book (no DOI)"
    if reason == "data/software archive DOI":
        return "data/software archive DOI"
    if reason.startswith("venue "):
        return "hosting venue (GitHub, blog, website, ...)"
    if reason.startswith("title names"):
        return "model card / licence / manual"
    return reason  # "no authors, venue or identifier", "no title"


def decisions_by_group(groups: Mapping[str, str], verdicts: Mapping[str, Verdict]) -> dict[str, Any]:
    """`groups`: reference key -> group; per group, its size, `decision_label` counts and the
    reasons of its verdicts."""
    out: dict[str, Counter[str]] = {}
    reasons: dict[str, Counter[str]] = {}
    for key, group in groups.items():
        verdict = verdicts.get(key)
        if verdict is not None:
            out.setdefault(group, Counter())[decision_label(verdict)] += 1
            reasons.setdefault(group, Counter()).update(r.value for r in verdict.reasons)
    return {
        group: {
            "references": sum(c.values()),
            "decided": dict(c.most_common()),
            "reasons": dict(reasons[group].most_common()),
        }
        for group, c in sorted(out.items(), key=lambda kv: -sum(kv[1].values()))
    }
