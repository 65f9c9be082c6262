"""Crossref: the registration agency of most journal and conference DOIs.

Two halves. The `parse_*` functions (in `crossref_parse`, re-exported here; standing notices in
`crossref_notices`) are pure: a Crossref work item (or envelope) in, a `WorkRecord` out, no I/O.
`CrossrefClient` owns Crossref's policy: the polite pool (`mailto` as a query parameter and in the
User-Agent, as Crossref's etiquette asks), the lower search rate (`kind="search"` picks the search
bucket), and a raw cache keyed by the canonical DOI that keeps negative answers too.

Shapes worth knowing (they break naive parsers):
- `title`, `subtitle`, `container-title` are LISTS in the REST API, strings in the CSL-JSON that
  content negotiation returns; both are accepted.
- Standing notices come three ways: `updated-by` on the updated work (newer deposits, including
  Retraction Watch's data with `"source": "retraction-watch"`), `update-to` on the notice itself
  (a notice pointing at its own DOI marks the record itself), and the `updates:{doi}` filter that
  finds notices an old deposit does not link back to.
- `query.title` was removed from the API in 2019 (a 400 "validation-failure"); a title goes into
  `query.bibliographic`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import quote

from aletheia.core.identifiers import clean_doi
from aletheia.core.records import RetractionNotice, SourceName, WorkRecord
from aletheia.sources.base import RawCache, SourceParseError, SourceRecord, Transport
from aletheia.sources.batching import Coalescer
from aletheia.sources.cache import cache_key, lookup_many
from aletheia.sources.client_base import SourceClientBase
from aletheia.sources.crossref_notices import notices_from_update_to
from aletheia.sources.crossref_parse import (  # the pure parsers, re-exported
    CROSSREF_WORK_MESSAGE_TYPES,
    crossref_message_type,
    parse_crossref_message,
    parse_crossref_work,
)
from aletheia.sources.transport.factory import contact_headers, source_transport

__all__ = [
    "CROSSREF_WORK_MESSAGE_TYPES",
    "CrossrefClient",
    "crossref_message_type",
    "crossref_transport",
    "parse_crossref_message",
    "parse_crossref_work",
]

SOURCE: Final = SourceName.CROSSREF
# DOIs per `filter=doi:a,doi:b,...` list query. Crossref ORs repeated values of one filter; 50 DOIs
# keep the URL near 2 KB, well inside what its servers and proxies accept.
MAX_DOIS_PER_FILTER: Final = 50
# Characters that would end a filter value or split the filter list: such a DOI is asked alone.
_FILTER_UNSAFE: Final = re.compile(r"[,:\s]")

# --- the client ------------------------------------------------------------------------------------


def _work_path(doi: str) -> str:
    # Crossref takes the DOI as a raw path (its `/` included); everything that would end or split
    # the path or start a query (`#`, `?`, `%`, spaces, ...) is percent-encoded.
    return "/works/" + quote(doi, safe="/")


def _utcnow() -> datetime:
    return datetime.now(UTC)


def crossref_params(extra: Mapping[str, Any] | None, *, mailto: str | None) -> dict[str, Any]:
    """A request's parameters with the contact address, where configured (Crossref's polite pool:
    the works here, the venue registry's journals)."""
    params: dict[str, Any] = dict(extra or {})
    if mailto:
        params["mailto"] = mailto
    return params


