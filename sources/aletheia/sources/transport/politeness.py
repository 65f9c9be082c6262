"""What a polite transport decides before and after a request, without any I/O: which bucket a
request draws from and at what pace (`request_pacing`, GCRA via `aletheia.sources.transport.gcra.pace`),
what the source's answer says about its limits (`parse_retry_after`, `parse_rate_limit_headers`),
and in which order waiting requests go (`PriorityGate`). Split out of `transport`, which
re-exports these names."""

from __future__ import annotations

import asyncio
import email.utils
import heapq
import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from aletheia.sources.base import RequestKind
from aletheia.sources.transport.gcra import JITTER_ALLOWANCE, SEND_MARGIN, pace

if TYPE_CHECKING:
    from aletheia.config.settings import SourceLimits


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delay-seconds or an HTTP-date (RFC 9110 §10.2.3)."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # RFC 850 and asctime forms carry no zone; HTTP dates are GMT
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def bucket_for(source: str, kind: RequestKind, limits: SourceLimits) -> tuple[str, float]:
    """The token bucket (name, rate) a request of `kind` draws from.

    A source's documented rate covers all its endpoints, so single records, batches and full texts
    share `"<source>:single"`; only searches with a documented rate of their own (Crossref) draw
    from `"<source>:search"`, and so do venue registry requests (Crossref's `/journals` is a list
    query). One bucket per kind would multiply the rate a source sees.
    """
    if kind in ("search", "venue") and limits.search_rate is not None:
        return f"{source}:search", limits.search_rate
    return f"{source}:single", limits.rate


# Which requests go first when several wait for a source: a batch answers many references per
# token, a single record one, a search one at a time and at a lower rate. Serving the cheap,
# many-answer requests first lets their references be decided (CPU) while searches still wait for
# tokens, instead of all at the end.
PRIORITY: dict[str, int] = {"batch": 0, "single": 1, "fulltext": 2, "search": 3, "venue": 3}


class PriorityGate:
    """At most `limit` holders at once; waiters are admitted by priority, then by `order` (the
    reference's precedence: `precedence.order_key`), then in arrival order."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held = 0
        self._waiters: list[tuple[int, tuple[float, float], int, asyncio.Future[None]]] = []
        self._counter = 0

    async def acquire(self, priority: int, order: tuple[float, float] = (0.0, 0.0)) -> None:
        if self._held < self.limit and not self._waiters:
            self._held += 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._counter += 1
        entry = (priority, order, self._counter, future)
        heapq.heappush(self._waiters, entry)
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release()  # admitted and cancelled at once: hand the place on
            else:
                self._waiters.remove(entry)
                heapq.heapify(self._waiters)
            raise

    def release(self) -> None:
        while self._waiters:
            *_, future = heapq.heappop(self._waiters)
            if not future.done():
                future.set_result(None)
                return
        self._held -= 1


_INTERVAL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_rate_limit_headers(headers: Mapping[str, str]) -> float | None:
    """The rate a source advertises, in requests per second, from `X-Rate-Limit-Limit` and
    `X-Rate-Limit-Interval` (Crossref: `50` and `1s`); None when either is missing or nonsense."""
    limit_text = headers.get("x-rate-limit-limit")
    interval_text = headers.get("x-rate-limit-interval")
    if limit_text is None or interval_text is None:
        return None
    try:
        limit = float(limit_text.strip())
    except ValueError:
        return None
    found = _INTERVAL.match(interval_text)
    if found is None or not math.isfinite(limit) or limit <= 0:
        return None
    seconds = float(found.group(1)) * _UNIT_SECONDS[(found.group(2) or "s").lower()]
    return limit / seconds if seconds > 0 else None


def request_pacing(
    source: str,
    kind: RequestKind,
    limits: SourceLimits,
    *,
    advertised: float | None = None,
    jitter: float = JITTER_ALLOWANCE,
    send_margin: float = SEND_MARGIN,
) -> tuple[str, float, float, float]:
    """(bucket, GCRA rate, GCRA burst, window seconds) for one request.

    The documented rate of the bucket (`bucket_for`), lowered to what the source advertises in its
    headers if that is less, read as "N per window" and paced by `gcra.pace`: evenly spaced, N per
    (window + jitter + send margin + slack), with a burst only where the settings' `burst` exceeds N (the
    most the source accepts in one window; the search bucket's is its own rate). The window is what a 429
    without Retry-After blocks the bucket for.
    """
    bucket, rate = bucket_for(source, kind, limits)
    window_max = float(limits.burst) if rate == limits.rate else rate
    if advertised is not None and advertised < rate:
        rate, window_max = advertised, advertised
    gcra_rate, gcra_burst = pace(rate, window_max, jitter, send_margin)
    return bucket, gcra_rate, gcra_burst, max(1.0, 1.0 / rate)
