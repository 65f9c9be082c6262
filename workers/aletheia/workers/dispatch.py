"""Publishing steps as Celery messages (the queue's `Dispatcher`)."""

from __future__ import annotations

import logging
from typing import Any

from celery import Celery

from aletheia.pipeline.jobs.enqueue import BrokerUnavailable

logger = logging.getLogger(__name__)


class CeleryDispatcher:
    """`send(task, *args)` publishes by name: the routing table picks the queue. A broker that does
    not take the message (after Celery's own short publish retries, about a second) raises
    `BrokerUnavailable`, naming the broker's address with its password masked."""

    def __init__(self, app: Celery | None = None) -> None:
        if app is None:
            from aletheia.workers.app import app as default_app

            app = default_app
        self.app = app

    def send(self, task: str, *args: Any) -> None:
        import kombu.exceptions
        import redis.exceptions

        try:
            self.app.send_task(task, args=list(args))
        except (kombu.exceptions.OperationalError, redis.exceptions.ConnectionError, ConnectionError) as exc:
            raise BrokerUnavailable(broker_address(self.app), str(exc) or type(exc).__name__) from exc
        logger.debug("sent %s%s", task, tuple(args))


def broker_address(app: Celery) -> str:
    """The broker URL as an operator can print it (`redis://:**@host:6379/0`)."""
    from kombu.utils.url import maybe_sanitize_url

    try:
        url = app.conf.broker_url
    except RuntimeError:  # ALETHEIA_BROKER_URL unset: LazyConfig says so
        return "(no broker configured)"
    return str(maybe_sanitize_url(url))
