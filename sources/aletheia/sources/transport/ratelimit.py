"""Global politeness: one GCRA bucket per source and request kind, and a concurrency cap per source.

Celery's own `rate_limit` is per worker, so a limit every process must respect together lives in
Redis: a bucket is checked and advanced in one Lua script (atomic, and timed by the Redis server's
clock so processes on different hosts agree), and the concurrency cap is a sorted set of expiring
leases (a crashed process loses its slot when its lease runs out instead of holding it forever).
Without Redis (the embedded, single-process pipeline) the same interface and the same arithmetic
(`aletheia.sources.transport.gcra`) are kept in memory.

A bucket is GCRA, not a token bucket: with `burst=1` two requests are never closer than 1 / rate,
so N per second holds over any sliding window. It adapts: a 429 (`penalize`) sets a shared "not
before" time and halves the bucket's rate for every process; the rate then recovers by 10 % of the
documented rate per quiet minute (docs/sources.md, "Politeness (issue 11)").

Bucket names are `"<source>:<kind>"` (`crossref:single`, `crossref:search`): Crossref documents a
lower rate for searches than for single records, so the two are counted apart.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from typing import TYPE_CHECKING, Any

from aletheia.core.records import SourceName
from aletheia.sources.base import RateLimitedError
from aletheia.sources.transport.gcra import (
    FRACTION_SCRIPT,
    HOLD_BACK_SCRIPT,
    NOW_SNIPPET,
    PENALIZE_SCRIPT,
    TAKE_SCRIPT,
    GcraState,
)
from aletheia.sources.transport.limiter import RateLimiter, SendDelayBook
from aletheia.sources.transport.send_delay import SendDelays, SharedSendDelays

if TYPE_CHECKING:
    from aletheia.config.settings import Settings

logger = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]


def _check_bucket_args(rate: float, burst: float) -> None:
    if not rate > 0:
        raise ValueError(f"rate must be positive, got {rate!r}")
    if burst < 1:
        raise ValueError(f"burst must be at least 1, got {burst!r}")


def _source_of(bucket: str) -> str:
    return bucket.split(":", 1)[0]


class _WaitingForTokens:
    """`acquire` as both limiters have it: `try_acquire` again after each wait it names."""

    _sleep: Sleep

    async def try_acquire(self, bucket: str, rate: float, burst: float) -> float:
        raise NotImplementedError

    async def acquire(
        self, bucket: str, rate: float, burst: float, *, max_wait: float | None = None
    ) -> float:
        # No reservation: each round asks again, so a token freed by a penalty lifting or by another
        # process's bucket state is seen. The wait is counted from what was slept, not from a clock,
        # so a fake sleep in tests keeps `max_wait` exact. The time returned is the real local
        # clock's (whatever clock the bucket runs on): the caller compares it with its own send time.
        waited = 0.0
        while True:
            asked_at = time.monotonic()
            wait = await self.try_acquire(bucket, rate, burst)
            if wait <= 0.0:
                return asked_at
            if max_wait is not None and waited + wait > max_wait:
                raise RateLimitedError(
                    _source_of(bucket),
                    f"no token in bucket {bucket!r} within {max_wait:g}s",
                    status_code=None,
                    retry_after=wait,
                )
            await self._sleep(wait)
            waited += wait


# --------------------------------------------------------------------------------------------------
# In process


class LocalRateLimiter(_WaitingForTokens):
    """GCRA buckets and concurrency caps for one process (asyncio), when no Redis is configured."""

    def __init__(self, *, clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep) -> None:
        self._clock = clock
        self._sleep = sleep
        self.send_delays: SendDelayBook = SendDelays()
        self._buckets: dict[str, GcraState] = {}
        self._semaphores: dict[str, tuple[int, asyncio.Semaphore]] = {}

    def _state(self, bucket: str) -> GcraState:
        state = self._buckets.get(bucket)
        if state is None:
            state = self._buckets[bucket] = GcraState()
        return state

    async def try_acquire(self, bucket: str, rate: float, burst: float) -> float:
        _check_bucket_args(rate, burst)
        return self._state(bucket).take(self._clock(), rate, burst)

    async def hold_back(self, bucket: str, seconds: float) -> None:
        self._state(bucket).hold_back(seconds)

    async def penalize(self, bucket: str, seconds: float) -> None:
        if seconds <= 0:
            return
        self._state(bucket).penalize(self._clock(), seconds)

    async def rate_fraction(self, bucket: str) -> float:
        """The share of the documented rate `bucket` runs at now (below 1.0 after a 429)."""
        return self._state(bucket).fraction(self._clock())

    def slot(self, source: str, limit: int) -> AbstractAsyncContextManager[None]:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit!r}")
        # One semaphore per source; the first limit asked for wins (sources always ask with their
        # configured cap, so a different value would be a programming error worth seeing).
        known = self._semaphores.get(source)
        if known is None:
            known = self._semaphores[source] = (limit, asyncio.Semaphore(limit))
        elif known[0] != limit:
            raise ValueError(f"slot limit for {source!r} is {known[0]}, not {limit}")
        return known[1]  # asyncio.Semaphore is an async context manager over None

    async def aclose(self) -> None:
        return None


# --------------------------------------------------------------------------------------------------
# Shared through Redis

_NOW = NOW_SNIPPET

# KEYS: lease set. ARGV: limit, lease seconds, holder id, now. 1 = slot taken, 0 = full.
_TAKE_SLOT = (
    _NOW
    + """
