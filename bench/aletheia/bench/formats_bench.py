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
the engine (`common.through_the_engine`) against the set's simulator. Each parsed reference is matched
back to its `.bib` entry (`formats_render.entry_of`), and an entry's *verdict class* (flagged,
verified, minor, ambiguous, unverifiable, out_of_scope; `missing` when no reference was read for
it) is compared with its class in the `.bib` run. The bar (issue 20): the same class for at least 95% of the
entries, and a flagged share within one point of the `.bib` run.

The sets are built by `formats_sets.py`, the runs scored and reported by `formats_score.py`.
Beside that main figure, and never instead of it, each format has a second one
(`formats_evidence`): without the entries whose `.bib` verdict rests on an identifier the
format's text does not hold (the DOI and URL that `plain.bst` and `ieeetr.bst` do not print).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aletheia.bench.common import (
    SimulatorProcess,
    machine,
    simulator_settings,
    through_the_engine,
    unthrottled_limits,
)
from aletheia.bench.formats_evidence import (
    dropped_identifiers,
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
    render,
    write_bib,
)
from aletheia.bench.formats_score import FormatRun, combine, score, verdict_class
from aletheia.bench.formats_sets import SETS, SourceSet, hallmark_set, iclr_set
from aletheia.core.bibliography import InputProblem
from aletheia.core.records import CitedReference
from aletheia.core.verdicts import LOGIC_VERSION


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
    outcomes = through_the_engine(refs, settings, concurrency)
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
    outcomes = through_the_engine(list(wanted.values()), settings, concurrency)
    classes = {pair: verdict_class(outcome.verdict) for pair, outcome in zip(wanted, outcomes, strict=True)}
    return {
        fmt: {key: classes[(key, names)] for key, names in dropped.items()}
        for fmt, dropped in per_format.items()
    }


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
