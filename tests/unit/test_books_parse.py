"""Open Library and Google Books parsers (`sources.books_parse`).

No real response of either service is recorded in ../shared: the fixtures in tests/fixtures/books/
are modelled on the documented response shapes (see their README), and the simulator's answers
(same shapes) are parsed by the client tests.
"""

from __future__ import annotations

import json

import pytest

from aletheia.core.records import Author, SourceName
from aletheia.sources.base import SourceParseError
from aletheia.sources.books_parse import (
    google_books_items,
    open_library_search_docs,
    parse_google_books_volume,
    parse_google_books_volumes,
    parse_open_library_edition,
    parse_open_library_search,
)
from tests.unit.source_fakes import fixture_text


def load(name: str) -> object:
    return json.loads(fixture_text("books", name))


def test_open_library_edition_with_the_author_names_fetched_apart() -> None:
    record = parse_open_library_edition(
        load("open_library_edition.json"),
        ["Richard S. Sutton", "Andrew G. Barto"],
        base_url="https://ol.test/",
    )
    assert record.source is SourceName.OPEN_LIBRARY
    assert record.title == "Reinforcement Learning: An Introduction"
    assert record.subtitle == "An Introduction"
    assert record.authors == (
        Author(given="Richard S.", family="Sutton"),
        Author(given="Andrew G.", family="Barto"),
    )
    assert record.year == 2018  # "Nov 13, 2018"
    assert record.publisher == "The MIT Press"
    assert record.edition == "Second edition"
    assert record.isbn == ("9780262039246",)  # the ISBN-10 is the same book
    assert record.work_type == "book"
    assert record.urls == {"open_library": "https://ol.test/books/OL27256213M"}


def test_open_library_edition_without_author_names_has_no_authors() -> None:
    # `by_statement` is free text ("X and Y"): never split into authors.
    assert parse_open_library_edition(load("open_library_edition.json")).authors == ()


@pytest.mark.parametrize("payload", [None, [], {}, {"title": ""}, {"publishers": ["X"]}])
def test_open_library_edition_not_the_documented_shape(payload: object) -> None:
    with pytest.raises(SourceParseError):
        parse_open_library_edition(payload)


def test_open_library_search() -> None:
    (record,) = parse_open_library_search(load("open_library_search.json"))  # the untitled doc is skipped
    assert record.source_id == "/works/OL3263442W"
    assert record.title == "Reinforcement Learning: An Introduction"
    assert record.year == 1998  # the first edition: later editions' years are edition differences
    assert record.isbn == ("9780262039246", "9780262193986")  # both forms of one ISBN once, junk dropped
    assert record.publisher == "MIT Press"
    assert [a.family for a in record.authors] == ["Sutton", "Barto"]
    assert parse_open_library_search({"numFound": 0, "docs": []}) == []
    with pytest.raises(SourceParseError):
        parse_open_library_search({"numFound": 0})


def test_open_library_search_docs_are_the_parsed_ones_in_order() -> None:
    """The client pairs each record with its raw doc: both lists must skip the same docs (a blank
    or non-text title), or the pairing fails."""
    payload = {
        "docs": [
            {"key": "/works/A", "title": "First"},
            {"key": "/works/B", "title": "   "},
            {"key": "/works/C", "title": ["not", "text"]},
            "junk",
            {"key": "/works/D", "title": "Second"},
        ]
    }
    docs = open_library_search_docs(payload)
    records = parse_open_library_search(payload)
    assert [d["key"] for d in docs] == ["/works/A", "/works/D"]
    assert [r.title for r in records] == ["First", "Second"]


def test_google_books_volumes() -> None:
    book, periodical = parse_google_books_volumes(load("google_books_volumes.json"))
    assert book.source is SourceName.GOOGLE_BOOKS and book.source_id == "omivDQAAQBAJ"
    assert book.title == "Deep Learning" and book.subtitle is None
    assert [a.family for a in book.authors] == ["Goodfellow", "Bengio", "Courville"]
    assert (book.year, book.publisher, book.isbn) == (2016, "MIT Press", ("9780262035613",))
    assert book.urls["canonicalVolumeLink"].startswith("https://books.google.com/")
    assert periodical.work_type == "periodical" and periodical.isbn == () and periodical.year == 1999


def test_google_books_nothing_matched_has_no_items() -> None:
    assert parse_google_books_volumes(load("google_books_empty.json")) == []
    assert google_books_items({"totalItems": 3, "items": [{"id": "x"}, {"volumeInfo": {"title": ""}}]}) == []


@pytest.mark.parametrize("payload", [None, {}, {"kind": "books#volumes", "items": "x"}, []])
def test_google_books_not_the_documented_shape(payload: object) -> None:
    with pytest.raises(SourceParseError):
        parse_google_books_volumes(payload)
    with pytest.raises(SourceParseError):
        parse_google_books_volume(payload)
