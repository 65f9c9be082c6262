"""What the transport asks of a rate limiter, and of the book of send delays it paces with.

Protocols only: `ratelimit` (the in-memory and Redis limiters) and `send_delay` (the books) both
implement them, and neither needs the other's module to name them.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Protocol


class SendDelayBook(Protocol):
    async def margin(self, source: str) -> float:
        """The send margin to pace `source` with now (seconds)."""
        ...

    async def observe(self, source: str, seconds: float) -> None:
        """A request to `source` left `seconds` after it was granted."""
        ...


class RateLimiter(Protocol):
    """Shared politeness for every source client (see the module docstring)."""

    # The send margin each source is paced with, learnt from real send delays (`send_delay`).
    send_delays: SendDelayBook

    async def try_acquire(self, bucket: str, rate: float, burst: float) -> float:
        """Admit one request now if the bucket allows it: 0.0 when granted, else the seconds to wait.

        `rate` per second, `burst` requests at once at most (GCRA tolerance; 1 = evenly spaced).

        Never waits, so a Celery task can retry with a countdown instead of sleeping in a slot.
        """
        ...

    async def acquire(
        self, bucket: str, rate: float, burst: float, *, max_wait: float | None = None
    ) -> float | None:
        """Wait for one token; raise RateLimitedError when it would take longer than `max_wait`.

        Returns the local `time.monotonic()` at which the granting request was sent to the bucket
        (the grant happened no earlier), so the caller can tell how late its own request leaves
        (`PoliteTransport` re-asks when later than the pacing's send margin); None if unknown."""
        ...

    async def hold_back(self, bucket: str, seconds: float) -> None:
        """A request of `bucket` left `seconds` later after its grant than the pacing's send margin
        allows for: the bucket's next grant moves back as far (for every process)."""
        ...

    async def penalize(self, bucket: str, seconds: float) -> None:
        """A 429: hold every caller of `bucket` off for `seconds` (Retry-After) and lower its rate
        (halved, once per block; recovering by 10 % of the documented rate per quiet minute)."""
        ...

    def slot(self, source: str, limit: int) -> AbstractAsyncContextManager[None]:
        """`async with limiter.slot(source, limit):` holds one of at most `limit` concurrent slots."""
        ...

    async def aclose(self) -> None:
        """Release connections (a no-op in memory)."""
        ...
