"""The venue registries (issue 21): does a cited venue exist, and under which names.

One client over three registries, each asked on its own source's transport, so that a venue
request is paced by the same global bucket, held to the same concurrency cap and circuit
breaker, and sent with the same polite headers as that source's other requests, and counted in
its request figures (`kind="venue"`: `requests_venue` in the source's stats):

- OpenAlex: `{base}/sources?search=NAME&per-page=N` (it searches `display_name`,
  `alternate_titles` and `abbreviated_title`); by ISSN `{base}/sources?filter=issn:NNNN-NNNC`.
- DBLP: `{base}/search/venue/api?q=NAME&format=json&h=N`; no ISSN (DBLP's venues carry none).
- Crossref: `{base}/journals?query=NAME&rows=N`; by ISSN `{base}/journals/NNNN-NNNC` (a 404
  "Resource not found." there: no such journal).

A registry's search is fuzzy: it returns venues that share words with the name, best first. The
client returns them all (the first `results`); which of them, if any, *is* the cited venue is
the core's strict comparison (`core.venue_registry.holds`). An empty list is an answer: the
registry was asked and holds nothing under that name. A failure raises the error tree of
`sources/base.py` (a search route that answers 404 is a wrong base URL, never "nothing").

Answers are memoised per request (a venue cited by many references is asked once) and cached
under the `venue` namespace, which lives `ALETHEIA_VENUE_CACHE_TTL_SECONDS` (180 days; an answer
without any venue `ALETHEIA_VENUE_NEGATIVE_CACHE_TTL_SECONDS`, 30 days): a venue's names change
over years. The pure parsers are in `venue_registry_parse`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote

from aletheia.core.evidence import VenueRecord
from aletheia.core.identifiers import clean_issn
from aletheia.core.records import SourceName
from aletheia.core.venue_registry import VENUE_REGISTRIES
from aletheia.sources.base import PermanentSourceError, RawCache, Transport
from aletheia.sources.cache import VENUE_NAMESPACE, SearchMemo, for_base_url
from aletheia.sources.crossref import crossref_params, crossref_transport
from aletheia.sources.dblp import dblp_transport
from aletheia.sources.openalex import openalex_params, openalex_transport
from aletheia.sources.venue_registry_parse import (
    parse_crossref_journals,
    parse_dblp_venues,
    parse_openalex_sources,
)

if TYPE_CHECKING:
    import httpx

    from aletheia.config.settings import Settings
    from aletheia.sources.transport.breaker import CircuitBreaker
    from aletheia.sources.transport.limiter import RateLimiter

__all__ = ["DEFAULT_RESULTS", "VenueAnswer", "VenueRegistry", "venue_query"]

# Candidates asked of each registry: a fuzzy search ranks the venue named among its first few;
# ten leave room for its namesakes ("Neural Networks", "IEEE Transactions on Neural Networks").
DEFAULT_RESULTS: Final = 10
OPENALEX_PATH: Final = "/sources"
DBLP_PATH: Final = "/search/venue/api"
CROSSREF_PATH: Final = "/journals"
# The fields of an OpenAlex Source the registry reads: a Source is large (counts by year, topics,
# APCs), and `select` keeps the metered answer small.
OPENALEX_FIELDS: Final = "id,display_name,alternate_titles,abbreviated_title,issn,issn_l,type"
# Words only: `|` and a leading `-` are DBLP operators, upper-case AND / OR / NOT and quotes are
# OpenAlex's, and punctuation of an abbreviation ("Mach. Learn.") means nothing to any of them.
_WORD: Final = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")

_PARSERS: Final[dict[SourceName, Callable[[Any], list[VenueRecord]]]] = {
    SourceName.OPENALEX: parse_openalex_sources,
    SourceName.DBLP: parse_dblp_venues,
    SourceName.CROSSREF: parse_crossref_journals,
}


def venue_query(name: str) -> str:
    """A venue name as registry search words, lower-cased: no operator of any registry is left in
    (OpenAlex's are upper-case), and since none of the three searches is case-sensitive, "NEURAL
    NETWORKS" and "Neural Networks" are one request and one cache entry. ValueError when nothing
    searchable is left."""
    words = _WORD.findall(name)
    if not words:
        raise ValueError(f"no searchable word in {name!r}")
    return " ".join(words).lower()


@dataclass(frozen=True)
class VenueAnswer:
    """One registry's answer with the payload it was read from (kept for replay and the record)."""

    source: SourceName
    query: str
    venues: tuple[VenueRecord, ...]
    raw: Any
    fetched_at: datetime
    url: str
    from_cache: bool = False


class VenueRegistry:
    """OpenAlex sources, DBLP venues and Crossref journals, by name (and by ISSN where the
    registry has one), each on its source's transport."""

    def __init__(
        self,
        transports: Mapping[SourceName, Transport],
        *,
        cache: RawCache | None = None,
        mailto: str | None = None,
        openalex_api_key: str | None = None,
        results: int = DEFAULT_RESULTS,
    ) -> None:
        unknown = set(transports) - set(VENUE_REGISTRIES)
        if unknown:
            raise ValueError(f"not a venue registry: {sorted(s.value for s in unknown)}")
        if results < 1:
            raise ValueError(f"results must be at least 1, got {results!r}")
        self.transports = dict(transports)
        self.mailto = mailto
        self.openalex_api_key = openalex_api_key
        self.results = results
        # A cached answer belongs to the base URL that gave it (`cache.for_base_url`).
        self._memos = {
            source: SearchMemo(
                source.value,
                for_base_url(cache, transport.base_url),
                transport.stats,
                namespace=VENUE_NAMESPACE,
            )
            for source, transport in self.transports.items()
        }

    @classmethod
    def from_settings(
        cls,
        http: httpx.AsyncClient,
        settings: Settings,
        limiter: RateLimiter,
        *,
        cache: RawCache | None = None,
        breakers: Mapping[SourceName, CircuitBreaker] | None = None,
    ) -> VenueRegistry:
        """The registry on transports of its own, from settings (base URLs, limits, headers). The
        gateway passes its clients' transports instead, so that their stats are one."""
        given = breakers or {}
        key = settings.openalex_api_key
        return cls(
            {
                SourceName.OPENALEX: openalex_transport(
                    http, settings, limiter, given.get(SourceName.OPENALEX)
                ),
                SourceName.DBLP: dblp_transport(http, settings, limiter, given.get(SourceName.DBLP)),
                SourceName.CROSSREF: crossref_transport(
                    http, settings, limiter, given.get(SourceName.CROSSREF)
                ),
            },
            cache=cache,
            mailto=settings.mailto,
            openalex_api_key=key.get_secret_value() if key is not None else None,
        )

    def _transport(self, source: SourceName) -> Transport:
        transport = self.transports.get(source)
        if transport is None:
            raise ValueError(f"{source.value} is not a venue registry of this client")
        return transport

    # --- the lookups ------------------------------------------------------------------------------

    async def lookup(self, source: SourceName, name: str) -> list[VenueRecord]:
        """The venues `source` holds under names like `name`, best first; [] when it holds none.
        ValueError when `name` has no searchable word."""
        return list((await self.search(source, name)).venues)

    async def search(self, source: SourceName, name: str) -> VenueAnswer:
        """`lookup` with the payload and where it came from."""
        query = venue_query(name)
        if source is SourceName.OPENALEX:
            params = self._openalex_params({"search": query, "per-page": self.results})
            return await self._ask(source, OPENALEX_PATH, params, query)
        if source is SourceName.DBLP:
            params = {"q": query, "format": "json", "h": self.results}
            return await self._ask(source, DBLP_PATH, params, query)
        if source is SourceName.CROSSREF:
            params = self._crossref_params({"query": query, "rows": self.results})
            return await self._ask(source, CROSSREF_PATH, params, query)
        raise ValueError(f"{source.value} is not a venue registry")

    async def by_issn(self, source: SourceName, issn: str) -> VenueAnswer:
        """The venue `source` files under this ISSN (OpenAlex, Crossref). ValueError for a string
        that is not an ISSN, or a registry without ISSNs (DBLP)."""
        cleaned = clean_issn(issn)
        if cleaned is None:
            raise ValueError(f"not an ISSN: {issn!r}")
        if source is SourceName.OPENALEX:
            params = self._openalex_params({"filter": f"issn:{cleaned}", "per-page": self.results})
            return await self._ask(source, OPENALEX_PATH, params, cleaned)
        if source is SourceName.CROSSREF:
            # A journal by ISSN is a single entry: its 404 is Crossref's documented "no such
            # journal" (`not_found`), the one answer here that may be None.
            path = f"{CROSSREF_PATH}/{quote(cleaned, safe='')}"
            return await self._ask(source, path, self._crossref_params({}), cleaned, may_be_absent=True)
        raise ValueError(f"{source.value} has no venue lookup by ISSN")

    # --- one request ------------------------------------------------------------------------------

    def _openalex_params(self, asked: Mapping[str, Any]) -> dict[str, Any]:
        return openalex_params(
            {**asked, "select": OPENALEX_FIELDS}, api_key=self.openalex_api_key, mailto=self.mailto
        )

    def _crossref_params(self, asked: Mapping[str, Any]) -> dict[str, Any]:
        return crossref_params(asked, mailto=self.mailto)

    async def _ask(
        self,
        source: SourceName,
        path: str,
        params: dict[str, Any],
        query: str,
        *,
        may_be_absent: bool = False,
    ) -> VenueAnswer:
        transport = self._transport(source)
        url = f"{transport.base_url.rstrip('/')}{path}"
        parse_payload = _PARSERS[source]

        async def fetch() -> Any:
            payload = await transport.get_json(path, params=params, kind="venue")
            if payload is None and not may_be_absent:
                # The transport lets a 404 through only in the shape the source documents for a
                # missing entry; a search route has no such entry, so this is not the registry.
                raise PermanentSourceError(source.value, f"{path} answered 404: not a venue search", 404)
            return payload

        def parse(payload: Any, fetched_at: datetime, from_cache: bool) -> VenueAnswer:
            venues = tuple(parse_payload(payload)) if payload is not None else ()
            return VenueAnswer(source, query, venues, payload, fetched_at, url, from_cache)

        def found(payload: Any) -> bool:
            return payload is not None and bool(parse_payload(payload))

        return await self._memos[source].get(path, params, fetch, parse, found=found, url=url)
