"""Processes share one GCRA bucket and one concurrency cap through a real Redis.

Three processes take every grant they can from one bucket and hold slots of one cap; four
processes hammer one bucket paced for a sliding window (issue 11) while a sliding-window counter
in Redis, timed by the server's clock, records each request's arrival after a random network delay.

Skipped when Redis at redis://127.0.0.1:6379/15 is unreachable, unless CI is set: then it fails.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import queue
import random
import time
import uuid
from collections.abc import Callable, Iterator
from multiprocessing.synchronize import Barrier

import pytest
import redis
import redis.asyncio as redis_asyncio

from aletheia.sources.transport.gcra import pace
from aletheia.sources.transport.ratelimit import RedisRateLimiter

pytestmark = pytest.mark.integration

REDIS_URL = "redis://127.0.0.1:6379/15"
PROCESSES = 3
RATE, BURST, WINDOW = 20.0, 5, 1.0
SLOT_LIMIT = 2


@pytest.fixture(scope="module")
def prefix() -> Iterator[str]:
    """A key prefix of our own, deleted afterwards, so runs never see each other's buckets."""
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5)
    try:
        client.ping()
    except redis.RedisError as exc:
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(f"Redis at {REDIS_URL} is required in CI: {exc}")
        pytest.skip(f"Redis at {REDIS_URL} is unreachable: {exc}")
    name = f"aletheia-test-{uuid.uuid4().hex}"
    yield name
    for key in client.scan_iter(match=f"{name}:*"):
        client.delete(key)
    client.close()


def take_tokens(prefix: str, barrier: Barrier, results: multiprocessing.Queue[list[float]]) -> None:
    """One process: take every token it can from the shared bucket for WINDOW seconds."""

    async def run() -> list[float]:
        limiter = RedisRateLimiter(redis_asyncio.Redis.from_url(REDIS_URL), prefix=prefix)
        await limiter.try_acquire("warmup:single", 1000.0, 1)  # connect before the race starts
        barrier.wait()
        granted: list[float] = []
        end = time.monotonic() + WINDOW
        while time.monotonic() < end:
            before = time.time()
            wait = await limiter.try_acquire("crossref:single", RATE, BURST)
            if wait == 0.0:
                granted.extend((before, time.time()))  # the server granted it in between
            else:
                await asyncio.sleep(min(wait, 0.01))
        await limiter.aclose()
        return granted

    results.put(asyncio.run(run()))


def hold_slots(prefix: str, barrier: Barrier, results: multiprocessing.Queue[list[float]]) -> None:
    """One process: enter the shared cap repeatedly and report how many were inside at once."""

    async def run() -> list[float]:
        client = redis_asyncio.Redis.from_url(REDIS_URL)
        limiter = RedisRateLimiter(client, prefix=prefix)
        counter = f"{prefix}:inside"
        barrier.wait()
        seen: list[float] = []
        for _ in range(8):
            async with limiter.slot("crossref", SLOT_LIMIT):
                seen.append(float(await client.incr(counter)))
                await asyncio.sleep(0.02)
                await client.decr(counter)
        await limiter.aclose()
        return seen

    results.put(asyncio.run(run()))


# The sliding-window case: OpenAlex's 10 per second, network jitter up to the allowance.
HAMMERS, TASKS_PER_HAMMER, HAMMER_SECONDS = 4, 3, 6.0
LIMIT, JITTER = 10, 0.05

