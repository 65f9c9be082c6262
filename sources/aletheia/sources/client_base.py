"""What a client of one source over one transport holds and how it reads and fills the raw cache:
the shape "ask the source, 404 → None, parse, cache either way" written once for every client.

A client subclasses `SourceClientBase`, names its `source`, and asks through `_record` (one record
by key: the cache first, then `fetch` and `parse`), `_read` / `_store` (a cached answer, an answer
to cache, for lookups that batch) and `_search_json` (a search's JSON answer, memoised and cached
by request in `_searches`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from aletheia.sources.cache import SearchMemo, cached_record, for_base_url, read_cached

if TYPE_CHECKING:
    from aletheia.core.records import SourceName, WorkRecord
    from aletheia.sources.base import RawCache, RequestKind, SourceRecord, Transport

__all__ = ["SourceClientBase"]

R = TypeVar("R")


class SourceClientBase:
    """A client of `source` over `transport`, with the raw cache scoped by its base URL."""

    source: ClassVar[SourceName]

    def __init__(self, transport: Transport, *, cache: RawCache | None = None) -> None:
        self.transport = transport
        # A cached answer belongs to the base URL that gave it (`cache.for_base_url`).
        self.cache = for_base_url(cache, transport.base_url)
        self._searches = SearchMemo(self.source, self.cache, transport.stats)

    def _url(self, path: str) -> str:
        return f"{self.transport.base_url.rstrip('/')}{path}"

    async def _record(
        self,
        key: str,
        *,
        fetch: Callable[[], Awaitable[Any]],
        parse: Callable[[Any], WorkRecord | None],
        url: str,
    ) -> SourceRecord | None:
        """One record by cache key (`cache.cached_record`): None when the source has none."""
        return await cached_record(
            self.cache, self.source, key, self.transport.stats, fetch=fetch, parse=parse, url=url
        )

    async def _read(self, key: str, parse: Callable[[Any], WorkRecord]) -> tuple[bool, SourceRecord | None]:
        """(hit, record) of the cached answer under `key` (`cache.read_cached`)."""
        return await read_cached(self.cache, self.source, key, self.transport.stats, parse)

    async def _store(self, key: str, raw: Any, url: str) -> None:
        """Cache an answer under `key`: None is the negative entry (the source has no such work)."""
        if self.cache is not None:
            await self.cache.put(self.source, key, raw, found=raw is not None, url=url)

    async def _search_json(
        self,
        path: str,
        params: dict[str, Any],
        parse: Callable[[Any, datetime, bool], R],
        *,
        found: Callable[[Any], bool],
        kind: RequestKind = "search",
        headers: dict[str, str] | None = None,
    ) -> R:
        """A GET of JSON at `path` memoised and cached by request (`cache.SearchMemo.get`): `parse`
        reads the payload (None: the source had nothing), `found` says whether it is a positive
        cache entry."""
        return await self._searches.get(
            path,
            params,
            lambda: self.transport.get_json(path, params=params, headers=headers, kind=kind),
            parse,
            found=found,
            url=self._url(path),
        )
