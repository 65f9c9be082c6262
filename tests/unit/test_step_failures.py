"""One failure policy for the queue and in process (issue 31): every step made to fail — once (a
transient error), then always (a permanent one) — fails the same way through the inline
dispatcher and through its Celery task (run eagerly here; against a real worker, Redis and
PostgreSQL in `tests/integration/test_step_failures_queue.py`).

Before, each Celery task hand-wrote its retries and the inline dispatcher had its own rule
(`on_error` for `verify_item` only): a failing expansion or report stopped `aletheia verify` at
once, while the queue retried it.
"""

from __future__ import annotations

import importlib
from collections import Counter, deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aletheia.config import Settings
from aletheia.pipeline import service
from aletheia.pipeline.audit.events import audit_log_for
from aletheia.pipeline.jobs import bibliography as bibliography_jobs
from aletheia.pipeline.jobs.kinds import (
    EXPAND_DOCUMENTS,
    RENDER_REPORT,
    START_BIBLIOGRAPHY,
    STEPS,
    VERIFY_ITEM,
)
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.service import InlineDispatcher, ServiceContext
from aletheia.workers.tasks import steps as celery_steps
from tests.step_faults import MODES, fast_backoff, injected_error, install
from tests.unit.test_service import ScriptedVerifier, bib, fake_read_references

BIBLIOGRAPHY_STEPS = (START_BIBLIOGRAPHY, EXPAND_DOCUMENTS, VERIFY_ITEM, RENDER_REPORT)


class EagerQueue:
    """The Celery tasks, run eagerly (`apply`: a retry runs again at once, its headers carried):
    every message sent runs through the task registered for its step."""

    def __init__(self) -> None:
        self.queue: deque[tuple[str, tuple[Any, ...]]] = deque()
        self.failed: list[str] = []

    def send(self, task: str, *args: Any) -> None:
        self.queue.append((task, args))

    def drain(self) -> None:
        while self.queue:
            task, args = self.queue.popleft()
            result = celery_steps.TASKS[task].apply(args=list(args))
            if result.failed():
                self.failed.append(f"{task}: {result.result!r}")


# --- every step: the runner's decisions, the same on both sides ------------------------------------


class Recorder:
    """A step's function and its policy's `settle`, replaced: what each mode made of the fault."""

    def __init__(self) -> None:
        self.settled: list[bool] = []

    def settle(self, ctx: Any, *args: Any, **kwargs: Any) -> bool:
        self.settled.append(kwargs["final"])
        return not kwargs["final"]


def expected(name: str, mode: str) -> tuple[int, list[bool], bool]:
    """(runs, settle's `final` each time, whether the error is raised in the end) by the policy."""
    policy = STEPS[name].failure
    retried = bool(policy.retry_on)
    if not retried:
        return 1, [], True
    if mode == "transient":
        return 2, [False] if policy.settle else [], False
    settles = [False] * policy.max_retries + [True] if policy.settle else []
    return policy.max_retries + 1, settles, policy.settle is None


def fail_step(monkeypatch: pytest.MonkeyPatch, name: str, mode: str) -> tuple[list[Any], Recorder]:
    module_name, _, attribute = STEPS[name].function.partition(":")
    monkeypatch.setattr(importlib.import_module(module_name), attribute, lambda ctx, *args: None)
    runs = install(name, mode, setter=monkeypatch.setattr)
    recorder = Recorder()
    settle = STEPS[name].failure.settle
    if settle is not None:
        settle_module, _, settle_attribute = settle.partition(":")
        monkeypatch.setattr(importlib.import_module(settle_module), settle_attribute, recorder.settle)
    fast_backoff(setter=monkeypatch.setattr)
    return runs, recorder


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(STEPS))
def test_every_step_fails_the_same_way_inline_and_on_the_queue(
    monkeypatch: pytest.MonkeyPatch, name: str, mode: str
) -> None:
    outcomes = []
    for side in ("inline", "queue"):
        with monkeypatch.context() as patch:
            runs, recorder = fail_step(patch, name, mode)
            raised = False
            if side == "inline":
                dispatcher = InlineDispatcher(concurrency=2, sleep=lambda _s: None)
                dispatcher.send(name, "job-1")
                try:
                    dispatcher.drain(None)  # type: ignore[arg-type]  # the stub steps need no context
                except type(injected_error(name)):
                    raised = True
            else:
                queue = EagerQueue()
                patch.setattr(celery_steps, "worker_context", lambda: None)
                queue.send(name, "job-1")
                queue.drain()
                raised = bool(queue.failed)
            outcomes.append((len(runs), recorder.settled, raised))
    assert outcomes[0] == outcomes[1] == expected(name, mode), name


