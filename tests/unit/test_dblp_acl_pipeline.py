"""Issue 12 wiring, through the embedded pipeline against the loopback simulator: a CS conference
paper only DBLP knows is found (by the last search stage only); a CS title nobody has is
`not_found` only after DBLP answered too, and `unverifiable` when DBLP could not be asked; DBLP
is not asked for a non-CS citation; an ACL Anthology URL is looked up by its anthology id."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.records import Author, CitedReference, SourceName
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer
from tests.integration.sim_pipeline import Run, run_embedded, sim_settings, universe

DBLP_ONLY: dict[str, Any] = {
    "title": "Lattice sieving for sparse routing in federated graph transformers",
    "authors": [{"given": "Priya", "family": "Raman"}, {"given": "Tomasz", "family": "Wojcik"}],
    "year": 2022,
    "venue": "International Conference on Machine Learning",
    "venue_aliases": ["ICML"],
    "type": "proceedings-article",
    "dblp_key": "conf/icml/RamanW22",
    "sources": ["dblp"],
    "meta": {"dblp_homonym": {"Priya Raman": "0002"}},
}
ACL_PAPER: dict[str, Any] = {
    "title": "Morphological probes for low-resource dependency parsing",
    "authors": [{"given": "Aigerim", "family": "Bekova"}, {"given": "Rui", "family": "Santos"}],
    "year": 2023,
    "venue": "Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics",
    "type": "proceedings-article",
    "acl_anthology_id": "2023.acl-long.123",
    "sources": ["acl_anthology"],
}
# Semantic Scholar files it under a DBLP key of ICLR but names the venue in a form nobody resolves.
ICLR_UNDER_KEY: dict[str, Any] = {
    "title": "Sparse attention kernels for forecasting tidal energy output",
    "authors": [{"given": "Imani", "family": "Okafor"}, {"given": "Jonas", "family": "Lindqvist"}],
    "year": 2021,
    "venue": "International Conference on Learning Representations",
    "venue_aliases": ["ICLR"],
    "type": "proceedings-article",
    "dblp_key": "conf/iclr/OkaforL21",
    "sources": ["semantic_scholar", "dblp"],
    "overrides": {
        "semantic_scholar": {"venue": "Proceedings of the Ninth Learning Workshop", "venue_aliases": []}
    },
}
FILLER: dict[str, Any] = {
    "title": "Urban heat islands and bird migration corridors",
    "authors": [{"given": "Kofi", "family": "Adeyemi"}],
    "year": 2015,
    "venue": "Journal of Field Observations",
    "doi": "10.5555/filler.1",
}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(
        universe([DBLP_ONLY, ACL_PAPER, ICLR_UNDER_KEY, FILLER]), SimulatorConfig.unlimited(seed=3)
    ) as server:
        yield server


def cite(record: dict[str, Any], key: str, **kw: Any) -> CitedReference:
    values: dict[str, Any] = {
        "key": key,
        "entry_type": "inproceedings",
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


def answers(ref: dict[str, Any], kind: str = "search") -> dict[str, str]:
    return {a["source"]: a["outcome"] for a in ref["trace"] if a["kind"] == kind}


def test_a_conference_paper_only_dblp_knows_is_found(sim: SimulatorServer, tmp_path: Path) -> None:
    result = run(sim, tmp_path, [cite(DBLP_ONLY, "dblponly", venue="ICML")])
    out = result.references[0]
    assert out["verdict"] not in ("not_found", "fabricated", "unverifiable"), out
    assert out["match"] is not None and SourceName.DBLP.value in out["match"]["sources"]
    assert out["fields"]["venue"]["agrees"] is True and out["fields"]["venue"]["source"] == "dblp"
    searched = answers(out)
    assert searched["dblp"] == "found"
    # The general indexes were asked first and said no; DBLP only then; Crossref, asked last
    # (issue 23: one title a request), is not needed once DBLP found the work.
    assert {searched[s] for s in ("openalex", "semantic_scholar")} == {"not_found"}
    assert "crossref" not in searched
    assert result.summary.sources["dblp"]["requests"] == 1


def test_an_invented_cs_title_needs_dblps_answer(sim: SimulatorServer, tmp_path: Path) -> None:
    invented = CitedReference(
        key="invented",
        entry_type="inproceedings",
        title="Holographic gradient routing for quantum tabular transformers",
        authors=(Author(given="Ann", family="Nobody"),),
        year=2021,
        venue="NeurIPS",
        origin="test:invented",
    )
    out = run(sim, tmp_path, [invented]).references[0]
    assert answers(out)["dblp"] == "not_found" and out["verdict"] == "not_found", out
    # A fresh cache: the first run's answers are cached in its database.
    off = run(sim, tmp_path / "off", [invented], disabled_sources="dblp").references[0]
    assert answers(off)["dblp"] == "failed"
    assert off["verdict"] == "unverifiable" and "dblp" in off["sources_unavailable"], off


def test_dblp_is_not_asked_for_a_non_cs_citation(sim: SimulatorServer, tmp_path: Path) -> None:
    ref = cite(FILLER, "filler")
    out = run(sim, tmp_path, [ref.model_copy(update={"title": ref.title + " revisited"})]).references[0]
    assert "dblp" not in answers(out)


def test_an_acl_anthology_url_is_looked_up_by_its_id(sim: SimulatorServer, tmp_path: Path) -> None:
    ref = cite(ACL_PAPER, "acl", url="https://aclanthology.org/2023.acl-long.123/")
    result = run(sim, tmp_path, [ref])
    out = result.references[0]
    asked = [a for a in out["trace"] if a["source"] == "acl_anthology"]
    assert asked and asked[0]["query"] == "2023.acl-long.123" and asked[0]["outcome"] == "found"
    assert asked[0]["kind"] == "acl"  # an identifier lookup, like a DOI's
    assert out["verdict"] == "verified" and "acl_id_resolved" in out["reasons"], out
    assert SourceName.ACL_ANTHOLOGY.value in out["match"]["sources"]
    # Found by its id: no search was needed.
    assert not [a for a in out["trace"] if a["kind"] == "search" and a["source"] != "acl_anthology"]
    assert result.summary.sources["acl_anthology"]["requests"] == 1


def test_a_venue_in_doubt_is_confirmed_by_the_dblp_record_of_its_key(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    result = run(sim, tmp_path, [cite(ICLR_UNDER_KEY, "iclr", venue="ICLR")])
    out = result.references[0]
    by_key = [a for a in out["trace"] if a["source"] == "dblp" and a["query"] == "conf/iclr/OkaforL21"]
    assert by_key and by_key[0]["outcome"] == "found"
    assert "venue_confirmed_by_dblp" in out["reasons"] and "venue_unresolved" not in out["reasons"], out
    assert out["verdict"] == "verified"
    # Found by Semantic Scholar's title match: no DBLP search, one record lookup.
    assert sim.source_stats("dblp")["by_kind"] == {"single": 1}


def test_an_acl_anthology_id_the_anthology_does_not_have_is_an_invented_identifier(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    """The anthology is the registry of its own ids: an id it has no paper under resolves nowhere.
    Here no index has the paper either (DBLP and Semantic Scholar index the anthology, so a real
    paper under a mistyped id is found by their search): every source answered, so it is invented."""
    ref = cite(ACL_PAPER, "acl_bad_id", url="https://aclanthology.org/2023.acl-long.987/")
    out = run(sim, tmp_path, [ref]).references[0]
    asked = [a for a in out["trace"] if a["source"] == "acl_anthology"]
    assert asked and asked[0]["kind"] == "acl" and asked[0]["outcome"] == "not_found", out["trace"]
    assert "acl_id_not_found" in out["reasons"] and "identifier_resolves_nowhere" in out["reasons"], out
    assert out["verdict"] == "fabricated", out
