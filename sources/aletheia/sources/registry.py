"""Every source the gateway asks, one record each (issue 31): a new source is its client, its parser,
its record here (pointing at its facts in `core.source_facts`) and its simulator route.

A `SourceSpec` says how to build the source's client: one way, `spec.client(parts)`, on the
process's one `httpx.AsyncClient`, limiter, cache and the source's breaker (`ClientParts`), with
the source's own settings read from `Settings`. Which settings field holds its base URL
(`ALETHEIA_<FIELD>`, default the real host) is named by `url_settings`, so that a test can point
each source elsewhere and see it asked there. Its display name, trust, tier, search coverage and
documented 404 are its facts (`core.source_facts.SourceFacts`), written once there because the
pure core needs them without any client.

`SourceGateway` builds every client of `SOURCES` (`build_clients`) and reports each one's requests;
the tiers that ask them pick theirs by name (`client_of`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar

from aletheia.core.records import SourceName
from aletheia.core.source_facts import SOURCE_FACTS, SourceFacts
from aletheia.sources.acl_anthology import AclAnthologyClient, acl_anthology_transport
from aletheia.sources.arxiv import ArxivClient, arxiv_transports
from aletheia.sources.ccel import CcelClient, ccel_transport
from aletheia.sources.crossref import CrossrefClient, crossref_transport
from aletheia.sources.dblp import DblpClient, dblp_transport
from aletheia.sources.europe_pmc import EuropePmcClient, europe_pmc_transport
from aletheia.sources.google_books import GoogleBooksClient, google_books_transport
from aletheia.sources.open_library import OpenLibraryClient, open_library_transport
from aletheia.sources.openalex import OpenAlexClient, openalex_transport
from aletheia.sources.perseus import PerseusClient, perseus_transport
from aletheia.sources.pubmed import PubMedClient, pubmed_transport
from aletheia.sources.semantic_scholar import SemanticScholarClient, semantic_scholar_transport

if TYPE_CHECKING:
    import httpx
    from pydantic import SecretStr

    from aletheia.config import Settings
    from aletheia.sources.base import RawCache, SourceRecord, Transport
    from aletheia.sources.transport.breaker import CircuitBreaker
    from aletheia.sources.transport.limiter import RateLimiter

__all__ = ["SOURCES", "ClientParts", "SourceClient", "SourceSpec", "build_clients", "client_of"]


class SourceClient(Protocol):
    """A client of one source: its name and the transport whose requests the reports count."""

    @property
    def source(self) -> SourceName: ...

    @property
    def transport(self) -> Transport: ...


@dataclass(frozen=True, slots=True)
class ClientParts:
    """What every client is built on: settings, the process's HTTP client and limiter, the source's
    breaker (None: the transport makes its own from settings) and the raw cache."""

    settings: Settings
    http: httpx.AsyncClient
    limiter: RateLimiter
    breaker: CircuitBreaker | None
    cache: RawCache | None

    @property
    def coalesce_window(self) -> float:
        """`ALETHEIA_COALESCE_WINDOW_MS` in seconds: lookups arriving within it go out together."""
        return self.settings.coalesce_window_ms / 1000.0


# (the source's client, the cited title, its first author's surname) -> the records found.
TitleSearch = Callable[[Any, str, "str | None"], Awaitable["list[SourceRecord]"]]


@dataclass(frozen=True, slots=True)
class SourceSpec:
    facts: SourceFacts  # the core's record: display name, trust, tier, coverage, documented 404
    client: Callable[[ClientParts], SourceClient]  # the one way its client is built
    url_settings: tuple[str, ...]  # the `Settings` fields with its base URLs (`ALETHEIA_<FIELD>`)
    # A search source's title search, asked with the specialised indexes (arXiv, PubMed, DBLP) by
    # `SourceGateway.search_stages` when its coverage holds the work. None: the gateway's own
    # stages ask it (the general indexes and those three, each with its own query and batching).
    title_search: TitleSearch | None = None

    @property
    def name(self) -> str:
        return self.facts.name


def _secret(value: SecretStr | None) -> str | None:
    return value.get_secret_value() if value is not None else None


def _crossref(p: ClientParts) -> CrossrefClient:
    transport = crossref_transport(p.http, p.settings, p.limiter, p.breaker)
    return CrossrefClient(
        transport, cache=p.cache, mailto=p.settings.mailto, coalesce_window=p.coalesce_window
    )


def _openalex(p: ClientParts) -> OpenAlexClient:
    s = p.settings
    return OpenAlexClient(
        openalex_transport(p.http, s, p.limiter, p.breaker),
        cache=p.cache,
        api_key=_secret(s.openalex_api_key),
        mailto=s.mailto,
        coalesce_window=p.coalesce_window,
        title_batch=s.openalex_title_batch,
        max_url_bytes=s.openalex_max_url_bytes,
        title_absence=s.openalex_title_absence,
    )


def _semantic_scholar(p: ClientParts) -> SemanticScholarClient:
    return SemanticScholarClient(
        semantic_scholar_transport(p.http, p.settings, p.limiter, p.breaker),
        cache=p.cache,
        api_key=_secret(p.settings.semantic_scholar_api_key),
        coalesce_window=p.coalesce_window,
        title_batch=p.settings.semantic_scholar_title_batch,
    )


def _arxiv(p: ClientParts) -> ArxivClient:
    api, web = arxiv_transports(p.http, p.settings, p.limiter, p.breaker)
    # arXiv's own pace is one request every 3 s: waiting 50 ms for more ids costs nothing.
    window = max(p.coalesce_window, 0.05)
    return ArxivClient(
        api, web, cache=p.cache, coalesce_window=window, title_batch=p.settings.arxiv_title_batch
    )


def _pubmed(p: ClientParts) -> PubMedClient:
    return PubMedClient(
        pubmed_transport(p.http, p.settings, p.limiter, p.breaker),
        cache=p.cache,
        api_key=_secret(p.settings.ncbi_api_key),
        email=p.settings.mailto,
    )


def _dblp(p: ClientParts) -> DblpClient:
    # Title searches proved absent a few at a time (`dblp_titles`, issue 23).
    return DblpClient(
        dblp_transport(p.http, p.settings, p.limiter, p.breaker),
        cache=p.cache,
        title_batch=p.settings.dblp_title_batch,
        coalesce_window=p.coalesce_window,
    )


# A client taking only its transport and the cache, on the transport its module builds.
_C = TypeVar("_C")


def _plain(
    make: Callable[..., _C],
    transport: Callable[[httpx.AsyncClient, Settings, RateLimiter, CircuitBreaker | None], Transport],
) -> Callable[[ClientParts], _C]:
    def build(p: ClientParts) -> _C:
        return make(transport(p.http, p.settings, p.limiter, p.breaker), cache=p.cache)

    return build


def _spec(name: str, client: Callable[[ClientParts], SourceClient], *url_settings: str) -> SourceSpec:
    return SourceSpec(SOURCE_FACTS[name], client, url_settings or (f"{name}_url",))


# Every source the gateway builds a client for. A plain dict: a test's toy source is put in with
# `monkeypatch.setitem`. The web tier (the cited page, web search, LLM suggestions) is built by
# `pipeline/evidence/web_tiers.py` from its own settings; the retraction index is a file.
SOURCES: Final[dict[str, SourceSpec]] = {
    spec.name: spec
    for spec in (
        _spec("crossref", _crossref),
        _spec("openalex", _openalex),
        _spec("semantic_scholar", _semantic_scholar),
        _spec("arxiv", _arxiv, "arxiv_api_url", "arxiv_url"),
        _spec("pubmed", _pubmed),
        # Tier 2 full text: open-access PMC articles (the full-text chain, `pmc_fulltext`).
        _spec("europe_pmc", _plain(EuropePmcClient, europe_pmc_transport)),
        # The computer-science indexes (issue 12).
        _spec("dblp", _dblp),
        _spec("acl_anthology", _plain(AclAnthologyClient, acl_anthology_transport)),
        # Tier 1 books and Tier 3 canonical texts (issue 12).
        _spec("open_library", _plain(OpenLibraryClient, open_library_transport)),
        _spec("google_books", _plain(GoogleBooksClient, google_books_transport)),
        _spec("perseus", _plain(PerseusClient, perseus_transport)),
        _spec("ccel", _plain(CcelClient, ccel_transport)),
    )
}


def build_clients(
    settings: Settings,
    http: httpx.AsyncClient,
    limiter: RateLimiter,
    breakers: Mapping[SourceName, CircuitBreaker],
    cache: RawCache | None,
) -> dict[str, SourceClient]:
    """Every registered source's client, by name, each with its breaker from `breakers`."""
    return {
        name: spec.client(ClientParts(settings, http, limiter, breakers.get(SourceName(name)), cache))
        for name, spec in SOURCES.items()
    }


C = TypeVar("C")


def client_of(clients: Mapping[str, SourceClient], name: str, kind: type[C]) -> C:
    """The client of `name`, as the class its caller asks it through (checked, not cast)."""
    client = clients[name]
    if not isinstance(client, kind):
        raise TypeError(f"the {name} client is a {type(client).__name__}, not a {kind.__name__}")
    return client
