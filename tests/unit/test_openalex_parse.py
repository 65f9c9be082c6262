"""The pure OpenAlex parsers against hand-written fixtures (tests/fixtures/openalex/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.records import Author, RetractionKind, SourceName
from aletheia.sources.base import SourceParseError
from aletheia.sources.openalex import abstract_from_inverted_index, parse_openalex_list, parse_openalex_work
from aletheia.sources.openalex_bylines import split_display_name

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "openalex"
USED_FIXTURES = {
    "work_arxiv_preprint.json",
    "work_retracted.json",
    "work_published_with_preprint.json",
    "work_repository_primary.json",
}


def load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def test_every_fixture_is_used() -> None:
    assert {p.name for p in FIXTURES.glob("*.json")} == USED_FIXTURES


def test_an_arxiv_preprint() -> None:
    record = parse_openalex_work(load("work_arxiv_preprint.json"))
    assert record.source is SourceName.OPENALEX
    assert record.source_id == "W4000000001"
    assert record.doi == "10.48550/arxiv.2104.05678"
    assert record.arxiv_id == "2104.05678"
    assert record.is_preprint
    assert record.work_type == "preprint"
    assert record.year == 2021
    assert record.venue == "arXiv (Cornell University)"
    assert record.authors == (
        Author(
            given="Ana", family="de la Cruz", orcid="0000-0001-5109-3700", source_id="A1"
        ),  # raw "Family, Given"
        Author(
            given="Pieter", family="van den Berg", source_id="A2"
        ),  # display name, particles kept with the family
        Author(literal="Marine ML Team", source_id="A3"),
        Author(given="Martin Luther", family="King", suffix="Jr."),  # no author id: none kept
    )
    assert record.abstract == "Tides are periodic; attention is sparse attention too."
    # The published version OpenAlex merged in is another version of the same work.
    assert record.related_dois == ("10.5555/aletheia.conf.42",)
    assert record.related_arxiv_ids == ()  # its own arXiv id is not a related one
    assert record.retraction_notices == ()
    assert record.score == 812.5
    assert record.urls["pdf"] == "https://arxiv.org/pdf/2104.05678"


def test_a_retracted_work() -> None:
    record = parse_openalex_work(load("work_retracted.json"))
    assert record.doi == "10.5555/aletheia.retracted.3"
    assert record.title == "Eels navigate by starlight"  # marker and markup gone
    assert [(n.kind, n.source, n.detail) for n in record.retraction_notices] == [
        (RetractionKind.RETRACTED, SourceName.OPENALEX, "is_retracted"),
        (RetractionKind.RETRACTED, SourceName.OPENALEX, "title marked retracted"),
    ]
    assert record.pmid == "26000001"
    assert record.pmcid == "PMC4700001"
    assert record.authors == (
        Author(given="Tomasz", family="Nowak", source_id="A9"),
    )  # the byline, not "T. Nowak"
    assert record.authors_truncated
    assert record.work_type == "journal-article"
    assert not record.is_preprint
    assert record.abstract is None


def test_a_published_work_that_openalex_still_types_preprint() -> None:
    record = parse_openalex_work(load("work_published_with_preprint.json"))
    assert not record.is_preprint
    assert record.work_type == "journal-article"
    assert record.arxiv_id is None
    assert record.related_arxiv_ids == ("1811.01234",)
    assert record.related_dois == ("10.1101/2018.11.30.000001",)
    assert record.pmid == "31000003"  # from the PubMed location
    assert record.authors == (Author(given="Ingrid", family="Halvorsen", source_id="A5"),)
    assert record.abstract is None  # an empty inverted index


def test_a_list_envelope() -> None:
    payload = {
        "meta": {"count": 2},
        "results": [load("work_retracted.json"), load("work_arxiv_preprint.json")],
    }
    assert [r.source_id for r in parse_openalex_list(payload)] == ["W2000000002", "W4000000001"]
    with pytest.raises(SourceParseError):
        parse_openalex_list({"error": "Invalid query parameters error.", "message": "bad filter"})


@pytest.mark.parametrize(
    ("name", "author"),
    [
        ("Jane Doe", Author(given="Jane", family="Doe")),
        ("Doe, Jane", Author(given="Jane", family="Doe")),
        ("Doe, Jr., John", Author(given="John", family="Doe", suffix="Jr.")),
        ("Ludwig van Beethoven", Author(given="Ludwig", family="van Beethoven")),
        ("Juan de la Cruz", Author(given="Juan", family="de la Cruz")),
        ("Plato", Author(family="Plato")),
        ("The ATLAS Collaboration", Author(literal="The ATLAS Collaboration")),
        ("R Core Team", Author(literal="R Core Team")),
        ("  Ada   Lovelace ", Author(given="Ada", family="Lovelace")),
    ],
)
def test_split_display_name(name: str, author: Author) -> None:
    assert split_display_name(name) == author


def test_split_display_name_of_nothing() -> None:
    assert split_display_name("   ") is None


@given(
    st.dictionaries(st.text(min_size=1, max_size=8), st.lists(st.integers(0, 60), max_size=4), max_size=20)
)
def test_inverted_index_round_trip_keeps_every_placed_word(index: dict[str, list[int]]) -> None:
    text = abstract_from_inverted_index(index)
    placed = [word for word, positions in index.items() if positions]
    if text is None:
        # None only when no word with a position has any text (a word with no position is absent).
        assert all(not word.split() for word in placed)
    else:
        for word in index:
            if index[word] and word.split():
                assert " ".join(word.split()) in text


def test_an_absurd_inverted_index_is_refused() -> None:
    assert abstract_from_inverted_index({"word": list(range(30_000))}) is None
    assert abstract_from_inverted_index({"a": [1], "b": "not positions"}) == "a"


def test_a_repository_primary_location_gives_way_to_the_journal() -> None:
    """OpenAlex makes an institutional repository the primary location of a JMLR article."""
    record = parse_openalex_work(load("work_repository_primary.json"))
    assert record.venue == "Journal of Machine Learning Research"
    assert record.published_venue == "Journal of Machine Learning Research"
    assert not record.is_preprint
    assert record.work_type == "journal-article"
    assert record.other_venues == (
        "Lancaster EPrints (Lancaster University)",
        "Bristol Research (University of Bristol)",
    )
    assert record.venue_aliases == ("J. Mach. Learn. Res.", "JMLR")
    assert record.issn == ("1532-4435", "1533-7928")


def test_an_arxiv_primary_with_a_conference_location_is_published() -> None:
    work = load("work_repository_primary.json")
    arxiv = {
        "id": "https://openalex.org/S4306400194",
        "display_name": "arXiv (Cornell University)",
        "type": "repository",
    }
    conference = {
        "id": "https://openalex.org/S9",
        "display_name": "Neural Information Processing Systems",
        "type": "conference",
    }
    work["doi"] = work["ids"]["doi"] = None
    work["type"], work["type_crossref"] = "preprint", None
    work["primary_location"] = {
        "source": arxiv,
        "landing_page_url": "https://arxiv.org/abs/1706.03762v5",
        "version": "submittedVersion",
    }
    work["locations"] = [
        work["primary_location"],
        {"source": conference, "landing_page_url": "https://papers.nips.cc/paper/7181"},
    ]
    record = parse_openalex_work(work)
    assert (record.venue, record.published_venue) == ("Neural Information Processing Systems",) * 2
    assert not record.is_preprint and record.work_type == "proceedings-article"
    assert record.arxiv_id == "1706.03762"  # the copy it also knows, as Semantic Scholar keeps it
    assert record.other_venues == ("arXiv (Cornell University)",)


def test_an_arxiv_category_posing_as_a_conference_is_no_publication() -> None:
    """OpenAlex has `conference` sources named after arXiv categories, located on arXiv pages."""
    work = load("work_arxiv_preprint.json")
    for location in work["locations"]:
        if location["source"]["type"] == "conference":
            location["source"]["display_name"] = "Computer Vision and Pattern Recognition"
            location["landing_page_url"] = "http://export.arxiv.org/pdf/2104.05678"
    record = parse_openalex_work(work)
    assert record.published_venue is None and record.is_preprint
    assert "Computer Vision and Pattern Recognition" in record.other_venues


def test_the_arxiv_doi_record_stays_the_preprint_and_learns_the_venue() -> None:
    record = parse_openalex_work(load("work_arxiv_preprint.json"))
    assert record.is_preprint and record.venue == "arXiv (Cornell University)"
    assert record.published_venue == "Workshop on Marine Machine Learning"


def test_the_open_access_copy_is_kept_for_the_full_text_chain() -> None:
    # `best_oa_location` names the PDF and its page (both arXiv's here: the chain fetches those
    # through the arXiv client).
    preprint = parse_openalex_work(load("work_arxiv_preprint.json"))
    assert preprint.urls["oa_pdf"] == "https://arxiv.org/pdf/2104.05678"
    assert preprint.urls["oa_html"] == "http://arxiv.org/abs/2104.05678"
    # No best location (the recorded answers select none): the first open location with a PDF.
    repository = parse_openalex_work(load("work_repository_primary.json"))
    assert repository.urls["oa_pdf"] == "https://eprints.example.ac.uk/id/eprint/4242/1/paper.pdf"
    assert "oa_html" not in repository.urls  # no best location, no `open_access.oa_url`
    # Nothing open: nothing kept.
    retracted = parse_openalex_work(load("work_retracted.json"))
    assert not {"oa_pdf", "oa_html"} & set(retracted.urls)


def test_a_closed_pdf_link_is_not_an_open_access_copy() -> None:
    work = load("work_repository_primary.json")
    for location in work["locations"]:
        location["is_oa"] = False  # paywalled copies: their PDF links answer a login page
    work["open_access"] = {"is_oa": True, "oa_url": "https://doi.org/10.5555/open.1"}
    record = parse_openalex_work(work)
    assert "oa_pdf" not in record.urls
    assert record.urls["oa_html"] == "https://doi.org/10.5555/open.1"  # OpenAlex's own open link
    # `oa_url` naming the same PDF as the open location is not kept twice.
    work["locations"][0]["is_oa"] = True
    work["open_access"]["oa_url"] = work["locations"][0]["pdf_url"]
    assert "oa_html" not in parse_openalex_work(work).urls
    # A best location without a PDF: its landing page.
    work["best_oa_location"] = {"is_oa": True, "landing_page_url": "https://journal.example.org/a/1"}
    urls = parse_openalex_work(work).urls
    assert (urls["oa_pdf"], urls["oa_html"]) == (
        work["locations"][0]["pdf_url"],
        "https://journal.example.org/a/1",
    )
