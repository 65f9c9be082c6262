"""Issue 20, "every format read right": the same references as `.bib`, as `.bbl` (real `bibtex`,
`plain` and `ieeetr` styles), as a reference list rendered by `pandoc --citeproc` (plain text
and Markdown, Chicago author-date) and as a PDF's References section in natbib's `plainnat` (the
NeurIPS and ICLR style, typeset by `pdflatex`; issue 28) must get the same verdicts.

Two source sets, each verified against the universe and simulator settings of its own benchmark
(nothing is invented here):

- `iclr`: the 742 author-written ICLR 2026 references (`iclr_bench`: real records where the
  recording has them, the measured noise elsewhere, no work for non-scholarly references), written
  as an author's `.bib` (`formats_render.reference_bibtex`); all genuine;
- `hallmark`: HALLMARK dev (`hallmark_bench`: 513 VALID, 606 with a planted error), its entries
  as the data set gives them. Entries that do not parse on their own (unbalanced braces) are left
  out of every format: they are input problems, not verdicts.

For each format the rendered file is read as `aletheia verify FILE` reads it
(`pipeline.inputs.iter_references`: format detection included) and every reference goes through
the engine (`common.verify_all`) against the set's simulator. Each parsed reference is matched
back to its `.bib` entry (`formats_render.entry_of`), and an entry's *verdict class* (flagged,
verified, minor, ambiguous, unverifiable, out_of_scope; `missing` when no reference was read for
it) is compared with its class in the `.bib` run. The bar (issue 20): the same class for at least 95% of the
entries, and a flagged share within one point of the `.bib` run.

Beside that main figure, and never instead of it, each format has a second one
(`formats_evidence`): without the entries whose `.bib` verdict rests on an identifier the
format's text does not hold (the DOI and URL that `plain.bst` and `ieeetr.bst` do not print).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aletheia.bench.common import (
    DataMissing,
    SimulatorProcess,
    machine,
    simulator_settings,
    unthrottled_limits,
    verify_all,
)
from aletheia.bench.formats_evidence import (
    FLAGGED_BAR_POINTS,
    SAME_CLASS_BAR,
    combine_without,
    dropped_identifiers,
    format_evidence_table,
    pct,
    without_evidence,
    without_identifiers,
)
from aletheia.bench.formats_render import (
    BBL_STYLES,
    FORMATS,
    MANAGER_FORMATS,
    PANDOC_WRITERS,
    PDF_STYLES,
    Rendered,
    ToolMissing,
    entry_of,
    missing_tools,
    reference_bibtex,
    render,
    write_bib,
)
from aletheia.bench.hallmark_bench import DATASET, build_universe, entry_bibtex, load, parse_entries
from aletheia.bench.iclr_bench import noise_model
from aletheia.bench.iclr_reader import ICLR_DIR, read_all
from aletheia.bench.iclr_universe import universe_for_iclr
from aletheia.bench.noise import TitleIndex
from aletheia.bench.realbib_bench import PROCESS_REASONS
from aletheia.core.bibliography import InputProblem
from aletheia.core.records import CitedReference
from aletheia.core.verdicts import LOGIC_VERSION, VerdictStatus

SETS = ("iclr", "hallmark")


@dataclass
class SourceSet:
    """One set ready to render and verify: `.bib` entries in order, what each entry is, and the
    simulator universe its own benchmark builds."""

    name: str
    entries: list[tuple[str, str]]  # (key, BibTeX entry)
    labels: dict[str, str]  # key -> "genuine" or the planted error's type
    titles: dict[str, str]
    records: list[dict[str, Any]]
    concurrency: int
    notes: dict[str, Any] = field(default_factory=dict)


def iclr_set(limit: int | None, seed: int = 10) -> SourceSet:
    if not (ICLR_DIR / "papers").is_dir():
        raise DataMissing(f"the ICLR 2026 bibliographies are not at {ICLR_DIR}")
    gold = read_all(ICLR_DIR)[:limit] if limit else read_all(ICLR_DIR)
    # The universe exactly as `aletheia bench realbib --iclr` builds it (same seed, same noise).
    model, real = noise_model(ICLR_DIR, gold)
    records, info = universe_for_iclr(
        gold,
        seed,
        model=model,
        real=TitleIndex(real),
        s2_published_only=model.measured["s2_published_only"]["applied"],
    )
    return SourceSet(
        name="iclr",
        entries=[(r.key, reference_bibtex(r, r.key)) for r in gold],
        labels=dict.fromkeys((r.key for r in gold), "genuine"),
        titles={r.key: r.title or "" for r in gold},
        records=records,
        concurrency=32,
        notes={"seed": seed, "non_scholarly": len(info["non_scholarly"]), "real_record": len(info["real"])},
    )


def hallmark_set(limit: int | None) -> SourceSet:

    if not DATASET.is_file():
        raise DataMissing(f"HALLMARK dev is not at {DATASET}")
    entries = load(DATASET)[:limit] if limit else load(DATASET)
    records, _ = build_universe(entries)
    _, problems = parse_entries(entries)
    kept = [e for e in entries if e["bibtex_key"] not in problems]
    return SourceSet(
        name="hallmark",
        entries=[(e["bibtex_key"], entry_bibtex(e)) for e in kept],
        labels={
            e["bibtex_key"]: "genuine" if e["label"] == "VALID" else e["hallucination_type"] for e in kept
        },
        titles={e["bibtex_key"]: e["fields"].get("title", "") for e in kept},
        records=records,
        concurrency=64,
        notes={"left_out_input_problems": len(problems)},
    )


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


def read_rendered(path: Path, max_bytes: int) -> tuple[list[CitedReference], int]:
    from aletheia.pipeline.documents.inputs import iter_references

    refs: list[CitedReference] = []
    problems = 0
    for item in iter_references([path], max_bytes=max_bytes):
        if isinstance(item, InputProblem):
            problems += 1
        else:
            refs.append(item)
    return refs, problems


def _run_format(
    rendered: Rendered, keys: frozenset[str], settings: Any, concurrency: int, render_seconds: float
) -> FormatRun:
    refs, problems = read_rendered(rendered.path, settings.max_input_bytes)
    started = time.perf_counter()
    outcomes = asyncio.run(verify_all(refs, settings, concurrency))
    verify_seconds = time.perf_counter() - started
    by_entry: dict[str, list[tuple[CitedReference, Any]]] = {}
    unmatched = []
    for ref, outcome in zip(refs, outcomes, strict=True):
        key = entry_of(ref, rendered, keys)
        if key is None:
            unmatched.append((ref, outcome.verdict))
        else:
            by_entry.setdefault(key, []).append((ref, outcome.verdict))
    return FormatRun(
        rendered.fmt,
        len(refs),
        problems,
        unmatched,
        by_entry,
        round(render_seconds, 2),
        round(verify_seconds, 2),
        rendered.log,
    )


def _evidence_classes(
    runs: dict[str, FormatRun], keys: Sequence[str], settings: Any, concurrency: int
) -> dict[str, dict[str, str]]:
    """Per format: for each entry whose identifiers the format dropped, the `.bib` class without
    them (one verification of the stripped `.bib` references, shared by the formats)."""
    base = runs.get("bib")
    if base is None:
        return {}
    wanted: dict[tuple[str, tuple[str, ...]], CitedReference] = {}
    per_format: dict[str, dict[str, tuple[str, ...]]] = {}
    for fmt, run in runs.items():
        if fmt == "bib":
            continue
        for key in keys:
            hits = base.by_entry.get(key, [])
            if not hits:
                continue
            names = dropped_identifiers(hits[0][0], [ref for ref, _ in run.by_entry.get(key, [])])
            if names:
                per_format.setdefault(fmt, {})[key] = names
                wanted.setdefault((key, names), without_identifiers(hits[0][0], names))
    if not wanted:
        return {}
    outcomes = asyncio.run(verify_all(list(wanted.values()), settings, concurrency))
    classes = {pair: verdict_class(outcome.verdict) for pair, outcome in zip(wanted, outcomes, strict=True)}
    return {
        fmt: {key: classes[(key, names)] for key, names in dropped.items()}
        for fmt, dropped in per_format.items()
    }


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
    base_flagged = sum(c == "flagged" for c in base_class.values())
    n = len(keys) or 1
    genuine = [k for k in keys if source.labels[k] == "genuine"]
    planted = [k for k in keys if source.labels[k] != "genuine"]
    out: dict[str, Any] = {}
    diffs: list[dict[str, Any]] = []
    for fmt, run in runs.items():
        classes = {k: run.entry_class(k) for k in keys}
        flagged = sum(c == "flagged" for c in classes.values())
        same = sum(classes[k] == base_class.get(k) for k in keys) if base else None
        changed = [k for k in keys if base and classes[k] != base_class[k]]
        changed_reasons: Counter[str] = Counter()
        for k in changed:
            hits = run.by_entry.get(k, [])
            changed_reasons.update(_reasons(hits[0][1]) if hits else ["(no reference read)"])
            diffs.append(
                {
                    "set": source.name,
                    "format": fmt,
                    "key": k,
                    "label": source.labels[k],
                    "bib_class": base_class[k],
                    "class": classes[k],
                    "references_read": len(hits),
                    "reasons": _reasons(hits[0][1]) if hits else [],
                    "bib_title": source.titles.get(k),
                    "bib_read": _cited(base.by_entry[k][0][0]) if base and base.by_entry.get(k) else {},
                    "read": _cited(hits[0][0] if hits else None),
                    # The .bib class with the identifiers this format dropped removed, if any.
                    "bib_class_without_dropped": evidence.get(fmt, {}).get(k),
                }
            )
        figures: dict[str, Any] = {
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
        if base is not None and same is not None and fmt != "bib":
            delta = 100 * (flagged - base_flagged) / n
            figures |= {
                "same_class": same,
                "same_class_rate": round(same / n, 4),
                "flagged_delta_points": round(delta, 2),
                "meets_bar": same / n >= SAME_CLASS_BAR and abs(delta) <= FLAGGED_BAR_POINTS,
                "changes": dict(Counter(f"{base_class[k]}->{classes[k]}" for k in changed).most_common(12)),
                "changed_reasons": dict(changed_reasons.most_common(12)),
                "without_dropped_evidence": without_evidence(
                    keys, classes, base_class, evidence.get(fmt, {})
                ),
            }
        out[fmt] = figures
    return out, diffs


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


def run_set(
    source: SourceSet, formats: Sequence[str], *, csl: Path | None = None, keep: Path | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from aletheia.sources.simulator import SimulatorConfig, universe_from_records

    keys = frozenset(key for key, _ in source.entries)
    runs: dict[str, FormatRun] = {}
    with tempfile.TemporaryDirectory(prefix=f"aletheia-bench-formats-{source.name}-") as tmp:
        work = keep / source.name if keep is not None else Path(tmp) / "render"
        work.mkdir(parents=True, exist_ok=True)
        bib = write_bib(source.entries, work)
        universe = Path(tmp) / "universe.jsonl"
        universe_from_records(source.records, universe)
        with SimulatorProcess(universe, SimulatorConfig.unlimited()) as sim:
            settings = simulator_settings(sim.base_url, data_dir=Path(tmp), **unthrottled_limits())
            for fmt in formats:
                started = time.perf_counter()
                rendered = render(bib, [k for k, _ in source.entries], fmt, csl)
                runs[fmt] = _run_format(
                    rendered, keys, settings, source.concurrency, time.perf_counter() - started
                )
            evidence = _evidence_classes(runs, [k for k, _ in source.entries], settings, source.concurrency)
    figures, diffs = score(source, runs, evidence)
    return {"universe_works": len(source.records), **source.notes, "formats": figures}, diffs


def run(
    *,
    sets: Sequence[str] = SETS,
    formats: Sequence[str] = FORMATS,
    limit: int | None = None,
    csl: Path | None = None,
    keep: Path | None = None,
    diffs_path: Path | None = None,
) -> dict[str, Any]:
    formats = ["bib", *[f for f in formats if f != "bib"]]  # the baseline is always run, first
    unknown = [f for f in formats if f not in FORMATS] + [s for s in sets if s not in SETS]
    if unknown:
        raise ValueError(f"unknown format or set: {', '.join(unknown)}")
    missing = missing_tools(formats)
    if missing:
        raise ToolMissing(
            f"not installed: {', '.join(missing)} (apt-get install texlive-binaries texlive-base pandoc "
            "texlive-latex-recommended lmodern)"
        )
    started = time.perf_counter()
    per_set: dict[str, dict[str, Any]] = {}
    all_diffs: list[dict[str, Any]] = []
    for name in sets:
        source = iclr_set(limit) if name == "iclr" else hallmark_set(limit)
        per_set[name], diffs = run_set(source, formats, csl=csl, keep=keep)
        all_diffs += diffs
    if diffs_path is not None:
        diffs_path.write_text(
            "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in all_diffs), encoding="utf-8"
        )
    return {
        "benchmark": "formats",
        "logic_version": LOGIC_VERSION,
        "machine": machine(),
        "tools": _tool_versions(formats),
        "csl": str(csl) if csl else "pandoc's built-in Chicago author-date",
        "limit": limit,
        "wall_seconds": round(time.perf_counter() - started, 1),
        "sets": per_set,
        "all": combine({k: v["formats"] for k, v in per_set.items()}, formats),
    }


def _tool_versions(formats: Sequence[str]) -> dict[str, str]:
    need = (
        {"bibtex" for f in formats if f in BBL_STYLES or f in PDF_STYLES}
        | {"pandoc" for f in formats if f in PANDOC_WRITERS or f in MANAGER_FORMATS}
        | {"pdflatex" for f in formats if f in PDF_STYLES}
    )
    versions = {}
    for tool in sorted(need):
        done = subprocess.run([tool, "--version"], capture_output=True, text=True, check=False, timeout=30)
        versions[tool] = (done.stdout.splitlines() or ["?"])[0]
    return versions


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
