"""Issue 28: a work carrying a source's own recorded JSON (`native`) is served verbatim by that
source's routes (lookup, list, search), its ids become the work's own, and a work of the real-records
benchmark's shape (`id`, `venue_type` beside the fields) loads. The records here are written by hand
in the shape of real answers (a Crossref item with `sequence` authors and `published` date parts, an
OpenAlex work whose `publication_year` is the first appearance's, a Semantic Scholar paper with
`externalIds`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from aletheia.sources.crossref import parse_crossref_message
from aletheia.sources.openalex_parse import parse_openalex_work
from aletheia.sources.semantic_scholar_parse import parse_s2_paper
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, SimWork, Universe

CROSSREF_ITEM: dict[str, Any] = {
    "DOI": "10.5555/native.2022.17",
    "type": "proceedings-article",
    "title": ["Sorted Bylines in Deposits"],
    "author": [
        {"given": "Maria", "family": "Alvarez", "sequence": "first", "affiliation": []},
        {"given": "Chen", "family": "Zhou", "sequence": "additional", "affiliation": []},
    ],
    "container-title": ["Advances in Simulated Systems 35"],
    "published": {"date-parts": [[2022, 11]]},
    "publisher": "Curran Associates",
}
OPENALEX_WORK: dict[str, Any] = {
    "id": "https://openalex.org/W4312345678",
    "doi": "https://doi.org/10.5555/native.2022.17",
    "title": "Sorted Bylines in Deposits",
    "display_name": "Sorted Bylines in Deposits",
    "publication_year": 2021,
    "type": "article",
    "authorships": [
        {
            "author_position": "first",
            "author": {"id": "https://openalex.org/A1", "display_name": "Maria Alvarez"},
        },
        {"author_position": "last", "author": {"id": "https://openalex.org/A2", "display_name": "Chen Zhou"}},
    ],
    "primary_location": None,
    "locations": [],
    "ids": {"openalex": "https://openalex.org/W4312345678", "doi": "https://doi.org/10.5555/native.2022.17"},
}
S2_PAPER: dict[str, Any] = {
    "paperId": "0123456789abcdef0123456789abcdef01234567",
    "externalIds": {"DOI": "10.5555/native.2022.17", "CorpusId": 98765},
    "title": "Sorted Bylines in Deposits",
    "year": 2021,
    "venue": "Neural Information Processing Systems",
    "authors": [{"authorId": "1", "name": "Maria Alvarez"}, {"authorId": "2", "name": "C. Zhou"}],
}
WORK: dict[str, Any] = {
    "id": "rr-000000000001",
    "venue_type": "proceedings",
    "title": "Sorted Bylines in Deposits",
    "authors": [{"given": "Maria", "family": "Alvarez"}, {"given": "Chen", "family": "Zhou"}],
    "year": 2022,
    "venue": "Advances in Simulated Systems 35",
    "type": "proceedings-article",
    "doi": "10.5555/native.2022.17",
    "sources": ["crossref", "openalex", "semantic_scholar"],
    "native": {"crossref": CROSSREF_ITEM, "openalex": OPENALEX_WORK, "semantic_scholar": S2_PAPER},
}


@pytest.fixture(scope="module")
def universe() -> Universe:
    return Universe.from_records([WORK])


@pytest.fixture(scope="module")
def native_sim(universe: Universe) -> Iterator[SimulatorServer]:
    with SimulatorServer(universe, SimulatorConfig.unlimited()) as server:
        yield server


def test_a_recorded_work_loads_with_its_own_ids(universe: Universe) -> None:
    (work,) = list(universe)
    assert work.meta == {"id": "rr-000000000001", "venue_type": "proceedings"}
    assert work.derived_openalex_id == "W4312345678"
    assert work.derived_s2_id == S2_PAPER["paperId"] and work.derived_corpus_id == 98765


def test_native_records_are_served_verbatim(native_sim: SimulatorServer, client: httpx.Client) -> None:
    doi = WORK["doi"]
    crossref = client.get(f"{native_sim.url_for('crossref')}/works/{doi}").json()["message"]
    assert {k: v for k, v in crossref.items() if k != "score"} == CROSSREF_ITEM
    listed = client.get(
        f"{native_sim.url_for('crossref')}/works", params={"query.bibliographic": "sorted bylines"}
    )
    assert listed.json()["message"]["items"][0]["author"] == CROSSREF_ITEM["author"]
    openalex = client.get(f"{native_sim.url_for('openalex')}/works/doi:{doi}").json()
    assert openalex == OPENALEX_WORK
    s2 = client.get(
        f"{native_sim.url_for('semantic_scholar')}/graph/v1/paper/DOI:{doi}",
        params={"fields": "title,year,authors,externalIds"},
    ).json()
    assert s2["year"] == 2021 and s2["authors"] == S2_PAPER["authors"]
    # The real parsers read them as they would the real answers: each source's own year.
    assert parse_crossref_message({"message-type": "work", "message": crossref})[0].year == 2022
    assert parse_openalex_work(openalex).year == 2021
    assert parse_s2_paper(s2).year == 2021


def test_native_records_of_an_unlisted_source_are_refused() -> None:
    with pytest.raises(ValueError, match="sources do not list"):
        SimWork.model_validate({**WORK, "sources": ["crossref"]})
