"""The embedded dispatcher: every named step run in this process (what the matching Celery task
does, minus the queue).
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from aletheia.pipeline.jobs import claims as claim_jobs
from aletheia.pipeline.jobs.audit import refresh_retractions, start_audit
from aletheia.pipeline.jobs.bibliography import (
    start_bibliography_job,
    verify_item,
)
from aletheia.pipeline.jobs.claims_text import check_claims_text_job
from aletheia.pipeline.jobs.context import (
    AUDIT,
    CHECK_CLAIMS_TEXT,
    CLAIM_ARTIFACT,
    CLAIM_CANDIDATES,
    CLAIM_DOCUMENTS,
    CLAIM_IDENTITY,
    CLAIM_JUDGE,
    CLAIM_TEXT,
    EXPAND_DOCUMENTS,
    REDRIVE,
    REFRESH_RETRACTIONS,
    RENDER_REPORT,
    START_BIBLIOGRAPHY,
    START_SWEEP,
    VERIFY_CLAIM,
    VERIFY_ITEM,
    ServiceContext,
    TokenDeferred,
)
from aletheia.pipeline.jobs.redrive import redrive
from aletheia.pipeline.jobs.reports import (
    render_report,
)
from aletheia.pipeline.jobs.sweeps import (
    start_sweep,
)

# A claim job's stages: the same functions the claim tasks call (jobs/claims.py).
_CLAIM_STEPS: dict[str, Callable[[ServiceContext, str], None]] = {
    VERIFY_CLAIM: claim_jobs.verify_claim,
    CLAIM_CANDIDATES: claim_jobs.claim_candidates,
    CLAIM_TEXT: claim_jobs.claim_text,
    CLAIM_DOCUMENTS: claim_jobs.claim_documents,
    CLAIM_JUDGE: claim_jobs.claim_judge,
    CLAIM_IDENTITY: claim_jobs.claim_identity,
    CLAIM_ARTIFACT: claim_jobs.claim_artifact,
}


def run_step(ctx: ServiceContext, task: str, *args: Any) -> None:
    """Run one named step in this process (what the matching Celery task does, minus the queue)."""
    if task in _CLAIM_STEPS:
        _CLAIM_STEPS[task](ctx, args[0])
    elif task == START_BIBLIOGRAPHY:
        start_bibliography_job(ctx, args[0])
    elif task == EXPAND_DOCUMENTS:
        start_bibliography_job(ctx, args[0], in_parsing_pool=True)
    elif task == VERIFY_ITEM:
        verify_item(ctx, args[0])
    elif task == CHECK_CLAIMS_TEXT:
        check_claims_text_job(ctx, args[0])
    elif task == RENDER_REPORT:
        render_report(ctx, args[0])
    elif task == START_SWEEP:
        start_sweep(ctx, args[0])
    elif task == AUDIT:
        start_audit(ctx)
    elif task == REDRIVE:
        redrive(ctx, older_than=args[0] if args else None)
    elif task == REFRESH_RETRACTIONS:
        refresh_retractions(ctx)
    else:
        raise ValueError(f"unknown task {task!r}")


class InlineDispatcher:
    """Runs the steps in this process, wave by wave: the items of a wave concurrently in threads
    (their coroutines share the context's event loop), the steps they send in the next wave."""

    def __init__(self, *, concurrency: int = 16, sleep: Callable[[float], None] | None = None) -> None:
        self.queue: deque[tuple[str, tuple[Any, ...]]] = deque()
        self.concurrency = concurrency
        self.sent: list[tuple[str, tuple[Any, ...]]] = []
        self._sleep = sleep
        self._guard = threading.Lock()

    def send(self, task: str, *args: Any) -> None:
        with self._guard:
            self.queue.append((task, args))
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


def _sleep(seconds: float) -> None:
    import time

    time.sleep(seconds)
