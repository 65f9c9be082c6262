"""One Celery task per step of the registry (`pipeline/jobs/kinds.py`'s `STEPS`), all alike: the
task's name is the step's, its arguments the step's JSON arguments (ids), and its body the one
runner (`pipeline/jobs/runner.py`) the inline dispatcher runs too, with the step's failure policy.

What the task adds is the queue's: a step to run again (a deferral, an error's retry) is a retry
of its message with the runner's countdown, its error count carried in a header (outages and
deferrals do not use it up); a lost connection to PostgreSQL or Redis is passed to the tasks'
base, which waits it out (`workers/retry.py`); an error the policy raises fails the task, and the
re-drive sends the step again once its lease has expired (`pipeline/jobs/redrive.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from celery import Task

from aletheia.pipeline.jobs import runner
from aletheia.pipeline.jobs.kinds import STEPS, Step
from aletheia.workers.app import task
from aletheia.workers.context import worker_context
from aletheia.workers.retry import ERRORS_HEADER, carried_headers, header_count, is_outage


def run_queued(self: Task, name: str, args: tuple[Any, ...]) -> None:
    """The step `name`, run by the runner for this message; its retry sent when it asks for one."""
    retries = header_count(self.request, ERRORS_HEADER)
    again = runner.run(worker_context(), name, args, retries=retries, passes=is_outage)
    if again is not None:
        raise self.retry(
            countdown=again.countdown,
            max_retries=None,  # the policy bounds the error retries; deferrals are unbounded
            headers=carried_headers(self.request, **{ERRORS_HEADER: retries + again.counted}),
        )


def _register(step: Step) -> Any:
    def step_task(self: Task, *args: Any) -> None:
        run_queued(self, step.name, args)

    step_task.__name__ = step_task.__qualname__ = step.name.rpartition(".")[2]
    step_task.__doc__ = f"The step {step.name}: `{step.function}` run by the runner."
    return task(name=step.name, bind=True, max_retries=None)(step_task)


TASKS: Mapping[str, Any] = MappingProxyType({name: _register(step) for name, step in STEPS.items()})
