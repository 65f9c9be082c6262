"""Leases: a step holds the work it runs, renewed while it runs, so the re-drive can tell a worker
that died (or a message the broker lost) from one still busy, in minutes rather than after the
broker's hour-long visibility timeout (issue 22; docs/service.md, "Re-drive").

One `LeaseKeeper` per worker process: a daemon thread that, every third of
`ALETHEIA_LEASE_SECONDS`, restarts the clocks of every item, claim job and expanding job a step of
this process holds (`storage/leases.py`). A killed process renews nothing, so its work's clocks
stop and, a lease later, the re-drive sends it again; a step run twice is harmless (every step is
idempotent), so a lease that expires under a slow but live step costs a duplicate, never a result.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Protocol

from aletheia.storage.leases import LeaseStore
from aletheia.storage.models import utcnow

logger = logging.getLogger(__name__)


class Held(StrEnum):
    ITEM = "item"  # a bibliography item or a claims text's document, while a step works on it
    CLAIM = "claim"  # a claim job, while one of its stages runs
    EXPANSION = "expansion"  # a queued job whose documents are being read into items


class LeaseKeeper:
    def __init__(self, store: LeaseStore, lease_seconds: float) -> None:
        self.store = store
        self.every = max(0.05, lease_seconds / 3)
        self._held: dict[Held, Counter[str]] = {kind: Counter() for kind in Held}
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @contextmanager
    def hold(self, kind: Held, key: str) -> Iterator[None]:
        """Hold `key`'s lease for the `with` block (renewed in the background; nested holds count)."""
        with self._guard:
            self._held[kind][key] += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="aletheia-leases", daemon=True)
                self._thread.start()
        try:
            yield
        finally:
            with self._guard:
                self._held[kind][key] -= 1
                if self._held[kind][key] <= 0:
                    del self._held[kind][key]

    def renew(self) -> None:
        with self._guard:
            held = {kind: list(keys) for kind, keys in self._held.items()}
        if any(held.values()):
            self.store.renew(items=held[Held.ITEM], claims=held[Held.CLAIM], jobs=held[Held.EXPANSION])

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.renew()
            except Exception:  # the database away for a moment: the next beat tries again
                logger.warning("could not renew leases", exc_info=True)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


# --- what a re-drive pass may take -------------------------------------------------------------------


class BrokerProbe(Protocol):
    """What the re-drive asks the broker (the workers' `RedisBrokerProbe`)."""

    def lost_since(self) -> datetime | None:
        """None while the broker keeps what it held since the last pass; after it lost its data (a
        restart without persistence), when it came back: every message sent before that is gone,
        and a message sent since (a producer's, a task's retry, a re-drive's) is in it."""
        ...

    def queue_idle(self, queue: str) -> bool:
        """No message waits in `queue`: work still waiting for one has lost it."""
        ...


@dataclass
class RedrivePass:
    """The cutoffs of one re-drive pass.

    Work a step holds (a `running` item, a claim stage, an expansion) is taken once its lease has
    not been renewed since `lease_cutoff`. Work still waiting for its message (a `pending` item, a
    queued job) is taken only when the message is known lost: the broker lost its data, or the
    pool's queue is empty and the work has waited a lease (`waiting_cutoff`); while a backlog is
    queued its messages are taken to be in it, so a long queue is never sent a second time.

    When the broker lost its data (`lost_before`: when it came back), every message of work last
    touched before then is gone, held or waiting alike: a step that was running then had its
    message (unacknowledged, in Redis) lost with it, and its lease is not waited for (a step that
    is in fact still running renews its row and is left alone; one whose worker gave up on the
    lost connection would otherwise stay `running` for a whole lease). Work touched since was sent
    to the broker as it is now, so its message is there: a fresh Redis does not have a queue it
    still holds sent a second time."""

    now: datetime
    lease_cutoff: datetime
    probe: BrokerProbe | None = None
    forced: bool = False  # `aletheia redrive --older-than N`: everything idle that long, whatever the queue
    lost_before: datetime | None = None
    _idle: dict[str, bool] = field(default_factory=dict)

    @property
    def broker_lost(self) -> bool:
        return self.lost_before is not None

    @classmethod
    def start(cls, lease_seconds: float, probe: BrokerProbe | None, *, forced: bool = False) -> RedrivePass:
        now = utcnow()
        lease_cutoff = now - timedelta(seconds=lease_seconds)
        lost = None if probe is None or forced else probe.lost_since()
        if lost is not None:
            lost = min(lost, now)
            lease_cutoff = max(lease_cutoff, lost)
        return cls(now, lease_cutoff, probe, forced, lost)

    def waiting_cutoff(self, pool: str) -> datetime | None:
        """Work waiting for a message of `pool` untouched since this has lost it; None: it has not."""
        if self.lost_before is not None:
            return self.lost_before
        if self.forced or self.probe is None:
            return self.lease_cutoff
        if pool not in self._idle:
            self._idle[pool] = self.probe.queue_idle(pool)
        return self.lease_cutoff if self._idle[pool] else None
