"""Every source the simulator serves, one route record each (issue 31): its URL path prefix, how a
request is classified (kind, ids asked for), answered and refused with a 429, and its documented
limits (`SimulatorConfig()`). The app (`app.py`), the config's defaults, the counters and the
`ALETHEIA_*_URL` settings that point the clients here (`server.env_for`) all read this table.

A route's name is the source's, except arXiv's two (its export API, `arxiv_api`, and its site):
`ALETHEIA_<NAME>_URL` is then the settings field `sources.registry.SourceSpec.url_settings` names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from aletheia.sources.simulator import (
    acl_anthology,
    arxiv,
    books,
    classical,
    crossref,
    dblp,
    europe_pmc,
    openalex,
    pubmed,
    semantic_scholar,
    web_search,
)
from aletheia.sources.simulator.common import SimContext
from aletheia.sources.simulator.config import RequestKind, SourceSimConfig
from aletheia.sources.simulator.http import Request, Response, json_response, text_response

__all__ = ["SIM_ROUTES", "SIM_SOURCES", "SimRoute", "route_named"]

Classify = Callable[[Request, str], tuple[RequestKind, list[str]]]
# (request, the path after the prefix, the universe, the source's current config) -> answer.
Answer = Callable[[Request, str, SimContext, SourceSimConfig], Response]
# (the Retry-After header's value, the source's current config, the request) -> the 429.
TooMany = Callable[[str, SourceSimConfig, Request], Response]


@dataclass(frozen=True, slots=True)
class SimRoute:
    name: str
    prefix: str  # `ALETHEIA_<NAME>_URL=http://127.0.0.1:PORT<prefix>` points a client here
    classify: Classify
    answer: Answer
    rate_limited: TooMany
    documented: SourceSimConfig = field(default_factory=SourceSimConfig)  # its public limits
    # A request this says carries an API key is held to `rate_with_key` (PubMed).
    keyed: Callable[[Request], bool] | None = None
    aliases: tuple[str, ...] = ()  # other names callers use for it (`server.url_for`)


def _429(body: str | dict[str, Any]) -> TooMany:
    """The 429 of a source that sends `body` (text, or JSON for a dict) and the Retry-After asked."""

    def too_many(retry_after: str, _config: SourceSimConfig, _request: Request) -> Response:
        response = (
            text_response(body, status=429) if isinstance(body, str) else json_response(body, status=429)
        )
        response.headers.append(("retry-after", retry_after))
        return response

    return too_many


def _universe(handle: Callable[[Request, str, SimContext], Response]) -> Answer:
    return lambda request, path, ctx, _config: handle(request, path, ctx)


def _fixed(handle: Callable[[Request, str], Response]) -> Answer:
    """Books and canonical texts answer from fixed data, without the universe."""
    return lambda request, path, _ctx, _config: handle(request, path)


def _routes(*routes: SimRoute) -> dict[str, SimRoute]:
    return {route.name: route for route in routes}


_ONE_PER_SECOND: Final = SourceSimConfig(rate=1, burst=1)
# arXiv answers an over-eager client with a bare 429 (and, at worst, a temporary block).
_ARXIV_429: Final = _429("Rate exceeded.")

# A plain dict: a test's toy source adds its route with `monkeypatch.setitem`.
SIM_ROUTES: Final[dict[str, SimRoute]] = _routes(
    SimRoute(
        "crossref",
        "/crossref",
        crossref.classify,
        lambda request, path, ctx, config: crossref.handle(request, path, ctx, config.rate),
        lambda retry_after, config, _request: crossref.rate_limited(retry_after, config.rate),
        SourceSimConfig(rate=10, burst=10, search_rate=3, search_burst=3, concurrency=3),
    ),
    SimRoute(
        "openalex",
        "/openalex",
        openalex.classify,
        _universe(openalex.handle),
        _429({"error": "Rate limit exceeded", "message": "Too many requests; slow down and retry."}),
        SourceSimConfig(rate=10, burst=10),
    ),
    SimRoute(
        "semantic_scholar",
        "/s2",
        semantic_scholar.classify,
        _universe(semantic_scholar.handle),
        _429(
            {
                "message": "Too Many Requests. Please wait and try again or apply for a key for higher rate "
                "limits. https://www.semanticscholar.org/product/api#api-key-form",
                "code": "429",
            }
        ),
        _ONE_PER_SECOND,
        aliases=("s2",),
    ),
    SimRoute(
        "arxiv_api",
        "/arxiv-api",
        arxiv.classify_api,
        _universe(arxiv.handle_api),
        _ARXIV_429,
        SourceSimConfig(rate=1 / 3, burst=1),
        aliases=("arxiv-api",),
    ),
    SimRoute(
        "arxiv",
        "/arxiv",
        arxiv.classify_site,
        _universe(arxiv.handle_site),
        _ARXIV_429,
        SourceSimConfig(rate=1 / 3, burst=1),
    ),
    SimRoute(
        "pubmed",
        "/pubmed",
        pubmed.classify,
        _universe(pubmed.handle),
        lambda retry_after, config, request: pubmed.rate_limited(retry_after, config.rate, request),
        SourceSimConfig(rate=3, burst=3, rate_with_key=10, burst_with_key=10),
        keyed=pubmed.has_api_key,
    ),
    SimRoute(
        "europe_pmc",
        "/europepmc",
        europe_pmc.classify,
        _universe(europe_pmc.handle),
        _429("Too Many Requests"),
        SourceSimConfig(rate=5, burst=5),
    ),
    # DBLP's FAQ: one or two seconds between requests, and "an empty document with a HTTP status
    # 429 ... and a Retry-After header"; the ACL Anthology documents none.
    SimRoute(
        "dblp",
        "/dblp",
        dblp.classify,
        _universe(dblp.handle),
        _429(""),
        SourceSimConfig(rate=0.5, burst=1),
    ),
    SimRoute(
        "acl_anthology",
        "/acl",
        acl_anthology.classify,
        _universe(acl_anthology.handle),
        _429("Too Many Requests"),
        _ONE_PER_SECOND,
    ),
    # Books and canonical texts document no number: the product's own default, one per second.
    SimRoute(
        "open_library",
        books.OPEN_LIBRARY_PREFIX,
        books.classify,
        _fixed(books.handle_open_library),
        _429({"error": "Too Many Requests"}),
        _ONE_PER_SECOND,
    ),
    SimRoute(
        "google_books",
        books.GOOGLE_BOOKS_PREFIX,
        books.classify,
        _fixed(books.handle_google_books),
        _429({"error": "Too Many Requests"}),
        _ONE_PER_SECOND,
    ),
    SimRoute(
        "perseus",
        "/perseus",
        classical.classify,
        _fixed(classical.handle_perseus),
        _429("Too Many Requests"),
        _ONE_PER_SECOND,
    ),
    SimRoute(
        "ccel",
        "/ccel",
        classical.classify,
        _fixed(classical.handle_ccel),
        _429("Too Many Requests"),
        _ONE_PER_SECOND,
    ),
    # Web search (Tier 4): Brave's free plan, 1 query per second; Tavily as well.
    SimRoute(
        "tavily",
        web_search.TAVILY_PREFIX,
        web_search.classify,
        _universe(web_search.handle_tavily),
        _429({"detail": {"error": "rate limit exceeded"}}),
        _ONE_PER_SECOND,
    ),
    SimRoute(
        "brave_search",
        web_search.BRAVE_PREFIX,
        web_search.classify,
        _universe(web_search.handle_brave),
        _429({"detail": {"error": "rate limit exceeded"}}),
        _ONE_PER_SECOND,
        aliases=("brave",),
    ),
)
# The built-in routes' names, in order (configuring every source's faults, as the tests do).
SIM_SOURCES: Final[tuple[str, ...]] = tuple(SIM_ROUTES)


def route_named(name: str) -> SimRoute | None:
    """The route of a source's name (the route's own, a `SourceName` value or an alias)."""
    name = name.lower()
    if name in SIM_ROUTES:
        return SIM_ROUTES[name]
    return next((route for route in SIM_ROUTES.values() if name in route.aliases), None)
