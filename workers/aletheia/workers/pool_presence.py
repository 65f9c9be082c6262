"""Is anyone there? Which pools have a worker consuming their queue, and how many messages wait.

`aletheia wait` asks this when a job has not moved for a while, so that a job nobody will ever
pick up (no worker started, a pool missing) is said out loud instead of waited on in silence.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from celery import Celery

from aletheia.workers.app import QUEUES
from aletheia.workers.dispatch import broker_address


@dataclass(frozen=True)
class PoolsSeen:
    broker: str  # the broker's address, password masked
    consumers: dict[str, list[str]] = field(default_factory=dict)  # queue -> worker names
    waiting: dict[str, int] = field(default_factory=dict)  # queue -> messages in it
    unreachable: str | None = None  # why the broker could not be asked

    @property
    def missing(self) -> list[str]:
        """The pools (queues) no worker consumes."""
        return [queue for queue in QUEUES if not self.consumers.get(queue)]


def pools_seen(app: Celery | None = None, *, timeout: float = 1.0) -> PoolsSeen:
    """Ask every worker which queues it consumes (a broadcast; silent workers count as absent)
    and the broker how long each queue is."""
    import kombu.exceptions
    import redis.exceptions

    if app is None:
        from aletheia.workers.app import app as default_app

        app = default_app
    broker = broker_address(app)
    try:
        replies = app.control.inspect(timeout=timeout).active_queues() or {}
        waiting = _queue_lengths(app)
    except (kombu.exceptions.OperationalError, redis.exceptions.RedisError, OSError) as exc:
        return PoolsSeen(broker=broker, unreachable=str(exc) or type(exc).__name__)
    consumers: dict[str, list[str]] = {}
    for worker, queues in sorted(replies.items()):
        for queue in queues or []:
            consumers.setdefault(str(queue.get("name")), []).append(worker)
    return PoolsSeen(broker=broker, consumers=consumers, waiting=waiting)


def _queue_lengths(app: Celery) -> dict[str, int]:
    # Kombu's Redis transport keeps each queue as a list named after it.
    with app.connection_for_read() as connection:
        client = connection.default_channel.client
        return {queue: int(client.llen(queue)) for queue in QUEUES}


def stall_notice(job_id: str, idle_seconds: float, seen: PoolsSeen) -> str | None:
    """What to tell the person waiting for a job that has not moved, or None when every pool has
    a worker (the job is then just slow: rate limits, a long document)."""
    idle = f"job {job_id} has not moved for {idle_seconds:.0f}s"
    if seen.unreachable is not None:
        return f"{idle}: the broker at {seen.broker} does not answer ({seen.unreachable})"
    if not seen.consumers:
        waiting = sum(seen.waiting.values())
        return (
            f"{idle}: no worker has picked it up; no worker answers on the broker at {seen.broker} "
            f"({waiting} message(s) waiting). Start the pools (ops/start)"
        )
    if seen.missing:
        queued = ", ".join(f"{q} ({seen.waiting.get(q, 0)} waiting)" for q in seen.missing)
        return f"{idle}: no worker consumes {queued} on the broker at {seen.broker}"
    return None
