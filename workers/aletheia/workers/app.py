"""The one Celery app: its routing table and its configuration, read from settings lazily.

Importing this module builds the app object and nothing else: the configuration below is an
object whose attributes read `get_settings()` only when Celery first needs its configuration (a
worker starting, a producer publishing), so `import aletheia.workers.app` needs no broker and no
environment.

Pools (docs/service.md): one queue each, started as separate worker processes by ops/start and
docker-compose.yml with the concurrency model the queue's work needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import Celery
from celery.schedules import crontab
from kombu.entity import Queue

from aletheia.config import get_settings
from aletheia.pipeline.jobs.kinds import (
    AUDIT,
    COMMIT_AUDIT_ROOT,
    CONTRACT_CHECK,
    REDRIVE,
    REFRESH_RETRACTIONS,
    STEPS,
    UPDATE_MIRROR,
    Pool,
)

QUEUES = tuple(str(pool) for pool in Pool)

# Explicit: every task name -> its queue, from the registry of steps (pipeline/jobs/kinds.py). A
# producer publishes by name without importing the task modules.
ROUTES: dict[str, dict[str, str]] = {name: {"queue": str(step.pool)} for name, step in STEPS.items()}

# One task per step, registered from the registry (workers/tasks/steps.py).
TASK_MODULES = ("aletheia.workers.tasks.steps",)


def _crontab(expression: str) -> crontab:
    minute, hour, day_of_month, month_of_year, day_of_week = expression.split()
    return crontab(
        minute=minute,
        hour=hour,
        day_of_month=day_of_month,
        month_of_year=month_of_year,
        day_of_week=day_of_week,
    )


class LazyConfig:
    """Celery reads these attributes when it configures itself, not at import time."""

    # Static settings.
    task_serializer = "json"
    result_serializer = "json"
    accept_content = ("json",)
    task_routes = ROUTES
    task_queues = tuple(Queue(name) for name in QUEUES)  # type: ignore[no-untyped-call]
    task_default_queue = "control"
    task_ignore_result = True  # results live in PostgreSQL, not in the broker
    # Late acknowledgement: a task whose worker dies is delivered again (every step is idempotent).
    task_acks_late = True
    task_reject_on_worker_lost = True
    # A broker connection lost mid-task (Redis killed): the running step finishes its database work
    # and its acknowledgement fails ("reject requeue=False" when Redis comes back empty). Cancelling
    # it would throw away work that can still be recorded; either way its message may be gone, and
    # the re-drive re-sends what the database shows unsettled (pipeline/jobs/leases.py), within a
    # lease rather than the visibility timeout. Explicit, as Celery 6 changes the default.
    worker_cancel_long_running_tasks_on_connection_loss = False
    worker_prefetch_multiplier = 1
    worker_hijack_root_logger = False
    worker_send_task_events = True  # Flower
    task_send_sent_event = True
    broker_connection_retry_on_startup = True
    broker_connection_max_retries = None  # a broker restart is waited out, never fatal
    timezone = "UTC"
    enable_utc = True
    # One beat per deployment, however many are started (workers/single_beat.py); each answers
    # `celery inspect ping -d beat@HOST` while it ticks (its health check, docker-compose.yml).
    beat_scheduler = "aletheia.workers.single_beat:SingleBeatScheduler"
    beat_enable_remote_control = True

    @property
    def broker_url(self) -> str:
        url = get_settings().broker_url
        if url is None:
            raise RuntimeError("ALETHEIA_BROKER_URL is not set: the queue needs a broker (see ops/README.md)")
        return url.get_secret_value()

    @property
    def broker_pool_limit(self) -> int:
        return get_settings().redis_max_connections

    @property
    def broker_transport_options(self) -> dict[str, Any]:
        s = get_settings()
        return {
            # Above the longest task: a message is handed out again only when its worker is gone.
            "visibility_timeout": s.visibility_timeout_seconds,
            "max_connections": s.redis_max_connections,
            # Abandoned messages are looked for every few seconds, with a real scan each time.
            "unacked_restore_interval": max(1, min(10, s.visibility_timeout_seconds // 4)),
            "unacked_restore_throttle": 1,
            "socket_timeout": 30,
            "socket_connect_timeout": 10,
            # Not `retry_on_timeout`: it makes redis-py retry a failed read itself, and a pub/sub
            # read (the worker's event and control channels) retried after Redis was killed and
            # came back blocks forever (redis-py reads pub/sub without a timeout): the worker was
            # alive and consumed nothing again. Without it the error reaches kombu, which
            # reconnects the consumer (tests/integration/test_recovery.py).
            "retry_on_timeout": False,
        }

    @property
    def task_annotations(self) -> dict[str, dict[str, Any]]:
        limit = get_settings().parsing_time_limit_seconds
        bounds = {"time_limit": limit, "soft_time_limit": max(1, limit - 30)}
        return {name: dict(bounds) for name, step in STEPS.items() if step.time_limited}

    @property
    def beat_schedule(self) -> dict[str, dict[str, Any]]:
        s = get_settings()
        return {
            "weekly-audit": {"task": AUDIT, "schedule": _crontab(s.audit_schedule)},
            "refresh-retractions": {
                "task": REFRESH_RETRACTIONS,
                "schedule": _crontab(s.retraction_refresh_schedule),
            },
            "contract-check": {"task": CONTRACT_CHECK, "schedule": _crontab(s.contract_check_schedule)},
            "redrive": {"task": REDRIVE, "schedule": float(s.redrive_interval_seconds)},
            "audit-root": {
                "task": COMMIT_AUDIT_ROOT,
                "schedule": float(s.audit_global_commit_seconds),
            },
            # The local mirror's increments (issue 32): a no-op while nothing was loaded into it.
            "update-mirror": {"task": UPDATE_MIRROR, "schedule": _crontab(s.mirror_update_schedule)},
        }


app = Celery("aletheia", include=list(TASK_MODULES))
app.config_from_object(LazyConfig())


def task(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """`app.task(...)` with a type mypy can follow (Celery ships no annotations). Every task's base
    is `OutageRetryingTask`: a lost connection to PostgreSQL or Redis is retried with backoff
    (workers/retry.py), whatever the task does with its own errors."""
    from aletheia.workers.retry import OutageRetryingTask

    options.setdefault("base", OutageRetryingTask)
    decorator: Callable[[Callable[..., Any]], Any] = app.task(**options)
    return decorator
