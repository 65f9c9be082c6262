"""One object that knows every source: the clients, the Tier-0 library and the retraction data.

The gateway owns one `httpx.AsyncClient` per process (injected into every client), the global
rate limiter and the raw cache. It hands the evidence gatherer lookups as `(source, call)` pairs so
the gatherer can record each answer, including failures, without knowing any client.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from aletheia.config import Settings
from aletheia.core.coverage import search_coverage
from aletheia.core.evidence import Outcome, QueryKind, SourceAnswer, VenueRecord
from aletheia.core.records import CitedReference, RetractionNotice, SourceName, WorkRecord
from aletheia.core.source_facts import SOURCE_FACTS
from aletheia.core.text import repair_pdf_text
from aletheia.core.venue_registry import VENUE_REGISTRIES
from aletheia.pipeline.evidence.gateway_parts import searchable
from aletheia.pipeline.evidence.title_searches import (
    SearchCall,
    crossref_search,
    first_author,
    title_searches,
)
from aletheia.sources.base import RawCache, SourceRecord, SourceStats
from aletheia.sources.transport.breaker import CircuitBreaker
from aletheia.sources.transport.limiter import RateLimiter
from aletheia.sources.transport.user_agent import user_agent

if TYPE_CHECKING:
    from aletheia.pipeline.evidence.mirror_tier import MirrorTier
    from aletheia.sources.retraction_watch import RetractionIndex

Lookup = Callable[[], Awaitable[Any]]
_DASHES = re.compile(r"\s*[\u2013\u2014\u2212]\s*")


def search_title(cited: CitedReference) -> str | None:
    """The cited title as a query: PDF ligatures and detached accents repaired, and an en or em
    dash glued between words ("Schnet\u2013a deep learning ...") spaced, so that the search
    engines' tokenisers see the words (the comparison itself folds both sides anyway)."""
    if not cited.title:
        return None
    return _DASHES.sub(" - ", repair_pdf_text(cited.title)).strip()


def search_text(cited: CitedReference) -> str | None:
    """The bibliographic query: title, first author's surname and year; else the raw string."""
    title = search_title(cited)
    if title:
        author = first_author(cited)
        return " ".join(p for p in (title, author, str(cited.year) if cited.year else None) if p)
    return repair_pdf_text(cited.raw) if cited.raw else None


def given_as_string(cited: CitedReference) -> bool:
    """The reference came as a string (plain text, a `.bbl` item, a PDF's reference list) whose
    fields the parser guessed."""
    return bool(cited.raw and cited.heuristic_fields)


def bibliographic_query(cited: CitedReference) -> str | None:
    """Crossref's `query.bibliographic`: a reference given as a string is sent whole, since that
    search is built to match reference strings and the parser's reading of one is only a guess
    (issue 20: a wrongly split author list must not steer the search); otherwise `search_text`."""
    if cited.raw and given_as_string(cited):
        return repair_pdf_text(cited.raw)
    return search_text(cited)


class WorksLibrary(Protocol):
    """Seed 004's Tier 0: works verified before, reused across jobs (storage implements it)."""

    async def lookup(self, cited: CitedReference) -> list[SourceRecord]: ...

    async def remember(self, records: Sequence[SourceRecord]) -> None: ...

    async def search(
        self, words: Sequence[str], *, title: str | None = None, limit: int = 5
    ) -> list[SourceRecord]: ...


