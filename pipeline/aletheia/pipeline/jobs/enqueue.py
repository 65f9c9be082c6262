"""Asking for a job's first step, and what a producer does when the broker refuses it.

A job row is committed before its first message is sent (a worker must find the row the message
names). When the broker cannot take that message (Redis down, refusing connections), nothing is
queued: the job is marked `failed` with the reason ("never enqueued"), so the re-drive, which
re-sends only `queued` and `running` work, never runs it later behind the user's back (a user who
submits again would get the work twice), and the producer is told (`BrokerUnavailable`).
"""

from __future__ import annotations

from aletheia.core.errors import AletheiaError
from aletheia.pipeline.jobs.context import Dispatcher
from aletheia.pipeline.runtime import Runtime
from aletheia.storage.models import JobStatus, utcnow

NEVER_ENQUEUED = "never enqueued"


class BrokerUnavailable(ConnectionError, AletheiaError):
    """The broker did not take a message: nothing was queued. `broker` is its address with any
    password masked; `reason` is what the connection said."""

    job_id: str | None = None  # the job marked failed as never enqueued, when there was one

    def __init__(self, broker: str, reason: str) -> None:
        super().__init__(f"the broker at {broker} does not answer ({reason})")
        self.broker = broker
        self.reason = reason

    def __reduce__(self) -> tuple[object, ...]:
        return (BrokerUnavailable, (self.broker, self.reason))


def enqueue_first_step(runtime: Runtime, dispatcher: Dispatcher, task: str, job_id: str) -> None:
    """Send the job's first step; if the broker refuses it, the job (still `queued`) is marked
    `failed` as never enqueued, and `BrokerUnavailable` is raised to the producer."""
    try:
        dispatcher.send(task, job_id)
    except BrokerUnavailable as exc:
        if mark_never_enqueued(runtime, job_id, exc):
            exc.job_id = job_id
        raise


def mark_never_enqueued(runtime: Runtime, job_id: str, exc: BrokerUnavailable) -> bool:
    """`queued` -> `failed` (compare-and-set: a job some worker did start is left alone)."""
    return runtime.jobs.transition(
        job_id, JobStatus.QUEUED, JobStatus.FAILED, finished_at=utcnow(), error=f"{NEVER_ENQUEUED}: {exc}"
    )
