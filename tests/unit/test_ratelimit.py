"""GCRA buckets, adaptive rates and concurrency caps: in process with a fake clock, and through Redis
(fakeredis with Lua) with the same clock passed to the scripts, plus one check on the Redis server's
own TIME. Both implementations must behave the same; sliding-window properties are in
test_ratelimit_sliding.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import fakeredis
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia.config.settings import Settings, SourceLimits
from aletheia.sources.base import RateLimitedError
from aletheia.sources.transport.ratelimit import (
    LocalRateLimiter,
    RateLimiter,
    RedisRateLimiter,
    build_rate_limiter,
    redis_pool_size,
)
from tests.unit.fake_clock import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def fake_server() -> AsyncIterator[fakeredis.FakeServer]:
    yield fakeredis.FakeServer()


def redis_limiter(
    server: fakeredis.FakeServer, clock: FakeClock, *, lease_seconds: float = 60.0
) -> RedisRateLimiter:
    """A limiter on the shared fake server, timed by the fake clock (passed to every script)."""
    redis = fakeredis.FakeAsyncRedis(server=server)
    return RedisRateLimiter(redis, clock=clock, sleep=clock.sleep, lease_seconds=lease_seconds)


LimiterFactory = Callable[[FakeClock], RateLimiter]


@pytest.fixture(params=["local", "redis"])
def make_limiter(request: pytest.FixtureRequest) -> LimiterFactory:
    """Both implementations must behave the same against the same clock."""
    if request.param == "local":
        return lambda clock: LocalRateLimiter(clock=clock, sleep=clock.sleep)
    server = fakeredis.FakeServer()
    return lambda clock: redis_limiter(server, clock)


# --- GCRA bucket ---------------------------------------------------------------------------------


async def test_fresh_bucket_grants_its_burst_then_asks_to_wait(
    make_limiter: LimiterFactory, clock: FakeClock
) -> None:
    limiter = make_limiter(clock)
    grants = [await limiter.try_acquire("crossref:single", 10.0, 3) for _ in range(3)]
    assert grants == [0.0, 0.0, 0.0]
    wait = await limiter.try_acquire("crossref:single", 10.0, 3)
    assert wait == pytest.approx(0.1, abs=1e-4)


async def test_bucket_refills_with_elapsed_time_and_never_beyond_burst(
    make_limiter: LimiterFactory, clock: FakeClock
) -> None:
    limiter = make_limiter(clock)
    for _ in range(2):
        assert await limiter.try_acquire("openalex:single", 2.0, 2) == 0.0
    clock.advance(0.5)  # one token back at 2/s
    assert await limiter.try_acquire("openalex:single", 2.0, 2) == 0.0
    assert await limiter.try_acquire("openalex:single", 2.0, 2) > 0.0
    clock.advance(3600)  # a long idle refills to the burst, not to 7200 tokens
    granted = [await limiter.try_acquire("openalex:single", 2.0, 2) == 0.0 for _ in range(3)]
    assert granted == [True, True, False]


async def test_buckets_are_counted_apart(make_limiter: LimiterFactory, clock: FakeClock) -> None:
    limiter = make_limiter(clock)
    assert await limiter.try_acquire("crossref:single", 1.0, 1) == 0.0
    assert await limiter.try_acquire("crossref:search", 1.0, 1) == 0.0
    assert await limiter.try_acquire("crossref:single", 1.0, 1) > 0.0


async def test_acquire_sleeps_for_the_wait_it_is_told(make_limiter: LimiterFactory, clock: FakeClock) -> None:
    limiter = make_limiter(clock)
    for _ in range(4):
        await limiter.acquire("arxiv:single", 1 / 3, 1)
    # One token at once, then one every three seconds (arXiv's rule).
    assert sum(clock.sleeps) == pytest.approx(9.0, abs=1e-3)


async def test_acquire_gives_up_past_max_wait_with_a_rate_limited_error(
    make_limiter: LimiterFactory, clock: FakeClock
) -> None:
    limiter = make_limiter(clock)
    await limiter.acquire("semantic_scholar:single", 1.0, 1)
    with pytest.raises(RateLimitedError) as raised:
        await limiter.acquire("semantic_scholar:single", 1.0, 1, max_wait=0.5)
    assert raised.value.source == "semantic_scholar"
    assert raised.value.status_code is None  # our own bucket, not the source's 429
    assert raised.value.retry_after == pytest.approx(1.0, abs=1e-3)
    assert clock.sleeps == []


async def test_penalty_holds_everyone_off_then_resumes_at_half_the_rate(
    make_limiter: LimiterFactory, clock: FakeClock
) -> None:
    limiter = make_limiter(clock)
    await limiter.penalize("crossref:single", 30.0)
    assert await limiter.try_acquire("crossref:single", 10.0, 10) == pytest.approx(30.0, abs=1e-3)
    clock.advance(10)
    assert await limiter.try_acquire("crossref:single", 10.0, 10) == pytest.approx(20.0, abs=1e-3)
    await limiter.penalize("crossref:single", 5.0)  # a shorter penalty does not shorten the block
    assert await limiter.try_acquire("crossref:single", 10.0, 10) == pytest.approx(20.0, abs=1e-3)
    clock.advance(20)
    assert await limiter.try_acquire("crossref:single", 10.0, 10) == 0.0
    # No burst of ten right after the source said "too many", and half the rate: 1 / 5 s apart.
    assert await limiter.try_acquire("crossref:single", 10.0, 10) == pytest.approx(0.2, abs=1e-3)


async def test_evenly_spaced_without_burst(make_limiter: LimiterFactory, clock: FakeClock) -> None:
    limiter = make_limiter(clock)
    assert await limiter.try_acquire("openalex:single", 10.0, 1) == 0.0
    assert await limiter.try_acquire("openalex:single", 10.0, 1) == pytest.approx(0.1, abs=1e-5)
    clock.advance(0.05)
    assert await limiter.try_acquire("openalex:single", 10.0, 1) == pytest.approx(0.05, abs=1e-5)
    clock.advance(0.05)
    assert await limiter.try_acquire("openalex:single", 10.0, 1) == 0.0
    clock.advance(5.0)  # idle time is not saved up: still one at a time
    assert await limiter.try_acquire("openalex:single", 10.0, 1) == 0.0
    assert await limiter.try_acquire("openalex:single", 10.0, 1) > 0.0


# --- adaptive rates -------------------------------------------------------------------------------


async def fraction(limiter: RateLimiter, bucket: str) -> float:
    assert isinstance(limiter, LocalRateLimiter | RedisRateLimiter)
    return await limiter.rate_fraction(bucket)


async def test_a_429_halves_the_rate_once_per_block_then_it_recovers_slowly(
    make_limiter: LimiterFactory, clock: FakeClock
) -> None:
    limiter = make_limiter(clock)
    bucket = "openalex:single"
    assert await fraction(limiter, bucket) == 1.0
    await limiter.penalize(bucket, 1.0)
    await limiter.penalize(bucket, 1.0)  # in-flight requests' 429s of the same block: no news
    clock.advance(0.5)
    await limiter.penalize(bucket, 1.0)  # extends the block, still one halving
    assert await fraction(limiter, bucket) == pytest.approx(0.5)
    clock.advance(1.0)  # the block lifts at +1.5 s; recovery counts from there
    assert await fraction(limiter, bucket) == pytest.approx(0.5)
    clock.advance(60.0)  # one quiet minute: +10 % of the documented rate
    assert await fraction(limiter, bucket) == pytest.approx(0.6, abs=1e-4)
    assert await limiter.try_acquire(bucket, 10.0, 1) == 0.0
    assert await limiter.try_acquire(bucket, 10.0, 1) == pytest.approx(1 / 6, abs=1e-4)
    clock.advance(600.0)  # never above the documented rate
    assert await fraction(limiter, bucket) == 1.0


async def test_429s_after_the_block_lifted_halve_again_down_to_a_floor(
    make_limiter: LimiterFactory, clock: FakeClock
) -> None:
    limiter = make_limiter(clock)
    expected = 1.0
    for _ in range(6):
        await limiter.penalize("semantic_scholar:single", 1.0)
        expected = max(0.1, expected / 2)
        assert await fraction(limiter, "semantic_scholar:single") == pytest.approx(expected, abs=1e-4)
        clock.advance(1.0)
    assert expected == 0.1


@pytest.mark.parametrize(("rate", "burst"), [(0.0, 1), (-1.0, 1), (1.0, 0)])
async def test_nonsense_limits_are_refused(
    make_limiter: LimiterFactory, clock: FakeClock, rate: float, burst: int
) -> None:
    with pytest.raises(ValueError, match=r"rate|burst"):
        await make_limiter(clock).try_acquire("x:single", rate, burst)


@settings(max_examples=60, deadline=None)
@given(
    rate=st.floats(min_value=0.2, max_value=50.0),
    burst=st.integers(min_value=1, max_value=20),
    steps=st.lists(
        st.tuples(st.floats(min_value=0.0, max_value=2.0), st.integers(min_value=0, max_value=30)),
        max_size=30,
    ),
)
def test_local_grants_never_exceed_rate_times_elapsed_plus_burst(
    rate: float, burst: int, steps: list[tuple[float, int]]
) -> None:
    async def run() -> None:
        clock = FakeClock()
        limiter = LocalRateLimiter(clock=clock, sleep=clock.sleep)
        start, granted = clock.now, 0
        for advance, tries in steps:
            clock.advance(advance)
            for _ in range(tries):
                granted += await limiter.try_acquire("x:single", rate, burst) == 0.0
            assert granted <= rate * (clock.now - start) + burst + 1e-9

    asyncio.run(run())


# --- Redis specifics ------------------------------------------------------------------------------


async def test_two_processes_share_one_bucket_through_redis(
    fake_server: fakeredis.FakeServer, clock: FakeClock
) -> None:
    first, second = redis_limiter(fake_server, clock), redis_limiter(fake_server, clock)
    assert await first.try_acquire("pubmed:single", 3.0, 2) == 0.0
    assert await second.try_acquire("pubmed:single", 3.0, 2) == 0.0
    assert await first.try_acquire("pubmed:single", 3.0, 2) > 0.0
    await second.penalize("pubmed:single", 12.0)
    assert await first.try_acquire("pubmed:single", 3.0, 2) == pytest.approx(12.0, abs=1e-3)
    assert await first.rate_fraction("pubmed:single") == pytest.approx(0.5)  # lowered for everyone


async def test_redis_bucket_uses_the_server_clock_by_default(fake_server: fakeredis.FakeServer) -> None:
    limiter = RedisRateLimiter(fakeredis.FakeAsyncRedis(server=fake_server))
    assert await limiter.try_acquire("openalex:single", 0.01, 2) == 0.0
    assert await limiter.try_acquire("openalex:single", 0.01, 2) == 0.0
    wait = await limiter.try_acquire("openalex:single", 0.01, 2)
    assert 90.0 < wait <= 100.0
    await limiter.penalize("openalex:single", 40.0)
    assert 39.0 < await limiter.try_acquire("openalex:single", 0.01, 2) <= 40.0
    await limiter.aclose()


async def test_redis_bucket_keys_expire_so_idle_buckets_do_not_pile_up(
    fake_server: fakeredis.FakeServer, clock: FakeClock
) -> None:
    redis = fakeredis.FakeAsyncRedis(server=fake_server)
    limiter = RedisRateLimiter(redis, clock=clock)
    await limiter.try_acquire("crossref:single", 10.0, 10)
    ttl_ms = await redis.pttl("aletheia:gcra:{crossref:single}")
    assert 0 < ttl_ms <= 1200  # the next arrival time (0.1 s) plus a margin: a missing bucket is fresh
    await limiter.penalize("crossref:single", 2.0)
    ttl_ms = await redis.pttl("aletheia:gcra:{crossref:single}")
    # A lowered rate is remembered until it has recovered: 5 minutes from half, after the block.
    assert 302_000 <= ttl_ms <= 303_100


# --- concurrency caps -----------------------------------------------------------------------------


async def run_holders(limiters: list[RateLimiter], holders: int, limit: int) -> int:
    """Run `holders` tasks through `slot("crossref", limit)` and return the most inside at once."""
    inside = peak = 0

    async def hold(limiter: RateLimiter) -> None:
        nonlocal inside, peak
        async with limiter.slot("crossref", limit):
            inside += 1
            peak = max(peak, inside)
            for _ in range(3):
                await asyncio.sleep(0)
            inside -= 1

    await asyncio.gather(*(hold(limiters[i % len(limiters)]) for i in range(holders)))
    return peak


async def test_local_slots_cap_concurrency(clock: FakeClock) -> None:
    limiter = LocalRateLimiter(clock=clock, sleep=clock.sleep)
    assert await run_holders([limiter], holders=10, limit=3) == 3


async def test_local_slot_limit_must_not_change_for_a_source(clock: FakeClock) -> None:
    limiter = LocalRateLimiter(clock=clock, sleep=clock.sleep)
    async with limiter.slot("crossref", 3):
        pass
    with pytest.raises(ValueError, match="limit"):
        limiter.slot("crossref", 4)


async def test_redis_slots_cap_concurrency_across_processes(
    fake_server: fakeredis.FakeServer, clock: FakeClock
) -> None:
    limiters: list[RateLimiter] = [redis_limiter(fake_server, clock) for _ in range(3)]
    assert await run_holders(limiters, holders=12, limit=2) == 2
    redis = fakeredis.FakeAsyncRedis(server=fake_server)
    assert await redis.zcard("aletheia:slots:{crossref}") == 0  # every lease given back


async def test_a_crashed_holder_loses_its_slot_when_its_lease_runs_out(
    fake_server: fakeredis.FakeServer, clock: FakeClock
) -> None:
    redis = fakeredis.FakeAsyncRedis(server=fake_server)
    # A process died holding the only slot; its lease runs until clock time 1030.
    await redis.zadd("aletheia:slots:{crossref}", {"dead-process": 1030.0})
    limiter = redis_limiter(fake_server, clock, lease_seconds=60.0)
    async with limiter.slot("crossref", 1):
        assert clock.now >= 1030.0  # waited (polling, on the fake clock) until the lease expired
        members = await redis.zrange("aletheia:slots:{crossref}", 0, -1)
        assert b"dead-process" not in members and len(members) == 1


# --- construction ---------------------------------------------------------------------------------


def test_without_redis_the_limiter_is_in_process() -> None:
    assert isinstance(
        build_rate_limiter(Settings(_env_file=None, redis_url=None, broker_url=None)), LocalRateLimiter
    )


async def test_with_a_redis_url_the_pool_is_sized_from_the_source_caps() -> None:
    config = Settings(_env_file=None, redis_url="redis://127.0.0.1:1/0")  # never connected to here
    limiter = build_rate_limiter(config)
    assert isinstance(limiter, RedisRateLimiter)
    assert limiter._redis.connection_pool.max_connections == redis_pool_size(config)
    await limiter.aclose()
    wider = Settings(
        _env_file=None, crossref_limits=SourceLimits(rate=10, burst=10, concurrency=13, search_rate=3)
    )
    assert redis_pool_size(wider) == redis_pool_size(config) + 2 * 10


async def test_a_given_redis_client_is_used(fake_server: fakeredis.FakeServer) -> None:
    limiter = build_rate_limiter(Settings(_env_file=None), fakeredis.FakeAsyncRedis(server=fake_server))
    assert isinstance(limiter, RedisRateLimiter)
    assert await limiter.try_acquire("crossref:single", 1.0, 1) == 0.0
