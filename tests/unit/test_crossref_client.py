"""CrossrefClient through PoliteTransport over httpx.MockTransport: URLs, politeness, caching."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from aletheia.config.settings import Settings, SourceLimits
from aletheia.core.records import RetractionKind, SourceName
from aletheia.sources.base import (
    PermanentSourceError,
    RequestKind,
    SourceParseError,
    SourceStats,
    SourceUnavailableError,
)
from aletheia.sources.cache import MemoryRawCache
from aletheia.sources.crossref import CrossrefClient, crossref_transport
from aletheia.sources.registry import SOURCES, ClientParts
from aletheia.sources.transport.polite import PoliteTransport
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from aletheia.sources.transport.user_agent import user_agent

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "crossref"
BASE = "https://api.crossref.test"
MAILTO = "citations@example.org"


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


class Recorder:
    """Answers every request with `respond(request)` and keeps the requests."""

    def __init__(self, respond: Callable[[httpx.Request], httpx.Response]) -> None:
        self.respond = respond
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.respond(request)


@pytest.fixture
async def http_factory() -> AsyncIterator[Callable[[Recorder], httpx.AsyncClient]]:
    clients: list[httpx.AsyncClient] = []

    def make(recorder: Recorder) -> httpx.AsyncClient:
        client = httpx.AsyncClient(transport=httpx.MockTransport(recorder))
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()


def settings(**overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "crossref_url": BASE,
        "mailto": MAILTO,
        "crossref_limits": SourceLimits(rate=1000, burst=1000, concurrency=10, search_rate=1000),
        "http_attempts": 1,
    }
    values.update(overrides)
    return Settings(**values)


def client_for(
    recorder: Recorder, make: Callable[[Recorder], httpx.AsyncClient], **kwargs: Any
) -> CrossrefClient:
    transport = crossref_transport(make(recorder), settings(), LocalRateLimiter())
    return CrossrefClient(transport, mailto=MAILTO, **kwargs)


def work_response(_: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json=fixture("work_with_updates.json"))


async def test_work_by_doi_url_mailto_and_user_agent(http_factory: Any) -> None:
    recorder = Recorder(work_response)
    client = client_for(recorder, http_factory)

    found = await client.work_by_doi("https://doi.org/10.5555/Aletheia.Test.0001")

    assert found is not None
    assert found.record.title == "Tidal Rhythms in Littorina Snails"
    assert found.raw == fixture("work_with_updates.json")
    assert found.url == f"{BASE}/works/10.5555/aletheia.test.0001"
    assert not found.from_cache
    [request] = recorder.requests
    assert request.url.path == "/works/10.5555/aletheia.test.0001"
    assert request.url.params["mailto"] == MAILTO
    agent = request.headers["user-agent"]
    assert agent.startswith("Aletheia/") and agent.endswith(
        f"(https://github.com/aletheia-citations; mailto:{MAILTO})"
    )


async def test_characters_that_would_break_the_path_are_encoded(http_factory: Any) -> None:
    recorder = Recorder(lambda _: httpx.Response(404, text="Resource not found."))
    client = client_for(recorder, http_factory)
    assert await client.work_by_doi("10.5555/a#b?c%d") is None
    [request] = recorder.requests
    assert request.url.raw_path.decode().startswith("/works/10.5555/a%23b%3Fc%25d")
    assert request.url.params["mailto"] == MAILTO  # the `?` in the DOI did not start the query


async def test_not_found_is_none_and_cached_negatively(http_factory: Any) -> None:
    recorder = Recorder(lambda _: httpx.Response(404, text="Resource not found."))
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=600)
    client = client_for(recorder, http_factory, cache=cache)

    assert await client.work_by_doi("10.5555/no.such.work") is None
    assert await client.work_by_doi("doi:10.5555/NO.SUCH.WORK") is None

    assert len(recorder.requests) == 1
    assert client.transport.stats.cache_hits == 1


async def test_a_cached_work_is_parsed_again_from_its_raw_payload(http_factory: Any) -> None:
    recorder = Recorder(work_response)
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=600)
    client = client_for(recorder, http_factory, cache=cache)

    first = await client.work_by_doi("10.5555/aletheia.test.0001")
    second = await client.work_by_doi("10.5555/ALETHEIA.TEST.0001")

    assert len(recorder.requests) == 1
    assert first is not None and second is not None
    assert second.from_cache
    assert second.record == first.record
    assert second.url == first.url


async def test_search_parameters(http_factory: Any) -> None:
    recorder = Recorder(lambda _: httpx.Response(200, json=fixture("search_results.json")))
    client = client_for(recorder, http_factory)

    hits = await client.search(
        "Halvorsen 2019 tidal rhythms",
        title="Tidal Rhythms in Littorina",
        author="Halvorsen",
        rows=4,
        filters={"from-pub-date": 2019, "until-pub-date": 2021},
        select=["DOI", "title"],
    )

    assert [hit.record.doi for hit in hits] == [
        "10.5555/aletheia.conf.42",
        "10.5555/aletheia.fig.7",
        "10.5555/aletheia.retracted.3",
        "10.5555/aletheia.book.9",
    ]
    assert hits[0].raw == fixture("search_results.json")["message"]["items"][0]
    [request] = recorder.requests
    params = request.url.params
    assert request.url.path == "/works"
    # `query.title` was removed from the API (400): the title joins the bibliographic query.
    assert params["query.bibliographic"] == "Halvorsen 2019 tidal rhythms Tidal Rhythms in Littorina"
    assert "query.title" not in params
    assert params["query.author"] == "Halvorsen"
    assert params["filter"] == "from-pub-date:2019,until-pub-date:2021"
    assert params["rows"] == "4"
    assert params["select"] == "DOI,title"
    assert params["mailto"] == MAILTO


async def test_a_search_needs_something_to_search_for(http_factory: Any) -> None:
    client = client_for(Recorder(work_response), http_factory)
    with pytest.raises(ValueError, match="needs"):
        await client.search(" ")


async def test_notices_for_a_doi(http_factory: Any) -> None:
    recorder = Recorder(lambda _: httpx.Response(200, json=fixture("notices_search.json")))
    client = client_for(recorder, http_factory)

    notices = await client.notices_for("10.5555/ALETHEIA.TEST.0003")

    assert [(n.kind, n.notice_doi, n.date) for n in notices] == [
        (RetractionKind.EXPRESSION_OF_CONCERN, "10.5555/aletheia.test.0003-eoc", "2023-01-05"),
        (RetractionKind.RETRACTED, "10.5555/aletheia.test.0003-retr", "2024-03-09"),
    ]
    assert all(n.source is SourceName.CROSSREF for n in notices)
    [request] = recorder.requests
    assert request.url.params["filter"] == "updates:10.5555/aletheia.test.0003"


async def test_a_refused_request_raises_the_error_tree(http_factory: Any) -> None:
    failure = {"status": "failed", "message-type": "validation-failure", "message": []}
    client = client_for(Recorder(lambda _: httpx.Response(400, json=failure)), http_factory)
    with pytest.raises(PermanentSourceError):
        await client.search("anything")


async def test_a_disabled_source_is_not_called(http_factory: Any) -> None:
    recorder = Recorder(work_response)
    transport = crossref_transport(
        http_factory(recorder), settings(disabled_sources="crossref"), LocalRateLimiter()
    )
    with pytest.raises(SourceUnavailableError):
        await CrossrefClient(transport).work_by_doi("10.5555/aletheia.test.0001")
    assert recorder.requests == []


async def test_a_malformed_doi_is_the_callers_error(http_factory: Any) -> None:
    client = client_for(Recorder(work_response), http_factory)
    with pytest.raises(ValueError, match="not a DOI"):
        await client.work_by_doi("not a doi")


class FakeTransport:
    """A `Transport` that answers from a table and notes the request kinds."""

    source = SourceName.CROSSREF
    base_url = BASE

    def __init__(self, payload: Any) -> None:
        self.payload = payload
        self.stats = SourceStats()
        self.kinds: list[RequestKind] = []

    async def get_json(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        kind: RequestKind = "single",
    ) -> Any | None:
        self.kinds.append(kind)
        return self.payload

    async def get_text(self, path: str, **_: Any) -> str | None:
        raise AssertionError("Crossref is JSON only")

    async def get_bytes(self, path: str, **_: Any) -> bytes | None:
        raise AssertionError("Crossref is JSON only")

    async def post_json(self, path: str, **_: Any) -> Any | None:
        raise AssertionError("Crossref is read with GET")


async def test_searches_draw_from_the_search_bucket() -> None:
    transport = FakeTransport(fixture("search_results.json"))
    client = CrossrefClient(transport)
    await client.search("x")
    await client.notices_for("10.5555/x")
    transport.payload = fixture("work_with_updates.json")
    await client.work_by_doi("10.5555/aletheia.test.0001")
    assert transport.kinds == ["search", "search", "single"]


def test_the_user_agent_without_a_contact() -> None:
    assert user_agent(None).endswith("(https://github.com/aletheia-citations)")


def test_the_transport_factory_reads_settings(http_factory: Any) -> None:
    transport = crossref_transport(http_factory(Recorder(work_response)), settings(), LocalRateLimiter())
    assert isinstance(transport, PoliteTransport)
    assert transport.base_url == BASE
    assert transport.source is SourceName.CROSSREF
    assert transport.enabled


async def test_the_client_from_its_registry_record_sends_the_configured_contact(http_factory: Any) -> None:
    recorder = Recorder(work_response)
    parts = ClientParts(settings(), http_factory(recorder), LocalRateLimiter(), None, None)
    client = SOURCES["crossref"].client(parts)
    assert isinstance(client, CrossrefClient)
    await client.work_by_doi("10.5555/aletheia.test.0001")
    [request] = recorder.requests
    assert request.url.params["mailto"] == MAILTO
    assert MAILTO in request.headers["user-agent"]


async def test_an_unreadable_body_is_an_error_and_is_not_cached(http_factory: Any) -> None:
    funder = {"status": "ok", "message-type": "funder", "message": {"id": "100000001"}}
    recorder = Recorder(lambda _: httpx.Response(200, json=funder))
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=600)
    client = client_for(recorder, http_factory, cache=cache)
    for _ in range(2):
        with pytest.raises(SourceParseError):
            await client.work_by_doi("10.5555/aletheia.test.0001")
    assert len(recorder.requests) == 2
    assert len(cache) == 0
