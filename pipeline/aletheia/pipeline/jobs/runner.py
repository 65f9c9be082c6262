"""One runner for every step, on the queue and in this process.

A step's record (`jobs/kinds.py`'s `STEPS`) names its function and its failure policy; `run`
calls the one and applies the other, and answers what its caller does next: nothing (the step
is done, or its work was settled) or `Again` (run it again after a countdown). The Celery task
(`workers/tasks/steps.py`) turns `Again` into a retry of its message, the inline dispatcher
(`jobs/inline.py`) into an entry on its local queue: the same step fails the same way in
`aletheia verify` and on the workers, with the same rows and audit events
(`tests/unit/test_step_failures.py`, `tests/integration/test_step_failures_queue.py`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from aletheia.pipeline.jobs.context import TokenDeferred
from aletheia.pipeline.jobs.kinds import STEPS, Step, resolve

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Again:
    """Run the step again after `countdown` seconds. `counted`: an error's retry, which counts
    against the policy's `max_retries`; a deferral (no rate-limit token soon enough) is not."""

    countdown: float
    counted: bool


def _never(_: BaseException) -> bool:
    return False


def step_named(name: str) -> Step:
    step = STEPS.get(name)
    if step is None:
        raise ValueError(f"unknown task {name!r}")
    return step


def run(
    ctx: Any,
    name: str,
    args: Sequence[Any],
    *,
    retries: int = 0,
    passes: Callable[[BaseException], bool] = _never,
) -> Again | None:
    """Run step `name` on `args`, its `retries`-th retry after errors. An error the policy does not
    retry is raised, and so is one whose retries are exhausted when the policy settles nothing;
    `passes(error)` True: raised untouched, never counted nor settled (the queue's outages, which
    the task's base waits out: the work is not at fault)."""
    step = step_named(name)
    policy = step.failure
    try:
        step(ctx, *args)
    except TokenDeferred as deferred:
        return Again(deferred.countdown(), counted=False)
    except Exception as error:
        if passes(error) or not isinstance(error, policy.retry_on):
            raise
        final = retries >= policy.max_retries
        logger.warning(
            "%s failed (retry %d of %d)%s",
            name,
            retries,
            policy.max_retries,
            "; retries exhausted" if final else "",
            exc_info=error,
        )
        if policy.settle is not None:
            if not resolve(policy.settle)(ctx, *args, error, final=final) or final:
                return None  # the work is settled (an item recorded as could-not-check)
        elif final:
            raise
        return Again(policy.backoff(retries), counted=True)
    return None
