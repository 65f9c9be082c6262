"""Issue 21 through the embedded pipeline against the loopback simulator: an invented venue is
`nonexistent_venue` only after the registries (OpenAlex sources, DBLP venues, Crossref journals)
answered; a real venue the work did not appear in is `venue_mismatch`; a preprint cited as
published at a computing venue is accused only when Semantic Scholar and DBLP both show the
preprint only; a registry turned off leaves the venue unsettled (minor)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.records import Author, CitedReference
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer
from tests.integration.sim_pipeline import Run, run_embedded, sim_settings, universe

JOURNAL_PAPER: dict[str, Any] = {
    "title": "Tidal forcing of estuarine sediment plumes observed from orbit",
    "authors": [{"given": "Marta", "family": "Quintero"}, {"given": "Lars", "family": "Ekdahl"}],
    "year": 2021,
    "venue": "Journal of Coastal Remote Sensing",
    "doi": "10.5555/jcrs.2021.12",
    "type": "journal-article",
}
OTHER_JOURNAL: dict[str, Any] = {
    "title": "Seasonal kelp canopy loss along upwelling coasts",
    "authors": [{"given": "Ines", "family": "Baptista"}],
    "year": 2020,
    "venue": "Marine Ecology Letters",
    "doi": "10.5555/mel.2020.3",
    "type": "journal-article",
}
PREPRINT: dict[str, Any] = {
    "title": "Sparse mixture routing for streaming speech recognition",
    "authors": [{"given": "Hana", "family": "Kobayashi"}, {"given": "Omar", "family": "Haddad"}],
    "year": 2024,
    "type": "posted-content",
    "arxiv_id": "2403.01234",
    "sources": ["arxiv", "semantic_scholar", "openalex", "dblp"],
}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(
        universe([JOURNAL_PAPER, OTHER_JOURNAL, PREPRINT]), SimulatorConfig.unlimited(seed=5)
    ) as server:
        yield server


def cite(record: dict[str, Any], key: str, **kw: Any) -> CitedReference:
    values: dict[str, Any] = {
        "key": key,
        "entry_type": "article",
        "title": record["title"],
        "authors": tuple(Author(given=a["given"], family=a["family"]) for a in record["authors"]),
        "year": record["year"],
        "venue": record.get("venue"),
        "origin": f"test:{key}",
        **kw,
    }
    return CitedReference(**values)


def run(sim: SimulatorServer, tmp_path: Path, refs: list[CitedReference], **settings: Any) -> Run:
    sim.reset()
    return run_embedded(sim_settings(tmp_path, sim, **settings), refs)


def venue_answers(ref: dict[str, Any]) -> dict[str, str]:
    return {a["source"]: a["outcome"] for a in ref["trace"] if a["kind"] == "venue"}


def test_an_invented_venue_is_nonexistent_after_every_registry_answered(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    ref = cite(JOURNAL_PAPER, "invented", venue="Transactions on Oceanic Machine Cognition")
    out = run(sim, tmp_path, [ref]).references[0]
    assert set(venue_answers(out)) == {"openalex", "dblp", "crossref"}, out["trace"]
    assert "nonexistent_venue" in out["reasons"] and out["severity"] == "major", out
    # DBLP turned off: the registries cannot settle it; the venue stays a minor note.
    off = run(sim, tmp_path / "off", [ref], disabled_sources="dblp").references[0]
    assert "nonexistent_venue" not in off["reasons"] and off["severity"] != "major", off


def test_a_real_journal_the_work_did_not_appear_in_is_the_wrong_venue(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    ref = cite(JOURNAL_PAPER, "wrong", venue="Marine Ecology Letters")
    out = run(sim, tmp_path, [ref]).references[0]
    assert "venue_mismatch" in out["reasons"] and out["severity"] == "major", out
    assert "nonexistent_venue" not in out["reasons"]


def test_a_preprint_cited_at_a_computing_venue(sim: SimulatorServer, tmp_path: Path) -> None:
    ref = cite(PREPRINT, "preprint", entry_type="inproceedings", venue="ICML", arxiv_id="2403.01234")
    out = run(sim, tmp_path, [ref]).references[0]
    assert "preprint_cited_as_published" in out["reasons"] and out["severity"] == "major", out
    searched = {a["source"] for a in out["trace"] if a["kind"] == "search"}
    assert "dblp" in searched  # DBLP's title search is the computing venue's witness
