"""Perseus (CTS GetPassage) and CCEL clients against the loopback simulator: passages, no such
passage, cache, faults, 429s, settings."""

from __future__ import annotations

import httpx
import pytest

from aletheia.config import Settings
from aletheia.sources.base import RateLimitedError, SourceUnavailableError
from aletheia.sources.cache import MemoryRawCache
from aletheia.sources.ccel import CcelClient, ccel_transport
from aletheia.sources.perseus import PerseusClient, perseus_transport
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from tests.unit import tier_client_support as support
from tests.unit.tier_client_support import FAST, requests, transport

tier_sim, http = support.tier_sim, support.http  # the fixtures

ILIAD = "urn:cts:greekLit:tlg0012.tlg001.perseus-grc2"
CONFESSIONS = "/ccel/augustine/confess.x.xxvii.html"


def perseus(
    sim: SimulatorServer, client: httpx.AsyncClient, cache: MemoryRawCache | None = None, **kw: object
) -> PerseusClient:
    return PerseusClient(transport(sim, client, "perseus", **kw), cache=cache)


def ccel(
    sim: SimulatorServer, client: httpx.AsyncClient, cache: MemoryRawCache | None = None, **kw: object
) -> CcelClient:
    return CcelClient(transport(sim, client, "ccel", **kw), cache=cache)


async def test_perseus_passage_and_no_such_passage(
    tier_sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    client = perseus(tier_sim, http)
    found = await client.passage(f"{ILIAD}:1.1")
    assert found is not None and found.record.abstract == "μῆνιν ἄειδε θεὰ Πηληϊάδεω Ἀχιλῆος"
    assert found.record.source_id == f"{ILIAD}:1.1"
    assert await client.passage(f"{ILIAD}:1.2") is None  # CTSError InvalidPassageReference (HTTP 200)
    assert await client.passage("urn:cts:greekLit:tlg9999.tlg001.x:1.1") is None  # unknown text: 404
    with pytest.raises(ValueError):
        await client.passage("Iliad 1.1")


async def test_ccel_page(tier_sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    client = ccel(tier_sim, http)
    found = await client.page(CONFESSIONS)
    assert found is not None and found.record.abstract is not None
    assert found.record.abstract.startswith("Too late loved I Thee")
    assert await client.page("/ccel/augustine/confess.xiv.i.html") is None
    for bad in ("ccel/augustine", "/ccel/../etc/passwd", "/ccel/x?y=1"):
        with pytest.raises(ValueError):
            await client.page(bad)


async def test_answers_are_cached_negative_ones_too(
    tier_sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=60)
    assert await perseus(tier_sim, http, cache).passage(f"{ILIAD}:1.1") is not None
    assert await perseus(tier_sim, http, cache).passage(f"{ILIAD}:1.2") is None
    assert await ccel(tier_sim, http, cache).page(CONFESSIONS) is not None
    sent = requests(tier_sim, "perseus") + requests(tier_sim, "ccel")
    again = perseus(tier_sim, http, cache)
    hit = await again.passage(f"{ILIAD}:1.1")
    assert hit is not None and hit.from_cache
    assert await again.passage(f"{ILIAD}:1.2") is None
    assert await ccel(tier_sim, http, cache).page(CONFESSIONS) is not None
    assert requests(tier_sim, "perseus") + requests(tier_sim, "ccel") == sent


async def test_server_errors_are_retried(tier_sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    tier_sim.configure(
        SimulatorConfig.unlimited(seed=3)
        .with_source("perseus", faults={"error_503": 0.5})
        .with_source("ccel", faults={"error_500": 0.3, "reset": 0.2})
    )
    for _ in range(3):
        assert await perseus(tier_sim, http, attempts=12).passage(f"{ILIAD}:1.1") is not None
        assert await ccel(tier_sim, http, attempts=12).page(CONFESSIONS) is not None
    stats = [tier_sim.source_stats(s)["faults_injected"] for s in ("perseus", "ccel")]
    assert sum(stats) >= 1


async def test_a_429_is_honoured_and_a_long_one_goes_back_to_the_queue(
    tier_sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    tier_sim.configure(SimulatorConfig.unlimited().with_source("perseus", rate=2, burst=1, retry_after=1))
    client = perseus(tier_sim, http)
    assert await client.passage(f"{ILIAD}:1.1") is not None
    assert await client.passage("urn:cts:greekLit:tlg0031.tlg004.perseus-grc2:3.16") is not None
    assert tier_sim.source_stats("perseus")["rate_limited"] >= 1
    tier_sim.configure(SimulatorConfig.unlimited().with_source("ccel", rate=0.01, burst=1, retry_after=500))
    pages = ccel(tier_sim, http)
    assert await pages.page(CONFESSIONS) is not None
    with pytest.raises(RateLimitedError) as raised:
        await pages.page("/ccel/augustine/confess.x.xxviii.html")
    assert raised.value.retry_after == pytest.approx(500.0)


async def test_transports_from_settings(tier_sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    assert (Settings().perseus_url, Settings().ccel_url) == (
        "https://scaife-cts.perseus.org",
        "https://www.ccel.org",
    )
    settings = Settings(
        perseus_url=tier_sim.url_for("perseus"),
        ccel_url=tier_sim.url_for("ccel"),
        perseus_limits=FAST,
        ccel_limits=FAST,
    )
    assert await PerseusClient(perseus_transport(http, settings, LocalRateLimiter())).passage(f"{ILIAD}:1.1")
    assert await CcelClient(ccel_transport(http, settings, LocalRateLimiter())).page(CONFESSIONS)
    offline = settings.model_copy(update={"offline": True})
    with pytest.raises(SourceUnavailableError):
        await PerseusClient(perseus_transport(http, offline, LocalRateLimiter())).passage(f"{ILIAD}:1.1")
    with pytest.raises(SourceUnavailableError):
        await CcelClient(ccel_transport(http, offline, LocalRateLimiter())).page(CONFESSIONS)
