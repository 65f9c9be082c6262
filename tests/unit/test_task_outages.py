"""A lost connection to PostgreSQL or Redis is retried with backoff by every task (issue 22: a
ten-second PostgreSQL outage ended 168 `verify_item` tasks "raised unexpected: OperationalError"
and left the job running). Tasks run eagerly here (`apply`): a retry runs again at once."""

from __future__ import annotations

from typing import Any

import kombu.exceptions
import pytest
import redis.exceptions
import sqlalchemy.exc
from celery import Celery

from aletheia.pipeline.jobs.enqueue import BrokerUnavailable
from aletheia.workers import retry as outage
from aletheia.workers.retry import OutageRetryingTask, is_outage, outage_backoff


def pg_gone() -> sqlalchemy.exc.OperationalError:
    orig = Exception("connection to server at 127.0.0.1, port 5432 failed: Connection refused")
    return sqlalchemy.exc.OperationalError("SELECT 1", {}, orig)


def raised_while_handling(first: BaseException, second: BaseException) -> BaseException:
    try:
        try:
            raise first
        except BaseException:
            raise second  # noqa: B904 - the implicit context is what the test is about
    except BaseException as exc:
        return exc


def test_what_counts_as_an_outage() -> None:
    assert is_outage(pg_gone())
    assert is_outage(sqlalchemy.exc.TimeoutError("QueuePool limit reached"))
    invalidated = sqlalchemy.exc.DBAPIError(
        "SELECT 1", {}, Exception("server closed"), connection_invalidated=True
    )
    assert is_outage(invalidated)
    assert is_outage(redis.exceptions.ConnectionError("Error 111 connecting"))
    assert is_outage(kombu.exceptions.OperationalError("Error 111 connecting to 127.0.0.1:6379"))
    assert is_outage(BrokerUnavailable("redis://127.0.0.1:6379/0", "Connection refused"))
    # An error handler that needed the database while it was down: the second error is the outage.
    assert is_outage(raised_while_handling(ValueError("bad payload"), pg_gone()))
    assert is_outage(raised_while_handling(pg_gone(), KeyError("x")))

    assert not is_outage(ValueError("a reference the parser refused"))
    assert not is_outage(sqlalchemy.exc.IntegrityError("INSERT", {}, Exception("duplicate key")))
    assert not is_outage(sqlalchemy.exc.DBAPIError("SELECT", {}, Exception("syntax error")))


def test_the_backoff_starts_near_a_second_doubles_and_is_capped() -> None:
    for retries in range(40):
        base = min(outage.MAX_OUTAGE_BACKOFF, 2.0**retries)
        assert 0.5 * base <= outage_backoff(retries) <= 1.5 * base
    assert outage_backoff(0) <= 1.5  # a ten-second outage heals within seconds of its end
    # A countdown past the broker's visibility timeout would have the message delivered twice.
    assert all(outage_backoff(n, visibility_timeout=8) <= 4.0 for n in range(40))
    assert all(outage_backoff(n, visibility_timeout=3600) <= 45.0 for n in range(40))


@pytest.fixture
def app() -> Celery:
    app = Celery("outage-test", set_as_current=False)
    app.conf.task_always_eager = False
    return app


def test_an_outage_is_retried_past_the_tasks_own_bound_with_its_own_count(app: Celery) -> None:
    seen: list[int] = []

    @app.task(bind=True, base=OutageRetryingTask, max_retries=0, name="test.flaky")
    def flaky(self: Any, failures: int) -> str:
        seen.append(outage.header_count(self.request, outage.OUTAGE_HEADER))
        if len(seen) <= failures:
            raise pg_gone()
        return "done"

    assert flaky.apply(args=[5]).get() == "done"
    assert seen == [0, 1, 2, 3, 4, 5]  # each retry carries the outage's count (its backoff)


def test_other_errors_are_the_tasks_own(app: Celery) -> None:
    calls: list[int] = []

    @app.task(bind=True, base=OutageRetryingTask, max_retries=3, name="test.broken")
    def broken(self: Any) -> None:
        calls.append(1)
        raise ValueError("not an outage")

    result = broken.apply()
    assert isinstance(result.result, ValueError) and calls == [1]


def test_every_aletheia_task_has_the_outage_base() -> None:
    from aletheia.workers.app import TASK_MODULES, app

    for module in TASK_MODULES:
        __import__(module)
    ours = {name: t for name, t in app.tasks.items() if name.startswith("aletheia.")}
    assert len(ours) >= 15
    assert all(isinstance(t, OutageRetryingTask) for t in ours.values()), [
        name for name, t in ours.items() if not isinstance(t, OutageRetryingTask)
    ]


class _Ctx:
    pass


