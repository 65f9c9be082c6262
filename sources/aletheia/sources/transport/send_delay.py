"""How late requests really leave after their grant: the send margin the pacing allows for, learnt.

`gcra.pace` spaces grants so that no more than N requests reach a source in any window, provided
each request leaves within m (the send margin) of its grant. `PoliteTransport` gives up a grant it
could not use within m (`acquire_in_time`), but a request can still be held after that check:
httpx and the socket layer yield to the event loop before the bytes go out, and a loop that has
just been handed fifty answers of one batch runs fifty decisions first (measured: 80-100 ms with
2,000 references in flight; more with many Celery threads in one process). So the transport also
measures, from httpcore's trace, when each request's headers were written, and reports the delay
here; the margin each source is paced with is the largest delay seen lately (decaying with a
half-life, between `SEND_MARGIN` and `MAX_SEND_MARGIN`). A loop that keeps up is paced at the
tight margin; a congested one, whose CPU is then the bottleneck anyway, is paced wider.

With Redis the largest delay is shared (`SharedSendDelays`): the spacing that protects a late
request from one process is the interval the other processes leave after their own grants, so
every process must pace with the worst delay any of them sees.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from aletheia.sources.base import RateLimitedError
from aletheia.sources.transport.gcra import SEND_MARGIN
from aletheia.sources.transport.item_stats import count_extra

if TYPE_CHECKING:
    from aletheia.sources.base import SourceStats
    from aletheia.sources.transport.limiter import RateLimiter

# Never pace for more than this (seconds): a process stalled for longer is broken, not slow, and
# the late-grant check and the 429 handling cover it.
MAX_SEND_MARGIN = 0.25
# A delay seen counts fully now and half as much after this long (seconds).
HALF_LIFE = 60.0
# How long a process reuses the shared margin before asking Redis again (seconds).
SHARED_READ_INTERVAL = 1.0


class SendDelays:
    """The largest recent send delay per source, in this process (a decaying maximum)."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        floor: float = SEND_MARGIN,
        ceiling: float = MAX_SEND_MARGIN,
        half_life: float = HALF_LIFE,
    ) -> None:
        self._clock = clock
        self.floor, self.ceiling, self.half_life = floor, ceiling, half_life
        self._seen: dict[str, tuple[float, float]] = {}  # source -> (delay, when)

    def _decayed(self, source: str) -> float:
        delay, when = self._seen.get(source, (0.0, 0.0))
        return delay * math.pow(0.5, max(0.0, self._clock() - when) / self.half_life)

    def current(self, source: str) -> float:
        return min(self.ceiling, max(self.floor, self._decayed(source)))

    def record(self, source: str, seconds: float) -> bool:
        """True when `seconds` raised the source's margin."""
        if seconds <= self._decayed(source):
            return False
        self._seen[source] = (min(seconds, self.ceiling), self._clock())
        return seconds > self.floor

    async def margin(self, source: str) -> float:
        return self.current(source)

    async def observe(self, source: str, seconds: float) -> None:
        self.record(source, seconds)


# KEYS: the margin key. ARGV: delay seconds, ttl ms. The stored delay is raised, never lowered; it
# lapses `ttl` after the last raise, so a congestion long over stops slowing every process.
_RAISE = """
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > current then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2]))
  return 1
end
return 0
"""


class SharedSendDelays:
    """`SendDelays` in this process, and the largest raise of any process in Redis."""

    def __init__(self, redis: Any, *, prefix: str = "aletheia", local: SendDelays | None = None) -> None:
        self._redis = redis
        self._prefix = prefix
        self.local = local or SendDelays()
        self._raise = redis.register_script(_RAISE)
        self._shared: dict[str, tuple[float, float]] = {}  # source -> (delay, read at)

    def _key(self, source: str) -> str:
        return f"{self._prefix}:send-margin:{{{source}}}"

    async def margin(self, source: str) -> float:
        now = time.monotonic()
        shared, read_at = self._shared.get(source, (0.0, -math.inf))
        if now - read_at >= SHARED_READ_INTERVAL:
            raw = await self._redis.get(self._key(source))
            shared = float(raw) if raw is not None else 0.0
            self._shared[source] = (shared, now)
        local = self.local.current(source)
        return min(self.local.ceiling, max(local, shared))

    async def observe(self, source: str, seconds: float) -> None:
        if self.local.record(source, seconds):
            ttl_ms = int(self.local.half_life * 2 * 1000)
            await self._raise(keys=[self._key(source)], args=[repr(min(seconds, self.local.ceiling)), ttl_ms])
            self._shared.pop(source, None)  # read it afresh next time


