"""The simulator's dated dumps (issue 32): a snapshot of a day holds the works the sources had
recorded by then and none recorded after, and `snapshot_day` is the first day holding the share
asked for."""

from __future__ import annotations

import gzip
import json
from datetime import timedelta
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia.sources.simulator.dumps import recorded_on, snapshot_day, write_dumps
from tests.integration.sim_pipeline import make_works, universe

WORKS = make_works(20)


@settings(deadline=None, max_examples=60)  # timing is not what this checks (a shared machine)
@given(st.lists(st.integers(min_value=1990, max_value=2026), min_size=1, max_size=40), st.floats(0.01, 1.0))
def test_the_snapshot_day_holds_the_share_asked_for_and_no_earlier_day_does(
    years: list[int], fraction: float
) -> None:
    works = make_works(len(years))
    for work, year in zip(works, years, strict=True):
        work["year"] = year
    world = universe(works)
    day = snapshot_day(world, fraction)
    held = sum(1 for w in world.works if recorded_on(w) <= day)
    assert held >= fraction * len(works) - 1e-9
    assert sum(1 for w in world.works if recorded_on(w) <= day - timedelta(days=1)) < fraction * len(works)


def test_a_dated_dump_holds_what_was_recorded_by_its_day(tmp_path: Path) -> None:
    world = universe(WORKS)
    day = snapshot_day(world, 0.5)
    files = write_dumps(world, tmp_path, snapshot=day, as_of=day)
    expected = {w.title for w in world.works if recorded_on(w) <= day}
    assert files.works == len(expected)
    with gzip.open(files.by_source()["openalex"][0], "rt", encoding="utf-8") as lines:
        titles = {json.loads(line)["title"] for line in lines}
    assert titles == expected & {w.title for w in world.catalog("openalex").works}
    assert all(w.year is not None and w.year <= day.year for w in world.works if w.title in titles)
