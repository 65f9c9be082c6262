"""Raw-payload cache keys, and the in-memory `RawCache` (the SQL one is `aletheia.storage.cache`).

A cached answer is the source's raw payload, or a negative entry ("the source has no such work"),
which expires sooner: a work missing today may be registered tomorrow.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, TypeVar

from aletheia.core.records import WorkRecord
from aletheia.sources.base import CachedRaw, RawCache, SourceRecord, SourceStats
from aletheia.sources.transport.item_stats import count, count_extra

R = TypeVar("R")

if TYPE_CHECKING:
    from aletheia.config.settings import Settings

_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_ARXIV_PREFIX = re.compile(r"^(?:https?://(?:export\.)?arxiv\.org/(?:abs|pdf)/|arxiv:\s*)", re.IGNORECASE)
_PMID_PREFIX = re.compile(r"^pmid:\s*", re.IGNORECASE)
_WHITESPACE = re.compile(r"\s+")


def normalise_query(query: str) -> str:
    """Searches that differ only in case, Unicode form or spacing share one cache entry."""
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", query).casefold()).strip()


# Answers kept longer than the cache's own TTLs, by key namespace (`venue:<sha1>`): a venue's names
# change over years, not days, and a registry asked once per distinct venue string must not be
# asked again every month (issue 21). Read by both caches (`namespace_ttl`).
VENUE_NAMESPACE: Final = "venue"


def namespace_ttls(settings: Settings) -> dict[str, tuple[float, float]]:
    """Namespace -> (positive TTL, negative TTL) seconds, from settings."""
    return {
        VENUE_NAMESPACE: (
            float(settings.venue_cache_ttl_seconds),
            float(settings.venue_negative_cache_ttl_seconds),
        )
    }


def namespace_ttl(ttls: Mapping[str, tuple[float, float]], key: str, *, found: bool, default: float) -> float:
    """The TTL of the entry under `key`: its namespace's (the key's leading `name:`, also after a
    base-URL scope, `BaseUrlCache`) when it has one, else `default`."""
    for namespace, (positive, negative) in ttls.items():
        if key.startswith(f"{namespace}:") or f"|{namespace}:" in key:
            return positive if found else negative
    return default


def cache_key(kind: str, value: str) -> str:
    """The cache key of one lookup: `doi:10.1/x`, `arxiv:2502.03801`, `pmid:123`, `search:<sha1>`.

    DOIs are case-insensitive (lower-cased, resolver prefixes dropped); arXiv identifiers keep
    their version, since `v1` and `v2` are different records; a search is keyed by the SHA-1 of its
    normalised query, so keys stay short whatever the query.
    """
    text = value.strip()
    if kind == "doi":
        return f"doi:{_DOI_PREFIX.sub('', text).strip().lower()}"
    if kind == "arxiv":
        ident = _ARXIV_PREFIX.sub("", text).strip()
        return f"arxiv:{ident.removesuffix('.pdf').lower()}"
    if kind == "pmid":
        return f"pmid:{_PMID_PREFIX.sub('', text).strip()}"
    if kind == "search":
        digest = hashlib.sha1(normalise_query(text).encode("utf-8"), usedforsecurity=False).hexdigest()
        return f"search:{digest}"
    return f"{kind}:{text}"


class MemoryRawCache:
    """`RawCache` in memory: positive and negative TTLs, bounded size with least-recently-used eviction.

    `clock` gives wall-clock seconds (time.time): entries carry their fetch time as a datetime.
    Payloads are stored by reference; callers treat them as read-only.
    """

    def __init__(
        self,
        *,
        ttl_seconds: float,
        negative_ttl_seconds: float,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.time,
        ttls_by_namespace: Mapping[str, tuple[float, float]] | None = None,
    ) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be at least 1, got {max_entries!r}")
        self.ttl_seconds = ttl_seconds
        self.negative_ttl_seconds = negative_ttl_seconds
        self.max_entries = max_entries
        self._clock = clock
        self.ttls_by_namespace = dict(ttls_by_namespace or {})
        self._entries: OrderedDict[tuple[str, str], tuple[CachedRaw, float]] = OrderedDict()

    @classmethod
    def from_settings(
        cls, settings: Settings, *, max_entries: int = 10_000, clock: Callable[[], float] = time.time
    ) -> MemoryRawCache:
        return cls(
            ttl_seconds=settings.cache_ttl_seconds,
            negative_ttl_seconds=settings.negative_cache_ttl_seconds,
            max_entries=max_entries,
            clock=clock,
            ttls_by_namespace=namespace_ttls(settings),
        )

    def __len__(self) -> int:
        return len(self._entries)

    async def get(self, source: str, key: str) -> CachedRaw | None:
        slot = (source, key)
        entry = self._entries.get(slot)
        if entry is None:
            return None
        cached, expires_at = entry
        if self._clock() >= expires_at:
            del self._entries[slot]
            return None
        self._entries.move_to_end(slot)
        return cached

    async def put(self, source: str, key: str, raw: Any, *, found: bool, url: str | None = None) -> None:
        now = self._clock()
        default = self.ttl_seconds if found else self.negative_ttl_seconds
        ttl = namespace_ttl(self.ttls_by_namespace, key, found=found, default=default)
        if ttl <= 0:
            self._entries.pop((source, key), None)
            return
        cached = CachedRaw(raw=raw, fetched_at=datetime.fromtimestamp(now, tz=UTC), found=found, url=url)
        self._entries[(source, key)] = (cached, now + ttl)
        self._entries.move_to_end((source, key))
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)


class BaseUrlCache:
    """A `RawCache` as one client sees it: every key scoped by the base URL its answers came from.

    A cached answer belongs to the server that gave it. Without the scope, a run with a source's URL
    pointing at a wrong server (or at the simulator) cached that server's "not found" under the
    work's key, and the next run against the real source read it back: "likely invented", from
    the cache (issue 20). Entries cached before the scope existed are simply never read again.
    """

    def __init__(self, inner: RawCache, *base_urls: str) -> None:
        self.inner = inner
        self.scope = " ".join(url.rstrip("/") for url in base_urls)

    def _key(self, key: str) -> str:
        return f"{self.scope}|{key}"

    async def get(self, source: str, key: str) -> CachedRaw | None:
        return await self.inner.get(source, self._key(key))

    async def put(self, source: str, key: str, raw: Any, *, found: bool, url: str | None = None) -> None:
        await self.inner.put(source, self._key(key), raw, found=found, url=url)


def for_base_url(cache: RawCache | None, *base_urls: str) -> RawCache | None:
    """`cache` scoped by the client's base URL(s) (`BaseUrlCache`); None stays None."""
    if cache is None:
        return None
    if isinstance(cache, BaseUrlCache):  # already scoped by the one who built the client
        return cache
    return BaseUrlCache(cache, *base_urls)


