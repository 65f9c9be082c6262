"""What the re-drive asks the broker (Redis): did it lose what it held, and is a pool's queue empty.

A Redis restarted without persistence comes back empty: every queued and unacknowledged message is
gone, and nothing in PostgreSQL says so. A marker key, set by the first re-drive pass against a
broker and never expiring, tells it: when a pass finds it missing, the broker lost its data since
the previous pass (or this is the first pass against it: then re-sending the unsettled work once
is harmless, every step being idempotent), and every unsettled item's message is re-sent at once.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from aletheia.config import get_settings

logger = logging.getLogger(__name__)

MARKER: Final = "aletheia:broker-marker"
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

    def lost_messages(self) -> bool:
        created = bool(self.client.set(MARKER, "1", nx=True))
        if created:
            logger.warning("the broker holds no marker: its messages are taken as lost")
        return created

    def queue_idle(self, queue: str) -> bool:
        keys = [queue, *(f"{queue}{_PRIORITY_SEPARATOR}{step}" for step in _PRIORITY_STEPS)]
        return sum(int(self.client.llen(key)) for key in keys) == 0

    def close(self) -> None:
        self.client.close()
