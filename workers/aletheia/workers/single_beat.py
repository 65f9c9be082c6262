"""One beat per deployment, however many are started: a lock in Redis, and the schedule's last runs
kept beside it.

Beat sends the weekly audit, the re-drive and the hourly Merkle root. Two beats (one per host, or
`docker compose up --scale beat=2`) would send each twice: two audits of every repository. So every
beat runs `SingleBeatScheduler` (the app's `beat_scheduler`): before each pass it takes or renews
a lock in the broker's Redis (redis-py's `Lock`: `SET NX PX`, renewed by a compare-and-set
script so only its holder extends it) that lapses `ALETHEIA_BEAT_LOCK_SECONDS` (30) after its
last renewal. Only the holder sends anything. Another beat says once which beat holds the lock
and waits, asking again when the lock would lapse; when the holder dies (SIGKILL, its host gone)
its lock lapses and a waiting beat takes over within about one lock period.

The beat taking over must not send again what the old holder just sent, nor skip what fell due
while nobody held the lock: the holder records each entry's last run in a Redis hash as it sends
it, and the new holder starts from those (its own schedule file only knows when it last sent, if
ever). A Redis restarted empty loses both the lock and the hash: the first beat to ask takes the
lock and keeps its own schedule's last runs.

A holder paused longer than the lock (a stopped process, a host frozen for half a minute) may find
it taken when it wakes: it then sends nothing more and waits like any other beat. Between its
last renewal and such a pause, one due entry could be sent by both; every task beat sends is
idempotent or harmless twice (the re-drive, the Merkle root), and the audit's second copy only
costs work.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from datetime import datetime
from enum import Enum
from typing import Any, Final

from celery.beat import PersistentScheduler, ScheduleEntry

from aletheia.config import get_settings

logger = logging.getLogger(__name__)

LOCK_KEY: Final = "aletheia:beat:lock"
# Interval entries sent as soon as a beat takes the lock on a Redis that holds no schedule (the
# app's beat_schedule names them): the re-drive, which finds what the empty Redis lost.
AT_ONCE_ON_A_NEW_BROKER: Final = ("redrive",)
LAST_RUN_KEY: Final = "aletheia:beat:last-run"


def _redis_errors() -> tuple[type[BaseException], ...]:
    import redis.exceptions

    return (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)


class Holding(Enum):
    RENEWED = "renewed"  # this beat held the lock and still does
    TAKEN = "taken"  # this beat did not hold it (or lost it) and has just taken it
    WAITING = "waiting"  # another beat holds it


class BeatLock:
    """The lock one beat of the deployment holds (module docstring). `client` is a redis-py client."""

    def __init__(self, client: Any, holder: str, seconds: float) -> None:
        self.client = client
        self.holder = holder
        self.seconds = float(seconds)
        self.held = False
        # redis-py's lock: taken by `SET NX PX` with this beat's name as its token, renewed and
        # released by compare-and-set scripts, so only its holder extends or deletes it (a lapsed
        # lock taken by another beat is theirs). Not thread-local: the scheduler's thread owns it.
        self._lock = client.lock(LOCK_KEY, timeout=self.seconds, blocking=False, thread_local=False)

    def hold(self) -> Holding:
        """Renew the lock if this beat holds it, else take it if it is free."""
        from redis.exceptions import LockNotOwnedError

        if self.held:
            try:
                self._lock.reacquire()
                return Holding.RENEWED
            except LockNotOwnedError:
                logger.warning(
                    "beat lock lost (it lapsed, or Redis restarted empty): taking it again if free"
                )
        self.held = bool(self._lock.acquire(token=self.holder))
        return Holding.TAKEN if self.held else Holding.WAITING

    def current_holder(self) -> str | None:
        value = self.client.get(LOCK_KEY)
        return value.decode() if isinstance(value, bytes) else value

    def seconds_left(self) -> float:
        """Until the current holder's lock lapses if it is not renewed (0: free or lapsing now)."""
        left = int(self.client.pttl(LOCK_KEY))
        return max(0.0, left / 1000.0)

    def release(self) -> None:
        from redis.exceptions import LockNotOwnedError

        if self.held:
            self.held = False
            with contextlib.suppress(LockNotOwnedError):  # it lapsed: whoever holds it now keeps it
                self._lock.release()

    # --- the schedule's last runs, shared by the beats ---------------------------------------------

    def record_run(self, name: str, at: datetime) -> None:
        self.client.hset(LAST_RUN_KEY, name, at.isoformat())

    def last_runs(self) -> dict[str, datetime]:
        found: dict[str, datetime] = {}
        for raw_name, raw_at in (self.client.hgetall(LAST_RUN_KEY) or {}).items():
            name = raw_name.decode() if isinstance(raw_name, bytes) else str(raw_name)
            text = raw_at.decode() if isinstance(raw_at, bytes) else str(raw_at)
            try:
                found[name] = datetime.fromisoformat(text)
            except ValueError:
                logger.warning("beat: unreadable last run %r for %s ignored", text, name)
        return found

    def close(self) -> None:
        self.client.close()