class CrossrefClient(SourceClientBase):
    """Works by DOI, bibliographic search, and the notices that update a DOI."""

    source = SOURCE

    def __init__(
        self,
        transport: Transport,
        *,
        cache: RawCache | None = None,
        mailto: str | None = None,
        coalesce_window: float | None = None,
    ):
        """`coalesce_window` (seconds): when given, `work_by_doi` lookups arriving within it go
        out together as one `filter=doi:` list query (`works_by_dois`); None asks each DOI alone."""
        super().__init__(transport, cache=cache)
        self.mailto = mailto
        self._coalescer: Coalescer[str, SourceRecord] | None = (
            Coalescer(self._fetch_doi_batch, max_batch=MAX_DOIS_PER_FILTER, window=coalesce_window)
            if coalesce_window is not None
            else None
        )

    def _params(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return crossref_params(extra, mailto=self.mailto)

    async def work_by_doi(self, doi: str) -> SourceRecord | None:
        """The work a DOI names, or None when Crossref has no such DOI (cached either way).

        Raises ValueError when `doi` is not a DOI at all: callers validate identifiers first.
        """
        canonical = clean_doi(doi)
        if canonical is None:
            raise ValueError(f"not a DOI: {doi!r}")
        hit, cached_record = await self._cached(canonical)
        if hit:
            return cached_record
        if self._coalescer is not None and not _FILTER_UNSAFE.search(canonical):
            return await self._coalescer.get(canonical)
        return await self._doi_singleton(canonical)

    async def _cached(self, canonical: str) -> tuple[bool, SourceRecord | None]:
        return await self._read(cache_key("doi", canonical), self._single)

    async def _doi_singleton(self, canonical: str) -> SourceRecord | None:
        key = cache_key("doi", canonical)
        path = _work_path(canonical)
        url = self._url(path)
        payload = await self.transport.get_json(path, params=self._params(), kind="single")
        # Parsed before it is cached: a body we cannot read must not be served again from cache.
        parsed = self._single(payload) if payload is not None else None
        await self._store(key, payload, url)
        if parsed is None:
            return None
        return SourceRecord(parsed, payload, _utcnow(), url)

    async def works_by_dois(self, dois: Iterable[str]) -> dict[str, SourceRecord | None]:
        """Each DOI's work (None when Crossref has none), keyed by the DOI as given: cached answers
        first, the rest in `filter=doi:` list queries of up to MAX_DOIS_PER_FILTER."""
        canonical_of: dict[str, str] = {}
        for doi in dois:
            canonical = clean_doi(doi)
            if canonical is None:
                raise ValueError(f"not a DOI: {doi!r}")
            canonical_of[doi] = canonical
        return await lookup_many(canonical_of, self._cached, self._fetch_doi_batch, batch=MAX_DOIS_PER_FILTER)

    async def _fetch_doi_batch(self, dois: list[str]) -> dict[str, SourceRecord | None]:
        """Canonical DOIs -> records, uncached. A lone DOI, or one the filter syntax cannot carry,
        is asked at `/works/{doi}`; the rest in one list query. Every answer is cached, found or
        not, in the shape of a single-work response so a later `work_by_doi` reads it back."""
        unsafe = [d for d in dois if _FILTER_UNSAFE.search(d)]
        batchable = [d for d in dois if not _FILTER_UNSAFE.search(d)]
        if len(batchable) == 1:
            unsafe, batchable = [*unsafe, *batchable], []
        found: dict[str, SourceRecord | None] = {}
        for doi in unsafe:
            found[doi] = await self._doi_singleton(doi)
        if not batchable:
            return found
        params = self._params({"filter": ",".join(f"doi:{d}" for d in batchable), "rows": len(batchable)})
        payload = await self.transport.get_json("/works", params=params, kind="search")
        fetched_at = _utcnow()
        message = payload.get("message") if isinstance(payload, Mapping) else None
        items = message.get("items") if isinstance(message, Mapping) else None
        if payload is not None and not isinstance(items, list):
            raise SourceParseError(SOURCE, "not a Crossref work list (no `message.items`)")
        by_doi: dict[str, Mapping[str, Any]] = {}
        for item in items or []:
            raw_doi = item.get("DOI") if isinstance(item, Mapping) else None
            canonical = clean_doi(raw_doi) if isinstance(raw_doi, str) else None
            if canonical is not None and canonical not in by_doi:
                by_doi[canonical] = item
        for doi in batchable:
            item = by_doi.get(doi)
            single = None if item is None else {"status": "ok", "message-type": "work", "message": item}
            record = self._single(single) if single is not None else None
            url = self._url(_work_path(doi))
            await self._store(cache_key("doi", doi), single, url)
            found[doi] = None if record is None else SourceRecord(record, single, fetched_at, url)
        return found

    @staticmethod
    def _single(payload: Any) -> WorkRecord:
        records = parse_crossref_message(payload)
        if len(records) != 1:
            raise SourceParseError(SOURCE, f"expected one work, got {len(records)}")
        return records[0]

    async def search(
        self,
        bibliographic: str | None = None,
        *,
        title: str | None = None,
        author: str | None = None,
        rows: int = 5,
        filters: Mapping[str, str | int] | None = None,
        select: Iterable[str] | None = None,
    ) -> list[SourceRecord]:
        """Crossref's ranked search (`query.bibliographic`, `query.author`), best first.

        `title` joins `query.bibliographic` (Crossref removed `query.title`). `filters` become
        `filter=name:value,...` (e.g. `{"from-pub-date": 2019, "until-pub-date": 2021}`).
        """
        query = " ".join(part for part in (bibliographic, title) if part and part.strip())
        params: dict[str, Any] = {"rows": rows}
        if query:
            params["query.bibliographic"] = query
        if author and author.strip():
            params["query.author"] = author
        if not query and "query.author" not in params:
            raise ValueError("a Crossref search needs a bibliographic string, a title or an author")
        if filters:
            params["filter"] = ",".join(f"{name}:{value}" for name, value in filters.items())
        if select:
            params["select"] = ",".join(select)
        return await self._list("/works", self._params(params))

    async def notices_for(self, doi: str) -> list[RetractionNotice]:
        """Notices (retractions, corrections, expressions of concern...) whose `update-to` names
        `doi`: found with `filter=updates:{doi}`, for deposits whose work does not link back."""
        canonical = clean_doi(doi)
        if canonical is None:
            raise ValueError(f"not a DOI: {doi!r}")
        params = self._params({"filter": f"updates:{canonical}", "rows": 20})
        payload = await self.transport.get_json("/works", params=params, kind="search")
        if payload is None:
            return []
        message_type = crossref_message_type(payload)
        if message_type != "work-list":
            raise SourceParseError(SOURCE, f"not a work list (message-type {message_type!r})")
        items = payload["message"].get("items") if isinstance(payload.get("message"), Mapping) else None
        if not isinstance(items, list):
            raise SourceParseError(SOURCE, "a work-list without `message.items`")
        notices: list[RetractionNotice] = []
        for item in items:
            if isinstance(item, Mapping):
                notices.extend(notices_from_update_to(item, canonical))
        return notices

    async def updated_since(
        self, day: str, *, cursor: str = "*", rows: int = 1000
    ) -> tuple[list[Mapping[str, Any]], str | None]:
        """One page of the works whose records changed on or after `day` (YYYY-MM-DD; the
        `from-update-date` filter, deep-paged by `cursor`): their items, as `/works/{doi}` gives
        them, and the cursor of the next page (None after the last). Never cached: increments of
        the mirror (issue 32) must see what changed."""
        params = self._params({"filter": f"from-update-date:{day}", "rows": rows, "cursor": cursor})
        payload = await self.transport.get_json("/works", params=params, kind="search")
        message = payload.get("message") if isinstance(payload, Mapping) else None
        items = message.get("items") if isinstance(message, Mapping) else None
        if not isinstance(items, list):
            raise SourceParseError(SOURCE, "a work-list without `message.items`")
        following = message.get("next-cursor") if isinstance(message, Mapping) else None
        works = [item for item in items if isinstance(item, Mapping)]
        return works, following if works and isinstance(following, str) else None

    async def _list(self, path: str, params: dict[str, Any]) -> list[SourceRecord]:
        """A search (memoised and cached by request, `SearchMemo`)."""
        url = self._url(path)

        def parse(payload: Any, fetched_at: datetime, from_cache: bool) -> list[SourceRecord]:
            if payload is None:
                return []
            message = payload.get("message") if isinstance(payload, Mapping) else None
            items = message.get("items") if isinstance(message, Mapping) else None
            records = parse_crossref_message(payload)
            raws: list[Any] = items if isinstance(items, list) else [payload]
            return [
                SourceRecord(record, raw, fetched_at, url, from_cache=from_cache)
                for record, raw in zip(records, raws, strict=True)
            ]

        return await self._search_json(path, params, parse, found=_has_items)


def _has_items(payload: Any) -> bool:
    message = payload.get("message") if isinstance(payload, Mapping) else None
    return bool(isinstance(message, Mapping) and message.get("items"))


# The polite transport to Crossref, from settings: base URL, limits, on/off, and the User-Agent that
# names a contact address (Crossref's polite pool).
crossref_transport: Final = source_transport(SOURCE, headers=contact_headers)