class Pacing(NamedTuple):
    """One request's pacing: its bucket, the GCRA rate and burst, the source's window, and the
    send margin the rate was computed with."""

    bucket: str
    rate: float
    burst: float
    window: float
    margin: float


class SendGate:
    """Requests leaving and long GIL-holding decodes never overlap, in one process.

    `json.loads` of a large body (a page of 200 works: megabytes) runs in C and holds the GIL for
    tens of milliseconds, in a worker thread or not; a request granted just before it leaves only
    after it (measured: 80-93 ms after the grant, and a 429). So a large decode waits until no
    request is between its grant and its headers' write, and no grant is asked for while a decode
    runs or waits (decodes have priority: sends are short, and would otherwise starve them).
    Process-wide (threads of a Celery pool share one GIL), so a `threading` lock guards the
    counts and waiting is polling, at `POLL` seconds."""

    POLL = 0.002

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sending = 0
        self._decoding = 0  # running or waiting to run

    @property
    def decoding(self) -> bool:
        return self._decoding > 0

    async def no_decode(self) -> None:
        while self._decoding:  # noqa: ASYNC110 - other threads' loops: no asyncio.Event to share
            await asyncio.sleep(self.POLL)

    def begin_send(self) -> None:
        with self._lock:
            self._sending += 1

    def end_send(self) -> None:
        with self._lock:
            self._sending = max(0, self._sending - 1)

    @asynccontextmanager
    async def decode(self) -> AsyncIterator[None]:
        with self._lock:
            self._decoding += 1
        try:
            while self._sending:  # noqa: ASYNC110 - as in no_decode
                await asyncio.sleep(self.POLL)
            yield
        finally:
            with self._lock:
                self._decoding -= 1


# One per process: every client and every thread's event loop shares the GIL.
SEND_GATE = SendGate()


class SentAt:
    """When httpcore finished writing a request's headers (its `trace` extension): the moment the
    request left, as near as the client can tell; the request then stops holding decodes off."""

    def __init__(self, gate: SendGate | None = None) -> None:
        self.at: float | None = None
        self._gate = gate

    async def trace(self, name: str, info: Mapping[str, Any]) -> None:
        if self.at is None and name.endswith("send_request_headers.complete"):
            self.at = time.monotonic()
            self.release()

    def release(self) -> None:
        """No longer a send in flight (headers written, or the request failed)."""
        if self._gate is not None:
            self._gate.end_send()
            self._gate = None


async def acquire_in_time(
    limiter: RateLimiter,
    pacing: Pacing,
    deadline: float | None,
    stats: SourceStats,
    gate: SendGate = SEND_GATE,
) -> float | None:
    """A grant of `pacing.bucket` that the request can use within the send margin, or another one.
    Returns when the granting request was sent to the bucket (None if the limiter cannot say).
    The request then counts as a send in flight in `gate` until `SentAt` releases it.

    The pacing (`gcra.pace`) assumes a request leaves at most m (`pacing.margin`) after its grant.
    A busy event loop or GIL can hold a granted request longer, and two requests granted an
    interval apart then reach the source together (measured: 1-3 answers 429 in runs of one and
    of four processes). A grant older than m when the request is about to leave is given up (its
    slot goes unused, which only sends fewer) and a new one asked for, so every request leaves
    this check within m of its grant; a large decode is not started while it is on its way
    (`SendGate`), and what holds it after the check all the same is measured (`SentAt`) and
    widens the margin (`SendDelays`)."""
    started = time.monotonic()
    while True:
        await gate.no_decode()
        asked_at = await limiter.acquire(pacing.bucket, pacing.rate, pacing.burst, max_wait=deadline)
        gate.begin_send()
        now = time.monotonic()
        if asked_at is None or (now - asked_at <= pacing.margin and not gate.decoding):
            return asked_at
        gate.end_send()
        count_extra(stats, "late_grants")
        if deadline is not None and now - started > deadline:
            raise RateLimitedError(
                pacing.bucket.split(":", 1)[0],
                f"no grant of bucket {pacing.bucket!r} could be used within {pacing.margin * 1000:.0f} ms "
                f"in {deadline:g}s (the process is too busy to send on time)",
                status_code=None,
                retry_after=1.0 / pacing.rate,
            )