local lease = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.6f', now))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], string.format('%.6f', now + lease), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], math.ceil(lease * 1000))
  return 1
end
return 0
"""
)

# KEYS: lease set. ARGV: lease seconds, holder id, now. 1 = renewed, 0 = the lease had expired.
_RENEW_SLOT = (
    _NOW
    + """
local lease = tonumber(ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZADD', KEYS[1], 'XX', string.format('%.6f', now + lease), ARGV[2])
  local ttl = redis.call('PTTL', KEYS[1])
  local wanted = math.ceil(lease * 1000)
  if ttl < wanted then redis.call('PEXPIRE', KEYS[1], wanted) end
  return 1
end
return 0
"""
)


class RedisRateLimiter(_WaitingForTokens):
    """GCRA buckets and leased concurrency slots shared by every process through Redis.

    `clock` is for tests only: None (the default) times everything with the Redis server's TIME.
    `lease_seconds` bounds how long a crashed holder keeps a slot; live holders renew their lease
    every third of it, so a long download does not lose its slot.
    """

    def __init__(
        self,
        redis: Any,
        *,
        prefix: str = "aletheia",
        lease_seconds: float = 60.0,
        sleep: Sleep = asyncio.sleep,
        clock: Clock | None = None,
        poll_interval: tuple[float, float] = (0.02, 0.25),
    ) -> None:
        if lease_seconds <= 0:
            raise ValueError("lease_seconds must be positive")
        self._redis = redis
        self._prefix = prefix
        self._lease = lease_seconds
        self._sleep = sleep
        self._clock = clock
        self._poll_min, self._poll_max = poll_interval
        self.send_delays: SendDelayBook = SharedSendDelays(redis, prefix=prefix)
        self._take = redis.register_script(TAKE_SCRIPT)
        self._penalize = redis.register_script(PENALIZE_SCRIPT)
        self._hold_back = redis.register_script(HOLD_BACK_SCRIPT)
        self._fraction = redis.register_script(FRACTION_SCRIPT)
        self._take_slot = redis.register_script(_TAKE_SLOT)
        self._renew_slot = redis.register_script(_RENEW_SLOT)

    # One hash per bucket (tat, nb, low, resume) under `gcra`, not the old token buckets' `rl`, so
    # a rolling upgrade never reads one kind of state as the other.
    def _bucket_keys(self, bucket: str) -> list[str]:
        return [f"{self._prefix}:gcra:{{{bucket}}}"]

    def _slot_key(self, source: str) -> str:
        return f"{self._prefix}:slots:{{{source}}}"

    def _now_arg(self) -> str:
        return "" if self._clock is None else repr(self._clock())

    async def try_acquire(self, bucket: str, rate: float, burst: float) -> float:
        _check_bucket_args(rate, burst)
        answer = await self._take(
            keys=self._bucket_keys(bucket), args=[repr(float(rate)), repr(float(burst)), self._now_arg()]
        )
        return max(0.0, float(answer))

    async def hold_back(self, bucket: str, seconds: float) -> None:
        if seconds <= 0:
            return
        await self._hold_back(keys=self._bucket_keys(bucket), args=[repr(float(seconds)), self._now_arg()])

    async def penalize(self, bucket: str, seconds: float) -> None:
        if seconds <= 0:
            return
        await self._penalize(keys=self._bucket_keys(bucket), args=[repr(float(seconds)), self._now_arg()])

    async def rate_fraction(self, bucket: str) -> float:
        """The share of the documented rate `bucket` runs at now (below 1.0 after a 429)."""
        return float(await self._fraction(keys=self._bucket_keys(bucket), args=[self._now_arg()]))

    def slot(self, source: str, limit: int) -> AbstractAsyncContextManager[None]:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit!r}")
        return self._leased_slot(source, limit)

    @asynccontextmanager
    async def _leased_slot(self, source: str, limit: int) -> AsyncIterator[None]:
        key = self._slot_key(source)
        holder = uuid.uuid4().hex
        pause = self._poll_min
        while not await self._take_slot(keys=[key], args=[limit, repr(self._lease), holder, self._now_arg()]):
            # Jittered polling: waiters across processes do not wake in step.
            await self._sleep(random.uniform(self._poll_min, pause))
            pause = min(self._poll_max, pause * 2)
        renewer = asyncio.create_task(self._keep_lease(key, holder))
        try:
            yield
        finally:
            renewer.cancel()
            with suppress(asyncio.CancelledError):
                await renewer
            await self._redis.zrem(key, holder)

    async def _keep_lease(self, key: str, holder: str) -> None:
        while True:
            await asyncio.sleep(self._lease / 3)
            renewed = await self._renew_slot(keys=[key], args=[repr(self._lease), holder, self._now_arg()])
            if not renewed:
                # The lease ran out (the event loop stalled longer than the lease): the slot may
                # already be someone else's. The request in flight cannot be recalled; say so.
                logger.warning("concurrency lease %s in %s expired before renewal", holder, key)
                return

    async def aclose(self) -> None:
        await self._redis.aclose()


# --------------------------------------------------------------------------------------------------
# Construction


def redis_pool_size(settings: Settings) -> int:
    """Connections the limiter may open per process, derived from the sources' concurrency caps.

    Each request in flight holds at most one connection at a time for a limiter call, plus one for
    its lease renewal; callers beyond that queue on the (blocking) pool instead of failing, so a
    gevent or thread pool with hundreds of greenlets does not open hundreds of connections.
    """
    total = 0
    for name in SourceName:
        try:
            total += settings.limits_for(name.value).concurrency
        except AttributeError:  # the library and Retraction Watch are never called over HTTP
            continue
    return 2 * total + 4


def build_rate_limiter(
    settings: Settings, redis_client: Any | None = None, *, max_connections: int | None = None
) -> RateLimiter:
    """Redis-backed when a Redis client is given or `settings.redis_connection_url()` is set.

    A `redis.asyncio` client belongs to the event loop it first connects in: build one limiter per
    event loop (per worker process for an asyncio worker), not one per task.
    """
    if redis_client is not None:
        return RedisRateLimiter(redis_client)
    url = settings.redis_connection_url()
    if url is None:
        return LocalRateLimiter()
    import redis.asyncio as redis_asyncio

    pool = redis_asyncio.BlockingConnectionPool.from_url(
        url, max_connections=max_connections or redis_pool_size(settings), timeout=settings.http_timeout
    )
    return RedisRateLimiter(redis_asyncio.Redis(connection_pool=pool))
