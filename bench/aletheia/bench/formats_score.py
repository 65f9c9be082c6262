"""Scoring the formats bench: each entry's verdict class per format against its class in the `.bib`
run (the main figure and the bar, issue 20), the sets summed, and the report's tables.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aletheia.bench.formats_evidence import (
    FLAGGED_BAR_POINTS,
    SAME_CLASS_BAR,
    combine_without,
    format_evidence_table,
    pct,
    without_evidence,
)
from aletheia.bench.formats_sets import SourceSet
from aletheia.bench.realbib_bench import PROCESS_REASONS
from aletheia.core.records import CitedReference
from aletheia.core.verdicts import VerdictStatus

__all__ = ["FormatRun", "combine", "format_report", "format_table", "score", "verdict_class"]


def verdict_class(verdict: Any) -> str:
    if verdict.flagged:
        return "flagged"
    if verdict.status == VerdictStatus.METADATA_ERROR:
        return "minor"
    return str(verdict.status.value)


@dataclass
class FormatRun:
    """One format of one set: what was read and how each entry came out."""

    fmt: str
    parsed: int
    problems: int
    unmatched: list[tuple[CitedReference, Any]]
    by_entry: dict[str, list[tuple[CitedReference, Any]]]
    render_seconds: float
    verify_seconds: float
    tool_log: str

    def entry_class(self, key: str) -> str:
        hits = self.by_entry.get(key, [])
        if not hits:
            return "missing"
        if any(v.flagged for _, v in hits):
            return "flagged"
        return verdict_class(hits[0][1])


def _reasons(verdict: Any) -> list[str]:
    return [r.value for r in verdict.reasons if r.value not in PROCESS_REASONS] or [
        f"({verdict.status.value})"
    ]


def _cited(ref: CitedReference | None) -> dict[str, Any]:
    if ref is None:
        return {}
    return {
        "title": ref.title,
        "authors": [a.display for a in ref.authors][:6],
        "year": ref.year,
        "venue": ref.venue,
        "doi": ref.doi,
        "arxiv": ref.arxiv_id,
        "origin": ref.origin,
        "raw": (ref.raw or "")[:400] or None,
    }


def score(
    source: SourceSet, runs: dict[str, FormatRun], evidence: dict[str, dict[str, str]] | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Per-format figures of one set, and one row per entry whose class differs from `.bib`.
    `evidence`: per format, the `.bib` class of each entry without the identifiers the format
    dropped (`_evidence_classes`)."""
    evidence = evidence or {}
    keys = [key for key, _ in source.entries]
    base = runs.get("bib")
    base_class = {k: base.entry_class(k) for k in keys} if base else {}
    out: dict[str, Any] = {}
    diffs: list[dict[str, Any]] = []
    for fmt, run in runs.items():
        classes = {k: run.entry_class(k) for k in keys}
        changed = [k for k in keys if base and classes[k] != base_class[k]]
        changed_reasons: Counter[str] = Counter()
        for k in changed:
            hits = run.by_entry.get(k, [])
            changed_reasons.update(_reasons(hits[0][1]) if hits else ["(no reference read)"])
            row = _diff_row(source, fmt, k, run, base, base_class[k], classes[k])
            # The .bib class with the identifiers this format dropped removed, if any.
            diffs.append(row | {"bib_class_without_dropped": evidence.get(fmt, {}).get(k)})
        figures = _figures(source, run, keys, classes)
        if base is not None and fmt != "bib":
            base_flagged = sum(c == "flagged" for c in base_class.values())
            figures |= _against_bib(keys, classes, base_class, base_flagged, changed, changed_reasons)
            figures["without_dropped_evidence"] = without_evidence(
                keys, classes, base_class, evidence.get(fmt, {})
            )
        out[fmt] = figures
    return out, diffs


def _diff_row(
    source: SourceSet,
    fmt: str,
    key: str,
    run: FormatRun,
    base: FormatRun | None,
    bib_class: str,
    entry_class: str,
) -> dict[str, Any]:
    """One entry whose class differs from its class in the `.bib` run, with what was read of it."""
    hits = run.by_entry.get(key, [])
    return {
        "set": source.name,
        "format": fmt,
        "key": key,
        "label": source.labels[key],
        "bib_class": bib_class,
        "class": entry_class,
        "references_read": len(hits),
        "reasons": _reasons(hits[0][1]) if hits else [],
        "bib_title": source.titles.get(key),
        "bib_read": _cited(base.by_entry[key][0][0]) if base and base.by_entry.get(key) else {},
        "read": _cited(hits[0][0] if hits else None),
    }


def _figures(source: SourceSet, run: FormatRun, keys: list[str], classes: dict[str, str]) -> dict[str, Any]:
    """One format's counts of one set: what was read, the classes, genuine and planted entries."""
    n = len(keys) or 1
    flagged = sum(c == "flagged" for c in classes.values())
    genuine = [k for k in keys if source.labels[k] == "genuine"]
    planted = [k for k in keys if source.labels[k] != "genuine"]
    return {
        "entries": len(keys),
        "references_read": run.parsed,
        "input_problems": run.problems,
        "entries_missing": sum(c == "missing" for c in classes.values()),
        "entries_split": sum(len(run.by_entry.get(k, [])) > 1 for k in keys),
        "references_unmatched": len(run.unmatched),
        "unmatched_flagged": sum(1 for _, v in run.unmatched if v.flagged),
        "classes": dict(Counter(classes.values()).most_common()),
        "flagged": flagged,
        "flagged_rate": round(flagged / n, 4),
        "genuine": len(genuine),
        "genuine_flagged": sum(classes[k] == "flagged" for k in genuine),
        "planted": len(planted),
        "planted_flagged": sum(classes[k] == "flagged" for k in planted),
        "planted_detected": sum(classes[k] not in ("verified", "missing") for k in planted),
        "planted_unverifiable": sum(classes[k] == "unverifiable" for k in planted),
        "render_seconds": run.render_seconds,
        "verify_seconds": run.verify_seconds,
    }


