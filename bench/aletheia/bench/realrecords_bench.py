"""Issue 28, precision on real source records: the 261 references five ICLR 2026 submissions cite
(`../shared/data/benchmarks/iclr2026-real-records/refs.bib`, as their PDFs were parsed) checked
against the simulator serving that folder's `universe.jsonl` as it is: every work's Crossref,
OpenAlex and Semantic Scholar record is the real service's own JSON (`native`), served verbatim;
the simulator renders only what the recording did not keep (arXiv and PubMed records of works whose
`sources` name them, from the same real fields).

A service that `sources` names without a recorded answer (arXiv and PubMed always, sometimes
Crossref or OpenAlex) is served from the work's fields so that its lookups find the work, but what
it would say about the authors (and, but for arXiv, whose year is the first appearance's, the year)
is not known: its copy carries neither, so a copy of one recorded answer is never a second witness
of an author list or a date (`copies_without_witness`).

Nothing is derived from the citations, so the records disagree with them the way real records do:
first-appearance years, preprint author lists, incomplete records, works no index holds yet. The
recording holds no DBLP and no ACL Anthology answers, so those two sources are turned off (a
source the recording never asked is not a source that answered "no").

The figure is the flagged share of the 190 silver-VALID references (a VALID label says the work
exists, not that every cited field is right: each flag is read and classed in docs/benchmarks.md);
the 71 UNLINKED references are reported apart, by status, and left out of the rate.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from aletheia.bench.common import (
    SHARED_DATA,
    DataMissing,
    SimulatorProcess,
    disagreements,
    machine,
    parse_bibtex,
    simulator_settings,
    through_the_engine,
    unthrottled_limits,
)
from aletheia.bench.realbib_bench import PROCESS_REASONS
from aletheia.core.verdicts import LOGIC_VERSION
from aletheia.sources.simulator import SimulatorConfig

REAL_RECORDS_DIR = SHARED_DATA / "benchmarks" / "iclr2026-real-records"
# The services the recording never asked: off, so that their silence is not read as absence. arXiv
# too: its copy of a work would claim a one-version history (the current title only) that the real
# arXiv does not have, and a "no such id" for every preprint the recording never looked up
# (`--arxiv-copies` serves it anyway, to show what that does).
NOT_RECORDED = "arxiv,dblp,acl_anthology"
NOT_RECORDED_WITH_ARXIV = "dblp,acl_anthology"


def _labels(base: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    with (base / "labels.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            out[row["key"]] = row["label"]
    return out


def copies_without_witness(work: dict[str, Any]) -> dict[str, Any]:
    """The work with each unrecorded source's copy stripped of what only a recording could say."""
    recorded = set(work.get("native") or {})
    overrides = dict(work.get("overrides") or {})
    for source in work.get("sources") or ():
        if source in recorded:
            continue
        blank: dict[str, Any] = {"authors": []} if source == "arxiv" else {"authors": [], "year": None}
        overrides[source] = {**overrides.get(source, {}), **blank}
    return {**work, "overrides": overrides} if overrides else work


def _served_universe(base: Path, folder: Path) -> Path:
    path = folder / "universe.jsonl"
    with (base / "universe.jsonl").open(encoding="utf-8") as source, path.open("w", encoding="utf-8") as out:
        for line in source:
            if line.strip():
                out.write(json.dumps(copies_without_witness(json.loads(line))) + "\n")
    return path


