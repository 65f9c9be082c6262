"""`aletheia mirror update` against the simulator (issue 32): the works changed since the mirror's
day, from Crossref's `from-update-date` and OpenAlex's `from_updated_date` filters paged by
cursor, replace the mirror's older copies; the mirror's day moves to today."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from aletheia.pipeline.mirror.load import load_dump
from aletheia.pipeline.mirror.update import run_update
from aletheia.pipeline.runtime import Runtime
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer
from aletheia.sources.simulator.dumps import write_dumps
from aletheia.storage.mirror import MirrorStore
from tests.integration.sim_pipeline import make_works, sim_settings, universe

SNAPSHOT = date(2026, 1, 10)


def test_update_brings_in_what_changed_since_the_snapshot(tmp_path: Path) -> None:
    works: list[dict[str, Any]] = make_works(12)
    old = [dict(w) for w in works]
    # Three works changed after the snapshot: a new title at both sources.
    changed = [0, 5, 10]
    for i in changed:
        works[i] = {
            **works[i],
            "title": works[i]["title"] + " (corrected)",
            "meta": {"updated": "2026-02-01"},
        }
    with SimulatorServer(universe(works), SimulatorConfig.unlimited(seed=1)) as sim:
        settings = sim_settings(tmp_path, sim)
        runtime = Runtime.open(settings)
        store = MirrorStore(runtime.jobs.engine)
        files = write_dumps(universe(old), tmp_path / "dumps", snapshot=SNAPSHOT)
        for source in ("openalex", "crossref"):
            for path in files.by_source()[source]:
                load_dump(store, path, snapshot_date=SNAPSHOT)
            store.mark_snapshot(source, SNAPSHOT, complete=True)
        sim.reset()
        results = {r.source: r for r in run_update(runtime)}
    crossref_changed = sum(1 for i in changed if works[i].get("doi"))
    assert results["crossref"].records == crossref_changed
    assert results["openalex"].records == len(changed)
    snaps = store.snapshots()
    assert snaps["openalex"].updated_through is not None and snaps["openalex"].updated_through > SNAPSHOT
    assert snaps["openalex"].snapshot_date == SNAPSHOT and snaps["openalex"].complete
    for i in changed:
        (hit,) = store.search_title(works[i]["title"], "openalex", limit=1)
        assert hit.record.record.title == works[i]["title"]
        assert hit.snapshot_date == snaps["openalex"].updated_through
    assert store.count("openalex") == len(universe(old).catalog("openalex"))  # replaced, not added
