"""Issue 20: a cached answer belongs to the base URL that gave it, and a 404 is "no such work" only
in the shape the source documents for it. A 404 from a route the source does not have (the base
URL points at the wrong server, or at the simulator without its `/crossref` prefix) is a failed
source, never evidence that the work does not exist.

The documented not-found shapes come from real recordings in ../shared/data/api-samples:
Crossref's `/works/{doi}` answers a plain "Resource not found." (habanero's sessions), Semantic
Scholar's `{"error": "Paper with id ... not found"}` (semanticscholar's `test_not_found.yaml`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from aletheia.config.settings import Settings, SourceLimits
from aletheia.core.records import SourceName
from aletheia.sources.base import PermanentSourceError
from aletheia.sources.cache import MemoryRawCache
from aletheia.sources.crossref import CrossrefClient, crossref_transport
from aletheia.sources.semantic_scholar import SemanticScholarClient, semantic_scholar_transport
from aletheia.sources.transport.not_found import documented_not_found
from aletheia.sources.transport.ratelimit import LocalRateLimiter

LIMITS = SourceLimits(rate=1000, burst=1000, concurrency=10, search_rate=1000)
Handler = Callable[[httpx.Request], httpx.Response]


@pytest.fixture
async def http() -> AsyncIterator[Callable[[Handler], httpx.AsyncClient]]:
    clients: list[httpx.AsyncClient] = []

    def make(handler: Handler) -> httpx.AsyncClient:
        clients.append(httpx.AsyncClient(transport=httpx.MockTransport(handler)))
        return clients[-1]

    yield make
    for client in clients:
        await client.aclose()


def crossref(http: httpx.AsyncClient, base: str, cache: MemoryRawCache | None = None) -> CrossrefClient:
    settings = Settings(crossref_url=base, crossref_limits=LIMITS, http_attempts=1)
    return CrossrefClient(crossref_transport(http, settings, LocalRateLimiter()), cache=cache)


def not_found_text(_: httpx.Request) -> httpx.Response:
    return httpx.Response(404, text="Resource not found.", headers={"content-type": "text/plain"})


def html_404(_: httpx.Request) -> httpx.Response:
    return httpx.Response(
        404, text="<html><body>Not Found</body></html>", headers={"content-type": "text/html"}
    )


async def test_a_documented_not_found_is_none(http: Any) -> None:
    client = crossref(http(not_found_text), "https://api.crossref.test")
    assert await client.work_by_doi("10.5555/no.such.work") is None
    assert client.transport.stats.errors == 0


async def test_a_404_from_a_route_crossref_does_not_have_is_a_failed_source(http: Any) -> None:
    client = crossref(http(html_404), "http://127.0.0.1:9")
    with pytest.raises(PermanentSourceError) as raised:
        await client.work_by_doi("10.5555/aletheia.test.0001")
    assert raised.value.status_code == 404 and "base URL" in str(raised.value)
    assert client.transport.stats.errors == 1
    # A search never answers 404 at Crossref: any 404 there is a wrong route.
    with pytest.raises(PermanentSourceError):
        await client.search("Attention is all you need")


async def test_semantic_scholar_not_found_is_its_json_error(http: Any) -> None:
    def s2(request: httpx.Request) -> httpx.Response:
        if "/paper/DOI:" in request.url.path:
            return httpx.Response(404, json={"error": "Paper with id DOI:10.1234/abcd not found"})
        return httpx.Response(404, json={"message": "Not Found"})  # a gateway's unknown route

    settings = Settings(semantic_scholar_limits=LIMITS, http_attempts=1)
    client = SemanticScholarClient(semantic_scholar_transport(http(s2), settings, LocalRateLimiter()))
    assert await client.paper("DOI:10.1234/abcd") is None
    with pytest.raises(PermanentSourceError):
        await client.match_title("A title nobody has")


def test_the_documented_shapes() -> None:
    def response(status: int, **kw: Any) -> httpx.Response:
        return httpx.Response(status, **kw)

    assert documented_not_found(SourceName.CROSSREF, "single", response(404, text="Resource not found."))
    assert not documented_not_found(SourceName.CROSSREF, "single", response(404, text="Not Found"))
    assert not documented_not_found(SourceName.CROSSREF, "search", response(404, text="Resource not found."))
    assert documented_not_found(
        SourceName.OPENALEX, "single", response(404, json={"error": "404 Not Found", "message": "..."})
    )
    assert not documented_not_found(SourceName.OPENALEX, "single", response(404, text="Resource not found."))
    assert not documented_not_found(SourceName.PUBMED, "search", response(404, text="<html>Not Found</html>"))
    # Full text: a 404 is "no full text here" wherever it comes from (it accuses no reference).
    assert documented_not_found(SourceName.ARXIV, "fulltext", response(404, text="<html>No HTML</html>"))


async def test_a_cached_answer_belongs_to_the_base_url_that_gave_it(http: Any) -> None:
    """Run once against a wrong server, then against the right one: the second run asks the right
    server and never reads the first run's answers."""
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=3600)
    asked: list[str] = []

    def wrong(request: httpx.Request) -> httpx.Response:
        asked.append(f"wrong {request.url.path}")
        return not_found_text(request)  # even a well-formed "not found" from another base URL

    def right(request: httpx.Request) -> httpx.Response:
        asked.append(f"right {request.url.path}")
        item = {
            "DOI": "10.5555/aletheia.test.0001",
            "title": ["A Work"],
            "author": [{"given": "Ann", "family": "Lee"}],
            "issued": {"date-parts": [[2020]]},
            "type": "journal-article",
        }
        return httpx.Response(200, json={"status": "ok", "message-type": "work", "message": item})

    first = crossref(http(wrong), "http://127.0.0.1:8765", cache)
    assert await first.work_by_doi("10.5555/aletheia.test.0001") is None
    second = crossref(http(right), "https://api.crossref.test", cache)
    found = await second.work_by_doi("10.5555/aletheia.test.0001")
    assert found is not None and found.record.title == "A Work"
    assert asked == ["wrong /works/10.5555/aletheia.test.0001", "right /works/10.5555/aletheia.test.0001"]
    # The same base URL again: from the cache.
    assert await crossref(http(wrong), "https://api.crossref.test", cache).work_by_doi(
        "10.5555/aletheia.test.0001"
    )
    assert len(asked) == 2