# The source's side: note one arrival at the Redis server's clock (a sorted set of arrivals).
_ARRIVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('ZADD', KEYS[1], string.format('%.6f', now), ARGV[1])
return string.format('%.6f', now)
"""


def hammer(prefix: str, barrier: Barrier, results: multiprocessing.Queue[list[float]]) -> None:
    """One retrieval process: several tasks sending to one source as fast as the limiter lets them."""

    async def run() -> list[float]:
        client = redis_asyncio.Redis.from_url(REDIS_URL)
        limiter = RedisRateLimiter(client, prefix=prefix)
        arrive = client.register_script(_ARRIVE)
        rate, burst = pace(LIMIT, LIMIT, JITTER)
        await limiter.try_acquire("warmup:single", 1000.0, 1)
        barrier.wait()
        end = time.monotonic() + HAMMER_SECONDS
        sent: list[float] = []

        async def task() -> None:
            while time.monotonic() < end:
                await limiter.acquire("openalex:single", rate, burst)
                await asyncio.sleep(random.uniform(0, JITTER))  # the network
                sent.append(float(await arrive(keys=[f"{prefix}:arrivals"], args=[uuid.uuid4().hex])))

        await asyncio.gather(*(task() for _ in range(TASKS_PER_HAMMER)))
        await limiter.aclose()
        return sent

    results.put(asyncio.run(run()))


def max_in_any_window(arrivals: list[float], window: float) -> int:
    ordered, most, first = sorted(arrivals), 0, 0
    for last, at in enumerate(ordered):
        while ordered[first] <= at - window:
            first += 1
        most = max(most, last - first + 1)
    return most


def run_processes(target: Callable[..., None], prefix: str, count: int = PROCESSES) -> list[list[float]]:
    context = multiprocessing.get_context("spawn")  # a fresh interpreter, as separate workers are
    barrier = context.Barrier(count)
    results: multiprocessing.Queue[list[float]] = context.Queue()
    processes = [context.Process(target=target, args=(prefix, barrier, results)) for _ in range(count)]
    for process in processes:
        process.start()
    collected: list[list[float]] = []
    deadline = time.monotonic() + 60
    while len(collected) < count:
        try:
            collected.append(results.get(timeout=0.5))
        except queue.Empty:
            # A child that died never reports: fail now rather than wait out the deadline.
            crashed = [p.exitcode for p in processes if p.exitcode not in (None, 0)]
            assert not crashed, f"a worker process failed with exit code {crashed}"
            assert time.monotonic() < deadline, "worker processes did not report in 60 s"
    for process in processes:
        process.join(timeout=10)
        assert process.exitcode == 0
    return collected


def test_processes_share_one_bucket(prefix: str) -> None:
    per_process = run_processes(take_tokens, prefix)
    stamps = [stamp for grants in per_process for stamp in grants]
    grants = len(stamps) // 2
    # Each grant happened on the server between the stamps taken around its call, so the grants
    # all fell within this span (or a shorter one), and one shared bucket allows at most
    # rate * span + burst in it. Per-process buckets would allow three times the burst and rate.
    span = max(stamps) - min(stamps)
    assert grants <= RATE * span + BURST + 1e-6
    # And the bucket was really used, by everyone: each process got tokens, the total near the rate.
    assert all(per_process)
    assert grants >= RATE * WINDOW * 0.5


def test_processes_share_one_concurrency_cap(prefix: str) -> None:
    per_process = run_processes(hold_slots, prefix)
    peak = max(max(seen) for seen in per_process)
    assert 1 <= peak <= SLOT_LIMIT
    assert redis.Redis.from_url(REDIS_URL).zcard(f"{prefix}:slots:{{crossref}}") == 0


def test_four_processes_never_put_more_than_n_arrivals_in_any_second(prefix: str) -> None:
    per_process = run_processes(hammer, prefix, HAMMERS)
    arrivals = sorted(stamp for sent in per_process for stamp in sent)
    span = arrivals[-1] - arrivals[0]
    busiest = max_in_any_window(arrivals, 1.0)
    print(  # the figures for the report (pytest -s)
        f"\n{HAMMERS} processes x {TASKS_PER_HAMMER} tasks, {len(arrivals)} arrivals in {span:.2f} s "
        f"({(len(arrivals) - 1) / span:.2f}/s), per process {[len(s) for s in per_process]}; "
        f"most arrivals in any 1 s window: {busiest} (limit {LIMIT}); "
        f"most in any 1.1 s window: {max_in_any_window(arrivals, 1.1)}"
    )
    assert all(per_process)
    assert busiest <= LIMIT
    # And the bucket is used, not starved: close to the paced rate (`gcra.pace`).
    assert (len(arrivals) - 1) / span >= 0.8 * pace(LIMIT, LIMIT, JITTER)[0]


async def test_a_429_in_one_process_lowers_the_rate_for_all_on_the_server_clock(prefix: str) -> None:
    first = RedisRateLimiter(redis_asyncio.Redis.from_url(REDIS_URL), prefix=prefix)
    second = RedisRateLimiter(redis_asyncio.Redis.from_url(REDIS_URL), prefix=prefix)
    try:
        assert await first.try_acquire("pubmed:single", 3.0, 1) == 0.0
        await second.penalize("pubmed:single", 0.5)
        assert 0.3 < await first.try_acquire("pubmed:single", 3.0, 1) <= 0.5  # the shared not-before
        assert await first.rate_fraction("pubmed:single") == pytest.approx(0.5, abs=1e-3)
        await asyncio.sleep(0.5)
        assert await first.try_acquire("pubmed:single", 3.0, 1) == 0.0
        # Half of 3/s: the next one is 2/3 s away, for every process.
        assert 0.6 < await second.try_acquire("pubmed:single", 3.0, 1) <= 0.67
    finally:
        await first.aclose()
        await second.aclose()


def test_a_send_delay_one_process_saw_widens_every_processs_pace(prefix: str) -> None:
    """The learnt send margin is shared through the real Redis: a process that saw a late send
    raises the margin the others pace with (and a smaller delay elsewhere never lowers it)."""

    async def run() -> tuple[float, float, float]:
        late = RedisRateLimiter(redis_asyncio.Redis.from_url(REDIS_URL), prefix=prefix)
        other = RedisRateLimiter(redis_asyncio.Redis.from_url(REDIS_URL), prefix=prefix)
        try:
            before = await other.send_delays.margin("crossref")
            await late.send_delays.observe("crossref", 0.12)
            await asyncio.sleep(1.1)  # past the other process's one-second read cache
            after = await other.send_delays.margin("crossref")
            await other.send_delays.observe("crossref", 0.03)
            await asyncio.sleep(1.1)
            still = await late.send_delays.margin("crossref")
            return before, after, still
        finally:
            await late.aclose()
            await other.aclose()

    before, after, still = asyncio.run(run())
    assert before == pytest.approx(0.02)
    assert after == pytest.approx(0.12)
    assert still == pytest.approx(0.12)
    rate_before, _ = pace(10, 10, send_margin=before)
    rate_after, _ = pace(10, 10, send_margin=after)
    assert rate_after < rate_before


def test_a_late_send_holds_the_shared_bucket_back_in_redis(prefix: str) -> None:
    """The Lua side of `hold_back`: the bucket's next grant in Redis moves back by the late
    seconds, for every process asking; a bucket nobody has asked is not held back."""

    async def run() -> tuple[float, float, float]:
        limiter = RedisRateLimiter(redis_asyncio.Redis.from_url(REDIS_URL), prefix=prefix)
        rate, burst = pace(0.5, 1.0)  # one request per 2 s
        assert await limiter.try_acquire("dblp:held", rate, burst) == 0.0
        before = await limiter.try_acquire("dblp:held", rate, burst)
        await limiter.hold_back("dblp:held", 0.5)
        after = await limiter.try_acquire("dblp:held", rate, burst)
        await limiter.hold_back("arxiv:never-asked", 0.5)
        fresh = await limiter.try_acquire("arxiv:never-asked", *pace(1 / 3, 1.0))
        await limiter.aclose()
        return before, after, fresh

    before, after, fresh = asyncio.run(run())
    assert before > 1.0
    assert after - before == pytest.approx(0.5, abs=0.05)
    assert fresh == 0.0
