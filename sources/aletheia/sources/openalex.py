"""OpenAlex: an open index of works that merges Crossref, arXiv, PubMed and repositories.

The `parse_*` functions (in `openalex_parse`, re-exported here; bylines in `openalex_bylines`,
locations in `openalex_locations`) are pure. `OpenAlexClient` owns OpenAlex's policy:

- Authentication: OpenAlex documents an `api_key` query parameter (required for real use since
  February 2026; without one the daily allowance is tiny). `mailto` is still sent when configured,
  for the contact it gives. The transport redacts `api_key` from every URL it shows.
- Cost: singleton lookups (`/works/doi:...`, `/works/W...`) are free, list/filter calls are
  metered, searches cost ten times more. So one DOI goes to the singleton endpoint and only two or
  more go out as one `filter=doi:a|b|...` call, up to 50 values (OpenAlex's cap on OR-ed values
  and the per-page size we ask for).
- Concurrency: `work_by_doi` calls issued together (a bibliography resolved in parallel) are
  coalesced into those batch calls by `Coalescer`, so a benchmark of DOI references costs little
  more than one request per 50 DOIs.

In a filter, `,` separates filters, `|` separates OR-ed values and `+` ANDs them; a DOI holding
one of those characters cannot be written into a filter, so it is looked up on its own.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote, urlencode

from aletheia.core.identifiers import clean_doi, clean_pmid
from aletheia.core.records import SourceName
from aletheia.sources.base import RawCache, SourceParseError, SourceRecord, Transport
from aletheia.sources.batching import Coalescer
from aletheia.sources.cache import cache_key
from aletheia.sources.client_base import SourceClientBase
from aletheia.sources.openalex_parse import (  # the pure parsers, re-exported
    abstract_from_inverted_index,
    parse_openalex_list,
    parse_openalex_work,
)
from aletheia.sources.openalex_titles import DEFAULT_MAX_URL_BYTES, MAX_RESULTS, TitleQuery, title_batcher
from aletheia.sources.title_batches import TitleBatcher
from aletheia.sources.transport.factory import contact_headers, source_transport

if TYPE_CHECKING:
    from aletheia.core.authorship import AuthorWorks

__all__ = [
    "MAX_DOIS_PER_REQUEST",
    "OpenAlexClient",
    "abstract_from_inverted_index",
    "openalex_transport",
    "parse_openalex_list",
    "parse_openalex_work",
]

SOURCE: Final = SourceName.OPENALEX
MAX_DOIS_PER_REQUEST: Final = 50
# --- the client ------------------------------------------------------------------------------------

# Characters with a meaning in filter syntax: a DOI holding one is looked up on its own.
_FILTER_SYNTAX: Final = re.compile(r"[|,+]")


def _filter_text(text: str) -> str:
    """A free-text value safe inside a `.search` filter (`,` and `|` are filter syntax, and an
    upper-case AND / OR / NOT is a boolean operator: a title's "NOT" is sent as a word)."""
    words = _FILTER_SYNTAX.sub(" ", text).split()
    return " ".join(w.lower() if w in ("AND", "OR", "NOT") else w for w in words)


def _search_params(
    title: str | None,
    *,
    query: str | None,
    author: str | None,
    year: int | tuple[int, int] | None,
    per_page: int,
) -> dict[str, Any]:
    """The `/works` parameters of a search (`OpenAlexClient.search`): `.search` filters for the
    title and the byline, a `publication_year` filter, `search=` for the free query. ValueError
    when there is no text to search for."""
    filters: list[str] = []
    if title and _filter_text(title):
        filters.append(f"title.search:{_filter_text(title)}")
    if author and _filter_text(author):
        filters.append(f"raw_author_name.search:{_filter_text(author)}")
    if isinstance(year, tuple):
        filters.append(f"publication_year:{year[0]}-{year[1]}")
    elif year is not None:
        filters.append(f"publication_year:{year}")
    has_text = bool(query and query.strip()) or any(f.split(":", 1)[0].endswith(".search") for f in filters)
    if not has_text:
        raise ValueError("an OpenAlex search needs a title, a query or an author")
    params: dict[str, Any] = {"per-page": per_page}
    if filters:
        params["filter"] = ",".join(filters)
    if query and query.strip():
        params["search"] = query.strip()
    return params


def _utcnow() -> datetime:
    return datetime.now(UTC)


def openalex_params(
    extra: Mapping[str, Any] | None, *, api_key: str | None, mailto: str | None
) -> dict[str, Any]:
    """A request's parameters with OpenAlex's key and contact, where configured (every OpenAlex
    request goes out so: the works here, the venue registry's sources)."""
    params: dict[str, Any] = dict(extra or {})
    if api_key:
        params["api_key"] = api_key
    if mailto:
        params["mailto"] = mailto
    return params


class OpenAlexClient(SourceClientBase):
    """Works by DOI (single, batched, coalesced), PMID or OpenAlex id, and title search."""

    source = SOURCE

    def __init__(
        self,
        transport: Transport,
        *,
        cache: RawCache | None = None,
        api_key: str | None = None,
        mailto: str | None = None,
        coalesce_window: float | None = 0.02,
        title_batch: int = 0,
        max_url_bytes: int = DEFAULT_MAX_URL_BYTES,
        title_absence: bool = True,
    ) -> None:
        super().__init__(transport, cache=cache)
        self.api_key = api_key
        self.mailto = mailto
        # Stage-1 title searches of many references in one request (`openalex_titles`); 0 or 1
        # (or no coalescing) turns it off.
        self._titles: TitleBatcher[TitleQuery, Mapping[str, Any]] | None = (
            title_batcher(
                self._title_page,
                max_titles=title_batch,
                max_url_bytes=max_url_bytes,
                base_bytes=self._base_url_bytes(),
                window=coalesce_window,
                stats=transport.stats.extra,
                absence=title_absence,
            )
            if coalesce_window and title_batch >= 2
            else None
        )
        # None or 0 turns coalescing off: every work_by_doi is its own singleton request.
        self._coalescer: Coalescer[str, SourceRecord] | None = (
            Coalescer(self._fetch_doi_batch, max_batch=MAX_DOIS_PER_REQUEST, window=coalesce_window)
            if coalesce_window
            else None
        )

    def _params(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return openalex_params(extra, api_key=self.api_key, mailto=self.mailto)

    def _base_url_bytes(self) -> int:
        """The URL of a title batch without its filter: host, path, key, contact, page size."""
        return len(self._url("/works?")) + len(urlencode(self._params({"per-page": MAX_RESULTS})))

    async def updated_since(
        self, day: str, *, cursor: str = "*", per_page: int = 200
    ) -> tuple[list[Mapping[str, Any]], str | None]:
        """One page of the works whose records changed on or after `day` (YYYY-MM-DD; the
        `from_updated_date` filter, which OpenAlex serves to API-key holders; cursor-paged): the
        work objects and the next page's cursor (None after the last). Never cached: increments of
        the mirror (issue 32) must see what changed."""
        params = {"filter": f"from_updated_date:{day}", "per-page": per_page, "cursor": cursor}
        payload = await self.transport.get_json("/works", params=self._params(params), kind="search")
        results = payload.get("results") if isinstance(payload, Mapping) else None
        if not isinstance(results, list):
            raise SourceParseError(SOURCE, "a work list without `results`")
        meta = payload.get("meta") if isinstance(payload, Mapping) else None
        following = meta.get("next_cursor") if isinstance(meta, Mapping) else None
        works = [work for work in results if isinstance(work, Mapping)]
        return works, following if works and isinstance(following, str) else None

    async def _title_page(self, params: dict[str, Any]) -> Any:
        return await self.transport.get_json("/works", params=self._params(params), kind="search")

    # --- cache ------------------------------------------------------------------------------------

    async def _cached(self, key: str) -> tuple[bool, SourceRecord | None]:
        """(hit, record): a hit with record None is a cached "not found"."""
        return await self._read(key, parse_openalex_work)

    # --- singletons -------------------------------------------------------------------------------

    async def _singleton(self, path: str, key: str) -> SourceRecord | None:
        hit, record = await self._cached(key)
        if hit:
            return record
        url = self._url(path)
        payload = await self.transport.get_json(path, params=self._params(), kind="single")
        # Parsed before it is cached: a body we cannot read must not be served again from cache.
        parsed = parse_openalex_work(payload) if payload is not None else None
        await self._store(key, payload, url)
        if parsed is None:
            return None
        return SourceRecord(parsed, payload, _utcnow(), url)

    async def work_by_doi(self, doi: str) -> SourceRecord | None:
        """The work a DOI names, or None. Concurrent calls are coalesced into batch requests."""
        canonical = clean_doi(doi)
        if canonical is None:
            raise ValueError(f"not a DOI: {doi!r}")
        if self._coalescer is None or _FILTER_SYNTAX.search(canonical):
            return await self._doi_singleton(canonical)
        hit, record = await self._cached(cache_key("doi", canonical))
        if hit:
            return record
        return await self._coalescer.get(canonical)

    async def _doi_singleton(self, canonical: str) -> SourceRecord | None:
        return await self._singleton("/works/doi:" + quote(canonical, safe="/"), cache_key("doi", canonical))

    async def work_by_pmid(self, pmid: str | int) -> SourceRecord | None:
        cleaned = clean_pmid(pmid)
        if cleaned is None:
            raise ValueError(f"not a PMID: {pmid!r}")
        return await self._singleton(f"/works/pmid:{cleaned}", cache_key("pmid", cleaned))

    async def authors(self, ids: Iterable[str]) -> dict[str, AuthorWorks | None]:
        """Author id -> its works count (`openalex_authors`): one filter request per 100 ids."""
        from aletheia.sources.openalex_authors import fetch_authors

        return await fetch_authors(self, ids)

    # --- batches ----------------------------------------------------------------------------------

    async def works_by_dois(self, dois: Iterable[str]) -> dict[str, SourceRecord | None]:
        """Each DOI's work (None when OpenAlex has none), keyed by the DOI as given.

        Cached answers are used first; the rest go out in filter batches of up to 50 (a lone DOI,
        or one with filter syntax in it, as a singleton).
        """
        given = list(dois)
        canonical_of: dict[str, str] = {}
        for doi in given:
            canonical = clean_doi(doi)
            if canonical is None:
                raise ValueError(f"not a DOI: {doi!r}")
            canonical_of[doi] = canonical
        wanted = list(dict.fromkeys(canonical_of.values()))
        found: dict[str, SourceRecord | None] = {}
        missing: list[str] = []
        for canonical in wanted:
            hit, record = await self._cached(cache_key("doi", canonical))
            if hit:
                found[canonical] = record
            else:
                missing.append(canonical)
        chunks = [missing[i : i + MAX_DOIS_PER_REQUEST] for i in range(0, len(missing), MAX_DOIS_PER_REQUEST)]
        for answer in await asyncio.gather(*(self._fetch_doi_batch(chunk) for chunk in chunks)):
            found.update(answer)
        return {doi: found.get(canonical) for doi, canonical in canonical_of.items()}

    async def _fetch_doi_batch(self, dois: list[str]) -> dict[str, SourceRecord | None]:
        """Canonical DOIs -> records, uncached: singletons for one DOI or filter-unsafe DOIs, one
        filter request for the rest. Every answer, found or not, is cached."""
        unsafe = [doi for doi in dois if _FILTER_SYNTAX.search(doi)]
        batchable = [doi for doi in dois if not _FILTER_SYNTAX.search(doi)]
        if len(batchable) == 1:
            unsafe, batchable = [*unsafe, *batchable], []
        found: dict[str, SourceRecord | None] = {}
        singles = await asyncio.gather(*(self._doi_singleton(doi) for doi in unsafe))
        found.update(zip(unsafe, singles, strict=True))
        if batchable:
            found.update(await self._filter_by_dois(batchable))
        return found

    async def _filter_by_dois(self, dois: list[str]) -> dict[str, SourceRecord | None]:
        path = "/works"
        params = self._params({"filter": "doi:" + "|".join(dois), "per-page": MAX_DOIS_PER_REQUEST})
        payload = await self.transport.get_json(path, params=params, kind="batch")
        fetched_at = _utcnow()
        results = payload.get("results") if isinstance(payload, Mapping) else None
        if payload is not None and not isinstance(results, list):
            raise SourceParseError(SOURCE, "not an OpenAlex list response (no `results` list)")
        by_doi: dict[str, Any] = {}
        for work in results or []:
            raw_doi = work.get("doi") if isinstance(work, Mapping) else None
            canonical = clean_doi(raw_doi) if isinstance(raw_doi, str) else None
            # OpenAlex can hold duplicate works for one DOI: keep the first, as it ranks them.
            if canonical is not None and canonical not in by_doi:
                by_doi[canonical] = work
        parsed = {doi: parse_openalex_work(raw) for doi, raw in by_doi.items() if doi in dois}
        found: dict[str, SourceRecord | None] = {}
        for doi in dois:
            raw = by_doi.get(doi)
            url = self._url("/works/doi:" + quote(doi, safe="/"))
            await self._store(cache_key("doi", doi), raw, url)
            found[doi] = None if raw is None else SourceRecord(parsed[doi], raw, fetched_at, url)
        return found

    # --- search -----------------------------------------------------------------------------------

    async def search(
        self,
        title: str | None = None,
        *,
        query: str | None = None,
        author: str | None = None,
        year: int | tuple[int, int] | None = None,
        per_page: int = 10,
    ) -> list[SourceRecord]:
        """Ranked works: `title` searches titles only (`title.search`), `query` titles, abstracts
        and full texts (`search=`); `author` matches bylines as published (`raw_author_name.search`);
        `year` is one year or an inclusive range."""
        params = _search_params(title, query=query, author=author, year=year, per_page=per_page)
        path = "/works"
        url = self._url(path)

        def parse(payload: Any, fetched_at: datetime, from_cache: bool) -> list[SourceRecord]:
            if payload is None:
                return []
            records = parse_openalex_list(payload)
            return [
                SourceRecord(record, raw, fetched_at, url, from_cache=from_cache)
                for record, raw in zip(records, payload["results"], strict=True)
            ]

        sent = self._params(params)
        batcher = self._titles if title and query is None and year is None else None

        async def fetch() -> Any:
            if batcher is not None and title:
                works = await batcher.find(TitleQuery(title, author or None), per_page)
                if works is not None:
                    # What a shared title batch proved for this title (the works it clearly
                    # found, or none when it was complete and held nothing this search could
                    # return; a miss is asked below), in the single search's envelope.
                    return {"meta": {"count": len(works), "title_batch": True}, "results": works}
            return await self.transport.get_json(path, params=sent, kind="search")

        return await self._searches.get(
            path,
            sent,
            fetch,
            parse,
            found=lambda payload: bool(isinstance(payload, Mapping) and payload.get("results")),
            url=url,
        )


# The polite transport to OpenAlex, from settings (base URL, limits, on/off), naming a contact.
openalex_transport: Final = source_transport(SOURCE, headers=contact_headers)
