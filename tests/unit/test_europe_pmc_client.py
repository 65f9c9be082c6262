"""EuropePmcClient against the loopback simulator: locations, full texts, cache, faults and 429s."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from aletheia.config import Settings
from aletheia.config.settings import SourceLimits
from aletheia.sources.base import RateLimitedError, SourceParseError, SourceUnavailableError
from aletheia.sources.cache import MemoryRawCache, cache_key
from aletheia.sources.europe_pmc import EuropePmcClient, europe_pmc_transport
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, SimWork, Universe
from aletheia.sources.transport.polite import PoliteTransport
from aletheia.sources.transport.ratelimit import LocalRateLimiter

FAST = SourceLimits(rate=1000, burst=1000, concurrency=8)

OPEN: dict[str, Any] = {
    "title": "Sleep spindle density in infants after cardiac surgery",
    "authors": [{"given": "Ana", "family": "Ribeiro"}],
    "year": 2019,
    "venue": "Journal of Pediatric Neurology",
    "doi": "10.5555/sleep.2019.14",
    "pmid": "31000001",
    "pmcid": "PMC7000001",
    "abstract": "Spindle density recovered within six weeks in most infants.",
    "pmc_body": [
        {
            "title": "Methods",
            "paragraphs": [
                "Fifty-two infants were recorded overnight with polysomnography before surgery and again"
                " two, six and twelve weeks after it, in the same sleep laboratory."
            ],
        },
        {
            "title": "Results",
            "paragraphs": [
                "Spindle density at six weeks predicted neurological recovery at one year better than"
                " any clinical score recorded at discharge."
            ],
        },
    ],
}
CLOSED: dict[str, Any] = {
    "title": "Cortisol rhythms in night-shift nurses",
    "authors": [{"given": "Thi", "family": "Nguyen"}],
    "year": 2020,
    "venue": "Occupational Health",
    "doi": "10.5555/closed.2020.3",
    "pmid": "32000042",
    "pmcid": "PMC7100042",
}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    works = [SimWork.model_validate(w) for w in (OPEN, CLOSED)]
    with SimulatorServer(Universe(works), SimulatorConfig.unlimited(seed=5)) as server:
        yield server


@pytest.fixture
async def http(sim: SimulatorServer) -> AsyncIterator[httpx.AsyncClient]:
    sim.configure(SimulatorConfig.unlimited(seed=5))
    sim.reset()
    async with httpx.AsyncClient() as client:
        yield client


def make_client(
    sim: SimulatorServer, http: httpx.AsyncClient, cache: MemoryRawCache | None = None, **options: Any
) -> EuropePmcClient:
    transport = PoliteTransport(
        "europe_pmc",
        http,
        base_url=sim.url_for("europe_pmc"),
        limits=FAST,
        limiter=LocalRateLimiter(),
        attempts=options.pop("attempts", 4),
        timeout=2.0,
        backoff_initial=0.01,
        backoff_max=0.05,
        **options,
    )
    return EuropePmcClient(transport, cache=cache)


def requests(sim: SimulatorServer) -> int:
    return int(sim.source_stats("europe_pmc")["requests"])


async def test_locate_by_pmid_and_doi_then_read_the_full_text(
    sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    client = make_client(sim, http)
    by_pmid = await client.locate(pmid="31000001")
    by_doi = await client.locate(doi="https://doi.org/10.5555/SLEEP.2019.14")
    assert by_pmid is not None and by_doi is not None
    assert by_pmid.record.pmcid == by_doi.record.pmcid == "PMC7000001"
    assert by_pmid.full_text_available
    paper = await client.paper_text("PMC7000001")
    assert paper is not None and paper.origin == "pmc_jats"
    sections = {block.section for block in paper.blocks}
    assert {"Abstract", "1 Methods", "2 Results"} <= sections
    assert "reference list" not in paper.text


async def test_closed_and_unknown_works(sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    client = make_client(sim, http)
    closed = await client.locate(pmid="32000042")
    assert closed is not None and closed.record.pmcid == "PMC7100042" and not closed.full_text_available
    assert await client.full_text("PMC7100042") is None  # 404: not in the open-access subset
    assert await client.locate(pmid="99999999") is None
    with pytest.raises(ValueError):
        await client.locate()
    with pytest.raises(ValueError):
        await client.full_text("31000001")


async def test_answers_are_cached_negative_ones_too(sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=60)
    client = make_client(sim, http, cache)
    await client.locate(pmid="31000001")
    await client.full_text("PMC7000001")
    assert await client.full_text("PMC7100042") is None
    sent = requests(sim)
    again = make_client(sim, http, cache)  # a new process, the same cache
    assert (await again.locate(pmid="31000001")) is not None
    assert (await again.paper_text("PMC7000001")) is not None
    assert await again.full_text("PMC7100042") is None
    assert requests(sim) == sent
    assert again.transport.stats.cache_hits == 3


async def test_server_errors_are_retried(sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    sim.configure(SimulatorConfig.unlimited(seed=5).with_source("europe_pmc", faults={"error_503": 0.5}))
    client = make_client(sim, http, attempts=10)
    texts = [await client.paper_text("PMC7000001") for _ in range(4)]
    assert all(text is not None for text in texts)
    assert sim.source_stats("europe_pmc")["faults_injected"] >= 1


async def test_a_truncated_full_text_is_a_parse_error_and_not_cached(
    sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    sim.configure(
        SimulatorConfig.unlimited().with_source("europe_pmc", faults_by_kind={"fulltext": {"malformed": 1.0}})
    )
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=60)
    client = make_client(sim, http, cache)
    with pytest.raises(SourceParseError):
        await client.full_text("PMC7000001")
    assert await cache.get("europe_pmc", cache_key("pmcid", "PMC7000001")) is None


async def test_a_429_is_honoured_then_the_call_succeeds(
    sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    sim.configure(SimulatorConfig.unlimited().with_source("europe_pmc", rate=2, burst=1, retry_after=1))
    client = make_client(sim, http)
    assert await client.locate(pmid="31000001") is not None
    assert await client.paper_text("PMC7000001") is not None  # 429 first, then answered
    assert sim.source_stats("europe_pmc")["rate_limited"] >= 1


async def test_a_long_retry_after_goes_back_to_the_queue(
    sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    sim.configure(SimulatorConfig.unlimited().with_source("europe_pmc", rate=0.01, burst=1, retry_after=500))
    client = make_client(sim, http)
    assert await client.locate(pmid="31000001") is not None
    with pytest.raises(RateLimitedError) as raised:
        await client.full_text("PMC7000001")
    assert raised.value.retry_after == pytest.approx(500.0)


async def test_transport_from_settings(sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    settings = Settings(europe_pmc_url=sim.url_for("europe_pmc"), europe_pmc_limits=FAST)
    transport = europe_pmc_transport(http, settings, LocalRateLimiter())
    assert transport.base_url == sim.url_for("europe_pmc") and transport.enabled
    assert Settings().europe_pmc_url == "https://www.ebi.ac.uk"
    off = europe_pmc_transport(
        http, settings.model_copy(update={"disabled_sources": "europe_pmc"}), LocalRateLimiter()
    )
    with pytest.raises(SourceUnavailableError):
        await EuropePmcClient(off).full_text("PMC7000001")
