"""Global politeness: one token bucket per source and request kind, and a concurrency cap per source.

Celery's own `rate_limit` is per worker, so a limit every process must respect together lives in
Redis: the bucket is refilled and taken in one Lua script (atomic, and timed by the Redis server's
clock so processes on different hosts agree), and the concurrency cap is a sorted set of expiring
leases (a crashed process loses its slot when its lease runs out instead of holding it forever).
Without Redis (the embedded, single-process pipeline) the same interface is kept in memory.

Bucket names are `"<source>:<kind>"` (`crossref:single`, `crossref:search`): Crossref documents a
lower rate for searches than for single records, so the two are counted apart.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from aletheia.core.records import SourceName
from aletheia.sources.base import RateLimitedError

if TYPE_CHECKING:
    from aletheia.config.settings import Settings

logger = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]


class RateLimiter(Protocol):
    """Shared politeness for every source client (see the module docstring)."""

    async def try_acquire(self, bucket: str, rate: float, burst: int) -> float:
        """Take one token now if there is one: 0.0 when granted, else the seconds to wait.

        Never waits, so a Celery task can retry with a countdown instead of sleeping in a slot.
        """
        ...

    async def acquire(self, bucket: str, rate: float, burst: int, *, max_wait: float | None = None) -> None:
        """Wait for one token; raise RateLimitedError when it would take longer than `max_wait`."""
        ...

    async def penalize(self, bucket: str, seconds: float) -> None:
        """Hold every caller of `bucket` off for `seconds` (after a 429 / Retry-After)."""
        ...

    def slot(self, source: str, limit: int) -> AbstractAsyncContextManager[None]:
        """`async with limiter.slot(source, limit):` holds one of at most `limit` concurrent slots."""
        ...

    async def aclose(self) -> None:
        """Release connections (a no-op in memory)."""
        ...


def _check_bucket_args(rate: float, burst: int) -> None:
    if not rate > 0:
        raise ValueError(f"rate must be positive, got {rate!r}")
    if burst < 1:
        raise ValueError(f"burst must be at least 1, got {burst!r}")


def _source_of(bucket: str) -> str:
    return bucket.split(":", 1)[0]


async def _acquire_by_waiting(
    limiter: RateLimiter, sleep: Sleep, bucket: str, rate: float, burst: int, max_wait: float | None
) -> None:
    # No reservation: each round asks again, so a token freed by a penalty lifting or by another
    # process's bucket state is seen. The wait is counted from what was slept, not from a clock,
    # so a fake sleep in tests keeps `max_wait` exact.
    waited = 0.0
    while True:
        wait = await limiter.try_acquire(bucket, rate, burst)
        if wait <= 0.0:
            return
        if max_wait is not None and waited + wait > max_wait:
            raise RateLimitedError(
                _source_of(bucket),
                f"no token in bucket {bucket!r} within {max_wait:g}s",
                status_code=None,
                retry_after=wait,
            )
        await sleep(wait)
        waited += wait


# --------------------------------------------------------------------------------------------------
# In process


@dataclass
class _LocalBucket:
    tokens: float
    stamp: float


class LocalRateLimiter:
    """Token buckets and concurrency caps for one process (asyncio), when no Redis is configured."""

    def __init__(self, *, clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep) -> None:
        self._clock = clock
        self._sleep = sleep
        self._buckets: dict[str, _LocalBucket] = {}
        self._blocked_until: dict[str, float] = {}
        self._semaphores: dict[str, tuple[int, asyncio.Semaphore]] = {}

    async def try_acquire(self, bucket: str, rate: float, burst: int) -> float:
        _check_bucket_args(rate, burst)
        now = self._clock()
        blocked_until = self._blocked_until.get(bucket, 0.0)
        if blocked_until > now:
            return blocked_until - now
        state = self._buckets.get(bucket)
        if state is None:
            state = self._buckets[bucket] = _LocalBucket(tokens=float(burst), stamp=now)
        elapsed = max(0.0, now - state.stamp)
        state.tokens = min(float(burst), state.tokens + elapsed * rate)
        state.stamp = now
        if state.tokens >= 1.0:
            state.tokens -= 1.0
            return 0.0
        return (1.0 - state.tokens) / rate

    async def acquire(self, bucket: str, rate: float, burst: int, *, max_wait: float | None = None) -> None:
        await _acquire_by_waiting(self, self._sleep, bucket, rate, burst, max_wait)

    async def penalize(self, bucket: str, seconds: float) -> None:
        if seconds <= 0:
            return
        until = self._clock() + seconds
        if until <= self._blocked_until.get(bucket, 0.0):
            return
        self._blocked_until[bucket] = until
        # Resume at the sustained rate when the block lifts, not with a full burst.
        self._buckets[bucket] = _LocalBucket(tokens=1.0, stamp=until)

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

# Every script reads the time from the Redis server unless a test passes one (the last ARGV), so
# all processes, on any host, refill against one clock. (Writing after TIME needs effect
# replication, the default since Redis 5.)
_NOW = """
local now
if ARGV[#ARGV] ~= '' then
  now = tonumber(ARGV[#ARGV])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
"""

# KEYS: bucket hash, blocked-until key. ARGV: rate, burst, state ttl (ms), now ('' = server TIME).
# Returns the wait in seconds as a string (Lua numbers returned to Redis are truncated to integers).
_TAKE_TOKEN = (
    _NOW
    + """
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local blocked = tonumber(redis.call('GET', KEYS[2]) or '0')
if blocked > now then
  return string.format('%.6f', blocked - now)
end
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local stamp = tonumber(state[2])
if tokens == nil or stamp == nil then
  tokens = burst
  stamp = now
end
local elapsed = now - stamp
if elapsed < 0 then elapsed = 0 end
tokens = math.min(burst, tokens + elapsed * rate)
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = (1 - tokens) / rate
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.9f', tokens), 'ts', string.format('%.6f', now))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return string.format('%.6f', wait)
"""
)

# KEYS: bucket hash, blocked-until key. ARGV: seconds, extra state ttl (ms), now.
# The bucket restarts with one token at the moment the block lifts, so callers resume at the
# sustained rate rather than with a full burst right after the source said "too many".
_PENALIZE = (
    _NOW
    + """
local target = now + tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if current >= target then
  return string.format('%.6f', current)
end
local ms = math.ceil((target - now) * 1000)
redis.call('SET', KEYS[2], string.format('%.6f', target), 'PX', ms)
redis.call('HSET', KEYS[1], 'tokens', '1', 'ts', string.format('%.6f', target))
redis.call('PEXPIRE', KEYS[1], ms + tonumber(ARGV[2]))
return string.format('%.6f', target)
"""
)

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

# A penalised bucket keeps its "resume" state at least this long after the block lifts, long
# enough for any configured bucket (burst / rate is seconds) to have refilled by then.
_PENALTY_STATE_EXTRA_MS = 3_600_000


class RedisRateLimiter:
    """Token buckets and leased concurrency slots shared by every process through Redis.

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
        self._take_token = redis.register_script(_TAKE_TOKEN)
        self._penalize = redis.register_script(_PENALIZE)
        self._take_slot = redis.register_script(_TAKE_SLOT)
        self._renew_slot = redis.register_script(_RENEW_SLOT)

    # Hash tags ({...}) keep a bucket's two keys in one cluster slot, as a script touching both needs.
    def _bucket_keys(self, bucket: str) -> list[str]:
        return [f"{self._prefix}:rl:{{{bucket}}}:tokens", f"{self._prefix}:rl:{{{bucket}}}:blocked"]

    def _slot_key(self, source: str) -> str:
        return f"{self._prefix}:slots:{{{source}}}"

    def _now_arg(self) -> str:
        return "" if self._clock is None else repr(self._clock())

    async def try_acquire(self, bucket: str, rate: float, burst: int) -> float:
        _check_bucket_args(rate, burst)
        state_ttl_ms = math.ceil(burst / rate * 1000) + 1000  # a missing bucket reads as full
        answer = await self._take_token(
            keys=self._bucket_keys(bucket), args=[repr(float(rate)), burst, state_ttl_ms, self._now_arg()]
        )
        return max(0.0, float(answer))

    async def acquire(self, bucket: str, rate: float, burst: int, *, max_wait: float | None = None) -> None:
        await _acquire_by_waiting(self, self._sleep, bucket, rate, burst, max_wait)

    async def penalize(self, bucket: str, seconds: float) -> None:
        if seconds <= 0:
            return
        await self._penalize(
            keys=self._bucket_keys(bucket),
            args=[repr(float(seconds)), _PENALTY_STATE_EXTRA_MS, self._now_arg()],
        )

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
