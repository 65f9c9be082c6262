"""Re-drive: re-enqueue whatever an unfinished job waits for after lost messages (a crash, a broker
restart).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select, update

from aletheia.pipeline.joblog import job_context
from aletheia.pipeline.jobs.claims import stale_claim_task
from aletheia.pipeline.jobs.context import (
    CHECK_CLAIMS_TEXT,
    KIND_AUDIT,
    KIND_BIBLIOGRAPHY,
    KIND_CLAIM,
    KIND_CLAIMS_TEXT,
    KIND_SWEEP,
    RENDER_REPORT,
    START_BIBLIOGRAPHY,
    START_SWEEP,
    UNSETTLED,
    VERIFY_ITEM,
    ServiceContext,
)
from aletheia.pipeline.jobs.sweeps import (
    _maybe_finish_parent,
    children,
)
from aletheia.pipeline.runtime import Runtime
from aletheia.storage.models import Item, JobStatus, utcnow

logger = logging.getLogger(__name__)


@dataclass
class RedriveReport:
    jobs: list[str] = field(default_factory=list)
    items: int = 0
    reports: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"jobs": self.jobs, "items": self.items, "reports": self.reports}


def redrive(ctx: ServiceContext, *, older_than: float | None = None) -> RedriveReport:
    """Re-enqueue whatever an unfinished job is waiting for and has not moved for `older_than`
    seconds (default: the visibility timeout): lost messages after a crash or a broker restart."""
    rt = ctx.runtime
    age = float(rt.settings.visibility_timeout_seconds if older_than is None else older_than)
    cutoff = utcnow() - timedelta(seconds=age)
    report = RedriveReport()
    for job in rt.jobs.unfinished_jobs():
        with job_context(job.id):
            stamp = _aware(job.started_at or job.created_at)
            if job.kind == KIND_BIBLIOGRAPHY:
                if job.status == JobStatus.QUEUED:
                    if stamp <= cutoff:
                        ctx.dispatcher.send(START_BIBLIOGRAPHY, job.id)
                        report.jobs.append(job.id)
                    continue
                stale = _stale_items(rt, job.id, cutoff)
                for item_id in stale:
                    ctx.dispatcher.send(VERIFY_ITEM, item_id)
                report.items += len(stale)
                if stale:
                    report.jobs.append(job.id)
                elif rt.jobs.progress(job.id).pending == 0 and stamp <= cutoff:
                    ctx.dispatcher.send(RENDER_REPORT, job.id)
                    report.reports += 1
            elif job.kind == KIND_CLAIM:
                # Whatever stage it is at (claim_states), if it has not moved since the cutoff.
                task = stale_claim_task(rt, job, cutoff)
                if task is not None:
                    ctx.dispatcher.send(task, job.id)
                    report.jobs.append(job.id)
            elif job.kind == KIND_CLAIMS_TEXT and stamp <= cutoff:
                ctx.dispatcher.send(CHECK_CLAIMS_TEXT, job.id)
                report.jobs.append(job.id)
            elif job.kind in (KIND_SWEEP, KIND_AUDIT) and stamp <= cutoff:
                if job.status == JobStatus.QUEUED or len(children(rt, job.id)) < len(
                    job.input.get("repositories", [])
                ):
                    ctx.dispatcher.send(START_SWEEP, job.id)
                    report.jobs.append(job.id)
                else:
                    _maybe_finish_parent(ctx, job.id)
    if report.jobs or report.reports:
        logger.warning("re-drove unfinished work", extra=report.as_json())
    return report


def _aware(ts: datetime) -> datetime:
    return ts if ts.tzinfo is not None else ts.replace(tzinfo=UTC)


def _stale_items(runtime: Runtime, job_id: str, cutoff: datetime) -> list[str]:
    """Unsettled items untouched since `cutoff`; their clock restarts so the next pass waits again."""
    with runtime.jobs.sessions.begin() as s:
        # SKIP LOCKED: two re-drives running at once split the rows instead of both sending them.
        rows = list(
            s.scalars(
                select(Item.id)
                .where(Item.job_id == job_id, Item.status.in_(UNSETTLED), Item.updated_at <= cutoff)
                .with_for_update(skip_locked=True)
            )
        )
        if rows:
            s.execute(update(Item).where(Item.id.in_(rows)).values(updated_at=utcnow()))
    return rows
