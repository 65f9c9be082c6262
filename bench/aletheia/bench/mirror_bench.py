"""Issue 32: the local snapshot mirror's load speed and size on disk, per dump format.

`aletheia bench mirror --works N`: a seeded universe of N works known to DBLP, OpenAlex, Crossref
and Semantic Scholar (titles, authors, venues and DOIs of realistic shapes, `synthetic`), written
by the simulator's dump writer as the four real formats (`dblp.xml.gz` with its DTD, OpenAlex
`part_*.gz` JSON Lines, Crossref `{"items": [...]}` files, S2's papers dataset lines), then each
format loaded by the loader `aletheia mirror load` runs into a SQLite database of its own (the
embedded default: the record table and its FTS5 index). Figures: records per second of the load,
the database's bytes per record (scaled to a million), and the projection to the full dumps: DBLP
(~7.5 M records), OpenAlex works (~250 M) and Semantic Scholar's papers (~200 M; `PROJECTIONS`).

`loaded_mirror` builds the mirror `aletheia bench hallmark-limits --mirror-fraction` asks.
"""

from __future__ import annotations

import random
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, Final

from aletheia.bench.common import machine
from aletheia.bench.synthetic import _VENUES, _authors, _title

# Records in the full dumps, for the projections (DBLP's statistics page: about 7.5 million
# publications in 2025; OpenAlex: about 250 million works in its snapshot; Semantic Scholar: "over
# 200 million papers", its API's documentation).
PROJECTIONS: Final = {"dblp": 7_500_000, "openalex": 250_000_000, "semantic_scholar": 200_000_000}


def synthetic_records(count: int, *, seed: int = 32) -> list[dict[str, Any]]:
    """`count` universe records every one of the four dumped sources knows."""
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    for serial in range(count):
        venue, work_type, pattern = rng.choice(_VENUES)
        year = rng.randint(1990, 2025)
        records.append(
            {
                "title": _title(rng),
                "authors": _authors(rng),
                "year": year,
                "venue": venue,
                "type": work_type,
                "doi": pattern.format(y=year, v=rng.randint(10, 38), i=rng.randint(1, 12), n=100000 + serial),
                "volume": str(rng.randint(1, 40)),
                "pages": f"{rng.randint(1, 900)}-{rng.randint(901, 1800)}",
                "sources": ["dblp", "openalex", "crossref", "semantic_scholar"],
            }
        )
    return records


def _database_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def run(*, works: int = 20_000) -> dict[str, Any]:
    from aletheia.pipeline.mirror.load import load_dump
    from aletheia.sources.simulator import Universe
    from aletheia.sources.simulator.dumps import write_dumps
    from aletheia.storage.db import engine_for
    from aletheia.storage.mirror import MirrorStore

    snapshot = datetime.now(UTC).date() - timedelta(days=1)
    figures: dict[str, Any] = {
        "benchmark": "mirror_load",
        "machine": machine(),
        "works": works,
        "formats": {},
    }
    with tempfile.TemporaryDirectory(prefix="aletheia-mirror-bench-") as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        files = write_dumps(
            Universe.from_records(synthetic_records(works)), root / "dumps", snapshot=snapshot
        )
        figures["write_seconds"] = round(time.perf_counter() - started, 2)
        for source, paths in files.by_source().items():
            db = root / f"{source}.sqlite3"
            store = MirrorStore(engine_for(f"sqlite:///{db}"))
            empty = _database_bytes(db)
            started, cpu_started = time.perf_counter(), time.process_time()
            loaded = sum(load_dump(store, path, snapshot_date=snapshot).loaded for path in paths)
            seconds = time.perf_counter() - started
            cpu = time.process_time() - cpu_started
            store.engine.dispose()
            size = _database_bytes(db) - empty
            per_million = size / loaded * 1_000_000 if loaded else 0.0
            rate = loaded / seconds if seconds else 0.0
            entry: dict[str, Any] = {
                "records": loaded,
                "dump_bytes": sum(p.stat().st_size for p in paths),
                "seconds": round(seconds, 2),
                "records_per_second": round(rate),
                # The machine is shared: the load's own CPU time says what it costs without others.
                "cpu_seconds": round(cpu, 2),
                "records_per_cpu_second": round(loaded / cpu) if cpu else None,
                "bytes_per_million_records": round(per_million),
            }
            if source in PROJECTIONS and rate:
                full = PROJECTIONS[source]
                entry["projection"] = {
                    "records": full,
                    "hours": round(full / rate / 3600, 1),
                    "cpu_hours": round(full * cpu / loaded / 3600, 1),
                    "gigabytes": round(per_million * full / 1_000_000 / 1e9, 1),
                }
            figures["formats"][source] = entry
    return figures


