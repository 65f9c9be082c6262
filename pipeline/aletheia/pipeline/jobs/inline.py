"""The embedded dispatcher: every named step run in this process (what the matching Celery task
does, minus the queue), looked up in the registry of steps (`jobs/kinds.py`).
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from aletheia.pipeline.jobs.context import ServiceContext, TokenDeferred
from aletheia.pipeline.jobs.kinds import STEPS, resolve


def run_step(ctx: ServiceContext, task: str, *args: Any) -> None:
    """Run one named step in this process: the function its registry entry names (`jobs/kinds.py`),
    the one the matching Celery task calls, minus the queue."""
    step = STEPS.get(task)
    if step is None:
        raise ValueError(f"unknown task {task!r}")
    step(ctx, *args)


class InlineDispatcher:
    """Runs the steps in this process, wave by wave: the items of a wave concurrently in threads
    (their coroutines share the context's event loop), the steps they send in the next wave.

    `record_sends`: keep every message sent in `sent` (None otherwise), for a test that watches
    what the steps send; a real run keeps none, so a long one does not grow with its messages."""

    def __init__(
        self,
        *,
        concurrency: int = 16,
        sleep: Callable[[float], None] | None = None,
        record_sends: bool = False,
    ) -> None:
        self.queue: deque[tuple[str, tuple[Any, ...]]] = deque()
        self.concurrency = concurrency
        self.sent: list[tuple[str, tuple[Any, ...]]] | None = [] if record_sends else None
        self._sleep = sleep
        self._guard = threading.Lock()

    def send(self, task: str, *args: Any) -> None:
        with self._guard:
            self.queue.append((task, args))
            if self.sent is not None:
                self.sent.append((task, args))

    def drain(self, ctx: ServiceContext) -> None:
        with concurrent.futures.ThreadPoolExecutor(
            self.concurrency, thread_name_prefix="aletheia-inline"
        ) as pool:
            while True:
                with self._guard:
                    wave = list(dict.fromkeys(self.queue))  # a step sent twice in a wave runs once
                    self.queue.clear()
                if not wave:
                    return
                for (task, args), future in zip(
                    wave, [pool.submit(run_step, ctx, t, *a) for t, a in wave], strict=True
                ):
                    try:
                        future.result()
                    except TokenDeferred as deferred:
                        (self._sleep or _sleep)(deferred.wait)
                        self.send(task, *args)
                    except Exception as error:
                        # As the step's Celery task: its error handler retries it or settles the
                        # work (one reference that cannot be checked does not end the whole job).
                        handler = STEPS[task].on_error
                        if handler is None:
                            raise
                        if resolve(handler)(ctx, *args, error, final=False):
                            self.send(task, *args)


def _sleep(seconds: float) -> None:
    import time

    time.sleep(seconds)