async def lookup_many(
    key_of: Mapping[str, str],
    cached: Callable[[str], Awaitable[tuple[bool, R | None]]],
    fetch: Callable[[list[str]], Awaitable[dict[str, R | None]]],
    *,
    batch: int,
) -> dict[str, R | None]:
    """The batch lookup every client shares: `key_of` maps each id as given to its canonical key;
    cached answers (found or not) are used as they are, the rest are fetched `batch` keys at a
    time, and the answer is keyed by the ids as given (None: the source has no such work)."""
    found: dict[str, R | None] = {}
    missing: list[str] = []
    for key in dict.fromkeys(key_of.values()):
        hit, record = await cached(key)
        if hit:
            found[key] = record
        else:
            missing.append(key)
    for start in range(0, len(missing), batch):
        found.update(await fetch(missing[start : start + batch]))
    return {given: found.get(key) for given, key in key_of.items()}


async def read_cached(
    cache: RawCache | None,
    source: str,
    key: str,
    stats: SourceStats,
    parse: Callable[[Any], WorkRecord],
) -> tuple[bool, SourceRecord | None]:
    """A client's cache read: (hit, record), where a hit with None is a cached "not found". The
    stored payload is parsed again (so a parser fix applies to cached answers too)."""
    if cache is None:
        return False, None
    cached = await cache.get(source, key)
    if cached is None:
        return False, None
    count(stats, "cache_hits")
    if not cached.found:
        return True, None
    return True, SourceRecord(parse(cached.raw), cached.raw, cached.fetched_at, cached.url, from_cache=True)


async def cached_record(
    cache: RawCache | None,
    source: str,
    key: str,
    stats: SourceStats,
    *,
    fetch: Callable[[], Awaitable[Any]],
    parse: Callable[[Any], WorkRecord | None],
    url: str,
) -> SourceRecord | None:
    """One record by key, as the single-record lookups share it: a cached answer (found or not) is
    used as it is (`read_cached`); otherwise `fetch()` the payload (None: the source has no such
    record) and `parse` it (None: the payload holds no record, an answer like "not found"), then
    cache the payload, or a negative entry when it held no record. Parsed before it is cached: a
    payload that does not parse raises, and is never served again from cache."""

    def parse_cached(raw: Any) -> WorkRecord:
        record = parse(raw)
        if record is None:  # only a payload that held a record is cached as found
            raise ValueError(f"cached {source} answer without a record")
        return record

    hit, cached = await read_cached(cache, source, key, stats, parse_cached)
    if hit:
        return cached
    raw = await fetch()
    record = parse(raw) if raw is not None else None
    if cache is not None:
        await cache.put(source, key, raw if record is not None else None, found=record is not None, url=url)
    return None if record is None else SourceRecord(record, raw, datetime.now(UTC), url)