def format_report(f: dict[str, Any]) -> str:
    lines = [f"{f['works']:,} works written as the four dumps in {f['write_seconds']} s"]
    for source, e in f["formats"].items():
        line = (
            f"{source}: {e['records']:,} records in {e['seconds']} s = {e['records_per_second']:,} records/s "
            f"({e['records_per_cpu_second']:,} per CPU second); "
            f"{e['bytes_per_million_records'] / 1e9:.2f} GB per million records on disk (SQLite + FTS5)"
        )
        if "projection" in e:
            p = e["projection"]
            line += f"; full dump ({p['records']:,}): {p['hours']} h ({p['cpu_hours']} CPU h)"
            line += f", {p['gigabytes']} GB"
        lines.append(line)
    return "\n".join(lines)


def loaded_mirror(
    universe_path: Path,
    directory: Path,
    fraction: float,
    *,
    sample: bool = False,
    s2_corpus: int = 0,
    seed: int = 0,
) -> tuple[Any, dict[str, Any]]:
    """A mirror holding `fraction` of the universe's works, loaded from the four dump formats, and
    its figures. By default a dated snapshot: whole dumps of the day by which `fraction` of the
    works had been recorded (`dumps.snapshot_day`; the day before the run when `fraction` is 1),
    marked complete, the works recorded since only in the APIs. With `sample`, the works are
    chosen by a hash instead, dated the day before, and the mirror is not complete (it never
    answers absence): no whole dump is a random share of its source. Semantic Scholar's papers
    dataset holds the `s2_corpus` papers beyond the universe the simulator (of that `seed`) serves."""
    from aletheia.config import Settings
    from aletheia.pipeline.evidence.mirror_tier import MirrorTier
    from aletheia.pipeline.mirror.load import load_dump
    from aletheia.sources.simulator import Universe
    from aletheia.storage.db import engine_for
    from aletheia.storage.mirror import MirrorStore

    universe = Universe.from_jsonl(universe_path)
    files, snapshot, complete = _written_dumps(
        universe, directory / "dumps", fraction, sample, s2_corpus, seed
    )
    store = MirrorStore(engine_for(f"sqlite:///{directory / 'mirror.sqlite3'}"))
    started = time.perf_counter()
    loaded: dict[str, int] = {}
    for source, paths in files.by_source().items():
        loaded[source] = sum(load_dump(store, path, snapshot_date=snapshot).loaded for path in paths)
        store.mark_snapshot(source, snapshot, complete=complete)
    figures = {
        "fraction": fraction,
        "kind": "sample" if sample else "dated",
        "complete": complete,
        "works_kept": files.works,
        "universe_works": len(universe),
        "records": loaded,
        "snapshot": snapshot.isoformat(),
        "load_seconds": round(time.perf_counter() - started, 2),
    }
    # The tier's rules as the product ships them (the settings' defaults), whatever the environment.
    fields = Settings.model_fields
    tier = MirrorTier.open(
        store,
        max_age_days=fields["mirror_max_age_days"].default,
        indexing_lag_days=fields["mirror_indexing_lag_days"].default,
    )
    return tier, figures


def _written_dumps(
    universe: Any, out_dir: Path, fraction: float, sample: bool, s2_corpus: int, seed: int
) -> tuple[Any, date, bool]:
    """`loaded_mirror`'s dumps, their snapshot's day, and whether they are a complete copy."""
    from aletheia.sources.simulator.dumps import snapshot_day, write_dumps

    yesterday = datetime.now(UTC).date() - timedelta(days=1)
    if sample:
        files = write_dumps(
            universe, out_dir, snapshot=yesterday, fraction=fraction, s2_corpus=s2_corpus, seed=seed
        )
        return files, yesterday, False
    as_of = None if fraction >= 1 else min(snapshot_day(universe, fraction), yesterday)
    snapshot = as_of or yesterday
    files = write_dumps(universe, out_dir, snapshot=snapshot, as_of=as_of, s2_corpus=s2_corpus, seed=seed)
    return files, snapshot, True
