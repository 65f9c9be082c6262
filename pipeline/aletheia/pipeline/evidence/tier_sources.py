"""The Tier 1 (books) and Tier 3 (canonical texts) clients of one gateway, and their lookups.

The gateway's clients of these sources, built from their records (`sources/registry.py`) on its
shared `httpx.AsyncClient`, limiter, breakers and cache; each client's transport is in the
gateway's stats (`SourceGateway.stats`), so its requests are counted in every report like any
other source's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from aletheia.core.evidence import Evidence, QueryKind
from aletheia.core.records import CitedReference, SourceName
from aletheia.pipeline.evidence.gateway_parts import searchable
from aletheia.sources.base import SourceRecord
from aletheia.sources.book_snippets import BookTextSearch
from aletheia.sources.ccel import CcelClient
from aletheia.sources.google_books import GoogleBooksClient
from aletheia.sources.open_library import OpenLibraryClient
from aletheia.sources.perseus import PerseusClient
from aletheia.sources.registry import client_of

if TYPE_CHECKING:
    from collections.abc import Mapping

    from aletheia.sources.registry import SourceClient

Lookup = Callable[[], Awaitable[Any]]
# `functools.partial(evidence._ask, gathered)`: run one lookup and record its answer (passed in,
# so that the tier modules need not import `evidence`, which calls them).
Ask = Callable[[SourceName, QueryKind, str, Lookup], Awaitable[list[SourceRecord]]]


class Gathering(Protocol):
    """What the tiers read of `evidence.Gathered`."""

    raw: list[SourceRecord]

    def evidence(self, gw: Any, cited: CitedReference) -> Evidence: ...


BOOK_SEARCH_RESULTS = 5


class TierSources:
    def __init__(self, clients: Mapping[str, SourceClient]) -> None:
        self.open_library = client_of(clients, SourceName.OPEN_LIBRARY, OpenLibraryClient)
        self.google_books = client_of(clients, SourceName.GOOGLE_BOOKS, GoogleBooksClient)
        # Search inside a book for a cited quote, through the Google Books client (`book_quotes`).
        self.book_text = BookTextSearch(self.google_books)
        self.perseus = client_of(clients, SourceName.PERSEUS, PerseusClient)
        self.ccel = client_of(clients, SourceName.CCEL, CcelClient)

    def isbn_lookups(self, isbn: str) -> list[tuple[SourceName, Lookup]]:
        return [
            (SourceName.OPEN_LIBRARY, lambda: self.open_library.by_isbn(isbn)),
            (SourceName.GOOGLE_BOOKS, lambda: self.google_books.by_isbn(isbn)),
        ]

    def book_searches(self, title: str, author: str | None) -> list[tuple[SourceName, str, Lookup]]:
        """(source, recorded query, call) for each catalogue's title/author search."""
        query = f"{title} | author: {author}" if author else title
        return [
            (
                SourceName.OPEN_LIBRARY,
                query,
                searchable(
                    SourceName.OPEN_LIBRARY,
                    lambda: self.open_library.search(title=title, author=author, limit=BOOK_SEARCH_RESULTS),
                ),
            ),
            (
                SourceName.GOOGLE_BOOKS,
                query,
                searchable(
                    SourceName.GOOGLE_BOOKS,
                    lambda: self.google_books.search(title=title, author=author, limit=BOOK_SEARCH_RESULTS),
                ),
            ),
        ]

    def passage_lookup(self, service: str, locator: str) -> tuple[SourceName, Lookup]:
        if service == "ccel":
            return SourceName.CCEL, lambda: self.ccel.page(locator)
        return SourceName.PERSEUS, lambda: self.perseus.passage(locator)
