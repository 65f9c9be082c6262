"""Server-side rate limits: a token bucket per source and request kind, refilled continuously."""

from __future__ import annotations

import math
import time
from collections.abc import Callable


class TokenBucket:
    """`rate` tokens per second up to `burst`; a request takes one token or is refused."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be > 0 and burst >= 1")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = burst
        self._stamp = clock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def try_take(self) -> float:
        """0.0 when a token was taken; otherwise the seconds until one will be there."""
        self._refill()
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return 0.0
        return (1.0 - self._tokens) / self.rate


def retry_after_header(wait_seconds: float) -> str:
    """Retry-After as delay-seconds (RFC 9110 asks for a whole number), at least 1."""
    return str(max(1, math.ceil(wait_seconds - 1e-9)))
