"""OpenAlexClient through PoliteTransport over httpx.MockTransport: URLs, keys, batches, coalescing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from aletheia.config.settings import Settings, SourceLimits
from aletheia.core.records import SourceName
from aletheia.sources.base import PermanentSourceError
from aletheia.sources.cache import MemoryRawCache
from aletheia.sources.openalex import OpenAlexClient, openalex_transport
from aletheia.sources.registry import SOURCES, ClientParts
from aletheia.sources.transport.ratelimit import LocalRateLimiter

BASE = "https://api.openalex.test"
API_KEY = "test-key-1234"
MAILTO = "citations@example.org"


def work(doi: str, number: int = 1) -> dict[str, Any]:
    # OpenAlex writes DOIs as doi.org URLs, in its own case: matching must normalise.
    return {
        "id": f"https://openalex.org/W{number}",
        "doi": f"https://doi.org/{doi.upper()}",
        "title": f"Work {number}",
        "publication_year": 2020,
        "type": "article",
        "authorships": [],
    }


class OpenAlexStub:
    """Answers like OpenAlex: singletons by DOI / PMID / id, and `filter=doi:a|b` lists. DOIs
    containing "missing" do not exist."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.fail_with: int | None = None

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.fail_with is not None:
            return httpx.Response(self.fail_with, json={"error": "scripted failure"})
        path = request.url.path
        if path.startswith("/works/doi:"):
            doi = path.removeprefix("/works/doi:")
            return httpx.Response(404) if "missing" in doi else httpx.Response(200, json=work(doi))
        if path.startswith(("/works/pmid:", "/works/W")):
            return httpx.Response(200, json=work("10.5555/by.other.id", 7))
        if path == "/works":
            filter_value = request.url.params.get("filter", "")
            if filter_value.startswith("doi:"):
                dois = filter_value.removeprefix("doi:").split("|")
                results = [work(doi, n) for n, doi in enumerate(dois) if "missing" not in doi]
                return httpx.Response(200, json={"meta": {"count": len(results)}, "results": results})
            return httpx.Response(200, json={"meta": {"count": 1}, "results": [work("10.5555/hit", 3)]})
        return httpx.Response(404)

    def filters(self) -> list[list[str]]:
        return [
            r.url.params["filter"].removeprefix("doi:").split("|")
            for r in self.requests
            if r.url.path == "/works" and r.url.params.get("filter", "").startswith("doi:")
        ]


@pytest.fixture
async def make_client() -> AsyncIterator[Callable[..., tuple[OpenAlexClient, OpenAlexStub]]]:
    clients: list[httpx.AsyncClient] = []

    def make(**kwargs: Any) -> tuple[OpenAlexClient, OpenAlexStub]:
        stub = OpenAlexStub()
        http = httpx.AsyncClient(transport=httpx.MockTransport(stub))
        clients.append(http)
        settings = Settings(
            openalex_url=BASE,
            openalex_limits=SourceLimits(rate=1000, burst=1000, concurrency=20),
            http_attempts=1,
        )
        transport = openalex_transport(http, settings, LocalRateLimiter())
        kwargs.setdefault("api_key", API_KEY)
        kwargs.setdefault("mailto", MAILTO)
        return OpenAlexClient(transport, **kwargs), stub

    yield make
    for http in clients:
        await http.aclose()


async def test_a_single_doi_uses_the_free_singleton_endpoint_with_key_and_mailto(make_client: Any) -> None:
    client, stub = make_client(coalesce_window=None)
    found = await client.work_by_doi("https://doi.org/10.5555/Single.1")
    assert found is not None
    assert found.record.source is SourceName.OPENALEX
    assert found.record.doi == "10.5555/single.1"
    [request] = stub.requests
    assert request.url.path == "/works/doi:10.5555/single.1"
    assert request.url.params["api_key"] == API_KEY
    assert request.url.params["mailto"] == MAILTO


async def test_pmid_lookup(make_client: Any) -> None:
    client, stub = make_client(coalesce_window=None)
    by_pmid = await client.work_by_pmid("PMID: 26000001")
    assert by_pmid is not None
    assert [r.url.path for r in stub.requests] == ["/works/pmid:26000001"]
    with pytest.raises(ValueError, match="not a PMID"):
        await client.work_by_pmid("A12345")


async def test_120_dois_take_three_requests_and_match_back(make_client: Any) -> None:
    client, stub = make_client()
    dois = [f"10.5555/batch.{n}" for n in range(118)] + ["10.5555/missing.1", "doi:10.5555/BATCH.0"]

    found = await client.works_by_dois(dois)

    assert sorted(len(values) for values in stub.filters()) == [19, 50, 50]  # 119 distinct DOIs
    assert len(stub.requests) == 3
    assert all(r.url.params["per-page"] == "50" and r.url.params["api_key"] == API_KEY for r in stub.requests)
    assert set(found) == set(dois)
    assert found["10.5555/missing.1"] is None
    batch_7 = found["10.5555/batch.7"]
    assert batch_7 is not None and batch_7.record.doi == "10.5555/batch.7"
    same, original = found["doi:10.5555/BATCH.0"], found["10.5555/batch.0"]
    assert same is not None and original is not None
    assert same.record == original.record


