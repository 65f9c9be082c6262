"""Per-process state of a worker: one runtime, one event loop, one gateway, built on first use.

Built lazily and keyed by process id, so a prefork child never uses the parent's connections
(database engine, httpx client, Redis pool); closed when the process shuts down.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from celery import signals

from aletheia.config import get_settings
from aletheia.pipeline.joblog import configure_json_logging
from aletheia.pipeline.jobs.context import LoopThread, ServiceContext
from aletheia.pipeline.runtime import Runtime
from aletheia.workers.broker_probe import RedisBrokerProbe
from aletheia.workers.dispatch import CeleryDispatcher

_lock = threading.Lock()
_context: tuple[int, ServiceContext] | None = None


def worker_context() -> ServiceContext:
    global _context
    with _lock:
        if _context is None or _context[0] != os.getpid():
            runtime = Runtime.open(get_settings())
            ctx = ServiceContext(
                runtime=runtime,
                dispatcher=CeleryDispatcher(),
                runner=LoopThread(),
                broker_probe=RedisBrokerProbe.from_settings,
            )
            _context = (os.getpid(), ctx)
        return _context[1]


def close_worker_context() -> None:
    global _context
    with _lock:
        if _context is not None and _context[0] == os.getpid():
            try:
                _context[1].close()
            finally:
                _context = None


def _on_child_shutdown(**_: Any) -> None:
    close_worker_context()


def _on_worker_shutdown(**_: Any) -> None:
    close_worker_context()


def _json_logging(loglevel: Any = None, **_: Any) -> None:
    # Replaces Celery's own logging setup: every line a JSON object with the job id.
    configure_json_logging(loglevel or logging.INFO, role=os.environ.get("ALETHEIA_POOL"))


signals.worker_process_shutdown.connect(_on_child_shutdown, weak=False)
signals.worker_shutdown.connect(_on_worker_shutdown, weak=False)
signals.setup_logging.connect(_json_logging, weak=False)
