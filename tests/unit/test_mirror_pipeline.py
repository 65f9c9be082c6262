"""The mirror tier through the embedded pipeline against the loopback simulator (issue 32): the
universe written as the three real dump formats (the simulator's dump writer), loaded with the
loader `aletheia mirror load` runs, then references verified. A work the mirror holds is found
without a search request, its verdict the same as without the mirror and naming the mirror's
snapshot; Crossref's DOI lookups (a work's standing) stay live; a title missing from a complete
mirror is absent without a request; a mirror that is not complete leaves absence to the APIs, and
so does a stale one for a work of a year it would not hold yet."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.records import Author, CitedReference
from aletheia.pipeline.mirror.load import load_dump
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer
from aletheia.sources.simulator.dumps import snapshot_day, write_dumps
from aletheia.storage.db import engine_for
from aletheia.storage.mirror import MirrorStore
from tests.integration.sim_pipeline import Run, make_works, references, run_embedded, sim_settings, universe

WORKS = make_works(20)
SNAPSHOT = datetime.now(UTC).date() - timedelta(days=3)
INVENTED = CitedReference(
    key="invented",
    title="Holographic gradient routing for quantum breakfast cereals",
    authors=(Author(given="Ann", family="Nobody"),),
    year=2019,
    origin="test:invented",
)


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(universe(WORKS), SimulatorConfig.unlimited(seed=5)) as server:
        yield server


def loaded_run(
    sim: SimulatorServer,
    tmp_path: Path,
    refs: list[CitedReference],
    *,
    fraction: float,
    complete: bool,
    as_of: date | None = None,
    **kw: Any,
) -> Run:
    """`refs` verified with a mirror of `fraction` of the works, or (`as_of`) of the works recorded
    by that day, dated that day."""
    settings = sim_settings(tmp_path, sim, **kw)
    store = MirrorStore(engine_for(settings.sqlalchemy_url()))
    day = as_of or SNAPSHOT
    files = write_dumps(universe(WORKS), tmp_path / "dumps", snapshot=day, fraction=fraction, as_of=as_of)
    for source, paths in files.by_source().items():
        for path in paths:
            load_dump(store, path, snapshot_date=day)
        store.mark_snapshot(source, day, complete=complete)
    sim.reset()
    return run_embedded(settings, refs)


def verdicts(run: Run) -> dict[str, str]:
    return {ref["key"]: ref["verdict"] for ref in run.references}


def requests(run: Run) -> int:
    return sum(stats.get("requests", 0) for stats in run.summary.sources.values())


def test_a_full_mirror_gives_the_same_verdicts_with_fewer_requests(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    refs = references(WORKS, 2)
    sim.reset()
    live = run_embedded(sim_settings(tmp_path / "live", sim), refs)
    mirrored = loaded_run(sim, tmp_path / "mirror", refs, fraction=1.0, complete=False)
    assert verdicts(mirrored) == verdicts(live)
    assert requests(mirrored) < requests(live)
    from_mirror = [ref for ref in mirrored.references if ref.get("mirror")]
    assert from_mirror, "no verdict read the mirror"
    for ref in from_mirror:
        assert set(ref["mirror"].values()) == {SNAPSHOT.isoformat()}
        traced = [a for a in ref["trace"] if a.get("mirror_snapshot")]
        assert traced and {a["source"] for a in traced} <= {"openalex", "crossref", "dblp"}
    # Crossref by DOI (the work's standing) is never answered from the mirror.
    for ref in mirrored.references:
        assert not [
            a
            for a in ref["trace"]
            if a["source"] == "crossref" and a["kind"] == "doi" and a.get("mirror_snapshot")
        ]


def test_no_mirror_setting_turns_it_off(sim: SimulatorServer, tmp_path: Path) -> None:
    refs = references(WORKS[:5], 0)
    off = loaded_run(sim, tmp_path, refs, fraction=1.0, complete=True, mirror=False)
    assert not any(ref.get("mirror") for ref in off.references)
    assert not any(a.get("mirror_snapshot") for ref in off.references for a in ref["trace"])


def test_absence_from_a_complete_fresh_mirror_needs_no_search_request(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    out = loaded_run(sim, tmp_path, [INVENTED], fraction=1.0, complete=True)
    ref = out.references[0]
    searches = {a["source"]: a for a in ref["trace"] if a["kind"] == "search"}
    assert searches["openalex"]["outcome"] == "not_found"
    assert searches["openalex"]["mirror_snapshot"] == SNAPSHOT.isoformat()
    assert out.summary.sources["openalex"]["requests"] == 0
    # Semantic Scholar's papers dataset: nothing near the title, so its absence is read at home too.
    assert searches["semantic_scholar"]["outcome"] == "not_found"
    assert searches["semantic_scholar"]["mirror_snapshot"] == SNAPSHOT.isoformat()
    assert out.summary.sources["semantic_scholar"]["requests"] == 0


def test_a_stale_or_partial_mirror_leaves_absence_to_the_apis(sim: SimulatorServer, tmp_path: Path) -> None:
    partial = loaded_run(sim, tmp_path / "partial", [INVENTED], fraction=1.0, complete=False)
    searches = {a["source"]: a for a in partial.references[0]["trace"] if a["kind"] == "search"}
    assert "mirror_snapshot" not in searches["openalex"]
    assert "mirror_snapshot" not in searches["semantic_scholar"]
    assert partial.summary.sources["openalex"]["requests"] >= 1
    assert partial.summary.sources["semantic_scholar"]["requests"] >= 1
    # Stale (3 days old against 1), and cited with the snapshot's year: the work may have been
    # recorded since.
    this_year = INVENTED.model_copy(update={"year": SNAPSHOT.year})
    stale = loaded_run(
        sim, tmp_path / "stale", [this_year], fraction=1.0, complete=True, mirror_max_age_days=1
    )
    searches = {a["source"]: a for a in stale.references[0]["trace"] if a["kind"] == "search"}
    assert "mirror_snapshot" not in searches["openalex"]


def test_a_dated_snapshot_holds_the_past_and_the_apis_the_rest(sim: SimulatorServer, tmp_path: Path) -> None:
    """Whole dumps of the day by which half the works were recorded: the works recorded since are
    found by the APIs with the verdicts a run without the mirror gives; a title of a year the
    snapshot would hold is absent at home, one of a later year is asked of the API."""
    day = snapshot_day(universe(WORKS), 0.5)
    before = INVENTED.model_copy(update={"key": "before", "year": day.year - 3})
    after = INVENTED.model_copy(update={"key": "after", "year": day.year + 1})
    refs = [*references(WORKS, 0), before, after]
    sim.reset()
    live = run_embedded(sim_settings(tmp_path / "live", sim), refs)
    dated = loaded_run(sim, tmp_path / "dated", refs, fraction=1.0, complete=True, as_of=day)
    assert verdicts(dated) == verdicts(live)
    by_key = {ref["key"]: ref for ref in dated.references}
    # The works recorded by the day are read at home; the others only from the APIs.
    assert any(by_key[f"ref{i}"].get("mirror") for i, w in enumerate(WORKS) if w["year"] < day.year)
    assert not any(by_key[f"ref{i}"].get("mirror") for i, w in enumerate(WORKS) if w["year"] > day.year)
    searches = {
        key: {a["source"]: a for a in by_key[key]["trace"] if a["kind"] == "search"}
        for key in ("before", "after")
    }
    assert searches["before"]["openalex"]["outcome"] == "not_found"
    assert searches["before"]["openalex"]["mirror_snapshot"] == day.isoformat()
    assert "mirror_snapshot" not in searches["after"]["openalex"]


def test_works_outside_a_partial_mirror_are_found_by_the_apis(sim: SimulatorServer, tmp_path: Path) -> None:
    refs = references(WORKS, 0)
    sim.reset()
    live = run_embedded(sim_settings(tmp_path / "live", sim), refs)
    half = loaded_run(sim, tmp_path / "half", refs, fraction=0.5, complete=False)
    assert verdicts(half) == verdicts(live)
    assert any(not ref.get("mirror") for ref in half.references)
    assert any(ref.get("mirror") for ref in half.references)