def _against_bib(
    keys: list[str],
    classes: dict[str, str],
    base_class: dict[str, str],
    base_flagged: int,
    changed: list[str],
    changed_reasons: Counter[str],
) -> dict[str, Any]:
    """A format against the `.bib` run: the same class, the flagged share's change, the bar."""
    n = len(keys) or 1
    same = sum(classes[k] == base_class.get(k) for k in keys)
    delta = 100 * (sum(c == "flagged" for c in classes.values()) - base_flagged) / n
    return {
        "same_class": same,
        "same_class_rate": round(same / n, 4),
        "flagged_delta_points": round(delta, 2),
        "meets_bar": same / n >= SAME_CLASS_BAR and abs(delta) <= FLAGGED_BAR_POINTS,
        "changes": dict(Counter(f"{base_class[k]}->{classes[k]}" for k in changed).most_common(12)),
        "changed_reasons": dict(changed_reasons.most_common(12)),
    }


_SUMMED = (
    "entries",
    "references_read",
    "input_problems",
    "entries_missing",
    "entries_split",
    "references_unmatched",
    "unmatched_flagged",
    "flagged",
    "genuine",
    "genuine_flagged",
    "planted",
    "planted_flagged",
    "planted_detected",
    "planted_unverifiable",
    "same_class",
    "render_seconds",
    "verify_seconds",
)


def combine(per_set: dict[str, dict[str, Any]], formats: Sequence[str]) -> dict[str, Any]:
    """The sets together, per format (counts summed, rates recomputed)."""
    out: dict[str, Any] = {}
    for fmt in formats:
        rows = [s[fmt] for s in per_set.values() if fmt in s]
        total: dict[str, Any] = {name: sum(r.get(name, 0) for r in rows) for name in _SUMMED}
        n = total["entries"] or 1
        total["flagged_rate"] = round(total["flagged"] / n, 4)
        if all("same_class" in r for r in rows) and fmt != "bib":
            base = sum(s["bib"]["flagged"] for s in per_set.values() if "bib" in s)
            delta = 100 * (total["flagged"] - base) / n
            total |= {
                "same_class_rate": round(total["same_class"] / n, 4),
                "flagged_delta_points": round(delta, 2),
                "meets_bar": total["same_class"] / n >= SAME_CLASS_BAR and abs(delta) <= FLAGGED_BAR_POINTS,
                "without_dropped_evidence": combine_without([r["without_dropped_evidence"] for r in rows]),
            }
        else:
            total.pop("same_class")
        out[fmt] = total
    return out


def format_table(figures: dict[str, Any]) -> list[str]:
    lines = [
        "| format | read / entries | missing, split | same class as .bib | flagged (Δ points) | "
        "genuine flagged | planted caught (flagged) | planted unverifiable | bar |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for fmt, f in figures.items():
        same = pct(f["same_class"], f["entries"]) if "same_class" in f else "—"
        delta = f" ({f['flagged_delta_points']:+.1f})" if "flagged_delta_points" in f else ""
        bar = "—" if "meets_bar" not in f else ("met" if f["meets_bar"] else "**not met**")
        lines.append(
            f"| {fmt} | {f['references_read']} / {f['entries']} | {f['entries_missing']}, "
            f"{f['entries_split']} | {same} | {pct(f['flagged'], f['entries'])}{delta} | "
            f"{pct(f['genuine_flagged'], f['genuine'])} | {pct(f['planted_flagged'], f['planted'])} | "
            f"{pct(f['planted_unverifiable'], f['planted'])} | {bar} |"
        )
    return lines


def format_report(f: dict[str, Any]) -> str:
    lines = [
        f"formats: logic {f['logic_version']}, tools {f['tools']}, CSL {f['csl']}, "
        f"limit {f['limit']}, wall {f['wall_seconds']} s"
    ]
    for name, s in f["sets"].items():
        notes = {k: v for k, v in s.items() if k != "formats"}
        lines += [
            "",
            f"## {name} {notes}",
            *format_table(s["formats"]),
            "",
            *format_evidence_table(s["formats"]),
        ]
        for fmt, g in s["formats"].items():
            lines.append(
                f"  {fmt}: render {g['render_seconds']} s, verify {g['verify_seconds']} s; "
                f"input problems {g['input_problems']}, unmatched references {g['references_unmatched']} "
                f"({g['unmatched_flagged']} flagged); classes {g['classes']}"
            )
            if g.get("changes"):
                lines.append(f"    changes vs .bib: {g['changes']}")
                lines.append(f"    reasons of the changed entries: {g['changed_reasons']}")
    lines += ["", "## all sets", *format_table(f["all"]), "", *format_evidence_table(f["all"])]
    return "\n".join(lines)