def test_verify_item_waits_out_a_database_outage_and_never_counts_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: the task's error handler (`item_failed`) needed the database too, raised a second
    OperationalError, and the task ended without a retry."""
    from aletheia.pipeline.jobs import bibliography
    from aletheia.pipeline.jobs.kinds import VERIFY_ITEM
    from aletheia.workers.tasks import steps

    verified: list[str] = []
    failures = iter([pg_gone(), pg_gone(), pg_gone()])

    def verify_item(ctx: Any, item_id: str) -> None:
        error = next(failures, None)
        if error is not None:
            raise error
        verified.append(item_id)

    def item_failed(*_: Any, **__: Any) -> bool:
        raise pg_gone()  # the database is down for the handler too

    monkeypatch.setattr(steps, "worker_context", _Ctx)
    monkeypatch.setattr(bibliography, "verify_item", verify_item)
    monkeypatch.setattr(bibliography, "item_failed", item_failed)
    steps.TASKS[VERIFY_ITEM].apply(args=["item-1"]).get()
    assert verified == ["item-1"]


def test_a_claim_stage_waits_out_an_outage_beyond_its_error_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    from aletheia.pipeline.jobs import claims
    from aletheia.pipeline.jobs.kinds import CLAIM_JUDGE, STEPS
    from aletheia.workers.tasks import steps

    calls: list[int] = []
    bound = STEPS[CLAIM_JUDGE].failure.max_retries

    def stage(ctx: Any, job_id: str) -> None:
        calls.append(1)
        if len(calls) <= bound + 2:
            raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379")

    monkeypatch.setattr(steps, "worker_context", _Ctx)
    monkeypatch.setattr(claims, "claim_judge", stage)
    steps.TASKS[CLAIM_JUDGE].apply(args=["job-1"]).get()
    assert len(calls) == bound + 3


# --- waiting out the outage in the slot (issue 33) ---------------------------------------------------


def test_which_service_an_error_lost() -> None:
    from aletheia.workers.outage_wait import Service, failed_service

    assert failed_service(pg_gone()) is Service.DATABASE
    assert failed_service(raised_while_handling(ValueError("x"), pg_gone())) is Service.DATABASE
    assert failed_service(redis.exceptions.ConnectionError("Error 111")) is Service.REDIS
    assert failed_service(kombu.exceptions.OperationalError("Error 111")) is Service.REDIS
    assert failed_service(BrokerUnavailable("redis://h:6379/0", "refused")) is Service.REDIS
    assert failed_service(ValueError("not an outage")) is None


def test_slots_wait_for_the_service_and_share_one_probe() -> None:
    import threading
    import time

    from aletheia.workers import outage_wait
    from aletheia.workers.outage_wait import OutageWaiter, Service

    probes: list[float] = []
    back_at = time.monotonic() + 1.5

    def database() -> bool:
        probes.append(time.monotonic())
        if time.monotonic() < back_at:
            raise sqlalchemy.exc.OperationalError("SELECT 1", {}, Exception("refused"))
        return True

    waiter = OutageWaiter({Service.DATABASE: database, Service.REDIS: lambda: True})
    results: list[tuple[bool, float]] = []

    def slot() -> None:
        results.append((waiter.wait(Service.DATABASE, 10.0), time.monotonic()))

    slots = [threading.Thread(target=slot) for _ in range(8)]
    for thread in slots:
        thread.start()
    for thread in slots:
        thread.join(timeout=20)
    assert [ok for ok, _ in results] == [True] * 8
    # Each slot resumes within about a probe interval of the service's return...
    assert all(at - back_at < outage_wait.PROBE_EVERY + 0.5 for _, at in results)
    # ...and eight slots did not probe eight times a second.
    assert len(probes) <= 2 * (1.5 / outage_wait.PROBE_EVERY + 2)


def test_a_service_still_away_after_the_wait_is_left_to_the_growing_countdown() -> None:
    import time

    from aletheia.workers.outage_wait import OutageWaiter, Service

    waiter = OutageWaiter({Service.DATABASE: lambda: False, Service.REDIS: lambda: False})
    started = time.monotonic()
    assert waiter.wait(Service.REDIS, 1.5) is False
    assert time.monotonic() - started < 3.0


def test_the_outage_is_the_lost_connection_not_a_later_error_of_the_same_library() -> None:
    """One classifier for the retry and the wait: the service waited on is the one whose connection
    was lost. Before, the wait asked "any Redis or SQLAlchemy error" of the chain while the retry
    asked "a lost connection": a Redis error (not an outage) raised while handling a database
    outage sent the slot to wait on Redis, which answers at once, and the task went back to the
    queue while PostgreSQL was still down; an IntegrityError was taken for a database outage."""
    from aletheia.workers.outage_wait import Service, failed_service

    wrong_type = redis.exceptions.ResponseError("WRONGTYPE Operation against a key")
    assert failed_service(raised_while_handling(pg_gone(), wrong_type)) is Service.DATABASE
    duplicate = sqlalchemy.exc.IntegrityError("INSERT", {}, Exception("duplicate key"))
    assert failed_service(duplicate) is None
    assert failed_service(raised_while_handling(duplicate, wrong_type)) is None
