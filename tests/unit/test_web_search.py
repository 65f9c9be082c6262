"""Tier 4 web search: the Tavily and Brave parsers on their documented shapes, and both clients
against the loopback simulator (keys, 429s, faults); no key, no client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from aletheia.config import Settings
from aletheia.config.settings import SourceLimits
from aletheia.core.records import SourceName
from aletheia.sources.base import PermanentSourceError, RateLimitedError, SourceParseError
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, SimWork, Universe
from aletheia.sources.transport.polite import PoliteTransport
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from aletheia.sources.web_search import (
    BraveSearchClient,
    TavilyClient,
    parse_brave,
    parse_tavily,
    web_search_from_settings,
)

FAST = SourceLimits(rate=1000, burst=1000, concurrency=4)

WORKS: list[dict[str, Any]] = [
    {
        "title": "Gradient Routing for Sparse Widgets",
        "authors": [{"given": "Ana", "family": "Ribeiro"}],
        "year": 2021,
        "venue": "Journal of Widgets",
        "doi": "10.5555/widgets.2021.7",
    },
    {
        "title": "Tabular Transformers at Scale",
        "authors": [{"given": "Li", "family": "Wei"}],
        "year": 2023,
        "type": "posted-content",
        "arxiv_id": "2301.00001",
    },
]

# Documented shapes (Tavily's and Brave's API references), trimmed.
TAVILY_ANSWER = {
    "query": "gradient routing sparse widgets",
    "answer": None,
    "images": [],
    "results": [
        {
            "title": "Gradient Routing for Sparse Widgets",
            "url": "https://doi.org/10.5555/widgets.2021.7",
            "content": "We route gradients...",
            "score": 0.93,
            "raw_content": None,
        },
        {
            "title": "Tabular transformers",
            "url": "https://arxiv.org/abs/2301.00001v2",
            "content": "",
            "score": 0.5,
        },
        {
            "title": "A PubMed record",
            "url": "https://pubmed.ncbi.nlm.nih.gov/31000001/",
            "content": "",
            "score": 0.4,
        },
        {"title": "no URL", "content": "dropped"},
        {"title": "a file URL", "url": "file:///etc/passwd"},
    ],
    "response_time": 1.2,
}
BRAVE_ANSWER = {
    "type": "search",
    "query": {"original": "tabular transformers"},
    "web": {
        "type": "search",
        "results": [
            {
                "title": "Tabular Transformers at Scale",
                "url": "https://arxiv.org/abs/2301.00001",
                "description": "…",
            },
            {"title": "Blog", "url": "https://blog.example/post", "description": "a post"},
        ],
    },
}


def test_parse_tavily_reads_identifiers_from_result_urls() -> None:
    records = parse_tavily(TAVILY_ANSWER)
    assert [r.source for r in records] == [SourceName.TAVILY] * 3
    assert records[0].doi == "10.5555/widgets.2021.7" and records[0].score == pytest.approx(0.93)
    assert records[1].arxiv_id == "2301.00001" and records[1].doi is None
    assert records[2].pmid == "31000001"
    assert records[0].urls == {"result": "https://doi.org/10.5555/widgets.2021.7"}


def test_parse_brave_and_shapes_that_are_not_the_documented_ones() -> None:
    records = parse_brave(BRAVE_ANSWER)
    assert [r.arxiv_id for r in records] == ["2301.00001", None]
    assert records[1].title == "Blog" and records[1].abstract == "a post"
    assert parse_brave({"type": "search"}) == []  # no web results at all
    assert parse_tavily({"results": []}) == []
    for bad in ([], {"results": "x"}, {"web": {"results": {}}}):
        with pytest.raises(SourceParseError):
            parse_tavily(bad) if "web" not in bad else parse_brave(bad)


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    works = [SimWork.model_validate(w) for w in WORKS]
    with SimulatorServer(Universe(works), SimulatorConfig.unlimited(seed=3)) as server:
        yield server


@pytest.fixture
async def http(sim: SimulatorServer) -> AsyncIterator[httpx.AsyncClient]:
    sim.configure(SimulatorConfig.unlimited(seed=3))
    sim.reset()
    async with httpx.AsyncClient() as client:
        yield client


def transport(
    sim: SimulatorServer, http: httpx.AsyncClient, source: SourceName, **options: Any
) -> PoliteTransport:
    headers = options.pop("headers", None)
    return PoliteTransport(
        source,
        http,
        base_url=sim.url_for(source.value),
        limits=options.pop("limits", FAST),
        limiter=LocalRateLimiter(),
        headers=headers,
        attempts=options.pop("attempts", 4),
        timeout=5.0,
        backoff_initial=0.01,
        backoff_max=0.05,
        **options,
    )


def tavily(sim: SimulatorServer, http: httpx.AsyncClient, **options: Any) -> TavilyClient:
    headers = options.pop("headers", {"Authorization": "Bearer tvly-test"})
    return TavilyClient(transport(sim, http, SourceName.TAVILY, headers=headers, **options))


def brave(sim: SimulatorServer, http: httpx.AsyncClient, **options: Any) -> BraveSearchClient:
    headers = options.pop("headers", {"X-Subscription-Token": "brave-test"})
    return BraveSearchClient(transport(sim, http, SourceName.BRAVE_SEARCH, headers=headers, **options))


async def test_tavily_finds_the_candidates_with_their_identifiers(
    sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    hits = await tavily(sim, http).search("Gradient Routing for Sparse Widgets Ribeiro 2021")
    assert hits[0].record.doi == "10.5555/widgets.2021.7" and hits[0].record.source is SourceName.TAVILY
    assert hits[-1].record.doi is None  # the unrelated page is there too, and points at nothing
    assert sim.source_stats("tavily")["requests"] == 1


async def test_brave_finds_an_arxiv_candidate(sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    hits = await brave(sim, http).search("Tabular Transformers at Scale")
    assert hits[0].record.arxiv_id == "2301.00001" and hits[0].record.source is SourceName.BRAVE_SEARCH


async def test_a_missing_key_is_a_permanent_failure(sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    with pytest.raises(PermanentSourceError, match="401"):
        await tavily(sim, http, headers={}).search("anything")
    with pytest.raises(PermanentSourceError, match="401"):
        await brave(sim, http, headers={}).search("anything")


async def test_a_429_is_honoured_then_the_search_succeeds(
    sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    sim.configure(SimulatorConfig.unlimited().with_source("tavily", rate=2, burst=1, retry_after=1))
    client = tavily(sim, http)
    await client.search("Gradient Routing")
    hits = await client.search("Tabular Transformers")  # 429 first, then answered
    assert hits and sim.source_stats("tavily")["rate_limited"] >= 1


async def test_a_long_retry_after_is_raised_for_the_queue(
    sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    sim.configure(
        SimulatorConfig.unlimited().with_source("brave_search", rate=0.01, burst=1, retry_after=500)
    )
    client = brave(sim, http)
    await client.search("Gradient Routing")
    with pytest.raises(RateLimitedError) as raised:
        await client.search("Tabular Transformers")
    assert raised.value.retry_after == pytest.approx(500.0)


async def test_server_errors_are_retried(sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    sim.configure(SimulatorConfig.unlimited(seed=4).with_source("brave_search", faults={"error_503": 0.5}))
    client = brave(sim, http, attempts=12)
    for query in ("Gradient Routing", "Tabular Transformers", "Sparse Widgets"):
        await client.search(query)
    assert sim.source_stats("brave_search")["faults_injected"] >= 1


def test_no_key_no_client_and_the_key_goes_in_a_header(sim: SimulatorServer) -> None:
    async def build() -> None:
        async with httpx.AsyncClient() as http:
            limiter = LocalRateLimiter()
            assert web_search_from_settings(http, Settings(), limiter) is None
            client = web_search_from_settings(
                http, Settings(tavily_api_key="tvly-secret", tavily_url=sim.url_for("tavily")), limiter
            )
            assert isinstance(client, TavilyClient)
            assert client.transport.base_url == sim.url_for("tavily")
            hits = await client.search("Gradient Routing for Sparse Widgets")
            assert hits[0].record.doi == "10.5555/widgets.2021.7"
            client2 = web_search_from_settings(http, Settings(brave_search_api_key="b-secret"), limiter)
            assert isinstance(client2, BraveSearchClient)
            assert client2.transport.base_url == "https://api.search.brave.com"

    import asyncio

    asyncio.run(build())


def test_the_keys_are_secrets_for_redaction() -> None:
    from aletheia.sources.transport.redaction import redact_text, secret_values

    secrets = secret_values(
        {}, {"X-Subscription-Token": "brave-secret", "Authorization": "Bearer tvly-secret"}
    )
    assert "brave-secret" in secrets and "tvly-secret" in secrets
    assert "secret" not in redact_text("token brave-secret and tvly-secret", secrets)
