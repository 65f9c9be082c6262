"""Issue 3: 2,000 references against the simulator enforcing the documented limits.

70% cite a DOI, 20% only an arXiv id, 10% only a title (their works have DOIs). The pipeline
(the engine, `common.through_the_engine`, over a `SourceGateway`) runs against a simulator in its
own process; the figures are the simulator's own counters (requests per source and kind, 429s),
the wall time, and the bound that the documented limits impose on the requests the strategy must make.

Issue 11: `sliding_window=True` makes the simulator count each source's documented "N per second"
over a sliding window, as the services do, and `jitter_ms` delays every request by a uniform
[0, jitter_ms) on its way in (network jitter) before it is counted.
"""

from __future__ import annotations

import math
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from aletheia.bench.common import (
    SimulatorProcess,
    dump,
    machine,
    parse_bibtex,
    simulator_settings,
    through_the_engine,
)
from aletheia.bench.synthetic import citation_bibtex, generate
from aletheia.sources.arxiv import MAX_IDS_PER_REQUEST as ARXIV_BATCH
from aletheia.sources.crossref import MAX_DOIS_PER_FILTER as CROSSREF_BATCH
from aletheia.sources.openalex import MAX_DOIS_PER_REQUEST as OPENALEX_BATCH
from aletheia.sources.semantic_scholar import MAX_BATCH_IDS as S2_BATCH
from aletheia.sources.simulator import SIM_SOURCES, SimulatorConfig, universe_from_records

# Buckets as the simulator counts them: (simulator source, request kind) -> (rate, burst).
Bucket = tuple[str, str]


def documented_buckets(config: SimulatorConfig) -> dict[Bucket, tuple[float, int]]:
    out: dict[Bucket, tuple[float, int]] = {}
    for source, sc in config.sources.items():
        if sc.rate is not None:
            out[(source, "all")] = (sc.rate, int(sc.burst or 1))
        if sc.search_rate is not None:
            out[(source, "search")] = (sc.search_rate, int(sc.search_burst or 1))
    return out


def bound_at_rate(requests: dict[Bucket, int], buckets: dict[Bucket, tuple[float, int]]) -> dict[str, float]:
    """Issue 11's bound: the requests of a bucket divided by its rate (no burst credited)."""
    return {f"{s}:{k}": round(n / buckets[(s, k)][0], 2) for (s, k), n in requests.items()}


def minimal_requests(n_doi: int, n_arxiv: int, n_title: int, title_batch: int = 1) -> dict[Bucket, int]:
    """The fewest requests per bucket the strategy can make (docs/benchmarks.md explains it):
    DOI refs: one Crossref `filter=doi:` list query per CROSSREF_BATCH DOIs (Crossref's list bucket)
    and one OpenAlex `filter=doi:a|b` per OPENALEX_BATCH; arXiv refs: one arXiv `id_list` per
    ARXIV_BATCH and one S2 batch POST per S2_BATCH; title refs: one OpenAlex title search per
    `title_batch` titles (`openalex_titles`; 1 when title batching is off), then their DOIs
    batched at Crossref as the second source."""
    return {
        ("crossref", "search"): math.ceil(n_doi / CROSSREF_BATCH) + math.ceil(n_title / CROSSREF_BATCH),
        ("openalex", "all"): math.ceil(n_doi / OPENALEX_BATCH) + math.ceil(n_title / max(1, title_batch)),
        ("arxiv_api", "all"): math.ceil(n_arxiv / ARXIV_BATCH),
        ("semantic_scholar", "all"): math.ceil(n_arxiv / S2_BATCH),
    }


def bucket_seconds(requests: dict[Bucket, int], buckets: dict[Bucket, tuple[float, int]]) -> dict[str, float]:
    """A token bucket of rate r and burst b serves n requests in no less than (n - b) / r seconds."""
    out: dict[str, float] = {}
    for bucket, n in requests.items():
        rate, burst = buckets[bucket]
        out[f"{bucket[0]}:{bucket[1]}"] = round(max(0, n - burst) / rate, 2)
    return out


