"""Issue 20's formats benchmark, the second figure: the entries whose `.bib` verdict rests on an
identifier the rendered format's text does not hold (`plain.bst` and `ieeetr.bst` print no DOI and
no URL) are left out, and the bar is computed again on the rest.

The main figure (`formats_score.score`) counts every entry and stays the one the bar is judged on;
this one says how much of the difference is evidence the format lost rather than text read wrongly.
An entry is left out when the `.bib` reference with exactly the identifiers the format dropped
removed gets another class than the `.bib` reference itself (`formats_bench` verifies those
stripped references against the same simulator).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from aletheia.core.records import CitedReference

__all__ = [
    "EVIDENCE_IDENTIFIERS",
    "FLAGGED_BAR_POINTS",
    "SAME_CLASS_BAR",
    "combine_without",
    "dropped_identifiers",
    "format_evidence_table",
    "pct",
    "without_evidence",
    "without_identifiers",
]

# Issue 20's bar: the same verdict class for 95% of the entries, flagged share within one point.
SAME_CLASS_BAR: Final = 0.95
FLAGGED_BAR_POINTS: Final = 1.0
# The identifiers a style may leave out of the text (the evidence the second figure accounts for).
EVIDENCE_IDENTIFIERS: Final = ("doi", "url", "arxiv_id")
_IDENTIFIER_FIELDS: Final = {"doi": ("doi",), "url": ("url",), "arxiv_id": ("eprint", "arxivid")}


def dropped_identifiers(bib: CitedReference, read: Sequence[CitedReference]) -> tuple[str, ...]:
    """The identifiers the `.bib` reading of an entry has and no reading of the rendered format does."""
    return tuple(
        name
        for name in EVIDENCE_IDENTIFIERS
        if getattr(bib, name) and not any(getattr(r, name) for r in read)
    )


def without_identifiers(ref: CitedReference, names: Sequence[str]) -> CitedReference:
    """`ref` as if its `.bib` entry had not had these identifiers."""
    update: dict[str, Any] = dict.fromkeys(names)
    if "arxiv_id" in names:
        update["arxiv_version"] = None
    gone = {field for name in names for field in _IDENTIFIER_FIELDS[name]}
    update["fields"] = {k: v for k, v in ref.fields.items() if k.lower() not in gone}
    return ref.model_copy(update=update)


def without_evidence(
    keys: Sequence[str], classes: dict[str, str], base_class: dict[str, str], evidence: dict[str, str]
) -> dict[str, Any]:
    """The second figure of a format (module docstring): the entries whose `.bib` class changes
    without the identifiers the format dropped are left out."""
    left_out = {k for k, stripped in evidence.items() if stripped != base_class.get(k)}
    kept = [k for k in keys if k not in left_out]
    n = len(kept) or 1
    same = sum(classes[k] == base_class[k] for k in kept)
    flagged = sum(classes[k] == "flagged" for k in kept)
    base_flagged = sum(base_class[k] == "flagged" for k in kept)
    delta = 100 * (flagged - base_flagged) / n
    return {
        "left_out": len(left_out),
        "entries": len(kept),
        "same_class": same,
        "same_class_rate": round(same / n, 4),
        "flagged": flagged,
        "bib_flagged": base_flagged,
        "flagged_delta_points": round(delta, 2),
        "meets_bar": same / n >= SAME_CLASS_BAR and abs(delta) <= FLAGGED_BAR_POINTS,
    }


def combine_without(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    total = {
        name: sum(r[name] for r in rows)
        for name in ("left_out", "entries", "same_class", "flagged", "bib_flagged")
    }
    n = total["entries"] or 1
    delta = 100 * (total["flagged"] - total["bib_flagged"]) / n
    return total | {
        "same_class_rate": round(total["same_class"] / n, 4),
        "flagged_delta_points": round(delta, 2),
        "meets_bar": total["same_class"] / n >= SAME_CLASS_BAR and abs(delta) <= FLAGGED_BAR_POINTS,
    }


def pct(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f}%)" if whole else "-"


def format_evidence_table(figures: dict[str, Any]) -> list[str]:
    """The second figure per format (module docstring), apart from the main table."""
    lines = [
        "| format, without entries whose .bib verdict rests on a DOI/URL/arXiv id the format "
        "dropped | left out | same class as .bib | flagged (Δ points) | bar |",
        "|---|---|---|---|---|",
    ]
    for fmt, f in figures.items():
        w = f.get("without_dropped_evidence")
        if not w:
            continue
        bar = "met" if w["meets_bar"] else "**not met**"
        lines.append(
            f"| {fmt} | {w['left_out']} | {pct(w['same_class'], w['entries'])} | "
            f"{pct(w['flagged'], w['entries'])} ({w['flagged_delta_points']:+.1f}) | {bar} |"
        )
    return lines
