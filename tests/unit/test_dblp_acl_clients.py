"""DblpClient and AclAnthologyClient against the simulator: search, record by key, anthology
BibTeX, not found, cache, faults, 429 with Retry-After, and a source turned off."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from aletheia.config.settings import Settings, SourceLimits
from aletheia.core.records import SourceName
from aletheia.sources.acl_anthology import AclAnthologyClient, acl_anthology_transport
from aletheia.sources.base import SourceUnavailableError, TransientSourceError
from aletheia.sources.cache import MemoryRawCache
from aletheia.sources.dblp import DblpClient, dblp_query, dblp_transport, is_dblp_key
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, env_for, universe_from_records
from aletheia.sources.transport.ratelimit import LocalRateLimiter

WORKS: list[dict[str, Any]] = [
    {
        "title": "Attention Is All You Need",
        "authors": [{"given": "Ashish", "family": "Vaswani"}, {"given": "Noam", "family": "Shazeer"}],
        "year": 2017,
        "venue": "Advances in Neural Information Processing Systems",
        "venue_aliases": ["NIPS"],
        "type": "proceedings-article",
        "dblp_key": "conf/nips/VaswaniSPUJGKP17",
        "sources": ["dblp"],
        "meta": {"dblp_homonym": {"Noam Shazeer": "0001"}},
    },
    {
        "title": "Gaussian Error Linear Units (GELUs)",
        "authors": [{"given": "Dan", "family": "Hendrycks"}, {"given": "Kevin", "family": "Gimpel"}],
        "year": 2016,
        "type": "posted-content",
        "arxiv_id": "1606.08415",
        "dblp_key": "journals/corr/HendrycksG16",
    },
    {
        "title": "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
        "authors": [{"given": "Jacob", "family": "Devlin"}, {"given": "Ming-Wei", "family": "Chang"}],
        "year": 2019,
        "venue": "Proceedings of the 2019 Conference of the North American Chapter of the ACL",
        "type": "proceedings-article",
        "doi": "10.18653/v1/N19-1423",
        "acl_anthology_id": "N19-1423",
    },
]


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(universe_from_records(WORKS), SimulatorConfig.unlimited()) as server:
        yield server


def settings(sim: SimulatorServer, **overrides: Any) -> Settings:
    urls = {k.removeprefix("ALETHEIA_").lower(): v for k, v in env_for(sim.base_url).items()}
    fast = SourceLimits(rate=1000, burst=1000, concurrency=4)
    values: dict[str, Any] = {
        **urls,
        "dblp_limits": fast,
        "acl_anthology_limits": fast,
        "http_attempts": 3,
        **overrides,
    }
    return Settings(**values)


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


def dblp(sim: SimulatorServer, http: httpx.AsyncClient, **kwargs: Any) -> DblpClient:
    transport = dblp_transport(http, settings(sim, **kwargs), LocalRateLimiter())
    transport._sleep = _no_sleep  # retries and Retry-After waits without wall-clock time
    return DblpClient(transport, cache=MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=3600))


def acl(sim: SimulatorServer, http: httpx.AsyncClient, **kwargs: Any) -> AclAnthologyClient:
    transport = acl_anthology_transport(http, settings(sim, **kwargs), LocalRateLimiter())
    transport._sleep = _no_sleep
    return AclAnthologyClient(transport, cache=MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=3600))


async def _no_sleep(_: float) -> None:
    return None


async def test_dblp_search_finds_the_paper_with_its_key_and_venue(
    sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    sim.reset()
    found = await dblp(sim, http).search("Attention is all you need")
    assert [r.record.dblp_key for r in found] == ["conf/nips/VaswaniSPUJGKP17"]
    record = found[0].record
    assert record.source is SourceName.DBLP
    assert record.title == "Attention Is All You Need"  # DBLP's trailing period dropped
    assert [a.family for a in record.authors] == ["Vaswani", "Shazeer"]  # "Noam Shazeer 0001"
    assert record.venue == "NIPS"
    assert record.work_type == "proceedings-article"
    assert sim.source_stats("dblp")["by_kind"] == {"search": 1}


async def test_dblp_corr_copy_is_a_preprint_with_its_arxiv_id(
    sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    found = await dblp(sim, http).search("Gaussian Error Linear Units")
    record = found[0].record
    assert record.is_preprint and record.arxiv_id == "1606.08415" and record.doi is None
    assert record.venue == "CoRR"


async def test_dblp_search_without_a_hit_is_empty_and_cached(
    sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    client = dblp(sim, http)
    assert await client.search("A title no index has ever held") == []
    requests = client.transport.stats.requests
    assert await client.search("A title no index has ever held") == []
    assert client.transport.stats.requests == requests  # the memo answered


async def test_dblp_record_by_key(sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    client = dblp(sim, http)
    found = await client.by_key("conf/nips/VaswaniSPUJGKP17")
    assert found is not None and found.record.venue == "NIPS" and found.record.year == 2017
    assert found.url is not None and found.url.endswith("/rec/conf/nips/VaswaniSPUJGKP17.xml")
    assert await client.by_key("conf/nips/NoSuchKey99") is None
    with pytest.raises(ValueError, match="not a DBLP key"):
        await client.by_key("not a key")


async def test_dblp_retries_through_a_server_fault(sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    # Seed 7 draws a 503 for the first DBLP request (0.43 < 0.5) and none for the second (0.90).
    sim.configure({"seed": 7, "sources": {"dblp": {"faults": {"error_503": 0.5}}}})
    sim.reset()
    try:
        found = await dblp(sim, http).search("Attention Is All You Need")
        assert [r.record.dblp_key for r in found] == ["conf/nips/VaswaniSPUJGKP17"]
        stats = sim.source_stats("dblp")
        assert stats["faults"] == {"error_503": 1} and stats["requests"] == 2
    finally:
        sim.configure(SimulatorConfig.unlimited())


async def test_dblp_always_failing_is_a_transient_error(
    sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    sim.configure({"sources": {"dblp": {"faults": {"error_500": 1.0}}}})
    try:
        with pytest.raises(TransientSourceError):
            await dblp(sim, http).search("Attention Is All You Need")
    finally:
        sim.configure(SimulatorConfig.unlimited())


async def test_dblp_429_is_waited_out_with_retry_after(sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    # One request per 100 s at the simulator: the second request gets a 429 with Retry-After,
    # which the transport honours (its sleep is a no-op here) before asking again.
    sim.configure({"sources": {"dblp": {"rate": 0.01, "burst": 1, "retry_after": 1}}})
    sim.reset()
    try:
        client = dblp(sim, http, http_attempts=2)
        assert await client.search("Attention")
        with pytest.raises(TransientSourceError) as raised:
            await client.search("Gaussian Error Linear Units")
        assert raised.value.status_code == 429
        assert sim.source_stats("dblp")["status_429"] == 2  # the first try and its one retry
    finally:
        sim.configure(SimulatorConfig.unlimited())


async def test_acl_anthology_bibtex_by_id(sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    client = acl(sim, http)
    found = await client.by_id("N19-1423")
    assert found is not None
    record = found.record
    assert record.source is SourceName.ACL_ANTHOLOGY and record.source_id == "N19-1423"
    assert record.title is not None and record.title.startswith("BERT: Pre-training")
    assert [a.family for a in record.authors] == ["Devlin", "Chang"]
    assert record.doi == "10.18653/v1/n19-1423" and record.year == 2019
    assert await client.by_id("2023.acl-long.999") is None
    requests = client.transport.stats.requests
    assert await client.by_id("2023.acl-long.999") is None  # the negative answer was cached
    assert client.transport.stats.requests == requests
    with pytest.raises(ValueError, match="not an ACL Anthology id"):
        await client.by_id("acl-2023")


async def test_a_source_turned_off_is_not_asked(sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    with pytest.raises(SourceUnavailableError):
        await dblp(sim, http, disabled_sources="dblp").search("Attention")
    with pytest.raises(SourceUnavailableError):
        await acl(sim, http, offline=True).by_id("N19-1423")


def test_dblp_query_keeps_words_only() -> None:
    assert (
        dblp_query("Self-Attention | with -Relative Positions?") == "Self Attention with Relative Positions"
    )
    with pytest.raises(ValueError):
        dblp_query("?! --")
    assert is_dblp_key("journals/corr/abs-2106-09685") and not is_dblp_key("conf")