def requests_made(stats: dict[str, Any], buckets: dict[Bucket, tuple[float, int]]) -> dict[Bucket, int]:
    made: dict[Bucket, int] = {}
    for source, st in stats["sources"].items():
        by_kind: dict[str, int] = st.get("by_kind", {})
        if (source, "search") in buckets:
            made[(source, "search")] = by_kind.get("search", 0)
            made[(source, "all")] = sum(v for k, v in by_kind.items() if k != "search")
        elif (source, "all") in buckets:
            made[(source, "all")] = st["requests"]
    return {k: v for k, v in made.items() if v}


def _verify_all(
    refs: list[Any], settings: Any, concurrency: int
) -> tuple[Counter[str], Counter[str], float, float]:
    verdicts: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    started, cpu_started = time.perf_counter(), time.process_time()
    for outcome in through_the_engine(refs, settings, concurrency):
        verdicts[outcome.verdict.status.value] += 1
        for reason in outcome.verdict.reasons:
            reasons[reason.value] += 1
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    return verdicts, reasons, elapsed, cpu


def run(
    *,
    references: int = 2000,
    seed: int = 3,
    concurrency: int = 2000,
    workdir: Path | None = None,
    config: SimulatorConfig | None = None,
    coalesce_window_ms: float | None = None,
    sliding_window: bool = False,
    jitter_ms: float = 0.0,
) -> dict[str, Any]:
    if config is None:
        config = _limits(seed, sliding_window, jitter_ms)
    works, mix, refs = _works_and_citations(references, seed)
    with tempfile.TemporaryDirectory(prefix="aletheia-bench-") as tmp:
        base = workdir or Path(tmp)
        universe_path = base / "sources-universe.jsonl"
        universe_from_records([w.record for w in works], universe_path)
        with SimulatorProcess(universe_path, config) as sim:
            overrides: dict[str, Any] = {"data_dir": base}
            if coalesce_window_ms is not None:
                overrides["coalesce_window_ms"] = coalesce_window_ms
            settings = simulator_settings(sim.base_url, **overrides)
            sim_cpu_before = sim.cpu_seconds()
            verdicts, reasons, elapsed, cpu = _verify_all(refs, settings, concurrency)
            sim_cpu = sim.cpu_seconds() - sim_cpu_before
            stats = sim.stats()
    id_bearing = mix["doi"] + mix["arxiv"]
    total_requests = stats["totals"]["requests"]
    # Conservative: every request of the run, the title references' searches included, is
    # charged to the identifier-bearing references.
    identifier_requests = total_requests
    return {
        "benchmark": "sources",
        "machine": machine(),
        "references": len(refs),
        "mix": dict(mix),
        "concurrency": concurrency,
        "coalesce_window_ms": settings.coalesce_window_ms,
        "openalex_title_batch": settings.openalex_title_batch,
        "limit_mode": config.source("openalex").limit_mode,
        "arrival_jitter_ms": config.source("openalex").arrival_jitter_ms,
        "wall_seconds": round(elapsed, 2),
        "pipeline_cpu_seconds": round(cpu, 2),
        "simulator_cpu_seconds": round(sim_cpu, 2),
        **_bounds(config, mix, settings.openalex_title_batch, stats),
        "requests_total": total_requests,
        "requests_per_reference": round(total_requests / len(refs), 3),
        "requests_for_identifier_refs": identifier_requests,
        "requests_per_identifier_reference": round(identifier_requests / id_bearing, 3)
        if id_bearing
        else None,
        "status_429": stats["totals"]["status_429"],
        "by_source": _by_source(stats),
        "verdicts": dict(verdicts),
        "reasons": dict(reasons.most_common()),
    }


