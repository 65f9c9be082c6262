"""Google Books (Tier 1, books): volumes by ISBN and by title/author.

`{base}/books/v1/volumes?q=isbn:{isbn}` and `q=intitle:"..." inauthor:...` (the API's documented
search keywords), `printType=books`; the key (`GOOGLE_BOOKS_API_KEY`) is sent as `key` when set
(without one Google allows a small daily quota). The limit is a setting
(`ALETHEIA_GOOGLE_BOOKS_LIMITS`, one request per second by default). Pure parsers: `books_parse`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from aletheia.core.isbn import normalise_isbn
from aletheia.core.records import SourceName
from aletheia.sources.base import SourceRecord
from aletheia.sources.books_parse import google_books_items, parse_google_books_volume
from aletheia.sources.cache import cache_key, item_records
from aletheia.sources.client_base import SourceClientBase
from aletheia.sources.transport.factory import source_transport

if TYPE_CHECKING:
    from aletheia.config.settings import Settings

SOURCE: Final = SourceName.GOOGLE_BOOKS
VOLUMES: Final = "/books/v1/volumes"


def _quoted(text: str) -> str:
    return '"' + " ".join(text.replace('"', " ").split()) + '"'


class GoogleBooksClient(SourceClientBase):
    source = SOURCE

    # The API key, when there is one, is the transport's (`google_books_transport`): it is sent
    # with every request and never part of a cache key.

    def _params(self, q: str, max_results: int) -> dict[str, Any]:
        return {"q": q, "printType": "books", "maxResults": max_results}

    async def by_isbn(self, isbn: str) -> SourceRecord | None:
        """The volume carrying this ISBN, or None (cached either way). The volumes answer can hold
        several volumes; only one whose own identifiers include the ISBN is taken."""
        canonical = normalise_isbn(isbn)
        if canonical is None:
            raise ValueError(f"not an ISBN: {isbn!r}")

        async def fetch() -> Any:
            payload = await self.transport.get_json(
                VOLUMES, params=self._params(f"isbn:{canonical}", 5), kind="single"
            )
            items = google_books_items(payload) if payload is not None else []
            return next((i for i in items if canonical in parse_google_books_volume(i).isbn), None)

        return await self._record(
            cache_key("isbn", canonical),
            fetch=fetch,
            parse=parse_google_books_volume,
            url=self._url(f"{VOLUMES}?q=isbn:{canonical}"),
        )

    async def search(self, *, title: str, author: str | None = None, limit: int = 5) -> list[SourceRecord]:
        if not title.strip():
            raise ValueError("a Google Books search needs a title")
        q = f"intitle:{_quoted(title)}" + (f" inauthor:{_quoted(author)}" if author else "")
        params = self._params(q, limit)
        url = self._url(VOLUMES)
        return await self._search_json(
            VOLUMES,
            params,
            item_records(google_books_items, parse_google_books_volume, url),
            found=lambda p: bool(isinstance(p, Mapping) and p.get("items")),
        )


def _api_key_param(settings: Settings) -> dict[str, str] | None:
    key = settings.google_books_api_key
    return {"key": key.get_secret_value()} if key else None


google_books_transport: Final = source_transport(SOURCE, params=_api_key_param)