async def test_dois_that_cannot_go_into_a_filter_are_looked_up_alone(make_client: Any) -> None:
    client, stub = make_client()
    found = await client.works_by_dois(["10.5555/a|b", "10.5555/c,d", "10.5555/plain.1", "10.5555/plain.2"])
    assert stub.filters() == [["10.5555/plain.1", "10.5555/plain.2"]]
    singles = sorted(r.url.path for r in stub.requests if r.url.path.startswith("/works/doi:"))
    assert singles == ["/works/doi:10.5555/a|b", "/works/doi:10.5555/c,d"]
    assert all(record is not None for record in found.values())


async def test_a_lone_doi_in_a_batch_is_a_singleton(make_client: Any) -> None:
    client, stub = make_client()
    await client.works_by_dois(["10.5555/alone"])
    assert [r.url.path for r in stub.requests] == ["/works/doi:10.5555/alone"]


async def test_sixty_concurrent_lookups_are_coalesced_into_two_requests(make_client: Any) -> None:
    client, stub = make_client(coalesce_window=0.01)
    dois = [f"10.5555/concurrent.{n}" for n in range(60)]

    records = await asyncio.gather(*(client.work_by_doi(doi) for doi in dois))

    assert len(stub.requests) == 2
    assert sorted(len(values) for values in stub.filters()) == [10, 50]
    assert [r.record.doi if r else None for r in records] == dois


async def test_not_found_is_cached_negatively_and_found_positively(make_client: Any) -> None:
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=600)
    client, stub = make_client(cache=cache)

    first = await client.works_by_dois(["10.5555/missing.2", "10.5555/kept.1"])
    assert first["10.5555/missing.2"] is None
    assert len(stub.requests) == 1

    assert await client.work_by_doi("10.5555/MISSING.2") is None
    again = await client.work_by_doi("10.5555/kept.1")
    assert again is not None and again.from_cache
    assert again.record.doi == "10.5555/kept.1"
    assert len(stub.requests) == 1
    assert client.transport.stats.cache_hits == 2


async def test_a_failed_batch_fails_every_waiter(make_client: Any) -> None:
    client, stub = make_client(coalesce_window=0.01)
    stub.fail_with = 403
    results = await asyncio.gather(
        *(client.work_by_doi(f"10.5555/denied.{n}") for n in range(3)), return_exceptions=True
    )
    assert len(stub.requests) == 1
    assert all(isinstance(result, PermanentSourceError) for result in results)


async def test_search_parameters(make_client: Any) -> None:
    client, stub = make_client()
    hits = await client.search(
        "Tidal rhythms, in snails | periwinkles", author="Halvorsen", year=(2018, 2020), per_page=5
    )
    assert [hit.record.source_id for hit in hits] == ["W3"]
    [request] = stub.requests
    params = request.url.params
    assert params["filter"] == (
        "title.search:Tidal rhythms in snails periwinkles,"
        "raw_author_name.search:Halvorsen,publication_year:2018-2020"
    )
    assert params["per-page"] == "5"
    assert "search" not in params

    await client.search(query="tidal rhythms snails", year=2019)
    params = stub.requests[-1].url.params
    assert params["search"] == "tidal rhythms snails"
    assert params["filter"] == "publication_year:2019"

    with pytest.raises(ValueError, match="needs"):
        await client.search(year=2019)


async def test_the_key_never_shows_in_an_error(make_client: Any) -> None:
    client, stub = make_client(coalesce_window=None)
    stub.fail_with = 400
    with pytest.raises(PermanentSourceError) as caught:
        await client.work_by_doi("10.5555/x")
    assert API_KEY not in str(caught.value)


async def test_the_client_from_its_registry_record_sends_the_configured_key_and_contact() -> None:
    stub = OpenAlexStub()
    settings = Settings(
        openalex_url=BASE,
        openalex_api_key=API_KEY,
        mailto=MAILTO,
        coalesce_window_ms=5,
        openalex_limits=SourceLimits(rate=1000, burst=1000, concurrency=20),
    )
    async with httpx.AsyncClient(transport=httpx.MockTransport(stub)) as http:
        client = SOURCES["openalex"].client(ClientParts(settings, http, LocalRateLimiter(), None, None))
        assert isinstance(client, OpenAlexClient)
        await asyncio.gather(client.work_by_doi("10.5555/one"), client.work_by_doi("10.5555/two"))
    [request] = stub.requests  # coalesced within the configured 5 ms
    assert request.url.params["api_key"] == API_KEY
    assert request.url.params["mailto"] == MAILTO
    assert request.headers["user-agent"].endswith(f"mailto:{MAILTO})")
