"""Open Library (Tier 1, books): an edition by ISBN, and title/author search.

`{base}/isbn/{isbn}.json` answers with the edition record (a redirect to `/books/OL…M.json`,
followed by the shared client) or 404; the edition names its authors by key only, so the names
come from `{base}/authors/OL…A.json` (at most `MAX_AUTHORS` of them, each cached by key).
`{base}/search.json?title=...&author=...` searches works. Open Library asks API users for an
identifying User-Agent and moderate traffic; the limit is a setting (`ALETHEIA_OPEN_LIBRARY_LIMITS`,
one request per second by default). Pure parsers: `books_parse`.

A catalogue that lacks a book says nothing about whether the book exists: the pipeline records
its "not found", and `decide` never turns it into an accusation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import quote

from aletheia.core.isbn import normalise_isbn
from aletheia.core.records import SourceName, WorkRecord
from aletheia.sources.base import SourceRecord
from aletheia.sources.books_parse import (
    open_library_search_docs,
    parse_open_library_doc,
    parse_open_library_edition,
)
from aletheia.sources.cache import cache_key, item_records
from aletheia.sources.client_base import SourceClientBase
from aletheia.sources.transport.factory import contact_headers, source_transport

SOURCE: Final = SourceName.OPEN_LIBRARY
MAX_AUTHORS: Final = 5
SEARCH_FIELDS: Final = "key,title,subtitle,author_name,first_publish_year,publisher,isbn,edition_count"


class OpenLibraryClient(SourceClientBase):
    source = SOURCE

    def _parse(self, raw: Any) -> WorkRecord:
        edition = raw.get("edition") if isinstance(raw, Mapping) else None
        names = raw.get("author_names") if isinstance(raw, Mapping) else None
        return parse_open_library_edition(
            edition, [n for n in names or [] if isinstance(n, str)], base_url=self.transport.base_url
        )

    async def by_isbn(self, isbn: str) -> SourceRecord | None:
        """The edition an ISBN names, or None when Open Library has none (cached either way).
        Raises ValueError for a string that is no valid ISBN: callers validate first."""
        canonical = normalise_isbn(isbn)
        if canonical is None:
            raise ValueError(f"not an ISBN: {isbn!r}")
        path = f"/isbn/{canonical}.json"

        async def fetch() -> dict[str, Any] | None:
            edition = await self.transport.get_json(path, kind="single")
            if edition is None:
                return None
            return {"edition": edition, "author_names": await self._author_names(edition)}

        return await self._record(
            cache_key("isbn", canonical), fetch=fetch, parse=self._parse, url=self._url(path)
        )

    async def _author_names(self, edition: Any) -> list[str]:
        authors = edition.get("authors") if isinstance(edition, Mapping) else None
        keys: list[str] = []
        for author in authors if isinstance(authors, list) else []:
            key = author.get("key") if isinstance(author, Mapping) else None
            if isinstance(key, str) and key.startswith("/authors/") and len(keys) < MAX_AUTHORS:
                keys.append(key)
        names: list[str] = []
        for author_key in keys:
            record = await self.transport.get_json(f"{quote(author_key)}.json", kind="single")
            name = record.get("name") if isinstance(record, Mapping) else None
            if isinstance(name, str) and name.strip():
                names.append(name.strip())
        return names

    async def search(self, *, title: str, author: str | None = None, limit: int = 5) -> list[SourceRecord]:
        """Works whose title (and author, when given) match, best first."""
        if not title.strip():
            raise ValueError("an Open Library search needs a title")
        params: dict[str, Any] = {
            "title": title,
            "author": author or None,
            "limit": limit,
            "fields": SEARCH_FIELDS,
        }
        path = "/search.json"
        url = self._url(path)
        base_url = self.transport.base_url
        parse = item_records(
            open_library_search_docs, lambda d: parse_open_library_doc(d, base_url=base_url), url
        )
        return await self._search_json(
            path, params, parse, found=lambda p: bool(isinstance(p, Mapping) and p.get("docs"))
        )


open_library_transport: Final = source_transport(SOURCE, headers=contact_headers)
