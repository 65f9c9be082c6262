"""The embedded dispatcher: every named step run in this process by the runner the Celery tasks
use (`jobs/runner.py`), with the same failure policy (`jobs/kinds.py`), minus the queue.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aletheia.pipeline.jobs import runner
from aletheia.pipeline.jobs.context import ServiceContext

# A retry's backoff in this process is capped: the queue spreads a failing reference's retries
# over minutes so that a source can recover, while `aletheia verify` is waited for at a terminal.
# The retries, their count and what is settled after them are the policy's, as on the queue.
INLINE_MAX_BACKOFF = 1.0


def run_step(ctx: ServiceContext, task: str, *args: Any) -> None:
    """Run one named step's function once, as a second delivery of its message would (no failure
    policy: an error is raised)."""
    runner.step_named(task)(ctx, *args)


@dataclass(frozen=True)
class _Entry:
    task: str
    args: tuple[Any, ...]
    retries: int = 0  # the error retries this run of the step has had (the policy's count)
    due: float = 0.0  # time.monotonic() before which it is not run


class InlineDispatcher:
    """Runs the steps in this process, wave by wave: the items of a wave concurrently in threads
    (their coroutines share the context's event loop), the steps they send in the next wave; a
    step to run again (a deferral, an error's retry) goes back on the local queue with its
    countdown.

    `record_sends`: keep every message sent in `sent` (None otherwise), for a test that watches
    what the steps send; a real run keeps none, so a long one does not grow with its messages."""

    def __init__(
        self,
        *,
        concurrency: int = 16,
        sleep: Callable[[float], None] | None = None,
        record_sends: bool = False,
    ) -> None:
        self.queue: list[_Entry] = []
        self.concurrency = concurrency
        self.sent: list[tuple[str, tuple[Any, ...]]] | None = [] if record_sends else None
        self._sleep = sleep or time.sleep
        self._guard = threading.Lock()

    def send(self, task: str, *args: Any) -> None:
        with self._guard:
            self.queue.append(_Entry(task, args))
            if self.sent is not None:
                self.sent.append((task, args))

    def _again(self, entry: _Entry, again: runner.Again) -> None:
        countdown = min(again.countdown, INLINE_MAX_BACKOFF) if again.counted else again.countdown
        retried = _Entry(entry.task, entry.args, entry.retries + again.counted, time.monotonic() + countdown)
        with self._guard:  # a message of its own, as a Celery retry is
            self.queue.append(retried)
            if self.sent is not None:
                self.sent.append((entry.task, entry.args))

    def _next_wave(self) -> list[_Entry]:
        """The entries due now (a step sent twice runs once); when none is, after waiting for the
        earliest."""
        with self._guard:
            if not self.queue:
                return []
            wait = min(entry.due for entry in self.queue) - time.monotonic()
        if wait > 0:
            self._sleep(wait)
        with self._guard:
            now = time.monotonic()
            due = [e for e in self.queue if e.due <= now] or [min(self.queue, key=lambda e: e.due)]
            self.queue = [e for e in self.queue if e not in due]
        wave: dict[tuple[str, tuple[Any, ...]], _Entry] = {}
        for entry in due:
            wave.setdefault((entry.task, entry.args), entry)
        return list(wave.values())

    def drain(self, ctx: ServiceContext) -> None:
        with concurrent.futures.ThreadPoolExecutor(
            self.concurrency, thread_name_prefix="aletheia-inline"
        ) as pool:
            while wave := self._next_wave():
                futures = [pool.submit(runner.run, ctx, e.task, e.args, retries=e.retries) for e in wave]
                for entry, future in zip(wave, futures, strict=True):
                    again = future.result()  # an error the policy does not settle is raised
                    if again is not None:
                        self._again(entry, again)
