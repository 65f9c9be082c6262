"""A circuit breaker per source: stop calling a source that keeps failing, and probe it now and then.

    closed ──N consecutive transient failures──> open ──reset_seconds──> half-open
      ^                                            ^                         │
      └──────────────── probe succeeds ────────────┴───── probe fails ───────┘

Only transient failures count (5xx, timeouts, resets, malformed bodies). Any other answer from the
source (a record, a 404, a 4xx, a 429) shows it is up, and closes the circuit again.

The breaker is per process, on purpose. Its state is a cheap local guess that each process
learns on its own within `failure_threshold` failed calls; sharing it through Redis would add a
round trip to every request and make Redis a single point of failure for a question that is
only an optimisation. What must be global, the load all processes put on a source together, is
already bounded by the shared token buckets (`aletheia.sources.transport.ratelimit`), so N processes each
sending their own probe cannot hammer a failing source beyond its configured rate.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING

from aletheia.sources.base import SourceUnavailableError

if TYPE_CHECKING:
    from aletheia.config.settings import Settings


class BreakerState(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitBreaker:
    """Closed -> open after `failure_threshold` consecutive transient failures; half-open after
    `reset_seconds`, letting one probe through; the probe's outcome closes or re-opens it.

    Use: `before_call()` (raises SourceUnavailableError when the call must not be made), then
    `record_success()` or `record_failure()` with the outcome.
    """

    def __init__(
        self,
        source: str,
        *,
        failure_threshold: int = 5,
        reset_seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if failure_threshold < 1:
            raise ValueError(f"failure_threshold must be at least 1, got {failure_threshold!r}")
        if reset_seconds <= 0:
            raise ValueError(f"reset_seconds must be positive, got {reset_seconds!r}")
        self.source = source
        self.failure_threshold = failure_threshold
        self.reset_seconds = reset_seconds
        self._clock = clock
        self._failures = 0
        self._opened_at: float | None = None
        self._probe_started_at: float | None = None

    @classmethod
    def from_settings(
        cls, source: str, settings: Settings, *, clock: Callable[[], float] = time.monotonic
    ) -> CircuitBreaker:
        return cls(
            source,
            failure_threshold=settings.circuit_failure_threshold,
            reset_seconds=settings.circuit_reset_seconds,
            clock=clock,
        )

    @property
    def state(self) -> BreakerState:
        if self._opened_at is None:
            return BreakerState.CLOSED
        if self._clock() - self._opened_at < self.reset_seconds:
            return BreakerState.OPEN
        return BreakerState.HALF_OPEN

    @property
    def consecutive_failures(self) -> int:
        return self._failures

    def before_call(self) -> None:
        """Allow the call, or raise SourceUnavailableError while the circuit is open."""
        state = self.state
        if state is BreakerState.CLOSED:
            return
        now = self._clock()
        if state is BreakerState.OPEN:
            assert self._opened_at is not None
            remaining = self.reset_seconds - (now - self._opened_at)
            raise SourceUnavailableError(
                self.source,
                f"circuit open after {self._failures} consecutive failures; next probe in {remaining:.1f}s",
            )
        # Half-open: one probe at a time. A probe whose caller vanished (cancelled before recording
        # an outcome) must not wedge the breaker, so a probe older than reset_seconds is replaced.
        if self._probe_started_at is not None and now - self._probe_started_at < self.reset_seconds:
            raise SourceUnavailableError(self.source, "circuit half-open; a probe is already in flight")
        self._probe_started_at = now

    def record_success(self) -> None:
        self._failures = 0
        self._opened_at = None
        self._probe_started_at = None

    def trip(self) -> None:
        """Open the circuit now (e.g. the host does not resolve): no point waiting for N failures."""
        self._failures = max(self._failures, self.failure_threshold)
        self._opened_at = self._clock()
        self._probe_started_at = None

    def record_failure(self) -> None:
        self._failures += 1
        if self._opened_at is not None or self._failures >= self.failure_threshold:
            # A failed probe (or the threshold reached) opens the circuit for a full period.
            self._opened_at = self._clock()
            self._probe_started_at = None
