"""arXiv: a polite client for the export API and for arxiv.org (the Atom feed's pure parser, and
its choices, are in `arxiv_parse`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from aletheia.core.arxiv_ids import clean_arxiv_id
from aletheia.core.records import SourceName, WorkRecord
from aletheia.core.text import normalize_whitespace, strip_accents
from aletheia.sources.arxiv_parse import ArxivEntry, parse_arxiv_atom
from aletheia.sources.arxiv_titles import (
    BATCH_MAX_RESULTS,
    MAX_QUERY_CHARS,
    SEPARATOR,
    batch_answer,
    batch_query,
    feed_of,
    title_term,
)
from aletheia.sources.base import (
    PermanentSourceError,
    RawCache,
    SourceParseError,
    SourceRecord,
    TransientSourceError,
    Transport,
)
from aletheia.sources.batching import Coalescer
from aletheia.sources.cache import SearchMemo, cache_key, for_base_url, read_cached
from aletheia.sources.title_batches import BatchAnswer, TitleBatcher, title_batcher
from aletheia.sources.transport.factory import source_transport

if TYPE_CHECKING:
    import httpx

    from aletheia.config.settings import Settings
    from aletheia.sources.transport.breaker import CircuitBreaker
    from aletheia.sources.transport.limiter import RateLimiter
    from aletheia.sources.transport.polite import PoliteTransport

__all__ = [
    "MAX_IDS_PER_REQUEST",
    "ArxivClient",
    "arxiv_transport",
    "arxiv_transports",
    "arxiv_web_transport",
]

SOURCE = SourceName.ARXIV

QUERY_PATH = "/api/query"
# Ids per `id_list` query: one page (`max_results`) of a size arXiv answers quickly.
MAX_IDS_PER_REQUEST = 100


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _search_words(text: str) -> str:
    # The API's query parser treats punctuation (`:`, quotes, parentheses) as syntax; its index
    # ignores it, so it is dropped rather than escaped.
    return normalize_whitespace(re.sub(r"[^\w\s]", " ", strip_accents(text)))


def _match_entries(keys: Sequence[str], entries: Sequence[ArxivEntry]) -> dict[str, ArxivEntry | None]:
    """Which entry answers which requested id: a versioned id wants that version exactly, an
    unversioned one the latest version the feed holds."""
    versioned: dict[str, ArxivEntry] = {}
    latest: dict[str, ArxivEntry] = {}
    for entry in entries:
        record = entry.record
        if record.arxiv_id is None:
            continue
        versioned[f"{record.arxiv_id}v{record.arxiv_version}"] = entry
        best = latest.get(record.arxiv_id)
        if best is None or (record.arxiv_version or 0) > (best.record.arxiv_version or 0):
            latest[record.arxiv_id] = entry
    matched: dict[str, ArxivEntry | None] = {}
    for key in keys:
        parsed = clean_arxiv_id(key)
        if parsed is None:
            matched[key] = None
        elif parsed.version is not None:
            matched[key] = versioned.get(key)
        else:
            matched[key] = latest.get(parsed.id)
    return matched


class ArxivClient:
    """Papers by arXiv id (version-aware, batched, coalesced), search, and full texts.

    `api_transport` talks to the export API (`ALETHEIA_ARXIV_API_URL`), `web_transport` to
    arxiv.org itself (`ALETHEIA_ARXIV_URL`) for HTML and PDF. Both are transports of the source
    `arxiv` and so draw from the one bucket `arxiv:single` (see `arxiv_transport`): a PDF download
    waits its turn behind metadata queries, as arXiv's terms ask.

    Concurrent `by_id` calls within `coalesce_window` seconds go out as one `id_list=a,b,c` query
    (up to 100 ids). Answers, negative ones included, are cached by the id as asked for: `2104.12255v1`
    and `2104.12255` (the latest version) are different records.
    """

    source: Final = SOURCE

    def __init__(
        self,
        api_transport: Transport,
        web_transport: Transport,
        *,
        cache: RawCache | None = None,
        coalesce_window: float = 0.02,
        title_batch: int = 0,
    ) -> None:
        self.api = api_transport
        self.web = web_transport
        # A cached answer belongs to the base URLs that gave it (`cache.for_base_url`).
        self.cache = cache = for_base_url(cache, api_transport.base_url, web_transport.base_url)
        self._searches = SearchMemo(SOURCE, cache, api_transport.stats)
        self._coalescer: Coalescer[str, SourceRecord] = Coalescer(
            self._fetch, max_batch=MAX_IDS_PER_REQUEST, window=coalesce_window
        )
        # Title-only searches of references waiting together, OR-ed in one query (issue 23).
        self._titles: TitleBatcher[str, str] | None = title_batcher(
            self._ask_titles,
            title_batch=title_batch,
            max_query_chars=MAX_QUERY_CHARS,
            term_chars=lambda words: len(title_term(words)),
            separator_chars=len(SEPARATOR),
            limit=BATCH_MAX_RESULTS,
            window=coalesce_window,
            stats=api_transport.stats.extra,
        )

    @property
    def transport(self) -> Transport:
        """The export API's transport: the one the reports count arXiv's requests on."""
        return self.api

    @staticmethod
    def _canonical(arxiv_id: str) -> str:
        parsed = clean_arxiv_id(arxiv_id)
        if parsed is None:
            raise ValueError(f"not an arXiv identifier: {arxiv_id!r}")
        return str(parsed)

    def _query_url(self, id_list: str) -> str:
        return f"{self.api.base_url.rstrip('/')}{QUERY_PATH}?id_list={id_list}"

    async def by_id(self, arxiv_id: str) -> SourceRecord | None:
        """The record of `arxiv_id`: the version cited (`2104.12255v1`), else the latest one.

        None when arXiv has no such paper; ValueError when `arxiv_id` is not an arXiv id at all.
        """
        key = self._canonical(arxiv_id)
        hit, record = await self._cached(key)
        if hit:
            return record
        return await self._coalescer.get(key)

    async def search(
        self, title: str | None = None, author: str | None = None, *, max_results: int = 10
    ) -> list[SourceRecord]:
        """arXiv's relevance search: `title` as a phrase in titles, `author` a family name."""
        terms = []
        words = _search_words(title) if title else ""
        if words:
            terms.append(title_term(words))
        if author and (name := _search_words(author)):
            # The API manual's form for multi-word names: `au:del_maestro`.
            terms.append(f"au:{name.replace(' ', '_')}")
        if not terms:
            raise ValueError("an arXiv search needs a title or an author")
        params = {
            "search_query": " AND ".join(terms),
            "start": 0,
            "max_results": max_results,
            "sortBy": "relevance",
            "sortOrder": "descending",
        }
        url = f"{self.api.base_url.rstrip('/')}{QUERY_PATH}"

        def parse(body: Any, fetched_at: datetime, from_cache: bool) -> list[SourceRecord]:
            if body is None:
                return []
            feed = parse_arxiv_atom(body)
            return [
                SourceRecord(entry.record, entry.raw, fetched_at, url, from_cache) for entry in feed.entries
            ]

        batcher = self._titles if words and not author else None

        async def fetch() -> Any:
            if batcher is not None:
                raws = await batcher.find(words, max_results)
                if raws is not None:
                    # What a shared batch proved for this title (its clear matches, or nothing
                    # when the batch was complete and held no entry its own search could return).
                    return feed_of(raws)
            return await self.api.get_text(QUERY_PATH, params=params, kind="search")

        # The Atom feed is stored whole; an empty feed (no <entry>) is a negative entry.
        return await self._searches.get(
            QUERY_PATH,
            params,
            fetch,
            parse,
            found=lambda body: isinstance(body, str) and "<entry" in body,
            url=url,
        )

    async def _ask_titles(self, titles: list[str]) -> BatchAnswer[str]:
        params = {
            "search_query": batch_query(titles),
            "start": 0,
            "max_results": BATCH_MAX_RESULTS,
            "sortBy": "relevance",
            "sortOrder": "descending",
        }
        body = await self.api.get_text(QUERY_PATH, params=params, kind="search")
        if body is None:
            raise SourceParseError(SOURCE, "an empty answer to a title batch")
        feed = parse_arxiv_atom(body)
        pairs = [(entry.record.title or "", entry.raw) for entry in feed.entries]
        return batch_answer(pairs, feed.total_results)

    async def fetch_html(self, arxiv_id: str) -> str | None:
        """arXiv's HTML rendering of the paper (`/html/{id}`), or None where there is none."""
        return await self.web.get_text(f"/html/{self._canonical(arxiv_id)}", kind="fulltext")

    async def fetch_pdf(self, arxiv_id: str) -> bytes | None:
        """The PDF (`/pdf/{id}`), or None when arXiv has no such paper."""
        return await self.web.get_bytes(f"/pdf/{self._canonical(arxiv_id)}", kind="fulltext")

    # --- cache and fetch ---------------------------------------------------------------------------

    async def _cached(self, key: str) -> tuple[bool, SourceRecord | None]:
        def one_record(raw: Any) -> WorkRecord:
            entries = parse_arxiv_atom(raw).entries
            if len(entries) != 1:
                raise SourceParseError(SOURCE, f"cached entry for {key} holds {len(entries)} entries")
            return entries[0].record

        return await read_cached(self.cache, SOURCE, cache_key("arxiv", key), self.api.stats, one_record)

    async def _fetch(self, keys: list[str]) -> dict[str, SourceRecord | None]:
        entries = await self._query_ids(keys)
        fetched_at = _utcnow()
        results: dict[str, SourceRecord | None] = {}
        for key, entry in entries.items():
            url = self._query_url(key)
            results[key] = SourceRecord(entry.record, entry.raw, fetched_at, url) if entry else None
            if self.cache is not None:
                raw = entry.raw if entry else None
                await self.cache.put(SOURCE, cache_key("arxiv", key), raw, found=entry is not None, url=url)
        return results

    async def _query_ids(self, keys: list[str]) -> dict[str, ArxivEntry | None]:
        """One `id_list` query; when arXiv rejects it (HTTP 400, an id it calls malformed), the
        list is halved until the culprit stands alone and is answered None: a request of n ids
        costs at most about 2·log2(n) extra requests instead of n."""
        params = {"id_list": ",".join(keys), "start": 0, "max_results": len(keys)}
        try:
            body = await self.api.get_text(
                QUERY_PATH, params=params, kind="single" if len(keys) == 1 else "batch"
            )
        except PermanentSourceError as error:
            if error.status_code != 400:
                raise
            if len(keys) == 1:
                return {keys[0]: None}
            middle = len(keys) // 2
            return {**await self._query_ids(keys[:middle]), **await self._query_ids(keys[middle:])}
        if body is None:
            return dict.fromkeys(keys)
        feed = parse_arxiv_atom(body)
        if feed.total_results is not None and feed.total_results > len(feed.entries) + len(feed.errors):
            # arXiv at times sends a page short of what its own header counts: ask again later.
            raise TransientSourceError(
                SOURCE, f"feed lists {feed.total_results} results but holds {len(feed.entries)}"
            )
        return _match_entries(keys, feed.entries)


