"""Server-side rate limits per source and request kind: a token bucket refilled continuously (the
default), or a sliding window that counts arrivals, as services that document "N per second" count
them (`SourceSimConfig.limit_mode = "sliding"`)."""

from __future__ import annotations

import bisect
import math
import time
from collections.abc import Callable
from typing import Literal


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


class SlidingWindow:
    """At most `limit` admitted requests in any window of `window` seconds (a sliding log).

    Only admitted requests are counted: a refused one takes nothing, as a service that answers 429
    does not serve it. With `limit = rate x window` this is stricter than a token bucket of the same
    rate, which lets a full burst through on top of the rate within one window.

    `try_take(at=...)` counts a request at the time it arrived rather than when it is looked at: a
    service stamps a request at its edge, and the simulator's own event loop may look at it later
    (its simulated network delay is a sleep that a busy loop ends late). Arrivals may then come out
    of order, so the log is kept sorted and every window that holds the new arrival is checked.
    """

    def __init__(self, limit: int, window: float, clock: Callable[[], float] = time.monotonic) -> None:
        if limit < 1 or window <= 0:
            raise ValueError("limit must be >= 1 and window > 0")
        self.limit = limit
        self.window = window
        self._clock = clock
        self._admitted: list[float] = []  # sorted

    @classmethod
    def for_rate(cls, rate: float, clock: Callable[[], float] = time.monotonic) -> SlidingWindow:
        """ "`rate` per second" as N per window: one second, or 1 / rate when longer (arXiv: 1 per 3 s)."""
        if rate <= 0:
            raise ValueError("rate must be > 0")
        window = max(1.0, 1.0 / rate)
        return cls(max(1, math.floor(rate * window + 1e-9)), window, clock)

    def _in_window_ending(self, end: float) -> int:
        """Admitted arrivals in the half-open window (end - window, end]."""
        log = self._admitted
        return bisect.bisect_right(log, end) - bisect.bisect_right(log, end - self.window)

    def try_take(self, at: float | None = None) -> float:
        """0.0 when the request arriving at `at` (default: now) is admitted; otherwise the seconds
        until the window that is full lets one more in."""
        arrival = self._clock() if at is None else at
        log = self._admitted
        # A request is looked at well within a window of its arrival: arrivals more than two
        # windows before now can share no window with any request still to come (three: a margin).
        del log[: bisect.bisect_right(log, self._clock() - 3 * self.window)]
        # Every window holding the arrival ends at it or at a later arrival less than one window on.
        later = log[bisect.bisect_left(log, arrival) : bisect.bisect_left(log, arrival + self.window)]
        ends = [arrival, *later]
        full = next((end for end in ends if self._in_window_ending(end) >= self.limit), None)
        if full is None:
            bisect.insort(log, arrival)
            return 0.0
        # The full window's first arrival must leave it before this one fits.
        first = log[bisect.bisect_right(log, full - self.window)]
        # Never 0.0 for a refusal (0.0 means admitted), even where rounding makes the wait vanish.
        return max(1e-6, first + self.window - arrival)


LimitMode = Literal["bucket", "sliding"]


def make_limit(
    mode: LimitMode, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
) -> TokenBucket | SlidingWindow:
    """The limit of one source and request kind: `burst` matters only to the token bucket."""
    if mode == "sliding":
        return SlidingWindow.for_rate(rate, clock)
    return TokenBucket(rate, burst, clock)


def retry_after_header(wait_seconds: float) -> str:
    """Retry-After as delay-seconds (RFC 9110 asks for a whole number), at least 1."""
    return str(max(1, math.ceil(wait_seconds - 1e-9)))
