"""Issue 11: the limiter against a service that counts arrivals over a sliding window.

The simulator's `SlidingWindow` (a sliding log of admitted requests) is tested on its own first;
then the limiter's release times, moved by a late send (our event loop, the Redis round trip: up
to the send margin m) and by network jitter (up to J), are fed to it: at the pace `gcra.pace`
chooses (N per window + J + m + slack) it never refuses one, for any rate, jitter, margin and number of
callers Hypothesis draws.
"""

from __future__ import annotations

import asyncio
import heapq
import random

import fakeredis
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia.sources.simulator.limits import SlidingWindow, TokenBucket, make_limit
from aletheia.sources.simulator.run_config import SimulatorConfig
from aletheia.sources.transport.gcra import SEND_MARGIN, GcraState, pace
from aletheia.sources.transport.limiter import RateLimiter
from aletheia.sources.transport.ratelimit import LocalRateLimiter, RedisRateLimiter
from tests.unit.fake_clock import FakeClock

# --- the simulator's sliding window ---------------------------------------------------------------


def test_sliding_window_admits_n_in_any_window_and_says_when_the_oldest_leaves() -> None:
    clock = FakeClock(0.0)
    window = SlidingWindow(3, 1.0, clock)
    assert [window.try_take() for _ in range(3)] == [0.0, 0.0, 0.0]
    assert window.try_take() == pytest.approx(1.0)
    clock.advance(0.6)
    assert window.try_take() == pytest.approx(0.4)  # refused requests are not counted
    clock.advance(0.4)  # the first three leave at exactly one second
    assert [window.try_take() for _ in range(4)][:3] == [0.0, 0.0, 0.0]


@given(st.lists(st.floats(min_value=0.0, max_value=5.0, allow_nan=False), min_size=1, max_size=60))
def test_arrivals_counted_out_of_order_never_put_more_than_n_in_any_window(arrivals: list[float]) -> None:
    """Requests stamped at their arrival but looked at in another order (a busy loop): whatever
    the order, the admitted ones never number more than N in any window, and one that fits is
    admitted."""
    window = SlidingWindow(3, 1.0, FakeClock(0.0))
    admitted = [a for a in arrivals if window.try_take(a) == 0.0]
    ordered = sorted(admitted)
    for i, start in enumerate(ordered):
        assert sum(1 for a in ordered[i:] if a < start + 1.0) <= 3
    # In order, the log behaves as the plain one: exactly the requests that fit are admitted.
    in_order = SlidingWindow(3, 1.0, FakeClock(0.0))
    kept: list[float] = []
    for a in sorted(arrivals):
        fits = sum(1 for k in kept if k > a - 1.0) < 3
        assert (in_order.try_take(a) == 0.0) is fits
        if fits:
            kept.append(a)


def test_a_late_look_at_an_early_arrival_is_counted_where_it_arrived() -> None:
    window = SlidingWindow(2, 1.0, FakeClock(0.0))
    assert window.try_take(1.0) == 0.0
    assert window.try_take(1.9) == 0.0
    # Arrived at 0.5, looked at after the others: the window (0.9, 1.9] holds two already, but
    # (−0.5, 0.5] and (0.0, 1.0] have room, and (0.5, 1.5] would too: (0.9, 1.9] does not hold 0.5.
    assert window.try_take(0.5) == 0.0
    # Arrived at 1.2: (0.2, 1.2] would hold 0.5, 1.0, 1.2: refused until 0.5 leaves it... and the
    # window (0.9, 1.9] is full anyway: the wait is counted from that window's first arrival.
    assert window.try_take(1.2) > 0.0


def test_sliding_window_is_stricter_than_a_token_bucket_of_the_same_rate() -> None:
    clock = FakeClock(0.0)
    bucket, window = TokenBucket(10, 10, clock), SlidingWindow.for_rate(10, clock)
    admitted = {"bucket": 0, "window": 0}
    for _ in range(20):  # ten at once, then one every 0.1 s: 19 in the first second
        admitted["bucket"] += bucket.try_take() == 0.0
        admitted["window"] += window.try_take() == 0.0
        clock.advance(0.0 if admitted["bucket"] < 10 else 0.1)
    assert admitted["window"] <= 10 < admitted["bucket"]


def test_sliding_window_for_slow_rates_counts_over_the_longer_window() -> None:
    arxiv = SlidingWindow.for_rate(1 / 3)
    assert (arxiv.limit, arxiv.window) == (1, 3.0)
    pubmed = SlidingWindow.for_rate(3)
    assert (pubmed.limit, pubmed.window) == (3, 1.0)
    assert isinstance(make_limit("sliding", 10, 10), SlidingWindow)
    assert isinstance(make_limit("bucket", 10, 10), TokenBucket)
    with pytest.raises(ValueError):
        SlidingWindow(0, 1.0)


