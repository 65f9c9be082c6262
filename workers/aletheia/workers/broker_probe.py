"""What the re-drive asks the broker (Redis): did it lose what it held, since when, and is a pool's
queue empty.

A Redis restarted without persistence comes back empty: every queued and unacknowledged message is
gone, and nothing in PostgreSQL says so. A marker key, set by the first re-drive pass against a
broker and never expiring, tells it: when a pass finds it missing, the broker lost its data since
the previous pass (or this is the first pass against it). Redis says how long it has been up
(`INFO server`): messages sent before it started are gone, messages sent since are in it, so the
re-drive sends again the unsettled work last touched before then — at once, held or waiting — and
leaves alone what was queued to this Redis (on a fresh deployment: everything).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any, Final

from aletheia.config import get_settings
from aletheia.storage.models import utcnow

logger = logging.getLogger(__name__)

MARKER: Final = "aletheia:broker-marker"
# Work touched up to this long after Redis's start counts as sent before it: the workers' clocks
# and the Redis host's may differ a little, and sending a step twice costs only work.
CLOCK_MARGIN: Final = timedelta(seconds=5)
# kombu's Redis transport keeps a queue's messages of priority p > 0 in "<queue>\x06\x16<p>"
# (its default priority steps 0, 3, 6, 9): an empty queue is empty at every step.
_PRIORITY_SEPARATOR: Final = "\x06\x16"
_PRIORITY_STEPS: Final = (3, 6, 9)


class RedisBrokerProbe:
    def __init__(self, client: Any) -> None:
        self.client = client

    @classmethod
    def from_settings(cls) -> RedisBrokerProbe | None:
        url = get_settings().broker_url
        if url is None or not url.get_secret_value().startswith(("redis://", "rediss://", "unix://")):
            return None
        import redis

        return cls(redis.Redis.from_url(url.get_secret_value(), socket_timeout=10, socket_connect_timeout=5))

    def lost_since(self) -> datetime | None:
        if not self.client.set(MARKER, "1", nx=True):
            return None
        started = self._started_at()
        logger.warning(
            "the broker holds no marker: the messages it had before %s are taken as lost",
            started.isoformat(timespec="seconds"),
        )
        return started

    def _started_at(self) -> datetime:
        """When this Redis started, by its own uptime (now, if it will not say)."""
        import redis.exceptions

        now = utcnow()
        try:
            uptime = float(self.client.info("server")["uptime_in_seconds"])
        except (redis.exceptions.ResponseError, KeyError, TypeError, ValueError):
            return now
        return min(now, now - timedelta(seconds=uptime) + CLOCK_MARGIN)

    def queue_idle(self, queue: str) -> bool:
        keys = [queue, *(f"{queue}{_PRIORITY_SEPARATOR}{step}" for step in _PRIORITY_STEPS)]
        return sum(int(self.client.llen(key)) for key in keys) == 0

    def close(self) -> None:
        self.client.close()
