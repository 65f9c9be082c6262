"""Issue 12 wiring of Tiers 1 and 3 through the embedded pipeline against the loopback simulator:
an ISBN settles a book before any scholarly search; a catalogue that fails leaves a book
`unverifiable`, never `not_found`; a canonical reference is asked of its text service only, and a
failed service leaves it `unverifiable`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.records import Author, CitedReference
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer
from tests.integration.sim_pipeline import Run, run_embedded, sim_settings, universe

FILLER: dict[str, Any] = {
    "title": "Urban heat islands and bird migration corridors",
    "authors": [{"given": "Kofi", "family": "Adeyemi"}],
    "year": 2015,
    "venue": "Journal of Field Observations",
    "doi": "10.5555/filler.1",
}
DEEP_LEARNING = CitedReference(
    key="goodfellow2016",
    entry_type="book",
    title="Deep Learning",
    authors=(
        Author(given="Ian", family="Goodfellow"),
        Author(given="Yoshua", family="Bengio"),
        Author(given="Aaron", family="Courville"),
    ),
    year=2016,
    isbn="9780262035613",
    fields={"publisher": "MIT Press"},
    origin="test:goodfellow2016",
)
NOBODY = CitedReference(
    key="nobody",
    entry_type="book",
    title="A Book No Catalogue Has Heard Of",
    authors=(Author(given="Ann", family="Nobody"),),
    year=2020,
    origin="test:nobody",
)
ILIAD = CitedReference(key="iliad", entry_type="misc", title="Iliad 1.1", authors=(Author(literal="Homer"),))


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(universe([FILLER]), SimulatorConfig.unlimited(seed=11)) as server:
        yield server


def run(
    sim: SimulatorServer,
    tmp_path: Path,
    refs: list[CitedReference],
    config: SimulatorConfig | None = None,
    **settings: Any,
) -> Run:
    sim.configure(config or SimulatorConfig.unlimited(seed=11))
    sim.reset()
    return run_embedded(sim_settings(tmp_path, sim, **settings), refs)


def trace(ref: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(a["source"], a["kind"], a["outcome"]) for a in ref["trace"]]


def test_an_isbn_settles_a_book_before_any_scholarly_search(sim: SimulatorServer, tmp_path: Path) -> None:
    result = run(sim, tmp_path, [DEEP_LEARNING])
    out = result.references[0]
    assert out["verdict"] == "verified" and "isbn_resolved" in out["reasons"], out
    assert ("open_library", "isbn", "found") in trace(out) and ("google_books", "isbn", "found") in trace(out)
    assert not [t for t in trace(out) if t[1] == "search"]  # settled: no search at all
    assert result.summary.sources["open_library"]["requests"] >= 1


def test_failed_catalogues_leave_a_book_unverifiable(sim: SimulatorServer, tmp_path: Path) -> None:
    down = SimulatorConfig.unlimited(seed=11).with_source("google_books", faults={"error_503": 1.0})
    out = run(sim, tmp_path, [NOBODY], down, http_attempts=1).references[0]
    assert ("google_books", "search", "failed") in trace(out)
    assert out["verdict"] == "unverifiable" and "google_books" in out["sources_unavailable"], out
    off = run(sim, tmp_path / "off", [NOBODY], disabled_sources="open_library,google_books").references[0]
    assert off["verdict"] == "unverifiable", off
    # One catalogue down: the ISBN agreement at the other still verifies the book.
    one = run(sim, tmp_path / "one", [DEEP_LEARNING], down, http_attempts=1).references[0]
    assert one["verdict"] == "verified" and "isbn_resolved" in one["reasons"], one


def test_a_canonical_reference_asks_its_text_service_only(sim: SimulatorServer, tmp_path: Path) -> None:
    out = run(sim, tmp_path, [ILIAD]).references[0]
    assert out["verdict"] == "verified" and trace(out) == [("perseus", "passage", "found")], out
    down = SimulatorConfig.unlimited(seed=11).with_source("perseus", faults={"error_500": 1.0})
    failed = run(sim, tmp_path / "down", [ILIAD], down, http_attempts=1).references[0]
    assert failed["verdict"] == "unverifiable" and trace(failed) == [("perseus", "passage", "failed")], failed