def beat_holder_name() -> str:
    """Who holds the lock, as the waiting beats log it: the host (`ALETHEIA_HOSTNAME`, as ops/start
    names its workers, else the machine's name) and the process."""
    host = os.environ.get("ALETHEIA_HOSTNAME") or socket.gethostname()
    return f"beat@{host} pid {os.getpid()}"


class SingleBeatScheduler(PersistentScheduler):  # type: ignore[misc]  # Celery ships no annotations
    """Celery's persistent scheduler, sending only while this beat holds the deployment's lock."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.lock: BeatLock | None = None
        self._waiting_logged_for: str | None = None
        self._unreachable_logged = False
        super().__init__(*args, **kwargs)
        seconds = get_settings().beat_lock_seconds
        self.lock = self._open_lock(seconds)
        # Renewed at every pass, so a pass must come at least every third of the lock.
        self.max_interval: float = min(float(getattr(self, "max_interval", seconds)), seconds / 3)

    @staticmethod
    def _open_lock(seconds: float) -> BeatLock | None:
        url = get_settings().broker_url
        if url is None or not url.get_secret_value().startswith(("redis://", "rediss://", "unix://")):
            logger.warning("beat: the broker is not Redis: no lock, so run exactly one beat yourself")
            return None
        import redis

        client = redis.Redis.from_url(url.get_secret_value(), socket_timeout=5, socket_connect_timeout=5)
        return BeatLock(client, beat_holder_name(), seconds)

    def tick(self, *args: Any, **kwargs: Any) -> float:
        if self.lock is None:
            return float(super().tick(*args, **kwargs))
        try:
            holding = self.lock.hold()
        except _redis_errors() as exc:
            if not self._unreachable_logged:
                logger.warning("beat: Redis does not answer (%s): sending nothing until it does", exc)
                self._unreachable_logged = True
            self.lock.held = False
            return min(5.0, self.lock.seconds / 3)
        self._unreachable_logged = False
        if holding is Holding.WAITING:
            return self._wait_for_lock()
        if holding is Holding.TAKEN:
            logger.warning("beat: this beat (%s) holds the lock and sends the schedule", self.lock.holder)
            self._waiting_logged_for = None
            self._adopt_last_runs()
        return min(float(super().tick(*args, **kwargs)), self.lock.seconds / 3)

    def _wait_for_lock(self) -> float:
        assert self.lock is not None
        holder = self.lock.current_holder() or "(lapsing)"
        if holder != self._waiting_logged_for:
            logger.warning(
                "beat: another beat holds the lock (%s): this one (%s) sends nothing and waits to "
                "take over if that one stops",
                holder,
                self.lock.holder,
            )
            self._waiting_logged_for = holder
        # Ask again just after the holder's lock would lapse, and at least every third of it.
        return max(0.2, min(self.lock.seconds_left() + 0.2, self.lock.seconds / 3))

    def _adopt_last_runs(self) -> None:
        """Start from the last runs the previous holder recorded (module docstring). None recorded:
        Redis lost its data (or this is the deployment's first beat), and with it every queued
        message, so the entries in `AT_ONCE_ON_A_NEW_BROKER` (the re-drive) are sent now rather
        than an interval later: recovery from an empty Redis starts as soon as beat sees it."""
        assert self.lock is not None
        shared = self.lock.last_runs()
        if not shared:
            for name in AT_ONCE_ON_A_NEW_BROKER:
                entry = self.schedule.get(name)
                run_every = getattr(entry.schedule, "run_every", None) if entry is not None else None
                if entry is not None and run_every is not None:
                    entry.last_run_at = entry.default_now() - run_every
                    logger.warning("beat: Redis holds no schedule (new, or restarted empty): %s now", name)
        adopted = []
        for name, entry in self.schedule.items():
            at = shared.get(name)
            if at is not None and at != entry.last_run_at:
                entry.last_run_at = at
                adopted.append(name)
        if adopted:
            logger.info("beat: last runs taken over from the previous holder: %s", ", ".join(sorted(adopted)))
        self._heap = None  # the next pass orders the entries again from their (new) last runs

    def reserve(self, entry: ScheduleEntry) -> ScheduleEntry:
        new_entry = super().reserve(entry)
        if self.lock is not None and self.lock.held:
            try:
                self.lock.record_run(new_entry.name, new_entry.last_run_at)
            except _redis_errors() as exc:  # the send itself will say more
                logger.warning("beat: could not record the last run of %s: %s", new_entry.name, exc)
        return new_entry

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self.lock is not None:
                try:
                    self.lock.release()  # the next beat takes over at once, not a lock later
                except _redis_errors():
                    pass
                self.lock.close()
