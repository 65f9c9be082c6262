"""Google Books page snippets (Tier 1): search inside one book for a quote the citation gives.

Endpoint: the volumes search (`{ALETHEIA_GOOGLE_BOOKS_URL}/books/v1/volumes`) with the documented
query form `q="exact phrase" isbn:{isbn}` (a quoted phrase is searched as a phrase in the books'
text; `isbn:` restricts the answer to the volume carrying that ISBN). Each volume that has the
words carries `searchInfo.textSnippet`: a short stretch of the page around them, as HTML (the
text HTML-escaped, `&#39;`, `&quot;`, `&amp;`, `&nbsp;`, and the matched words in `<b>` tags).
The request goes through the Google Books client's transport (its key, limit, breaker and counts)
and is cached like its searches.

A snippet is a view of a few lines, not the book's text: one that holds the quote verbatim is
evidence the quote is in the book (`core.book_quotes`); none is no evidence either way.

`parse_book_snippets` (pure) turns the answer into the volume's `WorkRecord` with the snippet's
plain text as `abstract` (the record's text, as a canonical passage's is), keeping only volumes
that carry the ISBN asked for.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from aletheia.core.isbn import normalise_isbn
from aletheia.core.records import SourceName, WorkRecord
from aletheia.sources.base import SourceParseError, SourceRecord
from aletheia.sources.books_parse import google_books_items, parse_google_books_volume
from aletheia.sources.cache import SearchMemo

if TYPE_CHECKING:
    from aletheia.sources.google_books import GoogleBooksClient

__all__ = ["BookTextSearch", "parse_book_snippets", "snippet_query", "snippet_text"]

SOURCE: Final = SourceName.GOOGLE_BOOKS
VOLUMES: Final = "/books/v1/volumes"
# Words of the quote sent as the phrase: a snippet is a few lines, so a longer quote could not be
# found whole in it anyway; the check (`core.book_quotes`) always compares the whole quote.
MAX_PHRASE_WORDS: Final = 32
_BREAK: Final = re.compile(r"<(?:br|/?p|/?div)\b[^<>]{0,200}>", re.IGNORECASE)  # a line or block break
_TAG: Final = re.compile(r"<[^<>]{0,200}>")  # inline markup (`<b>`): no space, it sits inside words


def snippet_text(snippet: str) -> str:
    """The plain text of a `textSnippet`: a break tag (`<br>`) made a space and inline tags (`<b>`)
    dropped, then entities decoded, then whitespace runs made one space. Tags go first, so an
    escaped `&lt;b&gt;` stays literal text."""
    text = html.unescape(_TAG.sub("", _BREAK.sub(" ", snippet)).replace("\u00a0", " "))
    return " ".join(text.split())


def snippet_query(isbn: str, quote: str) -> str:
    """`"the quote's words" isbn:9780262035613` (double quotes inside the quote dropped)."""
    words = quote.replace('"', " ").split()[:MAX_PHRASE_WORDS]
    return f'"{" ".join(words)}" isbn:{isbn}'


def parse_book_snippets(payload: Any, isbn: str) -> list[WorkRecord]:
    """The volumes of a volumes answer that carry `isbn` and a snippet, each with the snippet's
    text as `abstract`. SourceParseError when the payload is not a volumes answer."""
    wanted = normalise_isbn(isbn)
    out: list[WorkRecord] = []
    for item in google_books_items(payload):
        info = item.get("searchInfo")
        raw = info.get("textSnippet") if isinstance(info, Mapping) else None
        if not isinstance(raw, str) or not raw.strip():
            continue
        record = parse_google_books_volume(item)
        if wanted is None or wanted not in record.isbn:
            continue  # another volume: its text says nothing about the cited book
        text = snippet_text(raw)
        if text:
            out.append(record.model_copy(update={"abstract": text}))
    return out


class BookTextSearch:
    """Search inside one book of Google Books for a phrase, through the Google Books client."""

    def __init__(self, client: GoogleBooksClient) -> None:
        self.client = client
        self._memo = SearchMemo(SOURCE.value, client.cache, client.transport.stats)

    async def search_inside(self, isbn: str, quote: str) -> list[SourceRecord]:
        """The snippets of the volume carrying `isbn` that hold the quote's words (an empty list
        when Google Books has no such page, or no such book). ValueError for a bad ISBN or a
        quote without a word."""
        canonical = normalise_isbn(isbn)
        if canonical is None:
            raise ValueError(f"not an ISBN: {isbn!r}")
        if not quote.replace('"', " ").split():
            raise ValueError("a search inside a book needs a phrase")
        params = {"q": snippet_query(canonical, quote), "printType": "books", "maxResults": 5}
        transport = self.client.transport
        url = f"{transport.base_url}{VOLUMES}"

        def parse(payload: Any, fetched_at: datetime, from_cache: bool) -> list[SourceRecord]:
            if payload is None:
                return []
            return [
                SourceRecord(record, payload, fetched_at, url, from_cache=from_cache)
                for record in parse_book_snippets(payload, canonical)
            ]

        def found(payload: Any) -> bool:
            try:
                return bool(payload is not None and parse_book_snippets(payload, canonical))
            except SourceParseError:
                return False

        return await self._memo.get(
            VOLUMES,
            params,
            lambda: transport.get_json(VOLUMES, params=params, kind="search"),
            parse,
            found=found,
            url=url,
        )
