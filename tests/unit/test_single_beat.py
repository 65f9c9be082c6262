"""One beat per deployment (issue 33): of two beats on one Redis only the lock's holder sends; the
other waits and takes over when the holder's lock lapses, starting from the last runs the holder
recorded (so the weekly audit is neither sent twice nor skipped across the hand-over).

Redis is fakeredis here (its Lua runs the renew and release scripts); the two-host integration
test (tests/integration/test_two_hosts.py) runs two real beats under ops/start."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import fakeredis
import pytest
from celery import Celery

from aletheia.config.settings import reset_settings_cache
from aletheia.workers import single_beat
from aletheia.workers.single_beat import LAST_RUN_KEY, LOCK_KEY, BeatLock, Holding, SingleBeatScheduler

LOCK_SECONDS = 3


@pytest.fixture
def server() -> fakeredis.FakeServer:
    return fakeredis.FakeServer()


def client(server: fakeredis.FakeServer) -> fakeredis.FakeRedis:
    return fakeredis.FakeRedis(server=server)


def test_only_one_holder_and_a_lapsed_lock_is_taken_over(server: fakeredis.FakeServer) -> None:
    first, second = BeatLock(client(server), "a", 1), BeatLock(client(server), "b", 1)
    assert first.hold() is Holding.TAKEN
    assert second.hold() is Holding.WAITING
    assert first.hold() is Holding.RENEWED, "the holder renews its own lock"
    assert second.current_holder() == "a"
    assert 0 < second.seconds_left() <= 1
    time.sleep(1.1)  # the holder stopped renewing: it died
    assert second.hold() is Holding.TAKEN
    assert first.hold() is Holding.WAITING, "a holder whose lock lapsed and was taken does not get it back"
    assert not first.held
    second.release()
    assert client(server).get(LOCK_KEY) is None
    assert first.hold() is Holding.TAKEN
    client(server).flushall()  # Redis restarted empty: the holder takes its lock again
    assert first.hold() is Holding.TAKEN


def test_release_leaves_another_holders_lock_alone(server: fakeredis.FakeServer) -> None:
    first, second = BeatLock(client(server), "a", 1), BeatLock(client(server), "b", 5)
    assert first.hold() is Holding.TAKEN
    time.sleep(1.1)
    assert second.hold() is Holding.TAKEN
    first.held = True  # it believes it still holds it
    first.release()
    assert client(server).get(LOCK_KEY) == b"b"


# --- the scheduler ---------------------------------------------------------------------------------


class RecordingScheduler(SingleBeatScheduler):
    """Sends nothing through a broker: records what it would send."""

    def __init__(self, *args: Any, sent: list[tuple[str, str]], holder: str, **kwargs: Any) -> None:
        self.sent = sent
        self.holder = holder
        super().__init__(*args, **kwargs)

    def apply_entry(self, entry: Any, producer: Any = None) -> None:
        self.sent.append((self.holder, entry.name))


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> Iterator[Celery]:
    monkeypatch.setenv("ALETHEIA_BEAT_LOCK_SECONDS", str(LOCK_SECONDS))
    monkeypatch.setenv("ALETHEIA_BROKER_URL", "redis://127.0.0.1:1/0")  # never connected: fakeredis
    reset_settings_cache()
    celery = Celery("beat-test", broker="memory://")
    celery.conf.beat_schedule = {
        "often": {"task": "t.often", "schedule": 0.5},
        "redrive": {"task": "t.redrive", "schedule": 30.0},
        "weekly-audit": {"task": "t.audit", "schedule": 7 * 24 * 3600.0},
    }
    yield celery
    reset_settings_cache()


def scheduler(
    app: Celery,
    server: fakeredis.FakeServer,
    tmp_path: Path,
    name: str,
    sent: list[tuple[str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> RecordingScheduler:
    def lock(seconds: float) -> BeatLock:
        return BeatLock(client(server), name, seconds)

    monkeypatch.setattr(SingleBeatScheduler, "_open_lock", staticmethod(lock))
    schedule = str(tmp_path / f"schedule-{name}")
    return RecordingScheduler(app, schedule_filename=schedule, sent=sent, holder=name)


def two_beats(
    app: Celery, server: fakeredis.FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[tuple[str, str]], RecordingScheduler, RecordingScheduler]:
    """Beats "a" and "b" on one Redis, and the list of (beat, entry) either sent."""
    sent: list[tuple[str, str]] = []
    first = scheduler(app, server, tmp_path, "a", sent, monkeypatch)
    return sent, first, scheduler(app, server, tmp_path, "b", sent, monkeypatch)


def run_both(beats: list[RecordingScheduler], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for beat in beats:
            beat.tick()
        time.sleep(0.05)


def test_two_beats_send_each_due_entry_once(
    app: Celery, server: fakeredis.FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    sent, first, second = two_beats(app, server, tmp_path, monkeypatch)
    assert first.max_interval <= LOCK_SECONDS / 3, "a pass at least every third of the lock"
    week_ago = first.app.now() - timedelta(days=8)
    for beat in (first, second):  # both beats find the audit due
        beat.schedule["weekly-audit"].last_run_at = week_ago
        beat._heap = None
    caplog.set_level("WARNING", logger=single_beat.__name__)
    run_both([first, second], 2.0)
    assert {holder for holder, _ in sent} == {"a"}, "only the lock's holder sends"
    assert [name for _, name in sent].count("weekly-audit") == 1
    assert sum(name == "often" for _, name in sent) >= 2
    waiting = [r.getMessage() for r in caplog.records if "another beat holds the lock (a)" in r.getMessage()]
    assert len(waiting) == 1, "the waiting beat says so, once"
    assert client(server).hget(LAST_RUN_KEY, "weekly-audit") is not None

    # The holder dies (no release: SIGKILL). The other takes over within about a lock period,
    # from the recorded last runs: the audit it also found due is not sent again.
    sent.clear()
    died = time.monotonic()
    assert second.lock is not None
    while not second.lock.held and time.monotonic() - died < 2 * LOCK_SECONDS:
        second.tick()
        time.sleep(0.05)
    assert second.lock.held, "the waiting beat took over within about a lock period"
    run_both([second], 1.0)
    assert {holder for holder, _ in sent} == {"b"}
    assert "weekly-audit" not in [name for _, name in sent]
    assert any(name == "often" for _, name in sent)
    first.sync()
    second.close()


def test_an_entry_due_during_the_hand_over_is_sent_by_the_new_holder(
    app: Celery, server: fakeredis.FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent, first, second = two_beats(app, server, tmp_path, monkeypatch)
    run_both([first, second], 0.3)
    assert "weekly-audit" not in [name for _, name in sent]
    # It fell due while nobody held the lock: the new holder sends it, once.
    overdue = first.app.now() - timedelta(days=8)
    client(server).hset(LAST_RUN_KEY, "weekly-audit", overdue.isoformat())
    client(server).delete(LOCK_KEY)  # the holder's lock lapsed
    sent.clear()
    run_both([second], 1.0)
    assert [name for holder, name in sent if name == "weekly-audit"] == ["weekly-audit"]
    assert {holder for holder, _ in sent} == {"b"}
    second.close()


def test_a_closed_beat_hands_over_at_once(
    app: Celery, server: fakeredis.FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _sent, first, second = two_beats(app, server, tmp_path, monkeypatch)
    first.tick()
    second.tick()
    assert second.lock is not None and not second.lock.held
    first.close()  # a warm stop releases the lock
    second.tick()
    assert second.lock.held
    second.close()


def test_a_redis_that_lost_its_data_has_the_redrive_sent_at_once(
    app: Celery, server: fakeredis.FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33: recovery from an empty Redis restart starts when beat sees it, not an interval later."""
    sent: list[tuple[str, str]] = []
    beat = scheduler(app, server, tmp_path, "a", sent, monkeypatch)
    run_both([beat], 0.3)
    first_redrives = [name for _, name in sent].count("redrive")
    assert first_redrives == 1, "a new deployment's first beat re-drives at once"
    run_both([beat], 0.5)
    assert [name for _, name in sent].count("redrive") == 1, "then every 30 s"
    client(server).flushall()  # Redis killed and restarted without persistence
    run_both([beat], 0.3)
    assert [name for _, name in sent].count("redrive") == 2
    beat.close()
