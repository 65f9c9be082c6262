"""The send margin learnt from real send delays (`sources/send_delay.py`): a decaying maximum per
source, shared through Redis, fed by the transport from httpcore's trace of each request."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import fakeredis
import httpx
import pytest

from aletheia.config.settings import SourceLimits
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, universe_from_records
from aletheia.sources.transport.gcra import SEND_MARGIN, pace
from aletheia.sources.transport.polite import PoliteTransport
from aletheia.sources.transport.politeness import request_pacing
from aletheia.sources.transport.ratelimit import LocalRateLimiter, RedisRateLimiter
from aletheia.sources.transport.send_delay import MAX_SEND_MARGIN, SendDelays, SharedSendDelays
from tests.unit.fake_clock import FakeClock


def test_the_margin_is_the_floor_until_a_later_send_is_seen_and_then_decays_back() -> None:
    clock = FakeClock(0.0)
    delays = SendDelays(clock=clock, half_life=60.0)
    assert delays.current("openalex") == SEND_MARGIN
    assert delays.record("openalex", 0.005) is False  # within the floor: nothing changes
    assert delays.record("openalex", 0.1) is True
    assert delays.current("openalex") == pytest.approx(0.1)
    assert delays.current("crossref") == SEND_MARGIN  # per source
    clock.advance(60.0)
    assert delays.current("openalex") == pytest.approx(0.05)  # half-life
    clock.advance(600.0)
    assert delays.current("openalex") == SEND_MARGIN
    assert delays.record("openalex", 10.0) is True
    assert delays.current("openalex") == MAX_SEND_MARGIN  # a stall is not a pace


def test_a_wider_margin_paces_wider() -> None:
    limits = SourceLimits(rate=10, burst=1, concurrency=3)
    _, tight, _, _ = request_pacing("openalex", "single", limits)
    _, wide, _, _ = request_pacing("openalex", "single", limits, send_margin=0.1)
    assert wide < tight
    assert (tight, wide) == (pace(10, 1, send_margin=SEND_MARGIN)[0], pace(10, 1, send_margin=0.1)[0])


async def test_one_process_raising_the_margin_raises_it_for_every_process() -> None:
    server = fakeredis.FakeServer()
    one = SharedSendDelays(fakeredis.aioredis.FakeRedis(server=server))
    other = SharedSendDelays(fakeredis.aioredis.FakeRedis(server=server))
    assert await other.margin("crossref") == SEND_MARGIN
    await one.observe("crossref", 0.12)
    other._shared.clear()  # its one-second read cache
    assert await other.margin("crossref") == pytest.approx(0.12)
    # A smaller delay never lowers what another process saw.
    await other.observe("crossref", 0.05)
    assert await one.margin("crossref") == pytest.approx(0.12)
    assert isinstance(
        RedisRateLimiter(fakeredis.aioredis.FakeRedis(server=server)).send_delays, SharedSendDelays
    )


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    works = [{"title": "A Work", "authors": [{"given": "A", "family": "B"}], "year": 2020, "doi": "10.1/a"}]
    with SimulatorServer(universe_from_records(works), SimulatorConfig.unlimited()) as server:
        yield server


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


async def test_the_transport_reports_each_real_send_delay(
    sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    limiter = LocalRateLimiter()
    seen: list[float] = []
    book = limiter.send_delays
    assert isinstance(book, SendDelays)

    async def observe(source: str, seconds: float) -> None:
        seen.append(seconds)
        book.record(source, seconds)

    book.observe = observe  # type: ignore[method-assign]
    transport = PoliteTransport(
        "crossref",
        http,
        base_url=sim.url_for("crossref") + "/",
        limits=SourceLimits(rate=100, burst=1, concurrency=2),
        limiter=limiter,
    )
    await transport.get_json("/works/10.1/a")  # a DOI the simulator lacks: its documented 404
    # One real request over a socket: its headers' write was traced, a short while after the grant.
    assert len(seen) == 1 and 0.0 <= seen[0] < 5.0
