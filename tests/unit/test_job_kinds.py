"""The registry of job kinds and steps (pipeline/jobs/kinds.py) is the one place a kind is named:
every step has its Celery task and route, every task its step, every function a record names
exists, and the inline dispatcher runs exactly the registry's steps (issue 22: a kind was added in
seven places and `COMMIT_AUDIT_ROOT`, the claims-text re-drive and its summary were missed)."""

from __future__ import annotations

import inspect

import pytest

from aletheia.pipeline.jobs.kinds import KINDS, STEPS, TASK_NAMES, JobKind, Pool, kind_record, resolve
from aletheia.storage.models import ItemStatus, JobStatus


def test_every_kind_has_a_record_and_every_name_it_gives_resolves() -> None:
    assert set(KINDS) == set(JobKind)
    for record in KINDS.values():
        assert record.first_step in record.steps
        assert set(record.steps) <= set(STEPS), record.kind
        for path in (
            record.redrive, record.summary, record.document, record.render, record.exit_code,
            record.report_files,
        ):  # fmt: skip
            assert callable(resolve(path)), path
        assert record.formats, record.kind
    for step in STEPS.values():
        assert callable(resolve(step.function)), step.name
        if step.failure.settle is not None:
            assert callable(resolve(step.failure.settle)), step.name


def test_every_step_has_a_celery_task_and_a_route_and_every_task_a_step() -> None:
    import aletheia.workers.tasks.steps  # noqa: F401
    from aletheia.workers.app import QUEUES, ROUTES, app

    ours = {name for name in app.tasks if name.startswith("aletheia.")}
    assert ours == set(TASK_NAMES)
    assert {name: route["queue"] for name, route in ROUTES.items()} == {
        name: str(step.pool) for name, step in STEPS.items()
    }
    assert set(QUEUES) == {str(pool) for pool in Pool}
    # What was missed before the registry: the hourly audit-root commit had no route in the inline
    # dispatcher; now every step runs inline by the same function.
    from aletheia.pipeline.jobs.kinds import COMMIT_AUDIT_ROOT

    assert COMMIT_AUDIT_ROOT in STEPS


def test_step_names_say_their_pool() -> None:
    from aletheia.pipeline.jobs.kinds import Step

    with pytest.raises(ValueError, match="not named for its pool"):
        Step("aletheia.control.verify_item", Pool.RETRIEVAL, "x:y")


def test_kinds_and_statuses_are_str_enums() -> None:
    assert JobKind("claims_text") is JobKind.CLAIMS_TEXT
    assert JobStatus.DONE == "done" and ItemStatus.PENDING == "pending"
    assert kind_record("audit").fans_out and kind_record("sweep").fans_out
    assert not kind_record("bibliography").fans_out
    assert kind_record("audit").asks_afresh and not kind_record("sweep").asks_afresh


def test_step_names_say_their_function() -> None:
    """One name per step (issue 31: `aletheia.parsing.expand_job` ran `expand_documents`, its task
    function was `expand_job`, and another `expand_job` expanded items)."""
    from aletheia.pipeline.jobs.kinds import Step

    for step in STEPS.values():
        verb = step.name.rpartition(".")[2]
        assert verb == step.function.rpartition(":")[2] == resolve(step.function).__name__
    with pytest.raises(ValueError, match="one name per step"):
        Step("aletheia.parsing.expand_job", Pool.PARSING, "m:expand_documents")


def test_the_inline_dispatcher_and_the_celery_tasks_run_the_one_runner() -> None:
    from aletheia.pipeline.jobs import inline, runner
    from aletheia.workers.tasks import steps

    assert "runner.run" in inspect.getsource(inline.InlineDispatcher.drain)
    assert "runner.run" in inspect.getsource(steps.run_queued)
    assert set(steps.TASKS) == set(STEPS)
    with pytest.raises(ValueError, match="unknown task"):
        runner.run(None, "aletheia.control.nothing", ())
    with pytest.raises(ValueError, match="unknown task"):
        inline.run_step(None, "aletheia.control.nothing")  # type: ignore[arg-type]


def test_verify_items_policy_settles_the_item_after_its_retries() -> None:
    from aletheia.pipeline.jobs import bibliography
    from aletheia.pipeline.jobs.kinds import VERIFY_ITEM

    policy = STEPS[VERIFY_ITEM].failure
    assert policy.settle is not None and resolve(policy.settle) is bibliography.item_failed
    assert policy.max_retries + 1 == bibliography.MAX_ITEM_ATTEMPTS
    for retries in range(30):
        base = min(policy.max_backoff, policy.first_backoff * 2.0**retries)
        assert 0.5 * base <= policy.backoff(retries) <= 1.5 * base
