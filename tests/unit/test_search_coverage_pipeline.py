"""Issue 10, class 1: every source that could hold a work is searched before "not found".

The embedded pipeline runs against the loopback simulator (no Redis or PostgreSQL). The staged
search asks OpenAlex, then Crossref and Semantic Scholar's title match, then arXiv (for a work
cited as a preprint or without a venue) and PubMed (for a life-science venue), each only when the
earlier stages did not find the work; a web page or a code repository is asked of no source.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.coverage import search_coverage
from aletheia.core.records import Author, CitedReference, SourceName
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer
from tests.integration.sim_pipeline import Run, run_embedded, sim_settings, universe

S2_ONLY: dict[str, Any] = {
    "title": "Sparse attention kernels for forecasting tidal energy output",
    "authors": [{"given": "Imani", "family": "Okafor"}, {"given": "Jonas", "family": "Lindqvist"}],
    "year": 2019,
    "venue": "Workshop on Ocean Computing",
    "type": "proceedings-article",
    "sources": ["semantic_scholar"],
}
ARXIV_ONLY: dict[str, Any] = {
    "title": "Contrastive pretraining of glacier surface models from satellite radar",
    "authors": [{"given": "Mei", "family": "Tanaka"}, {"given": "Luca", "family": "Moreau"}],
    "year": 2021,
    "type": "posted-content",
    "arxiv_id": "2105.04321",
    "sources": ["arxiv"],
}
PUBMED_ONLY: dict[str, Any] = {
    "title": "Sleep spindle density predicts recovery after pediatric cardiac surgery",
    "authors": [{"given": "Ana", "family": "Ribeiro"}],
    "year": 2018,
    "venue": "Journal of Pediatric Neurology",
    "pmid": "29999001",
    "sources": ["pubmed"],
}
# Something for the sources to hold besides the works under test.
FILLER: dict[str, Any] = {
    "title": "Urban heat islands and bird migration corridors",
    "authors": [{"given": "Kofi", "family": "Adeyemi"}],
    "year": 2015,
    "venue": "Journal of Field Observations",
    "doi": "10.5555/filler.1",
}


def cite(
    record: dict[str, Any], key: str, *, venue: str | None = None, entry_type: str = "article"
) -> CitedReference:
    """The work cited carefully but without any identifier."""
    return CitedReference(
        key=key,
        entry_type=entry_type,
        title=record["title"],
        authors=tuple(Author(given=a["given"], family=a["family"]) for a in record["authors"]),
        year=record["year"],
        venue=venue if venue is not None else record.get("venue"),
        origin=f"test:{key}",
    )


def invented(key: str, venue: str) -> CitedReference:
    return CitedReference(
        key=key,
        entry_type="article",
        title=f"Quantum entanglement of breakfast cereals under lunar gravity ({key})",
        authors=(Author(given="Ann", family="Nobody"),),
        year=2016,
        venue=venue,
        origin=f"test:{key}",
    )


def github_misc(key: str, *, with_author: bool) -> CitedReference:
    return CitedReference(
        key=key,
        entry_type="misc",
        title="fastsim: a fast simulator of tidal flows",
        authors=(Author(given="Imani", family="Okafor"),) if with_author else (),
        year=2022,
        url="https://github.com/example/fastsim",
        fields={"howpublished": "\\url{https://github.com/example/fastsim}"},
        origin=f"test:{key}",
    )


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    works = [S2_ONLY, ARXIV_ONLY, PUBMED_ONLY, FILLER]
    with SimulatorServer(universe(works), SimulatorConfig.unlimited(seed=3)) as server:
        yield server


def run(
    sim: SimulatorServer, tmp_path: Path, refs: list[CitedReference], **settings: Any
) -> tuple[Run, dict[str, Any]]:
    sim.reset()
    result = run_embedded(sim_settings(tmp_path, sim, **settings), refs)
    return result, sim.stats()["sources"]


def by_key(result: Run) -> dict[str, dict[str, Any]]:
    return {r["key"]: r for r in result.references}


def searched(ref: dict[str, Any]) -> dict[str, str]:
    """Source -> outcome of its search answers (the last one when asked twice)."""
    return {a["source"]: a["outcome"] for a in ref["trace"] if a["kind"] == "search"}


def test_a_work_only_semantic_scholar_holds_is_found_by_its_title_match(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    ref = cite(S2_ONLY, "s2only")
    result, _ = run(sim, tmp_path, [ref])
    out = by_key(result)["s2only"]
    assert out["verdict"] not in ("not_found", "fabricated", "unverifiable"), out
    assert out["match"] is not None and out["match"]["title"] == S2_ONLY["title"]
    assert searched(out).get("semantic_scholar") == "found"
    # OpenAlex answered "no such work" first; Crossref, asked last (issue 23), was not needed;
    # arXiv is not in this work's coverage.
    assert searched(out)["openalex"] == "not_found" and "crossref" not in searched(out)
    assert "arxiv" not in searched(out)
    # The title match is counted in the report's per-source requests.
    assert result.summary.sources["semantic_scholar"]["requests"] >= 1


def test_a_preprint_only_arxiv_holds_is_found_by_arxiv_search(sim: SimulatorServer, tmp_path: Path) -> None:
    ref = cite(ARXIV_ONLY, "arxivonly", venue="arXiv preprint")
    assert SourceName.ARXIV in search_coverage(ref)
    result, stats = run(sim, tmp_path, [ref])
    out = by_key(result)["arxivonly"]
    assert out["verdict"] not in ("not_found", "fabricated", "unverifiable"), out
    assert out["match"] is not None and out["match"]["title"] == ARXIV_ONLY["title"]
    assert searched(out)["arxiv"] == "found"
    assert stats["arxiv_api"]["requests"] >= 1
    assert result.summary.sources["arxiv"]["requests"] >= 1


def test_a_work_only_pubmed_holds_is_found_by_pubmed_search(sim: SimulatorServer, tmp_path: Path) -> None:
    ref = cite(PUBMED_ONLY, "pubmedonly")
    assert SourceName.PUBMED in search_coverage(ref)
    result, _ = run(sim, tmp_path, [ref])
    out = by_key(result)["pubmedonly"]
    assert out["verdict"] not in ("not_found", "fabricated", "unverifiable"), out
    assert searched(out)["pubmed"] == "found"
    assert out["match"] is not None and out["match"]["title"] == PUBMED_ONLY["title"]
    assert result.summary.sources["pubmed"]["requests"] >= 2  # esearch, then efetch


def test_a_work_found_early_does_not_ask_the_costlier_stages(sim: SimulatorServer, tmp_path: Path) -> None:
    ref = cite(FILLER, "filler")
    result, stats = run(sim, tmp_path, [ref])
    out = by_key(result)["filler"]
    assert out["match"] is not None
    assert set(searched(out)) == {"openalex"}
    assert stats["semantic_scholar"]["requests"] <= 1  # at most the triangulating lookup, no search
    assert stats["arxiv_api"]["requests"] == 0 and stats["pubmed"]["requests"] == 0


def test_an_invented_title_is_asked_of_every_source_in_its_coverage(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    refs = [invented("preprint", "arXiv preprint"), invented("clinical", "Journal of Clinical Oncology")]
    result, _ = run(sim, tmp_path, refs)
    out = by_key(result)
    for cited in refs:
        answers = searched(out[cited.key])
        coverage = {s.value for s in search_coverage(cited)}
        assert set(answers) == coverage, (cited.key, answers)
        assert set(answers.values()) == {"not_found"}, answers
        # Whether `decide` already checks the coverage or not, an invented title stays not found.
        assert out[cited.key]["verdict"] == "not_found", out[cited.key]
    assert {"arxiv"} <= set(searched(out["preprint"])) and "pubmed" not in searched(out["preprint"])
    assert {"pubmed"} <= set(searched(out["clinical"])) and "arxiv" not in searched(out["clinical"])


def test_a_disabled_source_is_not_asked_and_the_reference_is_not_called_missing(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    ref = cite(S2_ONLY, "s2only")
    result, stats = run(sim, tmp_path, [ref], disabled_sources="semantic_scholar")
    out = by_key(result)["s2only"]
    assert stats["semantic_scholar"]["requests"] == 0
    assert searched(out)["semantic_scholar"] == "failed"
    assert out["verdict"] not in ("not_found", "fabricated", "verified"), out
    assert "semantic_scholar" in out["sources_unavailable"]
    assert result.summary.sources["semantic_scholar"]["status"] == "disabled"


def test_a_github_repository_cited_as_misc_makes_no_request(sim: SimulatorServer, tmp_path: Path) -> None:
    refs = [github_misc("bare", with_author=False), github_misc("authored", with_author=True)]
    result, stats = run(sim, tmp_path, refs)
    assert sum(s["requests"] for s in stats.values()) == 0, stats
    assert sum(s["requests"] for s in result.summary.sources.values()) == 0
    for out in result.references:
        assert out["trace"] == [], out
        assert out["verdict"] not in ("not_found", "fabricated"), out
    assert by_key(result)["bare"]["verdict"] == "out_of_scope"


def test_a_repository_cited_with_a_doi_is_still_looked_up(sim: SimulatorServer, tmp_path: Path) -> None:
    ref = github_misc("withdoi", with_author=True).model_copy(update={"doi": "10.5555/filler.1"})
    result, stats = run(sim, tmp_path, [ref])
    out = by_key(result)["withdoi"]
    assert any(a["kind"] == "doi" for a in out["trace"])
    assert stats["crossref"]["requests"] + stats["openalex"]["requests"] >= 1
