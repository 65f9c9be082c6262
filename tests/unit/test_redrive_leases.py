"""Leases and the re-drive (issue 22, item 2): work a killed worker held is sent again once its
lease expires (minutes, not the hour-long visibility timeout); a step alive renews its lease; work
still queued behind a backlog is not sent twice; a broker that lost its data has everything
unsettled sent again; a claims-text job is re-driven like any other kind.

The broker is fakeredis here; tests/integration/test_recovery.py does it on real Redis, PostgreSQL
and Celery workers with the default settings."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import fakeredis
import pytest
from sqlalchemy import update

from aletheia.config import Settings
from aletheia.pipeline import service
from aletheia.pipeline.jobs import bibliography as bibliography_jobs
from aletheia.pipeline.jobs.claims_text import submit_claims_text
from aletheia.pipeline.jobs.kinds import CHECK_CLAIMS_TEXT, VERIFY_ITEM
from aletheia.pipeline.jobs.leases import Held, LeaseKeeper
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.service import InlineDispatcher, InputDocument, ServiceContext
from aletheia.storage.leases import LeaseStore
from aletheia.storage.models import Item, ItemStatus, utcnow
from aletheia.workers.broker_probe import RedisBrokerProbe
from tests.unit.test_service import ScriptedVerifier, fake_read_references


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    monkeypatch.setattr(bibliography_jobs, "read_references", fake_read_references)
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    settings = Settings(
        data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", offline=True
    )
    return Runtime.open(settings)


@pytest.fixture
def ctx(runtime: Runtime) -> Any:
    recorder = InlineDispatcher(record_sends=True)
    context = ServiceContext(
        runtime=runtime, dispatcher=recorder, runner=service.LoopThread(), verifier=ScriptedVerifier()
    )
    yield context
    context.close()


def _age(runtime: Runtime, item_ids: list[str], seconds: float, status: str | None = None) -> None:
    values: dict[str, Any] = {"updated_at": utcnow() - timedelta(seconds=seconds)}
    if status is not None:
        values["status"] = status
    with runtime.jobs.sessions.begin() as s:
        s.execute(update(Item).where(Item.id.in_(item_ids)).values(**values))


def _started_job(ctx: ServiceContext, lines: str) -> tuple[str, list[str]]:
    job_id = service.submit_bibliography(
        ctx.runtime, ctx.dispatcher, [InputDocument("refs.txt", lines.encode())]
    )
    service.start_bibliography_job(ctx, job_id)
    return job_id, [item.id for item in ctx.runtime.jobs.items(job_id)]


def sent(ctx: ServiceContext) -> list[tuple[str, tuple[Any, ...]]]:
    assert isinstance(ctx.dispatcher, InlineDispatcher) and ctx.dispatcher.sent is not None
    return ctx.dispatcher.sent


def test_a_killed_workers_item_is_sent_again_once_its_lease_expired(ctx: ServiceContext) -> None:
    assert ctx.settings.lease_seconds == 120 and ctx.settings.redrive_interval_seconds == 30
    _job, (held, dead) = _started_job(ctx, "a|real\nb|real\n")
    _age(ctx.runtime, [held], 30, ItemStatus.RUNNING)  # its worker renews it: lease current
    _age(ctx.runtime, [dead], 200, ItemStatus.RUNNING)  # its worker died 200 s ago
    sent(ctx).clear()

    report = service.redrive(ctx)  # the default: the lease, not the visibility timeout (3,600 s)

    assert sent(ctx) == [(VERIFY_ITEM, (dead,))]
    assert report.items == 1
    assert service.redrive(ctx).items == 0  # its clock restarted: the next pass waits a lease again


def test_a_step_renews_the_lease_of_what_it_holds(runtime: Runtime) -> None:
    keeper = LeaseKeeper(LeaseStore(runtime.jobs.engine), lease_seconds=0.3)
    try:
        job_id = runtime.jobs.create_job("bibliography", {"documents": []})
        runtime.jobs.add_items(job_id, [(1, "a", "reference", {"key": "a"})])
        (item,) = runtime.jobs.items(job_id)
        _age(runtime, [item.id], 500, ItemStatus.RUNNING)
        with keeper.hold(Held.ITEM, item.id):
            time.sleep(0.5)
            renewed = runtime.jobs.item(item.id)
            assert renewed is not None
            assert (utcnow() - renewed.updated_at.replace(tzinfo=utcnow().tzinfo)).total_seconds() < 5
        _age(runtime, [item.id], 500)
        time.sleep(0.3)  # released: nothing renews it any more
        after = runtime.jobs.item(item.id)
        assert after is not None
        assert (utcnow() - after.updated_at.replace(tzinfo=utcnow().tzinfo)).total_seconds() > 400
    finally:
        keeper.close()


def test_queued_items_behind_a_backlog_are_not_sent_twice_but_lost_ones_are(ctx: ServiceContext) -> None:
    _job, items = _started_job(ctx, "a|real\nb|real\nc|real\n")
    _age(ctx.runtime, items, 600)  # pending for ten minutes
    broker = fakeredis.FakeRedis()
    probe = RedisBrokerProbe(broker)
    assert probe.lost_since() is not None  # the first pass against this broker: no marker yet
    sent(ctx).clear()

    broker.rpush("retrieval", b"a message still waiting")
    assert service.redrive(ctx, probe=probe).items == 0  # a backlog: their messages are in it
    assert sent(ctx) == []

    broker.delete("retrieval")  # the queue drained and they are still pending: lost
    assert service.redrive(ctx, probe=probe).items == 3
    assert sorted(args[0] for _t, args in sent(ctx)) == sorted(items)


def test_a_broker_that_lost_its_data_has_every_unsettled_item_sent_again(ctx: ServiceContext) -> None:
    _job, items = _started_job(ctx, "a|real\nb|real\n")
    broker = fakeredis.FakeRedis()
    probe = RedisBrokerProbe(broker)
    probe.lost_since()
    broker.rpush("retrieval", b"other work")
    sent(ctx).clear()
    assert service.redrive(ctx, probe=probe).items == 0  # just queued, a backlog: left alone

    broker.flushall()  # Redis restarted without persistence: the marker and the queues are gone
    report = service.redrive(ctx, probe=probe)
    assert report.items == 2  # at once, not a lease later
    assert sorted(args[0] for _t, args in sent(ctx)) == sorted(items)


class RestartedRedis(fakeredis.FakeRedis):  # type: ignore[misc]
    """fakeredis with the uptime a real Redis reports (`INFO server`), which fakeredis lacks."""

    uptime = 0.0

    def info(self, section: str | None = None, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return {"uptime_in_seconds": int(self.uptime)}


def test_after_an_empty_restart_held_and_waiting_work_from_before_it_is_sent_at_once_not_what_came_since(
    ctx: ServiceContext,
) -> None:
    """Issue 33: the items that were running when Redis died waited a whole lease (125 s after the
    restart), and the first pass re-sent items queued to the new Redis as well."""
    _job, (held_before, waiting_before, held_since, queued_since, live) = _started_job(
        ctx, "a|real\nb|real\nc|real\nd|real\ne|real\n"
    )
    # Redis came back empty 20 s ago. Its restart cut off a running step (its lease would last
    # 100 s more) and a queued message; since then a step started and a message was queued.
    _age(ctx.runtime, [held_before], 25, ItemStatus.RUNNING)
    _age(ctx.runtime, [waiting_before], 60)
    _age(ctx.runtime, [held_since], 10, ItemStatus.RUNNING)
    _age(ctx.runtime, [queued_since], 5)
    _age(ctx.runtime, [live], 1, ItemStatus.RUNNING)  # a step alive through the restart renewed it
    broker = RestartedRedis()
    broker.uptime = 20
    broker.rpush("retrieval", b"the messages sent since")
    sent(ctx).clear()

    report = service.redrive(ctx, probe=RedisBrokerProbe(broker))

    assert report.items == 2
    assert sorted(args[0] for _t, args in sent(ctx)) == sorted([held_before, waiting_before])
    # The marker is back: the next pass goes by leases and queues again.
    assert service.redrive(ctx, probe=RedisBrokerProbe(broker)).items == 0


def test_a_fresh_broker_does_not_have_what_it_holds_sent_twice(ctx: ServiceContext) -> None:
    """Issue 33: the first pass against a new Redis re-sent every item still queued in it."""
    _job, items = _started_job(ctx, "a|real\nb|real\nc|real\n")
    _age(ctx.runtime, items, 40)  # queued 40 s ago, to a Redis up for an hour
    broker = RestartedRedis()
    broker.uptime = 3600
    sent(ctx).clear()
    assert service.redrive(ctx, probe=RedisBrokerProbe(broker)).items == 0
    assert sent(ctx) == []


def test_a_claims_text_job_whose_message_was_lost_is_re_driven(ctx: ServiceContext) -> None:
    job_id = submit_claims_text(ctx.runtime, ctx.dispatcher, InputDocument("paper.md", b"# T\n\nText.\n"))
    (item,) = ctx.runtime.jobs.items(job_id)
    sent(ctx).clear()  # the first message is lost
    assert service.redrive(ctx).jobs == []  # not a lease old yet
    _age(ctx.runtime, [item.id], 200)
    assert service.redrive(ctx).jobs == [job_id]
    assert sent(ctx) == [(CHECK_CLAIMS_TEXT, (job_id,))]