def test_sliding_window_config_applies_to_every_source() -> None:
    config = SimulatorConfig.sliding_window(seed=3, arrival_jitter_ms=50)
    assert all(sc.limit_mode == "sliding" and sc.arrival_jitter_ms == 50 for sc in config.sources.values())
    assert config.source("openalex").rate == 10  # the documented limits are kept
    assert SimulatorConfig().source("openalex").limit_mode == "bucket"  # the default is unchanged


# --- the limiter against it -----------------------------------------------------------------------


async def release_times(
    limiter: RateLimiter,
    clock: FakeClock,
    rate: float,
    burst: int,
    *,
    callers: int,
    grants: int,
    oversleep: float,
    rng: random.Random,
) -> list[float]:
    """`callers` concurrent callers, each asking again when told (or late by up to `oversleep`),
    simulated event by event on the fake clock; the times the limiter admitted `grants` of them."""
    queue = [(clock.now + rng.uniform(0, 0.01), i) for i in range(callers)]
    heapq.heapify(queue)
    granted: list[float] = []
    while len(granted) < grants:
        when, caller = heapq.heappop(queue)
        clock.now = max(clock.now, when)
        wait = await limiter.try_acquire("openalex:single", rate, burst)
        if wait == 0.0:
            granted.append(clock.now)
            wait = rng.uniform(0, 0.05)  # the caller's next request is ready a little later
        heapq.heappush(queue, (clock.now + wait + rng.uniform(0, oversleep), caller))
    return granted


def refused_by_sliding_window(arrivals: list[float], limit: int, window: float) -> int:
    clock = FakeClock(0.0)
    counter = SlidingWindow(limit, window, clock)
    refused = 0
    for arrival in sorted(arrivals):
        clock.now = arrival
        refused += counter.try_take() > 0.0
    return refused


def max_in_any_window(arrivals: list[float], window: float) -> int:
    ordered, most, first = sorted(arrivals), 0, 0
    for last, at in enumerate(ordered):
        while ordered[first] <= at - window:
            first += 1
        most = max(most, last - first + 1)
    return most


# N per second as documented (and other counts), 1 per 3 s (arXiv); jitter up to 150 ms.
RATES = st.one_of(st.sampled_from([10.0, 3.0, 1.0, 1 / 3, 50.0]), st.integers(1, 40).map(float))


@settings(max_examples=150, deadline=None)
@given(
    rate=RATES,
    jitter_ms=st.integers(0, 150),
    margin_ms=st.integers(0, 30),
    callers=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
)
def test_paced_releases_never_overflow_a_sliding_window_whatever_the_jitter(
    rate: float, jitter_ms: int, margin_ms: int, callers: int, seed: int
) -> None:
    jitter, margin = jitter_ms / 1000, margin_ms / 1000
    window = max(1.0, 1.0 / rate)
    limit = round(rate * window)
    gcra_rate, gcra_burst = pace(rate, limit, jitter, margin)
    rng = random.Random(seed)
    clock = FakeClock(0.0)
    releases = asyncio.run(
        release_times(
            LocalRateLimiter(clock=clock, sleep=clock.sleep),
            clock,
            gcra_rate,
            gcra_burst,
            callers=callers,
            grants=3 * limit + 5,
            oversleep=0.02,
            rng=rng,
        )
    )
    # Sent up to m after admission, and up to J more on the network: arrivals at the source's clock.
    arrivals = [t + rng.uniform(0, margin) + rng.uniform(0, jitter) for t in releases]
    assert refused_by_sliding_window(arrivals, limit, window) == 0
    assert max_in_any_window(arrivals, window - 1e-6) <= limit


def test_worst_case_jitter_at_the_margin_fills_the_window_but_never_overflows_it() -> None:
    # Every eleventh request sent m late and delayed J on the network: the tightest it gets.
    rate, jitter, margin = 10.0, 0.05, SEND_MARGIN
    gcra_rate, burst = pace(rate, rate, jitter)
    state, releases, now = GcraState(), [], 0.0
    while len(releases) < 50:
        wait = state.take(now, gcra_rate, burst)
        if wait == 0.0:
            releases.append(now)
        now += wait
    # (J + m less a millisecond: at exactly J + m the 11th would arrive on the window's very edge.)
    arrivals = [t + (jitter + margin - 0.001 if i % 11 == 0 else 0.0) for i, t in enumerate(releases)]
    assert max_in_any_window(arrivals, 1.0 - 1e-6) == 10
    assert refused_by_sliding_window(arrivals, 10, 1.0) == 0


def test_without_the_margin_jitter_overflows_and_a_token_bucket_burst_overflows_more() -> None:
    # Pacing at exactly 10/s: one request 50 ms late puts 11 in a second.
    exact = [k * 0.1 for k in range(20)]
    exact[0] += 0.05
    assert refused_by_sliding_window(exact, 10, 1.0) == 1
    # The old token bucket (burst 9 kept of 10): nine at once, then ten more within the second.
    state, releases, now = GcraState(), [], 0.0
    while len(releases) < 30:
        wait = state.take(now, 10.0, 9)
        if wait == 0.0:
            releases.append(now)
        now += wait
    assert max_in_any_window(releases, 1.0 - 1e-6) == 18


