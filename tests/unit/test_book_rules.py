"""aletheia.core.book_rules: which references are books, edition statements, publishers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.book_rules import (
    book_query_title,
    is_book_like,
    publisher_agrees,
    without_edition_statement,
)
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord

AUTHOR = (Author(given="Stephen", family="Boyd"),)


def cited(**kw: object) -> CitedReference:
    base: dict[str, object] = {"key": "k", "title": "Convex Optimization", "authors": AUTHOR, "year": 2004}
    base.update(kw)
    return CitedReference(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        (cited(entry_type="book"), True),
        (cited(entry_type="article", isbn="9780521833783"), True),
        (cited(entry_type="misc", venue="Cambridge University Press"), True),  # a publisher for venue
        (cited(entry_type="misc", venue="O'Reilly", url="https://books.google.com/books?id=x"), True),
        (cited(entry_type="article", venue="Journal of Optimization Theory"), False),
        (cited(entry_type="book", doi="10.1017/CBO9780511804441"), False),  # the DOI settles it
        (cited(entry_type="misc", url="https://github.com/cvxpy/cvxpy"), False),  # code, out of scope
        (cited(entry_type="techreport", venue="Technical report, MIT"), False),
        (cited(entry_type="book", title=None), False),
    ],
)
def test_is_book_like(ref: CitedReference, expected: bool) -> None:
    assert is_book_like(ref) is expected


@pytest.mark.parametrize(
    ("title", "query"),
    [
        ("Reinforcement Learning: An Introduction (2nd Edition)", "Reinforcement Learning: An Introduction"),
        ("Pattern Recognition, 2nd ed.", "Pattern Recognition"),
        ("The Elements of Statistical Learning - Second Edition", "The Elements of Statistical Learning"),
        ("Deep Learning [3rd edition] for Everyone", "Deep Learning for Everyone"),
        ("A New Edition of Old Songs", "A New Edition of Old Songs"),  # mid-title: left alone
        ("Second edition", "Second edition"),  # nothing would be left
        ("Editions of Kant", "Editions of Kant"),
    ],
)
def test_book_query_title(title: str, query: str) -> None:
    assert book_query_title(title) == query


def test_without_edition_statement_only_touches_books() -> None:
    book = cited(entry_type="book", title="Convex Optimization (2nd Edition)")
    assert without_edition_statement(book).title == "Convex Optimization"
    paper = cited(entry_type="article", title="Convex Optimization (2nd Edition)", venue="J. Opt.")
    assert without_edition_statement(paper) is paper


@given(st.text(max_size=80))
def test_book_query_title_never_empties_a_title(title: str) -> None:
    out = book_query_title(title)
    assert out.strip() or not title.strip()
    assert book_query_title(out) == out or len(book_query_title(out)) < len(out)


def test_publisher_agrees() -> None:
    def rec(publisher: str | None) -> WorkRecord:
        return WorkRecord(source=SourceName.OPEN_LIBRARY, title="Convex Optimization", publisher=publisher)

    ref = cited(fields={"publisher": "Cambridge University Press"})
    assert (
        publisher_agrees(ref, [rec("Cambridge Univ. Press, Cambridge, UK")]) is False
    )  # "univ" is no word of the cited
    assert publisher_agrees(ref, [rec("Cambridge University Press")]) is True
    assert publisher_agrees(cited(fields={"publisher": "MIT Press"}), [rec("The MIT Press")]) is True
    assert publisher_agrees(cited(fields={"publisher": "MIT Press"}), [rec("Springer"), rec("MIT")]) is True
    assert publisher_agrees(cited(fields={"publisher": "MIT Press"}), [rec("Springer")]) is False
    assert publisher_agrees(cited(), [rec("Springer")]) is None
    assert publisher_agrees(ref, [rec(None)]) is None
