"""Issue 23: HALLMARK dev with every reference's verdict written out, and under the documented
limits over a sliding window.

`aletheia bench hallmark` measures accuracy against an unthrottled simulator; this run adds what
issue 23's bars need: every verdict (`--verdicts FILE`, one JSON line per entry, so that two runs
of the same tree, batching on and off, are compared reference by reference) and, with
`--sliding-window`, the simulator counting each source's documented rate over a true window after
up to `--jitter-ms` of network jitter, the clients at their default (documented) limits. The bound
of the requests made is the busiest bucket's requests divided by its rate (`sources_bench`).
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from aletheia.bench.common import (
    SimulatorProcess,
    format_requests,
    machine,
    simulator_settings,
    through_the_engine,
    unthrottled_limits,
)
from aletheia.bench.hallmark_bench import (
    DATASET,
    INPUT_PROBLEM,
    prepare,
    score,
)
from aletheia.bench.sources_bench import bound_at_rate, documented_buckets, requests_made
from aletheia.sources.simulator import SimulatorConfig, universe_from_records


def _verdict_line(entry: dict[str, Any], verdict: Any) -> str:
    return json.dumps(
        {
            "key": entry["bibtex_key"],
            "label": entry["label"],
            "status": str(verdict.status),
            "flagged": bool(verdict.flagged),
            "reasons": sorted(str(r) for r in verdict.reasons),
        },
        ensure_ascii=False,
    )


def run(
    *,
    limit: int | None = None,
    concurrency: int = 128,
    sliding_window: bool = False,
    jitter_ms: float = 0.0,
    dataset: Path = DATASET,
    verdicts_path: Path | None = None,
    mirror_fraction: float | None = None,
    mirror_sample: bool = False,
    s2_corpus: int = 0,
) -> dict[str, Any]:
    prepared = prepare(dataset, limit)
    entries, coverage = prepared.entries, prepared.coverage
    refs, problems = prepared.refs, prepared.problems
    config = (
        SimulatorConfig.sliding_window(arrival_jitter_ms=jitter_ms)
        if sliding_window
        else SimulatorConfig.unlimited()
    ).merged({"semantic_scholar_corpus": s2_corpus})
    outcomes, requests, mirror_figures, elapsed, stats = _verify(
        prepared.records, refs, config, concurrency, sliding_window, mirror_fraction, mirror_sample
    )
    verdicts: dict[str, Any] = {o.cited.key: o.verdict for o in outcomes}
    verdicts.update(dict.fromkeys(problems, INPUT_PROBLEM))
    if verdicts_path is not None:
        verdicts_path.write_text(
            "".join(_verdict_line(e, verdicts[e["bibtex_key"]]) + "\n" for e in entries), encoding="utf-8"
        )
    figures: dict[str, Any] = {
        "benchmark": "hallmark_limits",
        "machine": machine(),
        "entries": len(entries),
        "limit_mode": "sliding" if sliding_window else "unlimited",
        "concurrency": concurrency,
        "arrival_jitter_ms": jitter_ms,
        "s2_corpus_papers": s2_corpus,
        "mirror": mirror_figures or None,
        "answered_from_mirror": sum(
            1 for o in outcomes for a in o.evidence.answers if a.mirror_snapshot is not None
        ),
        "wall_seconds": round(elapsed, 2),
        "requests": {"cold": requests},
        "status_429": stats["totals"]["status_429"],
        "simulator_by_source": _by_source(stats),
        **score(entries, verdicts, coverage),
    }
    if sliding_window:
        figures |= _bound_figures(config, stats, elapsed)
    return figures


def _verify(
    records: list[dict[str, Any]],
    refs: list[Any],
    config: SimulatorConfig,
    concurrency: int,
    sliding_window: bool,
    mirror_fraction: float | None,
    mirror_sample: bool,
) -> tuple[list[Any], dict[str, Any], dict[str, Any], float, dict[str, Any]]:
    """`refs` verified against the simulator under `config` (with a loaded mirror of a fraction of
    the universe when asked): (outcomes, requests, the mirror's figures, seconds, simulator stats)."""
    requests: dict[str, Any] = {}
    mirror_figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="aletheia-bench-") as tmp:
        universe_path = Path(tmp) / "hallmark-universe.jsonl"
        universe_from_records(records, universe_path)
        mirror = None
        if mirror_fraction is not None:
            from aletheia.bench.mirror_bench import loaded_mirror

            mirror, mirror_figures = loaded_mirror(
                universe_path,
                Path(tmp) / "mirror",
                mirror_fraction,
                sample=mirror_sample,
                s2_corpus=config.semantic_scholar_corpus,
                seed=config.seed,
            )
        with SimulatorProcess(universe_path, config) as sim:
            # Under the limits the clients keep their default (documented) politeness.
            overrides = {} if sliding_window else unthrottled_limits()
            settings = simulator_settings(sim.base_url, data_dir=Path(tmp), **overrides)
            started = time.perf_counter()
            outcomes = through_the_engine(refs, settings, concurrency, requests=requests, mirror=mirror)
            elapsed = time.perf_counter() - started
            stats = sim.stats()
    return outcomes, requests, mirror_figures, elapsed, stats


def _by_source(stats: dict[str, Any]) -> dict[str, Any]:
    """The simulator's requests of each source that was asked, by kind and by status."""
    return {
        name: {"requests": st["requests"], "by_kind": st.get("by_kind", {}), "by_status": st["by_status"]}
        for name, st in stats["sources"].items()
        if st["requests"]
    }


def _bound_figures(config: SimulatorConfig, stats: dict[str, Any], elapsed: float) -> dict[str, Any]:
    """Under the documented limits: the requests made per bucket, and the least time they allow."""
    buckets = documented_buckets(config)
    made = requests_made(stats, buckets)
    at_rate = bound_at_rate(made, buckets)
    bound = max(at_rate.values()) if at_rate else 0.0
    return {
        "requests_made": {f"{s}:{k}": n for (s, k), n in made.items()},
        "bound_by_bucket_at_rate": at_rate,
        "bound_seconds_at_rate": bound,
        "wall_over_bound": round(elapsed / bound, 3) if bound else None,
    }


def format_report(f: dict[str, Any]) -> str:
    d = f["detected"]
    lines = [
        f"entries: {f['entries']}; limits: {f['limit_mode']}, arrival jitter {f['arrival_jitter_ms']} ms; "
        f"Semantic Scholar papers beyond the universe: {f.get('s2_corpus_papers', 0)}",
        f"wall: {f['wall_seconds']} s; 429 responses: {f['status_429']}",
        *(
            [f"mirror: {f['mirror']}; answers from the mirror: {f['answered_from_mirror']}"]
            if f.get("mirror")
            else []
        ),
        f"detected: detection {d['detection_rate']:.1%}  FPR {d['false_positive_rate']:.1%}  F1 {d['f1']:.3f}"
        f"  (tp {d['tp']} fp {d['fp']} fn {d['fn']} tn {d['tn']})",
        format_requests(f["requests"]),
        *(
            [f"title batches: {f['requests']['cold']['title_batches']}"]
            if f["requests"]["cold"].get("title_batches")
            else []
        ),
    ]
    if "bound_seconds_at_rate" in f:
        lines.append(
            f"bound of the requests made (busiest bucket at its documented rate): "
            f"{f['bound_seconds_at_rate']} s; wall / bound {f['wall_over_bound']}"
        )
        lines.append(f"by bucket: {f['bound_by_bucket_at_rate']}")
    return "\n".join(lines)
