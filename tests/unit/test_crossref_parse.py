"""The pure Crossref parsers against hand-written fixtures (tests/fixtures/crossref/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.records import Author, RetractionKind, SourceName
from aletheia.sources.base import SourceParseError
from aletheia.sources.crossref import crossref_message_type, parse_crossref_message, parse_crossref_work
from aletheia.sources.crossref_notices import notices_from_update_to, update_kind
from aletheia.sources.markup_text import markup_to_text

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "crossref"
USED_FIXTURES = {
    "work_with_updates.json",
    "retraction_notice.json",
    "posted_content_preprint.json",
    "search_results.json",
    "notices_search.json",
    "proceedings_series.json",
}


def load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def test_every_fixture_is_used() -> None:
    assert {p.name for p in FIXTURES.glob("*.json")} == USED_FIXTURES


def test_a_journal_article_with_its_notices() -> None:
    [record] = parse_crossref_message(load("work_with_updates.json"))
    assert record.source is SourceName.CROSSREF
    assert record.doi == "10.5555/aletheia.test.0001"  # Crossref keeps case; DOIs are case-insensitive
    assert record.title == "Tidal Rhythms in Littorina Snails"  # inline <i> dropped
    assert record.subtitle == "A Field Study & a Model"
    assert record.year == 2019
    assert record.venue == "Journal of Shoreline Studies"
    assert record.work_type == "journal-article"
    assert not record.is_preprint
    assert record.authors == (
        Author(given="Ingrid", family="Halvorsen", orcid="0000-0002-1825-009X"),
        Author(given="Marcus", family="Webb", suffix="Jr."),
        Author(literal="Coastal Ecology Consortium"),
    )
    assert record.abstract == "Snails follow the tide.\nWe model why & how."
    assert record.urls == {
        "doi": "https://doi.org/10.5555/aletheia.test.0001",
        "landing": "https://shoreline.example/articles/0001",
        "pdf": "https://shoreline.example/articles/0001.pdf",
    }
    kinds = [(n.kind, n.source, n.notice_doi, n.date) for n in record.retraction_notices]
    assert kinds == [
        (RetractionKind.CORRECTED, SourceName.CROSSREF, "10.5555/aletheia.test.0001-corr", "2020-01-15"),
        (
            RetractionKind.RETRACTED,
            SourceName.RETRACTION_WATCH,
            "10.5555/aletheia.test.0001-retr",
            "2021-06-03",
        ),
    ]  # the new_version update says nothing about standing
    assert "record 99001" in (record.retraction_notices[1].detail or "")
    # Version relations only: is-referenced-by is not another version of this work.
    assert record.related_dois == ("10.1101/2018.11.30.000001",)
    assert record.related_arxiv_ids == ("1811.01234",)
    assert record.notice_for == ()
    assert record.score == 1.0


def test_a_notice_is_recognised_and_never_marked_itself() -> None:
    [record] = parse_crossref_message(load("retraction_notice.json"))
    assert record.work_type == "notice"
    assert record.notice_for == ("10.5555/aletheia.test.0002",)
    assert record.retraction_notices == ()
    assert record.authors == ()


def test_a_posted_content_preprint() -> None:
    [record] = parse_crossref_message(load("posted_content_preprint.json"))
    assert record.work_type == "preprint"
    assert record.is_preprint
    assert record.year == 2018  # from `posted`, before `created`
    assert record.venue == "bioRxiv"
    assert record.related_dois == ("10.5555/aletheia.test.0001",)
    # "et al." deposited as an author is a truncation, not an author.
    assert record.authors == (Author(given="Ingrid", family="Halvorsen"),)
    assert record.authors_truncated


def test_a_search_envelope() -> None:
    conference, figure, retracted, book = parse_crossref_message(load("search_results.json"))

    assert conference.work_type == "proceedings-article"
    assert conference.venue == "Workshop on Marine Machine Learning"  # event name, no container
    assert conference.year == 2021  # `issued` is [[null]]: next field
    assert conference.authors == (Author(given="Ana", family="de la Cruz"),)
    assert conference.score == 57.3

    assert figure.title is None
    assert figure.work_type == "component"
    assert figure.year == 2015  # only `created`

    assert retracted.title == "Eels navigate by starlight"
    assert retracted.venue == "Journal of Shoreline Studies"  # a string, as in CSL-JSON
    [marker] = retracted.retraction_notices
    assert marker.kind is RetractionKind.RETRACTED
    assert marker.source is SourceName.CROSSREF

    assert book.work_type == "book"
    assert book.year == 2012  # a date part given as a string
    assert book.isbn == ("9780306406157",)  # both forms are one ISBN; the junk is dropped


def test_notices_from_update_to_pick_the_target() -> None:
    eoc, retraction = load("notices_search.json")["message"]["items"]
    [notice] = notices_from_update_to(eoc, "https://doi.org/10.5555/ALETHEIA.TEST.0003")
    assert notice.kind is RetractionKind.EXPRESSION_OF_CONCERN
    assert notice.notice_doi == "10.5555/aletheia.test.0003-eoc"
    assert notice.date == "2023-01-05"
    assert [n.kind for n in notices_from_update_to(retraction, "10.5555/aletheia.test.0004")] == [
        RetractionKind.RETRACTED
    ]
    assert notices_from_update_to(retraction, "10.5555/aletheia.test.9999") == []


def test_a_self_referencing_update_marks_the_record_itself() -> None:
    record = parse_crossref_work(
        {
            "DOI": "10.5555/x.1",
            "type": "journal-article",
            "title": ["A paper"],
            "update-to": [{"DOI": "10.5555/X.1", "type": "withdrawal", "updated": {"date-parts": [[2020]]}}],
        }
    )
    assert record.work_type == "journal-article"
    assert record.notice_for == ()
    [notice] = record.retraction_notices
    assert (notice.kind, notice.date) == (RetractionKind.WITHDRAWN, "2020")


@pytest.mark.parametrize(
    ("update_type", "kind"),
    [
        ("retraction", RetractionKind.RETRACTED),
        ("partial_retraction", RetractionKind.RETRACTED),
        ("expression-of-concern", RetractionKind.EXPRESSION_OF_CONCERN),
        ("Expression of concern", RetractionKind.EXPRESSION_OF_CONCERN),
        ("erratum", RetractionKind.CORRECTED),
        ("corrigendum", RetractionKind.CORRECTED),
        ("withdrawal", RetractionKind.WITHDRAWN),
        ("removal", RetractionKind.WITHDRAWN),
        ("reinstatement", RetractionKind.REINSTATED),
        ("new_version", None),
        ("new_edition", None),
        (None, None),
    ],
)
def test_update_kinds(update_type: str | None, kind: RetractionKind | None) -> None:
    assert update_kind(update_type) is kind


def test_envelope_recognition() -> None:
    assert crossref_message_type({"message-type": "funder-list", "message": {}}) == "funder-list"
    assert crossref_message_type({"DOI": "10.1/x", "title": "t"}) == "work"  # bare CSL-JSON
    assert crossref_message_type([1, 2]) is None
    with pytest.raises(SourceParseError):
        parse_crossref_message({"status": "failed", "message-type": "validation-failure", "message": []})
    with pytest.raises(SourceParseError):
        parse_crossref_message({"message-type": "work-list", "message": {"total-results": 0}})


def test_a_bare_csl_work_has_string_fields() -> None:
    [record] = parse_crossref_message(
        {"DOI": "10.5555/csl.1", "type": "journal-article", "title": "Plain", "container-title": "J"}
    )
    assert (record.title, record.venue) == ("Plain", "J")


def test_a_non_object_item_is_a_parse_error() -> None:
    with pytest.raises(SourceParseError):
        parse_crossref_work(["not", "a", "work"])  # type: ignore[arg-type]


def test_markup_to_text() -> None:
    assert markup_to_text("H<sub>2</sub>O &lt; 3") == "H2O < 3"
    sections = "<jats:sec><jats:title>Background</jats:title><jats:p>One.</jats:p></jats:sec>"
    assert markup_to_text(sections, drop_heading="abstract") == "Background\nOne."
    assert markup_to_text("  plain   text ") == "plain text"


@given(st.text(alphabet=st.characters(blacklist_characters="<&"), max_size=200))
def test_markup_to_text_of_plain_text_in_a_paragraph_is_the_text(text: str) -> None:
    assert markup_to_text(f"<jats:p>{text}</jats:p>") == " ".join(text.split())


@given(st.text(max_size=200))
def test_markup_to_text_is_total(text: str) -> None:
    result = markup_to_text(text)
    assert result == result.strip()


def test_a_proceedings_chapter_with_its_series_and_event() -> None:
    [record] = parse_crossref_message(load("proceedings_series.json"))
    assert record.venue == "Computer Vision \u2013 ECCV 2020"
    assert record.other_venues == (
        "Lecture Notes in Computer Science",
        "European Conference on Computer Vision",
    )
    assert record.venue_aliases == ("ECCV 2020", "LNCS")
    assert record.issn == ("0302-9743", "1611-3349")
    assert record.published_venue is None and record.dblp_key is None


def test_csl_json_container_title_string_has_no_other_venues() -> None:
    record = parse_crossref_work(
        {"DOI": "10.1000/x", "type": "article-journal", "container-title": "Nature", "ISSN": "0028-0836"}
    )
    assert record.venue == "Nature" and record.other_venues == () and record.issn == ("0028-0836",)
