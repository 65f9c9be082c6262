"""Tier 1: a quote cited from a book, searched for inside the book (the I/O half).

A book citation that carries a quoted excerpt (`classical_case.cited_quote`) is searched for in
Google Books' page snippets of that book (`sources/book_snippets.py`: `q="phrase" isbn:...`),
by the cited ISBN, else by the ISBN of the book the catalogues matched. The answer is recorded as
a `QueryKind.BOOK_TEXT` answer; `core.book_quotes` reads it (a snippet holding the quote verbatim
is an exact quote; no snippet is unverified content, never an accusation). Asked once per
reference, after the catalogues (`books.gather_book_evidence`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aletheia.core.book_rules import BOOK_SOURCES, is_book_like
from aletheia.core.classical_case import cited_quote
from aletheia.core.decide import decide
from aletheia.core.evidence import QueryKind
from aletheia.core.isbn import normalise_isbn
from aletheia.core.records import CitedReference, SourceName
from aletheia.sources.base import PermanentSourceError, SourceRecord
from aletheia.sources.book_snippets import snippet_query

if TYPE_CHECKING:
    from aletheia.pipeline.evidence.gateway import SourceGateway
    from aletheia.pipeline.evidence.tier_sources import Ask, Gathering


def _isbn_to_search(cited: CitedReference, g: Gathering, gw: SourceGateway, current_year: int) -> str | None:
    """The cited ISBN; else the first ISBN of the book the catalogues matched."""
    cited_isbn = normalise_isbn(cited.isbn) if cited.isbn else None
    if cited_isbn:
        return cited_isbn
    verdict = decide(cited, g.evidence(gw, cited), current_year=current_year)
    for record in (verdict.match, verdict.secondary):
        if record is not None and record.source in BOOK_SOURCES and record.isbn:
            return record.isbn[0]
    return None


async def ask_book_quote(
    cited: CitedReference, gw: SourceGateway, g: Gathering, ask: Ask, *, current_year: int
) -> bool:
    """Search inside the cited book for its quote; True when asked (once per reference)."""
    quote = cited_quote(cited)
    if quote is None or not is_book_like(cited):
        return False
    if any(a.kind is QueryKind.BOOK_TEXT for a in g.evidence(gw, cited).answers):
        return False
    isbn = _isbn_to_search(cited, g, gw, current_year)
    if isbn is None:
        return False  # nothing to search inside: `core.book_quotes` says so
    search = gw.tiers.book_text

    async def run() -> list[SourceRecord]:
        try:
            return await search.search_inside(isbn, quote)
        except ValueError as exc:  # a quote with no word to search: a failed answer, not "absent"
            raise PermanentSourceError(SourceName.GOOGLE_BOOKS.value, str(exc)) from None

    await ask(SourceName.GOOGLE_BOOKS, QueryKind.BOOK_TEXT, snippet_query(isbn, quote), run)
    return True
