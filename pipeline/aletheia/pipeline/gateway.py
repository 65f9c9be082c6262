"""One object that knows every source: the clients, the Tier-0 library and the retraction data.

The gateway owns one `httpx.AsyncClient` per process (injected into every client), the global
rate limiter and the raw cache. It hands the evidence gatherer lookups as `(source, call)` pairs so
the gatherer can record each answer, including failures, without knowing any client.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from aletheia.config import Settings
from aletheia.core.evidence import Outcome, QueryKind, SourceAnswer
from aletheia.core.records import CitedReference, RetractionNotice, SourceName, WorkRecord
from aletheia.sources.base import RawCache, SourceRecord, SourceStats
from aletheia.sources.breaker import CircuitBreaker
from aletheia.sources.ratelimit import RateLimiter

if TYPE_CHECKING:
    from aletheia.sources.retraction_watch import RetractionIndex

Lookup = Callable[[], Awaitable[Any]]


class WorksLibrary(Protocol):
    """Seed 004's Tier 0: works verified before, reused across jobs (storage implements it)."""

    async def lookup(self, cited: CitedReference) -> list[SourceRecord]: ...

    async def remember(self, records: Sequence[SourceRecord]) -> None: ...


def user_agent() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("aletheia-citations")
    except PackageNotFoundError:  # running from a source tree without metadata
        v = "0"
    return f"Aletheia/{v} (citation verification; https://github.com/aletheia-citations/aletheia)"


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
    ) -> None:
        from aletheia.sources.arxiv import ArxivClient, arxiv_transports
        from aletheia.sources.crossref import CrossrefClient, crossref_transport
        from aletheia.sources.openalex import OpenAlexClient, openalex_transport
        from aletheia.sources.pubmed import PubMedClient, pubmed_transport
        from aletheia.sources.semantic_scholar import SemanticScholarClient, semantic_scholar_transport

        self.settings = settings
        self.offline = settings.offline
        self.library = library
        self.retractions = retractions
        self.breakers = {s: CircuitBreaker.from_settings(s.value, settings) for s in SourceName}
        key = settings.openalex_api_key.get_secret_value() if settings.openalex_api_key else None
        s2_key = (
            settings.semantic_scholar_api_key.get_secret_value()
            if settings.semantic_scholar_api_key
            else None
        )
        ncbi_key = settings.ncbi_api_key.get_secret_value() if settings.ncbi_api_key else None
        window = settings.coalesce_window_ms / 1000.0

        self.crossref = CrossrefClient(
            crossref_transport(http, settings, limiter, self.breakers[SourceName.CROSSREF]),
            cache=cache,
            mailto=settings.mailto,
            coalesce_window=window,
        )
        self.openalex = OpenAlexClient(
            openalex_transport(http, settings, limiter, self.breakers[SourceName.OPENALEX]),
            cache=cache,
            api_key=key,
            mailto=settings.mailto,
            coalesce_window=window,
        )
        self.semantic_scholar = SemanticScholarClient(
            semantic_scholar_transport(http, settings, limiter, self.breakers[SourceName.SEMANTIC_SCHOLAR]),
            cache=cache,
            api_key=s2_key,
            coalesce_window=window,
        )
        api_t, web_t = arxiv_transports(http, settings, limiter, self.breakers[SourceName.ARXIV])
        self.arxiv = ArxivClient(api_t, web_t, cache=cache, coalesce_window=max(window, 0.05))
        self.pubmed = PubMedClient(
            pubmed_transport(http, settings, limiter, self.breakers[SourceName.PUBMED]),
            cache=cache,
            api_key=ncbi_key,
            email=settings.mailto,
        )
        self._transports = {
            SourceName.CROSSREF: self.crossref.transport,
            SourceName.OPENALEX: self.openalex.transport,
            SourceName.SEMANTIC_SCHOLAR: self.semantic_scholar.transport,
            SourceName.ARXIV: api_t,
            SourceName.PUBMED: self.pubmed.transport,
        }

    # --- lookups -------------------------------------------------------------------------------

    def doi_lookups(self, doi: str) -> list[tuple[SourceName, Lookup]]:
        return [
            (SourceName.CROSSREF, lambda: self.crossref.work_by_doi(doi)),
            (SourceName.OPENALEX, lambda: self.openalex.work_by_doi(doi)),
        ]

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

    def searches(
        self, *, title: str | None, author: str | None, year: int | None, text: str
    ) -> list[tuple[SourceName, Lookup]]:
        return [
            lookup
            for stage in self.search_stages(title=title, author=author, year=year, text=text)
            for lookup in stage
        ]

    def search_stages(
        self, *, title: str | None, author: str | None, year: int | None, text: str
    ) -> list[list[tuple[SourceName, Lookup]]]:
        """Searches in the order to try them; a later stage runs only when the earlier ones did
        not find the work. OpenAlex first: it allows 10 requests/s where Crossref's search pool
        allows 3, and it indexes conference papers without DOIs (NeurIPS, ICLR, ...) that
        Crossref lacks. Crossref's bibliographic search is the fallback (and the only search for
        a reference without a title, as it matches a whole reference string)."""
        crossref: list[tuple[SourceName, Lookup]] = [
            (SourceName.CROSSREF, lambda: self.crossref.search(text, rows=5))
        ]
        if not title:
            return [crossref]
        openalex: list[tuple[SourceName, Lookup]] = [
            (SourceName.OPENALEX, lambda: self.openalex.search(title=title, author=author, per_page=5))
        ]
        return [openalex, crossref]

    # --- Tier 0 --------------------------------------------------------------------------------

    async def library_lookup(
        self, cited: CitedReference, answers: list[SourceAnswer], raw: list[SourceRecord]
    ) -> bool:
        if self.library is None:
            return False
        hits = await self.library.lookup(cited)
        if not hits:
            return False
        kind = (
            QueryKind.DOI
            if cited.doi
            else QueryKind.ARXIV
            if cited.arxiv_id
            else QueryKind.PMID
            if cited.pmid
            else QueryKind.LIBRARY
        )
        query = cited.doi or cited.arxiv_id or cited.pmid or cited.title or cited.key
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
        return out