async def test_the_redis_limiter_paces_the_same() -> None:
    clock = FakeClock(0.0)
    limiter = RedisRateLimiter(fakeredis.FakeAsyncRedis(), clock=clock, sleep=clock.sleep)
    rate, burst = pace(10.0, 10.0, 0.05)
    rng = random.Random(11)
    releases = await release_times(limiter, clock, rate, burst, callers=8, grants=60, oversleep=0.02, rng=rng)
    arrivals = [t + rng.uniform(0, SEND_MARGIN) + rng.uniform(0, 0.05) for t in releases]
    assert refused_by_sliding_window(arrivals, 10, 1.0) == 0
    assert releases[-1] - releases[0] == pytest.approx(59 * 0.109 - 0.02, rel=0.05)  # no slower than paced


@pytest.mark.parametrize(
    ("rate", "window_max", "jitter", "expected"),
    [
        # N per (W + J + m + s), m = 20 ms, s = 20 ms; tolerance s: a burst of 1 + s / interval
        (10.0, 10.0, 0.05, (10 / 1.09, 1 + 0.02 * 10 / 1.09)),
        (10.0, 15.0, 0.05, (10 / 1.09, 6 + 0.02 * 10 / 1.09)),  # a documented burst of five more
        (1 / 3, 1.0, 0.05, (1 / 3.07, 1)),  # arXiv: one per 3 s + J + m, no slack (one a window)
        (1 / 2, 1.0, 0.05, (1 / 2.07, 1)),  # DBLP: one per 2 s + J + m
        (3.0, 3.0, 0.0, (3.0 / 1.04, 1 + 0.02 * 3 / 1.04)),
    ],
)
def test_pace(rate: float, window_max: float, jitter: float, expected: tuple[float, float]) -> None:
    got = pace(rate, window_max, jitter)
    assert got == (pytest.approx(expected[0]), pytest.approx(expected[1]))
    with pytest.raises(ValueError):
        pace(0.0, 1.0)
    with pytest.raises(ValueError):
        pace(1.0, 1.0, 0.05, -0.01)


def test_the_new_pace_overflows_when_a_send_is_later_than_the_margin() -> None:
    # The margin is what the proof rests on: a send later than m plus the network's J can put
    # N + 1 arrivals in one window, so the bound is tight, not a guess with room to spare.
    rate, jitter = 10.0, 0.05
    gcra_rate, burst = pace(rate, rate, jitter)
    state, releases, now = GcraState(), [], 0.0
    while len(releases) < 30:
        wait = state.take(now, gcra_rate, burst)
        if wait == 0.0:
            releases.append(now)
        now += wait
    arrivals = [t + (jitter + SEND_MARGIN + 0.002 if i == 0 else 0.0) for i, t in enumerate(releases)]
    assert refused_by_sliding_window(arrivals, 10, 1.0) == 1


@pytest.mark.parametrize("redis", [False, True])
async def test_a_request_sent_late_holds_the_next_grant_back_as_far(redis: bool) -> None:
    # DBLP, one per 2 s: paced at 2.07 s. The first request leaves 0.25 s after its grant (a new
    # connection on a busy loop), 0.23 s more than the 20 ms margin: the second is granted 0.23 s
    # later than the pace alone would, so it still arrives a full window after the first.
    clock = FakeClock(100.0)
    limiter: RateLimiter = (
        RedisRateLimiter(fakeredis.FakeAsyncRedis(), clock=clock, sleep=clock.sleep)
        if redis
        else LocalRateLimiter(clock=clock, sleep=clock.sleep)
    )
    rate, burst = pace(0.5, 1.0, 0.05, SEND_MARGIN)
    assert await limiter.try_acquire("dblp:single", rate, burst) == 0.0
    await limiter.hold_back("dblp:single", 0.25 - SEND_MARGIN)
    clock.now += 2.07
    assert await limiter.try_acquire("dblp:single", rate, burst) == pytest.approx(0.23, abs=1e-4)
    clock.now += 0.23
    assert await limiter.try_acquire("dblp:single", rate, burst) == 0.0
    # A bucket nobody has asked yet has nothing to hold back: its first grant is not delayed.
    await limiter.hold_back("arxiv:single", 0.5)
    assert await limiter.try_acquire("arxiv:single", *pace(1 / 3, 1.0)) == 0.0


def test_a_late_send_held_back_never_puts_two_arrivals_in_one_window() -> None:
    rate, burst = pace(0.5, 1.0, 0.05, SEND_MARGIN)
    state, now = GcraState(), 0.0
    arrivals: list[float] = []
    rng = random.Random(5)
    while len(arrivals) < 40:
        wait = state.take(now, rate, burst)
        if wait:
            now += wait
            continue
        late = rng.choice([0.0, SEND_MARGIN, 0.25, 0.6])  # some far later than the margin
        arrivals.append(now + late + rng.uniform(0, 0.05))
        state.hold_back(late - SEND_MARGIN)
    assert max_in_any_window(arrivals, 2.0 - 1e-6) == 1
