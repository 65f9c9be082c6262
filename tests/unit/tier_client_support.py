"""The simulator and fast transports shared by the Tier 1 and Tier 3 client tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from aletheia.config.settings import SourceLimits
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, Universe
from aletheia.sources.transport.polite import PoliteTransport
from aletheia.sources.transport.ratelimit import LocalRateLimiter

FAST = SourceLimits(rate=1000, burst=1000, concurrency=8)


@pytest.fixture(scope="module")
def tier_sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(Universe([]), SimulatorConfig.unlimited(seed=7)) as server:
        yield server


@pytest.fixture
async def http(tier_sim: SimulatorServer) -> AsyncIterator[httpx.AsyncClient]:
    tier_sim.configure(SimulatorConfig.unlimited(seed=7))
    tier_sim.reset()
    async with httpx.AsyncClient(follow_redirects=True) as client:
        yield client


def transport(sim: SimulatorServer, http: httpx.AsyncClient, source: str, **options: Any) -> PoliteTransport:
    return PoliteTransport(
        source,
        http,
        base_url=sim.url_for(source),
        limits=FAST,
        limiter=LocalRateLimiter(),
        attempts=options.pop("attempts", 4),
        timeout=2.0,
        backoff_initial=0.01,
        backoff_max=0.05,
        **options,
    )


def requests(sim: SimulatorServer, source: str) -> int:
    return int(sim.source_stats(source)["requests"])
