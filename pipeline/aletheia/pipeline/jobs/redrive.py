"""Re-drive: send again whatever an unfinished job waits for and nobody holds — the work of a killed
worker (its lease expired), the messages a broker restart lost — each kind by its own rule (its
registry record's `redrive`, `jobs/kinds.py`). Beat runs it every `ALETHEIA_REDRIVE_INTERVAL_SECONDS`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aletheia.pipeline.joblog import job_context
from aletheia.pipeline.jobs.claims import STAGE_TASKS
from aletheia.pipeline.jobs.context import ServiceContext
from aletheia.pipeline.jobs.kinds import (
    CHECK_CLAIMS_TEXT,
    CLAIM_CANDIDATES,
    EXPAND_DOCUMENTS,
    RENDER_REPORT,
    START_BIBLIOGRAPHY,
    START_SWEEP,
    STEPS,
    VERIFY_ITEM,
    JobKind,
    kind_record,
    resolve,
)
from aletheia.pipeline.jobs.leases import BrokerProbe, RedrivePass
from aletheia.pipeline.jobs.sweeps import _maybe_finish_parent, children
from aletheia.storage.models import Job, JobStatus

logger = logging.getLogger(__name__)

Sends = list[tuple[str, str]]  # (task, its one argument: a job or an item id)


@dataclass
class RedriveReport:
    jobs: list[str] = field(default_factory=list)
    items: int = 0
    reports: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"jobs": self.jobs, "items": self.items, "reports": self.reports}


def redrive(
    ctx: ServiceContext, older_than: float | None = None, *, probe: BrokerProbe | None = None
) -> RedriveReport:
    """Send again what unfinished jobs wait for and nobody holds (module docstring). `older_than`
    (`aletheia redrive --older-than`): everything unsettled and idle that many seconds, whatever the
    broker holds; by default the lease (`ALETHEIA_LEASE_SECONDS`) with the broker asked (`probe`,
    else one the context opens for this pass: the workers' `RedisBrokerProbe`)."""
    if probe is not None or ctx.broker_probe is None:
        return _redrive_pass(ctx, older_than, probe)
    opened = ctx.broker_probe()
    try:
        return _redrive_pass(ctx, older_than, opened)
    finally:
        close = getattr(opened, "close", None)
        if close is not None:
            close()


def _redrive_pass(ctx: ServiceContext, older_than: float | None, probe: BrokerProbe | None) -> RedriveReport:
    rt = ctx.runtime
    seconds = float(rt.settings.lease_seconds if older_than is None else older_than)
    current = RedrivePass.start(seconds, probe, forced=older_than is not None)
    report = RedriveReport()
    for job in rt.jobs.unfinished_jobs():
        with job_context(job.id):
            try:
                record = kind_record(job.kind)
            except (KeyError, ValueError):
                logger.error("job of unknown kind %r: not re-driven", job.kind)
                continue
            sends: Sends = resolve(record.redrive)(ctx, job, current)
            for task, arg in sends:
                ctx.dispatcher.send(task, arg)
            report.items += sum(task == VERIFY_ITEM for task, _ in sends)
            # A bibliography job whose items are all settled and whose report was lost counts as
            # a report; anything else sent names its job.
            only_report = job.kind == JobKind.BIBLIOGRAPHY and all(task == RENDER_REPORT for task, _ in sends)
            report.reports += sum(task == RENDER_REPORT for task, _ in sends) if only_report else 0
            if sends and not only_report:
                report.jobs.append(job.id)
    if report.jobs or report.reports:
        logger.warning(
            "re-drove unfinished work", extra=report.as_json() | {"broker_lost": current.broker_lost}
        )
    return report


def _aware(ts: datetime) -> datetime:
    return ts if ts.tzinfo is not None else ts.replace(tzinfo=UTC)


def _pool(task: str) -> str:
    return str(STEPS[task].pool)


def redrive_bibliography(ctx: ServiceContext, job: Job, current: RedrivePass) -> Sends:
    from aletheia.pipeline.jobs.bibliography import needs_parsing_pool

    leases = ctx.runtime.leases
    if job.status == JobStatus.QUEUED:
        if job.started_at is not None:  # its expansion began: it holds a lease while it reads
            return [(START_BIBLIOGRAPHY, job.id)] if _aware(job.started_at) <= current.lease_cutoff else []
        waiting = current.waiting_cutoff(
            _pool(EXPAND_DOCUMENTS if needs_parsing_pool(job) else START_BIBLIOGRAPHY)
        )
        return [(START_BIBLIOGRAPHY, job.id)] if waiting and _aware(job.created_at) <= waiting else []
    items = leases.take_abandoned_items(
        job.id, lease_cutoff=current.lease_cutoff, waiting_cutoff=current.waiting_cutoff(_pool(VERIFY_ITEM))
    )
    if items:
        return [(VERIFY_ITEM, item_id) for item_id in items]
    if ctx.runtime.jobs.progress(job.id).pending == 0:  # every item settled: the report's message
        moved = leases.last_moved(job.id) or job.started_at or job.created_at
        waiting = current.waiting_cutoff(_pool(RENDER_REPORT))
        if waiting is not None and _aware(moved) <= waiting:
            return [(RENDER_REPORT, job.id)]
    return []


def redrive_claim(ctx: ServiceContext, job: Job, current: RedrivePass) -> Sends:
    """A claim job's stage, when its row has not moved for a lease: the stage that held it renews
    the row while it runs, and a stage message twice is harmless (compare-and-set on the row)."""
    store = ctx.runtime.claim_stages
    row = store.load(job.id)  # None before its first stage ran
    if row is None:
        waiting = current.waiting_cutoff(_pool(CLAIM_CANDIDATES))
        return [(CLAIM_CANDIDATES, job.id)] if waiting and _aware(job.created_at) <= waiting else []
    if not store.touch_if_stale(job.id, current.lease_cutoff):  # its clock restarts when it is taken
        return []
    if row.stage == "done" and job.summary and not ctx.runtime.jobs.progress(job.id).pending:
        return [(RENDER_REPORT, job.id)]  # the writer finished the claim; only its report was lost
    return [(STAGE_TASKS[row.stage], job.id)]


def redrive_claims_text(ctx: ServiceContext, job: Job, current: RedrivePass) -> Sends:
    """Its one step holds the job's document item while it runs."""
    taken = ctx.runtime.leases.take_abandoned_items(
        job.id,
        lease_cutoff=current.lease_cutoff,
        waiting_cutoff=current.waiting_cutoff(_pool(CHECK_CLAIMS_TEXT)),
    )
    return [(CHECK_CLAIMS_TEXT, job.id)] if taken else []


def redrive_sweep(ctx: ServiceContext, job: Job, current: RedrivePass) -> Sends:
    """A sweep or audit whose fan-out did not finish (a quick step: a lease is ample), or whose
    children all finished without its report being asked for."""
    rt = ctx.runtime
    stamp = _aware(job.started_at or job.created_at)
    if job.status == JobStatus.QUEUED or len(children(rt, job.id)) < len(job.input.get("repositories", [])):
        return [(START_SWEEP, job.id)] if stamp <= current.lease_cutoff else []
    _maybe_finish_parent(ctx, job.id)
    return []
