"""Source lookups for one reference (retrieval pool: many threads sharing one event loop)."""

from __future__ import annotations

import logging
import random

from celery import Task

from aletheia.pipeline.jobs import bibliography as jobs
from aletheia.pipeline.jobs.context import TokenDeferred
from aletheia.pipeline.jobs.kinds import VERIFY_ITEM
from aletheia.workers.app import task
from aletheia.workers.context import worker_context
from aletheia.workers.retry import is_outage

logger = logging.getLogger(__name__)


@task(name=VERIFY_ITEM, bind=True, max_retries=None)
def verify_item(self: Task, item_id: str) -> None:
    """Verify one item. No token soon enough: back to the queue with a countdown (unbounded, it is
    politeness, not failure). PostgreSQL or Redis unreachable: retried with backoff by the task's
    base (workers/retry.py), not an attempt. Any other error: retried with backoff a few times,
    then the item is settled as unverifiable."""
    ctx = worker_context()
    try:
        jobs.verify_item(ctx, item_id)
    except TokenDeferred as deferred:
        raise self.retry(countdown=deferred.countdown()) from None
    except Exception as exc:
        if is_outage(exc):  # the reference is not at fault: never counted, never settled
            raise
        logger.exception("verify_item failed")
        # The step's error handler (`on_error` in jobs/kinds.py; the inline dispatcher calls it too).
        if jobs.item_failed(ctx, item_id, exc, final=False):
            backoff = min(300.0, 2.0 ** (self.request.retries % 9)) * (0.5 + random.random())
            raise self.retry(countdown=backoff) from None
