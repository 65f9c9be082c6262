"""Leases on work in progress, as rows' clocks (issue 22): what the re-drive reads to tell work a
worker still holds from work whose worker died or whose message was lost.

A step working on an item, a claim stage or a queued job's expansion renews the row's clock every
third of the lease (`ALETHEIA_LEASE_SECONDS`) while it runs: `items.updated_at` of a `running`
item, `claim_states.updated_at` of a claim job, `jobs.started_at` of a job still `queued` while
its documents are expanded (the transition to `running` sets it for good). A clock older than the
lease means nobody holds the work. No column was added: each of these already says when the row
last moved.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import ColumnElement, Engine, func, or_, select, update

from aletheia.storage.db import session_factory
from aletheia.storage.models import ClaimStateRow, Item, ItemStatus, Job, JobStatus, utcnow


class LeaseStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessions = session_factory(engine)

    def renew(
        self, *, items: Iterable[str] = (), claims: Iterable[str] = (), jobs: Iterable[str] = ()
    ) -> None:
        """Restart the clocks of the work this process holds (one transaction for all of it)."""
        items, claims, jobs = list(items), list(claims), list(jobs)
        now = utcnow()
        with self.sessions.begin() as s:
            if items:
                s.execute(
                    update(Item)
                    .where(Item.id.in_(items), Item.status == ItemStatus.RUNNING)
                    .values(updated_at=now)
                )
            if claims:
                s.execute(
                    update(ClaimStateRow).where(ClaimStateRow.job_id.in_(claims)).values(updated_at=now)
                )
            if jobs:
                s.execute(
                    update(Job).where(Job.id.in_(jobs), Job.status == JobStatus.QUEUED).values(started_at=now)
                )

    def take_abandoned_items(
        self, job_id: str, *, lease_cutoff: datetime, waiting_cutoff: datetime | None
    ) -> list[str]:
        """The job's unsettled items nobody holds: `running` ones whose lease was last renewed
        before `lease_cutoff` (their worker died), and `pending` ones untouched since
        `waiting_cutoff` (their message was lost; None: they are taken to be still queued). They go
        back to `pending`, so the delivery sent for them can claim them (`JobStore.claim_item`) and
        a worker that was only slow, not dead, has lost its claim and records nothing; their clocks
        restart, so the next pass waits a whole lease again."""
        abandoned: ColumnElement[bool] = (Item.status == ItemStatus.RUNNING) & (
            Item.updated_at <= lease_cutoff
        )
        if waiting_cutoff is not None:
            abandoned = or_(
                abandoned, (Item.status == ItemStatus.PENDING) & (Item.updated_at <= waiting_cutoff)
            )
        with self.sessions.begin() as s:
            # SKIP LOCKED: two re-drives running at once split the rows instead of both sending them.
            rows = list(
                s.scalars(
                    select(Item.id).where(Item.job_id == job_id, abandoned).with_for_update(skip_locked=True)
                )
            )
            if rows:
                s.execute(
                    update(Item)
                    .where(Item.id.in_(rows))
                    .values(status=ItemStatus.PENDING, updated_at=utcnow())
                )
        return rows

    def last_moved(self, job_id: str) -> datetime | None:
        """When an item of the job last moved (the last verdict, for a job whose items are settled)."""
        with self.sessions() as s:
            stamp: datetime | None = s.scalar(select(func.max(Item.updated_at)).where(Item.job_id == job_id))
            return stamp
