"""Tier 4's web search: Tavily or Brave, behind a key, only to FIND candidates (docs/sources.md).

A web search result is never evidence about a reference: its title and snippet are whatever a
page says. What the search is for is pointing at identifiers (a DOI in a doi.org or publisher URL,
an arXiv id in an arxiv.org URL, a PMID in a PubMed URL) that the scholarly tiers then look up and
compare with the citation like any search hit. `parse_tavily` / `parse_brave` turn an answer into
records of the engine (title, URL, identifiers read from the URL); nothing else reads them.

- Tavily: `POST {ALETHEIA_TAVILY_URL}/search`, JSON `{"query", "max_results", "search_depth"}`,
  `Authorization: Bearer <TAVILY_API_KEY>`; answer `{"results": [{"title", "url", "content",
  "score"}, ...]}`.
- Brave: `GET {ALETHEIA_BRAVE_SEARCH_URL}/res/v1/web/search?q=...&count=...`,
  `X-Subscription-Token: <BRAVE_SEARCH_API_KEY>`; answer `{"web": {"results": [{"title", "url",
  "description"}, ...]}}`.

Both go through the `PoliteTransport` (global limits `ALETHEIA_TAVILY_LIMITS` /
`ALETHEIA_BRAVE_SEARCH_LIMITS`, 429 and Retry-After, retries, circuit breaker). Without a key
there is no client: the pipeline records the search as skipped, naming the missing key.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, Protocol

from aletheia.core.identifiers_in_text import extract_identifiers
from aletheia.core.records import SourceName, WorkRecord
from aletheia.sources.base import SourceParseError, SourceRecord, Transport

if TYPE_CHECKING:
    import httpx

    from aletheia.config.settings import Settings
    from aletheia.sources.transport.limiter import RateLimiter

MAX_RESULTS: Final = 5
MAX_QUERY_CHARS: Final = 400  # Tavily and Brave both cut long queries; a title fits
NO_KEY: Final = "skipped: no key (TAVILY_API_KEY or BRAVE_SEARCH_API_KEY)"


def _record(
    source: SourceName, rank: int, title: Any, url: Any, snippet: Any, score: Any
) -> WorkRecord | None:
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return None
    found = extract_identifiers(url)
    return WorkRecord(
        source=source,
        source_id=url,
        title=title if isinstance(title, str) and title.strip() else None,
        abstract=snippet if isinstance(snippet, str) and snippet.strip() else None,
        doi=found.dois[0] if found.dois else None,
        arxiv_id=found.arxiv_ids[0].id if found.arxiv_ids else None,
        pmid=found.pmids[0] if found.pmids else None,
        urls={"result": url},
        score=float(score) if isinstance(score, int | float) else 1.0 / rank,
    )


def _results(payload: Any, source: SourceName, path: tuple[str, ...]) -> list[Any]:
    node = payload
    for key in path:
        if not isinstance(node, dict):
            raise SourceParseError(source.value, f"answer is not an object at {key!r}")
        node = node.get(key, [] if key == path[-1] else {})
    if not isinstance(node, list):
        raise SourceParseError(source.value, "results is not a list")
    return node


def _parse(
    payload: Any, source: SourceName, path: tuple[str, ...], snippet: str, score: str | None
) -> list[WorkRecord]:
    out = []
    for rank, item in enumerate(_results(payload, source, path), 1):
        if isinstance(item, dict):
            rec = _record(
                source,
                rank,
                item.get("title"),
                item.get("url"),
                item.get(snippet),
                item.get(score) if score else None,
            )
            if rec is not None:
                out.append(rec)
    return out


def parse_tavily(payload: Any) -> list[WorkRecord]:
    return _parse(payload, SourceName.TAVILY, ("results",), "content", "score")


def parse_brave(payload: Any) -> list[WorkRecord]:
    return _parse(payload, SourceName.BRAVE_SEARCH, ("web", "results"), "description", None)


class WebSearchClient(Protocol):
    @property
    def source(self) -> SourceName: ...

    @property
    def transport(self) -> Transport: ...

    async def search(self, query: str, *, limit: int = MAX_RESULTS) -> list[SourceRecord]: ...


def _as_source_records(records: list[WorkRecord], payload: Any, url: str) -> list[SourceRecord]:
    now = datetime.now(UTC)
    return [SourceRecord(record=r, raw=payload, fetched_at=now, url=url) for r in records]


def _query(query: str) -> str:
    text = " ".join(query.split())[:MAX_QUERY_CHARS]
    if not text:
        raise ValueError("empty web search query")
    return text


class TavilyClient:
    def __init__(self, transport: Transport) -> None:
        self.source = SourceName.TAVILY
        self.transport = transport

    async def search(self, query: str, *, limit: int = MAX_RESULTS) -> list[SourceRecord]:
        body = {"query": _query(query), "max_results": limit, "search_depth": "basic"}
        payload = await self.transport.post_json("/search", json=body, kind="search")
        if payload is None:
            return []
        return _as_source_records(parse_tavily(payload), payload, f"{self.transport.base_url}/search")


class BraveSearchClient:
    def __init__(self, transport: Transport) -> None:
        self.source = SourceName.BRAVE_SEARCH
        self.transport = transport

    async def search(self, query: str, *, limit: int = MAX_RESULTS) -> list[SourceRecord]:
        params = {"q": _query(query), "count": limit}
        payload = await self.transport.get_json(
            "/res/v1/web/search", params=params, headers={"Accept": "application/json"}, kind="search"
        )
        if payload is None:
            return []
        return _as_source_records(
            parse_brave(payload), payload, f"{self.transport.base_url}/res/v1/web/search"
        )


def web_search_from_settings(
    http: httpx.AsyncClient, settings: Settings, limiter: RateLimiter
) -> WebSearchClient | None:
    """Tavily when `TAVILY_API_KEY` is set, else Brave when `BRAVE_SEARCH_API_KEY` is, else None."""
    from aletheia.sources.transport.factory import transport_from_settings

    if settings.tavily_api_key is not None:
        bearer = {"Authorization": f"Bearer {settings.tavily_api_key.get_secret_value()}"}
        return TavilyClient(
            transport_from_settings(SourceName.TAVILY, http, settings, limiter, headers=bearer)
        )
    if settings.brave_search_api_key is not None:
        token = {"X-Subscription-Token": settings.brave_search_api_key.get_secret_value()}
        return BraveSearchClient(
            transport_from_settings(SourceName.BRAVE_SEARCH, http, settings, limiter, headers=token)
        )
    return None