def _works_and_citations(references: int, seed: int) -> tuple[list[Any], Counter[str], list[Any]]:
    """The synthetic universe (with distractors), how its cited works are cited (DOI, arXiv id,
    title), and their citations parsed as the `.bib` a user would give."""
    works = generate(references, doi_share=0.7, arxiv_share=0.2, seed=seed, distractors=references // 2)
    cited = [w for w in works if w.cite != "none"]
    mix = Counter(w.cite for w in cited)
    refs = parse_bibtex(
        "".join(citation_bibtex(w, f"ref{i}") for i, w in enumerate(cited)), "sources-bench.bib"
    )
    return works, mix, refs


def _limits(seed: int, sliding_window: bool, jitter_ms: float) -> SimulatorConfig:
    """The sources' documented limits (token buckets, or sliding windows), with arrival jitter."""
    if sliding_window:
        return SimulatorConfig.sliding_window(seed=seed, arrival_jitter_ms=jitter_ms)
    return SimulatorConfig.documented(seed=seed).merged(
        {"sources": {source: {"arrival_jitter_ms": jitter_ms} for source in SIM_SOURCES}}
    )


def _bounds(
    config: SimulatorConfig, mix: Counter[str], title_batch: int, stats: dict[str, Any]
) -> dict[str, Any]:
    """The least time the limits allow: for the fewest requests the mix needs, for the requests
    made, and for those at the documented rates."""
    buckets = documented_buckets(config)
    minimal = minimal_requests(mix["doi"], mix["arxiv"], mix["title"], title_batch)
    made = requests_made(stats, buckets)
    bound_min = bucket_seconds(minimal, buckets)
    bound_made = bucket_seconds(made, buckets)
    at_rate = bound_at_rate(made, buckets)
    return {
        "bound_seconds_minimal_requests": max(bound_min.values()),
        "bound_by_bucket_minimal_requests": bound_min,
        "minimal_requests": {f"{s}:{k}": n for (s, k), n in minimal.items()},
        "bound_seconds_requests_made": max(bound_made.values()) if bound_made else 0.0,
        "bound_by_bucket_requests_made": bound_made,
        "requests_made": {f"{s}:{k}": n for (s, k), n in made.items()},
        "bound_seconds_at_rate": max(at_rate.values()) if at_rate else 0.0,
        "bound_by_bucket_at_rate": at_rate,
    }


def _by_source(stats: dict[str, Any]) -> dict[str, Any]:
    """The simulator's figures of each source that was asked."""
    return {
        s: {
            "requests": st["requests"],
            "by_kind": st.get("by_kind", {}),
            "by_status": st["by_status"],
            "rate_limited": st.get("rate_limited", 0),
            "concurrency_limited": st.get("concurrency_limited", 0),
            "max_in_flight": st.get("max_in_flight"),
        }
        for s, st in stats["sources"].items()
        if st["requests"]
    }


def format_report(figures: dict[str, Any]) -> str:
    lines = [
        f"references: {figures['references']} {figures['mix']}  concurrency {figures['concurrency']}  "
        f"limits: {figures['limit_mode']}, arrival jitter {figures['arrival_jitter_ms']} ms",
        f"wall time: {figures['wall_seconds']} s   "
        f"bound (minimal requests): {figures['bound_seconds_minimal_requests']} s   "
        f"bound (requests made): {figures['bound_seconds_requests_made']} s",
        f"bound (requests made / rate of the busiest bucket): {figures['bound_seconds_at_rate']} s",
        f"CPU: pipeline {figures['pipeline_cpu_seconds']} s, simulator {figures['simulator_cpu_seconds']} s",
        "within 10% of the bound of the requests made (at the documented rates): "
        f"{figures['wall_seconds'] <= 1.1 * figures['bound_seconds_at_rate']} "
        f"({figures['wall_seconds'] / max(figures['bound_seconds_at_rate'], 1e-9):.2f} x); "
        "of the minimal requests' bound: "
        f"{figures['wall_seconds'] <= 1.1 * figures['bound_seconds_minimal_requests']}",
        f"429 responses: {figures['status_429']}",
        f"requests: {figures['requests_total']} ({figures['requests_per_reference']} per reference; "
        f"{figures['requests_per_identifier_reference']} per identifier-bearing reference)",
        f"requests by bucket: {figures['requests_made']}",
        f"verdicts: {figures['verdicts']}",
        dump(
            {
                "bound_by_bucket_minimal_requests": figures["bound_by_bucket_minimal_requests"],
                "bound_by_bucket_requests_made": figures["bound_by_bucket_requests_made"],
            }
        ),
    ]
    return "\n".join(lines)
