"""Publishing steps as Celery messages (the queue's `Dispatcher`)."""

from __future__ import annotations

import logging
from typing import Any

from celery import Celery

logger = logging.getLogger(__name__)


class CeleryDispatcher:
    """`send(task, *args)` publishes by name: the routing table picks the queue."""

    def __init__(self, app: Celery | None = None) -> None:
        if app is None:
            from aletheia.workers.app import app as default_app

            app = default_app
        self.app = app

    def send(self, task: str, *args: Any) -> None:
        self.app.send_task(task, args=list(args))
        logger.debug("sent %s%s", task, tuple(args))
