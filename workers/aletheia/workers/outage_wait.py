"""Waiting out an outage in the worker, so the work resumes within a second of the service's return.

Before (issue 33): a task that met a lost connection went back to the queue with a countdown
growing from 1 s to 30 s (x 0.5-1.5), so when PostgreSQL came back each task slept out whatever
was left of its countdown: 30-60 s after the end of a 30 s outage before the job moved again. Now
the task first waits here, in its worker slot, asking the service that failed whether it answers
again (one probe per process and service at a time, every `PROBE_EVERY` seconds, shared by the
slots waiting on it): once it does, the task is retried at once (a countdown of about a second,
jittered). Only an outage longer than the wait falls back to the growing countdown of
`workers/retry.py`, so a long outage costs a retry per slot every half-minute or so, not a storm.

Holding the slot costs nothing while the service is away: every other task of the pool would meet
the same outage. The messages not yet taken stay in Redis (prefetch 1). The wait is bounded by a
third of the visibility timeout, as the countdown is: a message held unacknowledged longer than
the timeout is handed to another worker too.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from enum import StrEnum
from typing import Any, Final

logger = logging.getLogger(__name__)

OUTAGE_WAIT_SECONDS: Final = 30.0  # how long a task waits in its slot for the service to answer
PROBE_EVERY: Final = 1.0


class Service(StrEnum):
    DATABASE = "database"
    REDIS = "redis"


def _outage_errors() -> dict[Service, tuple[type[BaseException], ...]]:
    import kombu.exceptions
    import redis.exceptions
    import sqlalchemy.exc

    from aletheia.pipeline.jobs.enqueue import BrokerUnavailable

    return {
        Service.DATABASE: (
            sqlalchemy.exc.OperationalError,  # PostgreSQL gone, restarting, refusing connections
            sqlalchemy.exc.TimeoutError,  # no pooled connection came back in time
        ),
        Service.REDIS: (
            redis.exceptions.ConnectionError,
            redis.exceptions.TimeoutError,
            kombu.exceptions.OperationalError,  # the broker refused a message the step sent
            BrokerUnavailable,
        ),
    }


def failed_service(exc: BaseException) -> Service | None:
    """Which service `exc`, or an error it was raised from or while handling, lost the connection
    to: the database, Redis, or neither (not an outage). The one test of "is this an outage" for
    both the wait here and the retry (`workers/retry.py`): an error handler that itself needed the
    database raises a second error, and the first lost connection in the chain is the outage."""
    import sqlalchemy.exc
    from celery.exceptions import Retry

    errors = _outage_errors()
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, Retry):
            return None
        for service, kinds in errors.items():
            if isinstance(current, kinds):
                return service
        if isinstance(current, sqlalchemy.exc.DBAPIError) and current.connection_invalidated:
            return Service.DATABASE
        current = current.__cause__ or current.__context__
    return None


class OutageWaiter:
    """One per process: the slots that met an outage wait here until a probe says it is over."""

    def __init__(self, probes: dict[Service, Callable[[], bool]] | None = None) -> None:
        self._probes = probes
        self._probe_locks = {service: threading.Lock() for service in Service}
        self._answered_at: dict[Service, float] = {}  # when a probe last found it answering
        self._probed_at: dict[Service, float] = {}

    def _probe(self, service: Service) -> bool:
        if self._probes is None:
            self._probes = default_probes()
        try:
            return self._probes[service]()
        except Exception:  # still away (or a probe that cannot tell: the retry will)
            return False

    def wait(self, service: Service, limit: float) -> bool:
        """Until `service` answers (True) or `limit` seconds have passed (False)."""
        started = time.monotonic()
        deadline = started + max(0.0, limit)
        while True:
            with self._probe_locks[service]:  # one probe per interval; the others read its answer
                now = time.monotonic()
                if self._answered_at.get(service, -1.0) >= started:
                    return True
                if now - self._probed_at.get(service, -PROBE_EVERY) >= PROBE_EVERY:
                    self._probed_at[service] = now
                    if self._probe(service):
                        self._answered_at[service] = time.monotonic()
                        return True
                next_probe = self._probed_at[service] + PROBE_EVERY
            if next_probe > deadline:
                return False
            time.sleep(max(0.01, next_probe - time.monotonic()))


def default_probes() -> dict[Service, Callable[[], bool]]:
    """A fresh connection each time (never a pooled one the outage left broken): `SELECT 1` on the
    database, `PING` on the broker and on the rate limiter's Redis."""
    from aletheia.config import get_settings

    settings = get_settings()
    engine: Any = None

    def database() -> bool:
        nonlocal engine
        from sqlalchemy import create_engine, text
        from sqlalchemy.pool import NullPool

        if engine is None:
            url = settings.sqlalchemy_url()
            if url.startswith("postgresql://"):  # the driver the stores use (storage/db.py)
                url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
            args = {"connect_timeout": 2} if url.startswith("postgresql") else {}
            engine = create_engine(url, poolclass=NullPool, connect_args=args)
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        return True

    def redis_answers() -> bool:
        import redis

        candidates = (settings.redis_connection_url(), _broker(settings))
        urls = {u for u in candidates if u and u.startswith(("redis", "unix"))}
        for url in urls:
            client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=2)
            try:
                client.ping()
            finally:
                client.close()
        return True

    return {Service.DATABASE: database, Service.REDIS: redis_answers}


def _broker(settings: Any) -> str | None:
    return settings.broker_url.get_secret_value() if settings.broker_url is not None else None


_waiter: tuple[int, OutageWaiter] | None = None
_waiter_guard = threading.Lock()


def process_waiter() -> OutageWaiter:
    """This process's waiter (a prefork child builds its own)."""
    global _waiter
    with _waiter_guard:
        if _waiter is None or _waiter[0] != os.getpid():
            _waiter = (os.getpid(), OutageWaiter())
        return _waiter[1]