def run(
    *,
    base: Path = REAL_RECORDS_DIR,
    limit: int | None = None,
    concurrency: int = 32,
    report: Path | None = None,
    keys: frozenset[str] | None = None,
    arxiv_copies: bool = False,
) -> dict[str, Any]:
    universe = base / "universe.jsonl"
    if not universe.is_file():
        raise DataMissing(f"the ICLR 2026 real records are not at {base} (../shared/data/benchmarks)")
    labels = _labels(base)
    disabled = NOT_RECORDED_WITH_ARXIV if arxiv_copies else NOT_RECORDED
    refs = parse_bibtex((base / "refs.bib").read_text(encoding="utf-8"), "refs.bib")
    if keys is not None:
        refs = [r for r in refs if r.key in keys]
    if limit is not None:
        refs = refs[:limit]
    with tempfile.TemporaryDirectory(prefix="aletheia-bench-realrecords-") as tmp:
        served = _served_universe(base, Path(tmp))
        with SimulatorProcess(served, SimulatorConfig.unlimited()) as sim:
            settings = simulator_settings(
                sim.base_url, data_dir=Path(tmp), disabled_sources=disabled, **unthrottled_limits()
            )
            requests: dict[str, Any] = {}
            started = time.perf_counter()
            outcomes = through_the_engine(refs, settings, concurrency, requests=requests)
            elapsed = time.perf_counter() - started
    by_label, flagged_reasons, lines = _tally(outcomes, labels)
    if report is not None:
        report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    valid = by_label["VALID"]
    valid_total = sum(v for k, v in valid.items() if k != "(flagged)")
    return {
        "benchmark": "realrecords-iclr2026",
        "logic_version": LOGIC_VERSION,
        "machine": machine(),
        "references": len(outcomes),
        "disabled_sources": disabled,
        "wall_seconds": round(elapsed, 2),
        "requests": requests,
        "valid": valid_total,
        "valid_flagged": valid["(flagged)"],
        "valid_flagged_rate": round(valid["(flagged)"] / valid_total, 4) if valid_total else 0.0,
        "valid_statuses": {k: v for k, v in valid.most_common() if k != "(flagged)"},
        "valid_flagged_by_reason": dict(flagged_reasons.most_common()),
        "unlinked_statuses": {k: v for k, v in by_label["UNLINKED"].most_common() if k != "(flagged)"},
        "unlinked_flagged": by_label["UNLINKED"]["(flagged)"],
    }


def _tally(
    outcomes: list[Any], labels: dict[str, str]
) -> tuple[dict[str, Counter[str]], Counter[str], list[str]]:
    """Statuses by label (and "(flagged)"), the VALID references' flagged reasons, the TSV lines."""
    by_label: dict[str, Counter[str]] = {"VALID": Counter(), "UNLINKED": Counter()}
    flagged_reasons: Counter[str] = Counter()
    lines = ["key\tlabel\tstatus\treasons\tcited title\tdisagreeing fields (cited / found / source)"]
    for outcome in outcomes:
        verdict = outcome.verdict
        label = labels.get(outcome.cited.key, "UNLINKED")
        status = verdict.status.value
        by_label[label][status] += 1
        reasons = [r.value for r in verdict.reasons if r.value not in PROCESS_REASONS]
        if verdict.flagged:
            by_label[label]["(flagged)"] += 1
            if label == "VALID":
                flagged_reasons.update(reasons or [f"({status})"])
            severity = f"/{verdict.severity.value}" if verdict.severity else ""
            lines.append(
                f"{outcome.cited.key}\t{label}\t{status}{severity}\t{','.join(reasons)}\t"
                f"{outcome.cited.title}\t{disagreements(verdict)}"
            )
    return by_label, flagged_reasons, lines


def format_report(f: dict[str, Any]) -> str:
    return "\n".join(
        [
            f"{f['benchmark']}: logic {f['logic_version']}, {f['references']} references, "
            f"wall {f['wall_seconds']} s (off, not in the recording: {f['disabled_sources']})",
            f"VALID: {f['valid_flagged']} of {f['valid']} flagged ({f['valid_flagged_rate']:.1%})  "
            f"statuses: {f['valid_statuses']}",
            f"VALID flagged by reason: {f['valid_flagged_by_reason']}",
            f"UNLINKED (not in the rate): {f['unlinked_flagged']} flagged  "
            f"statuses: {f['unlinked_statuses']}",
        ]
    )