# --- the bibliography job's steps on real rows: the same job, items and audit trail ---------------


@pytest.fixture
def rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setattr(bibliography_jobs, "read_references", fake_read_references)
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)

    def fresh(side: str) -> Runtime:
        settings = Settings(
            data_dir=tmp_path / side / "data",
            database_url=f"sqlite:///{tmp_path / f'{side}.sqlite3'}",
            offline=True,
        )
        return Runtime.open(settings)

    yield fresh


def job_state(runtime: Runtime, job_id: str) -> dict[str, Any]:
    """What a job's failure leaves, without its ids: the job, each item and its verdict, the trail."""
    job = runtime.jobs.job(job_id)
    assert job is not None
    items = [
        (item.position, item.key, item.status, item.attempts, item.error, row and row.verdict["status"])
        for item, row in runtime.jobs.verdicts(job_id)
    ]
    events = Counter(entry.event for entry in audit_log_for(runtime).entries(job_id))
    return {"job": (job.status, job.error), "items": items, "events": events}


def run_job(runtime: Runtime, side: str) -> tuple[dict[str, Any], bool]:
    """A two-reference bibliography (a PDF's name: its expansion goes to the parsing step)."""
    verifier = ScriptedVerifier()
    documents = bib("a|a real paper\nb|made up\n", name="paper.pdf")
    loop = service.LoopThread()
    if side == "inline":
        dispatcher = InlineDispatcher(concurrency=2, sleep=lambda _s: None)
        ctx = ServiceContext(runtime=runtime, dispatcher=dispatcher, runner=loop, verifier=verifier)
        try:
            job_id = service.submit_bibliography(runtime, dispatcher, documents)
            try:
                dispatcher.drain(ctx)
                raised = False
            except (RuntimeError, OSError):
                raised = True
        finally:
            ctx.close()
    else:
        queue = EagerQueue()
        ctx = ServiceContext(runtime=runtime, dispatcher=queue, runner=loop, verifier=verifier)
        try:
            job_id = service.submit_bibliography(runtime, queue, documents)
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(celery_steps, "worker_context", lambda: ctx)
                queue.drain()
            raised = bool(queue.failed)
        finally:
            ctx.close()
    return job_state(runtime, job_id), raised


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", BIBLIOGRAPHY_STEPS)
def test_a_failing_bibliography_step_leaves_the_same_rows_inline_and_on_the_queue(
    rows: Any, monkeypatch: pytest.MonkeyPatch, name: str, mode: str
) -> None:
    results = []
    for side in ("inline", "queue"):
        with monkeypatch.context() as patch:
            install(name, mode, setter=patch.setattr)
            fast_backoff(setter=patch.setattr)
            results.append(run_job(rows(side), side))
    (inline_state, inline_raised), (queue_state, queue_raised) = results
    assert inline_state == queue_state
    assert inline_raised == queue_raised
    # What the policy promises, on both sides.
    status, error = inline_state["job"]
    verdicts = [item[5] for item in inline_state["items"]]
    if mode == "transient":
        assert (status, error, verdicts, inline_raised) == ("done", None, ["verified", "not_found"], False)
    elif name in (START_BIBLIOGRAPHY, EXPAND_DOCUMENTS):  # the job failed with the error, not lost
        assert status == "failed" and f"injected fault in {name}" in (error or "")
        assert verdicts == [] and not inline_raised
    elif name == VERIFY_ITEM:  # every reference recorded as could-not-check, never passed
        assert status == "done" and verdicts == ["unverifiable", "unverifiable"]
        assert inline_state["events"]["verdict"] == 2 and not inline_raised
    else:  # the writer's retries exhausted: raised; the re-drive sends the report again
        assert status == "running" and verdicts == ["verified", "not_found"] and inline_raised