# arXiv's API terms: no more than one request every three seconds, one connection at a time. This is
# where that is enforced: the transport's bucket `arxiv:single`, sized by `settings.arxiv_limits`
# (rate 1/3, burst 1, concurrency 1). The export API (`settings.arxiv_api_url`) and arxiv.org
# (`settings.arxiv_url`, for HTML and PDF) transports both belong to the source `arxiv`, so they
# share that one bucket and that one slot (in Redis, across every worker), and their sum stays at
# one request per three seconds.
arxiv_transport: Final = source_transport(SOURCE, url_setting="arxiv_api_url")
arxiv_web_transport: Final = source_transport(SOURCE, url_setting="arxiv_url")


def arxiv_transports(
    http: httpx.AsyncClient,
    settings: Settings,
    limiter: RateLimiter,
    breaker: CircuitBreaker | None = None,
) -> tuple[PoliteTransport, PoliteTransport]:
    """The (export API, arxiv.org) transports for `ArxivClient`: one bucket, one breaker."""
    from aletheia.sources.transport.breaker import CircuitBreaker

    shared = breaker if breaker is not None else CircuitBreaker.from_settings(SOURCE.value, settings)
    return (
        arxiv_transport(http, settings, limiter, shared),
        arxiv_web_transport(http, settings, limiter, shared),
    )