def item_records(
    items: Callable[[Any], Iterable[Any]], parse_item: Callable[[Any], WorkRecord], url: str
) -> Callable[[Any, datetime, bool], list[SourceRecord]]:
    """The `SearchMemo.get` parser of a search whose answer is a list of items: a record per item,
    the item itself as its raw payload, best first; no answer (None), no records."""

    def parse(payload: Any, fetched_at: datetime, from_cache: bool) -> list[SourceRecord]:
        if payload is None:
            return []
        return [
            SourceRecord(parse_item(i), i, fetched_at, url, from_cache=from_cache) for i in items(payload)
        ]

    return parse


# Parameters that say who asks, not what is asked: left out of a search's cache key.
_NOT_ASKED: frozenset[str] = frozenset({"api_key", "mailto", "email", "tool"})


def search_key(path: str, params: Mapping[str, Any], *, namespace: str = "search") -> str:
    """The cache key of one search request: its path and parameters, exactly (case is kept, since
    upper-case AND / OR / NOT are operators to some engines), the caller's key and contact left
    out. Hashed, so that keys stay short whatever the query. `namespace` picks the TTLs
    (`namespace_ttl`: venue registries' answers live longer)."""
    asked = sorted((k, str(v)) for k, v in params.items() if v is not None and k not in _NOT_ASKED)
    text = path + "?" + "&".join(f"{k}={v}" for k, v in asked)
    return f"{namespace}:{hashlib.sha1(text.encode('utf-8'), usedforsecurity=False).hexdigest()}"


@dataclass(eq=False)
class SearchMemo:
    """Search answers of one client, by request (`search_key`): a search already in flight is
    awaited, not sent again; the last `max_entries` answers are kept in memory (references of one
    job, or of several files in one process, that search the same title); and with a `RawCache`
    every answer (an empty one as a negative entry) is stored there too, so that a second run of
    the same file asks the source almost nothing. The payload is parsed again from the cache, as
    for lookups; a payload that does not parse is never stored."""

    source: str
    cache: RawCache | None
    stats: SourceStats
    _: KW_ONLY
    max_entries: int = 2048
    namespace: str = "search"
    _answers: OrderedDict[str, asyncio.Future[Any]] = field(
        default_factory=OrderedDict, init=False, repr=False
    )

    async def get(
        self,
        path: str,
        params: Mapping[str, Any],
        fetch: Callable[[], Awaitable[Any]],
        parse: Callable[[Any, datetime, bool], R],
        *,
        found: Callable[[Any], bool] = lambda payload: bool(payload),
        url: str | None = None,
    ) -> R:
        """`fetch()` the payload (None: the source has nothing), `parse(payload, fetched_at,
        from_cache)` it; `found(payload)` says whether it is a positive cache entry."""
        key = search_key(path, params, namespace=self.namespace)
        while (known := self._answers.get(key)) is not None:
            self._answers.move_to_end(key)
            count_extra(self.stats, "search_memo_hits")
            try:
                result: R = await asyncio.shield(known)
            except asyncio.CancelledError:
                if known.cancelled():  # the first asker was cancelled, not us: ask again
                    continue
                raise
            return result
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._answers[key] = future
        try:
            answer = await self._answer(key, fetch, parse, found, url)
        except asyncio.CancelledError:
            self._answers.pop(key, None)
            future.cancel()
            raise
        except Exception as exc:
            self._answers.pop(key, None)
            future.set_exception(exc)
            future.exception()  # marked as retrieved: nobody else may be waiting
            raise
        future.set_result(answer)
        while len(self._answers) > self.max_entries:
            self._answers.popitem(last=False)
        return answer

    async def _answer(
        self,
        key: str,
        fetch: Callable[[], Awaitable[Any]],
        parse: Callable[[Any, datetime, bool], R],
        found: Callable[[Any], bool],
        url: str | None,
    ) -> R:
        if self.cache is not None:
            cached = await self.cache.get(self.source, key)
            if cached is not None:
                count(self.stats, "cache_hits")
                return parse(cached.raw if cached.found else None, cached.fetched_at, True)
        payload = await fetch()
        parsed = parse(payload, datetime.now(UTC), False)
        if self.cache is not None:
            await self.cache.put(self.source, key, payload, found=found(payload), url=url)
        return parsed
