"""An outage of PostgreSQL or of Redis is waited out, not recorded: the base class of every task.

A task that meets a database connection error (SQLAlchemy's `OperationalError`, a DBAPI error that
invalidated its connection, a pool timeout) or a Redis connection error (the rate limiter's Redis,
the broker while a step asks for the next one) first waits in its slot, for up to half a minute,
until that service answers again (`workers/outage_wait.py`), and then goes back to the queue with a
countdown of about a second: work resumes within a second or two of the outage's end (issue 33:
with the countdown alone, 30-60 s after it). Past the wait, the countdown grows from about a
second to `MAX_OUTAGE_BACKOFF` seconds (jittered, so a pool's tasks do not all come back at once;
at most half the visibility timeout), for as long as the outage lasts. It is not an
attempt: nothing is settled and no item is counted as failed, because the reference or the job is
not at fault. Any other error is the step's failure policy's business (pipeline/jobs/kinds.py,
applied by the one runner, pipeline/jobs/runner.py).

Why retry in the task and not only in the re-drive: the re-drive waits until work has been idle
for a while (docs/service.md, "Re-drive"); a ten-second outage must heal in seconds, not then.
Why unbounded: a message given up on is lost until the re-drive finds it, and a service whose
database is down can do nothing else meanwhile; this is the policy the broker connection already
has (`broker_connection_max_retries = None`). Every retry is logged with its error.
"""

from __future__ import annotations

import logging
import random
from typing import Any

from celery import Task

from aletheia.config import get_settings
from aletheia.workers.outage_wait import OUTAGE_WAIT_SECONDS, Service, failed_service, process_waiter

logger = logging.getLogger(__name__)

FIRST_OUTAGE_BACKOFF = 1.0  # seconds before the first retry, doubled at each later one
MAX_OUTAGE_BACKOFF = 30.0
OUTAGE_HEADER = "aletheia_outages"
# The error retries a step's message has had (its failure policy's count, pipeline/jobs/kinds.py).
ERRORS_HEADER = "aletheia_errors"


def is_outage(exc: BaseException) -> bool:
    """True when `exc`, or an error it was raised from or while handling, is a lost connection to
    PostgreSQL or Redis (`outage_wait.failed_service`, which also says which one)."""
    return failed_service(exc) is not None


def outage_backoff(outage_retries: int, *, visibility_timeout: float | None = None) -> float:
    """Seconds until the next try: 1, 2, 4, ... capped at `MAX_OUTAGE_BACKOFF`, times 0.5-1.5, and
    never more than half the broker's visibility timeout: a worker holds a message with a
    countdown unacknowledged, and one held longer than that timeout is handed to another worker
    as well (a second delivery of the same step)."""
    cap = (
        MAX_OUTAGE_BACKOFF if visibility_timeout is None else min(MAX_OUTAGE_BACKOFF, visibility_timeout / 3)
    )
    base = min(cap, FIRST_OUTAGE_BACKOFF * 2.0 ** min(outage_retries, 16))
    return round(base * (0.5 + random.random()), 3)  # at most 1.5 x cap: half the visibility timeout


class OutageRetryingTask(Task):  # type: ignore[misc]  # Celery ships no annotations
    """The base of every Aletheia task (`aletheia.workers.app.task`): an outage is a retry."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except Exception as exc:
            service = failed_service(exc)
            if service is None:  # not an outage: the task's own business
                raise
            seen = header_count(self.request, OUTAGE_HEADER)
            visibility = get_settings().visibility_timeout_seconds
            reason = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"
            back = _waited_out(self.request, service, visibility)  # answers again (outage_wait.py)
            countdown = outage_backoff(0 if back else seen, visibility_timeout=visibility)
            logger.warning(
                "%s: database or broker %s (%s)%s; retrying in %.1fs",
                self.name,
                "was unreachable" if back else "unreachable",
                reason,
                " and answers again" if back else "",
                countdown,
                extra={"outage_retries": seen + 1},
            )
            # `max_retries`: this one retry is always allowed, whatever the task's own bound for
            # its own errors (Celery counts every retry in `request.retries`).
            raise self.retry(
                countdown=countdown,
                max_retries=self.request.retries + 1,
                headers=carried_headers(self.request, **{OUTAGE_HEADER: seen + 1}),
            ) from None


def _waited_out(request: Any, service: Service, visibility_timeout: float) -> bool:
    """Wait in this slot until `service` (the one whose connection was lost) answers again, for at
    most `OUTAGE_WAIT_SECONDS` (and a third of the visibility timeout); True when it does. Not for
    an eager `apply()` (tests, the embedded mode), whose retry runs at once anyway."""
    if getattr(request, "is_eager", False):
        return False
    return process_waiter().wait(service, min(OUTAGE_WAIT_SECONDS, visibility_timeout / 3))


def header_count(request: Any, header: str) -> int:
    """A count this message carries in a header of ours (`OUTAGE_HEADER`: the outage retries,
    which token deferrals and error retries must not lengthen; `ERRORS_HEADER`: the error
    retries, which outages and deferrals must not use up). A worker exposes a custom header as an
    attribute of the request; an eager `apply()` keeps it in `request.headers`."""
    found = getattr(request, header, None)
    if found is None:
        found = (getattr(request, "headers", None) or {}).get(header)
    try:
        return max(0, int(found or 0))
    except (TypeError, ValueError):
        return 0


def carried_headers(request: Any, **updates: int) -> dict[str, int]:
    """Our counts for the retry's message: a retry's `headers` replace the message's, so each
    retry carries both counts, `updates` changed."""
    return {h: header_count(request, h) for h in (OUTAGE_HEADER, ERRORS_HEADER)} | updates
