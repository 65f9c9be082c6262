"""When the polite transport asks again, and how long it waits first (tenacity's policy objects).

An attempt is retried when it failed transiently (408, 5xx but 501/505, timeouts, resets, a 429);
not when our own bucket had no token in time, which only the caller can wait out. Retries stop
after the last attempt, before a wait that would end past the call's deadline, and at once when
the source asks for a Retry-After longer than the transport sleeps through (the RateLimitedError
then reaches the caller, which can retry with a countdown). The wait is the source's Retry-After,
else full-jitter exponential backoff.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tenacity.stop import stop_base
from tenacity.wait import wait_base

from aletheia.sources.base import RateLimitedError, TransientSourceError

__all__ = ["retrying"]


def _worth_retrying(error: BaseException) -> bool:
    # Our own bucket having no token in time (RateLimitedError without an HTTP status) is not the
    # source failing: retrying here would only queue longer. The caller decides (e.g. a countdown).
    if isinstance(error, RateLimitedError) and error.status_code is None:
        return False
    return isinstance(error, TransientSourceError)


class _StopOnLongRetryAfter(stop_base):
    """Give up at once when the source asks us to wait longer than we are willing to sleep."""

    def __init__(self, max_retry_after: float) -> None:
        self.max_retry_after = max_retry_after

    def __call__(self, retry_state: RetryCallState) -> bool:
        error = retry_state.outcome.exception() if retry_state.outcome is not None else None
        return (
            isinstance(error, RateLimitedError)
            and error.retry_after is not None
            and error.retry_after > self.max_retry_after
        )


class _StopPastDeadline(stop_base):
    """Stop before a wait that would end past the call's time budget.

    Like tenacity's `stop_before_delay`, but the time spent counts what was slept through the
    injected sleep too (`idle_for`), so the budget holds under a fake clock in tests as well.
    """

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline

    def __call__(self, retry_state: RetryCallState) -> bool:
        spent = max(retry_state.seconds_since_start or 0.0, retry_state.idle_for)
        return spent + retry_state.upcoming_sleep >= self.deadline


class _RetryAfterOrJitter(wait_base):
    """Wait what the source asked for (429 with Retry-After), else full-jitter exponential backoff."""

    def __init__(self, backoff: wait_base) -> None:
        self.backoff = backoff

    def __call__(self, retry_state: RetryCallState) -> float:
        error = retry_state.outcome.exception() if retry_state.outcome is not None else None
        if isinstance(error, RateLimitedError) and error.retry_after is not None:
            return error.retry_after
        return float(self.backoff(retry_state))


def retrying(
    *,
    attempts: int,
    deadline: float,
    max_retry_after: float,
    backoff: wait_base,
    sleep: Callable[[float], Awaitable[None]],
) -> AsyncRetrying:
    """The retry loop of one call (see the module docstring); the last error is re-raised."""
    return AsyncRetrying(
        stop=(
            stop_after_attempt(attempts)
            | _StopPastDeadline(deadline)
            | _StopOnLongRetryAfter(max_retry_after)
        ),
        wait=_RetryAfterOrJitter(backoff),
        retry=retry_if_exception(_worth_retrying),
        sleep=sleep,
        reraise=True,
    )