class SourceGateway:
    def __init__(
        self,
        settings: Settings,
        http: httpx.AsyncClient,
        limiter: RateLimiter,
        *,
        cache: RawCache | None = None,
        library: WorksLibrary | None = None,
        retractions: RetractionIndex | None = None,
        mirror: MirrorTier | None = None,
    ) -> None:
        from aletheia.pipeline.evidence.web_tiers import WebTiers
        from aletheia.sources.open_access import open_access_from_settings
        from aletheia.sources.registry import build_clients
        from aletheia.sources.venue_registry import VenueRegistry

        self.settings = settings
        self.limiter = limiter  # also paces the claim pipeline's model calls (`llm/paced.py`)
        self.offline = settings.offline
        self.library = library
        self.retractions = retractions
        # The local snapshot mirror (`mirror_tier`): asked before the APIs it copies; None: off.
        self.mirror = mirror
        self.breakers = {
            SourceName(name): CircuitBreaker.from_settings(name, settings) for name in SOURCE_FACTS
        }
        # Every registered source's client (`sources/registry.py`), each built from its record on
        # this one HTTP client, limiter and cache, with its breaker.
        self.clients = build_clients(settings, http, limiter, self.breakers, cache)
        self._name_clients()
        # Tier 4 (the cited URL, web search) and Tier 5 (LLM suggestions): `web_tiers`.
        self.web_tiers = WebTiers.from_settings(settings, http, limiter, user_agent=user_agent(), cache=cache)
        # Open-access full text for claims (`oa_fulltext`): the sources' own PDF and page links,
        # through the SSRF-safe fetcher; on unless `ALETHEIA_OA_FULLTEXT` is false.
        self.open_access = open_access_from_settings(settings, limiter, user_agent=user_agent())
        # The venue registries (issue 21) on the OpenAlex, DBLP and Crossref transports: their
        # requests share those sources' limits and breakers and are counted in their stats.
        self.venues = VenueRegistry(
            {
                SourceName.OPENALEX: self.openalex.transport,
                SourceName.DBLP: self.cs.dblp.transport,
                SourceName.CROSSREF: self.crossref.transport,
            },
            cache=cache,
            mailto=settings.mailto,
            openalex_api_key=self.openalex.api_key,
        )
        # Each registered source's requests, counted in every report (`stats`).
        self._transports = {SourceName(name): client.transport for name, client in self.clients.items()}

    def _name_clients(self) -> None:
        """The clients the gateway asks by name, and the tiers' modules over the same clients."""
        from aletheia.pipeline.evidence.cs_sources import CsSources
        from aletheia.pipeline.evidence.tier_sources import TierSources
        from aletheia.sources.arxiv import ArxivClient
        from aletheia.sources.crossref import CrossrefClient
        from aletheia.sources.europe_pmc import EuropePmcClient
        from aletheia.sources.openalex import OpenAlexClient
        from aletheia.sources.pubmed import PubMedClient
        from aletheia.sources.registry import client_of
        from aletheia.sources.semantic_scholar import SemanticScholarClient

        clients = self.clients
        self.crossref = client_of(clients, SourceName.CROSSREF, CrossrefClient)
        self.openalex = client_of(clients, SourceName.OPENALEX, OpenAlexClient)
        self.semantic_scholar = client_of(clients, SourceName.SEMANTIC_SCHOLAR, SemanticScholarClient)
        self.arxiv = client_of(clients, SourceName.ARXIV, ArxivClient)
        self.pubmed = client_of(clients, SourceName.PUBMED, PubMedClient)
        # Tier 2 full text: open-access PMC articles (the full-text chain, `pmc_fulltext`).
        self.europe_pmc = client_of(clients, SourceName.EUROPE_PMC, EuropePmcClient)
        # Tier 1 books and Tier 3 canonical texts (issue 12): asked by their own module.
        self.tiers = TierSources(clients)
        # DBLP and the ACL Anthology (issue 12): `cs_sources`.
        self.cs = CsSources(clients)

    # --- lookups -------------------------------------------------------------------------------

    def _mirrored_doi(self, source: SourceName, doi: str, live: Lookup) -> Lookup:
        return live if self.mirror is None else self.mirror.by_doi(source, doi, live)

    def mirrored_search(
        self, source: SourceName, title: str, live: Lookup, *, cited_year: int | None = None
    ) -> Lookup:
        """`live`, a title search of `source` for a work cited as of `cited_year`, asked of the
        mirror first (`mirror_tier`)."""
        if self.mirror is None:
            return live
        return self.mirror.title_search(source, title, live, cited_year=cited_year)

    def doi_lookups(self, doi: str) -> list[tuple[SourceName, Lookup]]:
        # Crossref's record by DOI stays live even with a mirror: it carries the work's standing
        # (retractions, corrections), which changes after any snapshot (`mirror_tier`).
        return [
            (SourceName.CROSSREF, lambda: self.crossref.work_by_doi(doi)),
            (
                SourceName.OPENALEX,
                self._mirrored_doi(SourceName.OPENALEX, doi, lambda: self.openalex.work_by_doi(doi)),
            ),
        ]

    def dblp_record(self, key: str) -> Lookup:
        """DBLP's record by key: from the mirror when it holds it, else `/rec/{key}.xml`."""
        live = self.cs.dblp_record(key)
        return live if self.mirror is None else self.mirror.by_record_id(SourceName.DBLP, key, live)

    def arxiv_lookups(self, arxiv_id: str, version: int | None) -> list[tuple[SourceName, Lookup]]:
        cited = f"{arxiv_id}v{version}" if version else arxiv_id
        return [
            (SourceName.ARXIV, lambda: self.arxiv.by_id(cited)),
            (SourceName.SEMANTIC_SCHOLAR, lambda: self.semantic_scholar.paper(f"ARXIV:{arxiv_id}")),
        ]

    def pmid_lookups(self, pmid: str) -> list[tuple[SourceName, Lookup]]:
        return [
            (SourceName.PUBMED, lambda: self.pubmed.by_pmid(pmid)),
            (SourceName.OPENALEX, lambda: self.openalex.work_by_pmid(pmid)),
        ]

    def venue_lookups(self, name: str) -> list[tuple[SourceName, Callable[[], Awaitable[list[VenueRecord]]]]]:
        """One lookup of `name` (`core.venue_registry.registry_query`) per venue registry that can
        be asked: a registry turned off (`ALETHEIA_DISABLED_SOURCES`) or offline is left out, not
        recorded as failed. Each returns the venues the registry holds under names like `name`
        ([] : it holds none); a name with no searchable word fails as `PermanentSourceError`."""
        if self.offline:
            return []
        return [
            (source, searchable(source, partial(self.venues.lookup, source, name)))
            for source in VENUE_REGISTRIES
            if source.value not in self.settings.disabled
        ]

    def search_interval(self, source: SourceName) -> float:
        """Seconds between two of `source`'s searches at its documented rate (its search rate where
        it has one): what one more search costs at that source's bucket. 0 for a source with no
        rate (the library) or turned off, and offline."""
        if self.offline or source.value in self.settings.disabled:
            return 0.0
        try:
            limits = self.settings.limits_for(source.value)
        except AttributeError:
            return 0.0
        rate = limits.search_rate if limits.search_rate is not None else limits.rate
        return 1.0 / rate if rate > 0 else 0.0

    def searches(
        self, cited: CitedReference, *, coverage: Sequence[SourceName] | None = None
    ) -> list[SearchCall]:
        """Every search of `search_stages`, flattened (for callers that run them all at once)."""
        return [call for stage in self.search_stages(cited, coverage=coverage) for call in stage]

    def search_stages(
        self,
        cited: CitedReference,
        *,
        coverage: Sequence[SourceName] | None = None,
        near_miss_seen: Callable[[], bool] = lambda: False,
    ) -> list[list[SearchCall]]:
        """Searches in the order to try them, cheapest first; a later stage runs only when the
        earlier ones did not find the work. Every source in `coverage` (default
        `search_coverage(cited)`: the sources that could hold the work) is in some stage, so that
        "no source has it" is only ever said after all of them answered (docs/sources.md):

        1. OpenAlex title search (10 requests/s, and it indexes conference papers without DOIs
           that Crossref lacks);
        2. Crossref bibliographic search (3 searches/s): it finds nearly every work OpenAlex's
           title search missed (154 of 157 on the ICLR 2026 references); with
           `ALETHEIA_CROSSREF_SEARCH_LAST` (the default) it is the last stage instead, for a
           reference with a title that is not a parsed reference string (issue 23: Crossref has
           no OR, so every one of its searches costs a request, and a work another index found
           is confirmed at Crossref by its DOI, many DOIs a request);
        3. Semantic Scholar's title match (1/s; its 404 "Title match not found" is a NOT_FOUND
           answer), only when neither found the work (it found 46 of those 157); asked through a
           shared bulk search of many titles (`s2_titles`) unless `near_miss_seen()` says an
           earlier answer held a near miss of the title, which only `match` itself can judge;
        4. arXiv title search (one request every 3 s) when arXiv could hold the work, PubMed
           title search (esearch, then efetch of the best PMIDs) when PubMed could, and DBLP's
           title search (one request every 2 s) for a computer-science work; arXiv's and DBLP's
           go many titles a request where a shared answer can prove them (`arxiv_titles`,
           `dblp_titles`), as OpenAlex's do in stage 1 (`openalex_titles`); with them, the title
           search of every source whose registry record has one (`sources/registry.py`).

        A reference given as a string (plain text, a `.bbl` item, a PDF's reference list) is sent
        to Crossref's bibliographic search whole (`bibliographic_query`: it matches whole reference
        strings). A reference without a title: that search, then Semantic Scholar's relevance
        search of the string.
        Disabled sources and offline mode are not special here: their clients fail fast without a
        request, the answer is recorded FAILED, and the verdict is `unverifiable`."""
        wanted = frozenset(search_coverage(cited) if coverage is None else coverage)
        text = search_text(cited)
        if not text:
            return []
        title = search_title(cited)
        crossref = crossref_search(self, bibliographic_query(cited) or text, title, cited.year)
        stages: list[list[SearchCall]]
        if not title:
            s2_search = SearchCall(
                SourceName.SEMANTIC_SCHOLAR, text, lambda: self.semantic_scholar.search(text, limit=5)
            )
            stages = [[crossref], [s2_search]]
        else:
            openalex, s2_match, specialised = title_searches(self, cited, title, near_miss_seen)
            if self.settings.crossref_search_last and not given_as_string(cited):
                # Crossref has no OR: its searches go one title at a time (3 per second), so it is
                # asked last, when no other index found the work (issue 23); a work found
                # elsewhere is triangulated by its DOI, which Crossref answers many at a time.
                stages = [[openalex], [s2_match], specialised, [crossref]]
            else:
                stages = [[openalex], [crossref], [s2_match], specialised]
        stages = [[call for call in stage if call.source in wanted] for stage in stages]
        return [stage for stage in stages if stage]

    # --- Tier 0 --------------------------------------------------------------------------------

    async def library_lookup(
        self, cited: CitedReference, answers: list[SourceAnswer], raw: list[SourceRecord]
    ) -> bool:
        if self.library is None:
            return False
        hits = await self.library.lookup(cited)
        if not hits:
            return False
        # The hit is the work the cited identifier names (`core.library_work`), answered under
        # that identifier's kind as its lookup was on the first run (`isbn_resolved` again, not
        # `matched_by_search`); a hit by title is a search's.
        kind, query = next(
            (
                (k, value)
                for k, value in (
                    (QueryKind.DOI, cited.doi),
                    (QueryKind.ARXIV, cited.arxiv_id),
                    (QueryKind.PMID, cited.pmid),
                    (QueryKind.ISBN, cited.isbn),
                )
                if value
            ),
            (QueryKind.LIBRARY, cited.title or cited.key),
        )
        raw.extend(hits)
        # One answer per original source, so triangulation sees the independent sources it had.
        by_source: dict[SourceName, list[WorkRecord]] = {}
        for hit in hits:
            by_source.setdefault(hit.record.source, []).append(hit.record)
        for records in by_source.values():
            answers.append(
                SourceAnswer(
                    source=SourceName.LIBRARY,
                    kind=kind,
                    query=query,
                    outcome=Outcome.FOUND,
                    records=tuple(records),
                )
            )
        return True

    # --- standing ------------------------------------------------------------------------------

    @property
    def retraction_index_loaded(self) -> bool:
        return self.retractions is not None

    def retraction_notices(
        self, cited: CitedReference, records: Sequence[WorkRecord]
    ) -> list[RetractionNotice]:
        if self.retractions is None:
            return []
        dois = {d for d in [cited.doi, *(r.doi for r in records)] if d}
        pmids = {p for p in [cited.pmid, *(r.pmid for r in records)] if p}
        notices: list[RetractionNotice] = []
        for doi in sorted(dois):
            notices.extend(self.retractions.lookup(doi=doi))
        for pmid in sorted(pmids):
            for n in self.retractions.lookup(pmid=pmid):
                if n not in notices:
                    notices.append(n)
        return notices

    # --- report --------------------------------------------------------------------------------

    def stats(self) -> dict[str, SourceStats]:
        out: dict[str, SourceStats] = {}
        for source, transport in self._transports.items():
            st = transport.stats
            if source.value in self.settings.disabled:
                st.status = "disabled"
            elif self.offline:
                st.status = "offline"
            out[source.value] = st
        out.update(self.web_tiers.stats())
        return out
