"""The periodic control jobs: the weekly audit sweep, the Retraction Watch refresh and the global
Merkle commit of the audit trail.
"""

from __future__ import annotations

import logging
from pathlib import Path

from sqlalchemy import select, update

from aletheia.pipeline.audit import (
    audit_log_for,
)
from aletheia.pipeline.jobs.context import (
    KIND_AUDIT,
    ServiceContext,
)
from aletheia.pipeline.jobs.submission import (
    submit_sweep,
)
from aletheia.storage.models import ArtifactRow, Repository

logger = logging.getLogger(__name__)


def start_audit(ctx: ServiceContext, *, submitted_by: str = "beat") -> str | None:
    """The weekly audit: one sweep over every registered repository and every repository holding a
    stored artifact."""
    with ctx.runtime.jobs.sessions() as s:
        paths = set(s.scalars(select(Repository.path)))
        paths |= set(s.scalars(select(ArtifactRow.repository).where(ArtifactRow.kind == "citation")))
    existing = sorted(p for p in paths if Path(p).is_dir())
    if not existing:
        logger.info("audit: no registered repository")
        return None
    job_id = submit_sweep(
        ctx.runtime, ctx.dispatcher, existing, submitted_by=submitted_by, kind=KIND_AUDIT, register=False
    )
    with ctx.runtime.jobs.sessions.begin() as s:
        s.execute(update(Repository).where(Repository.path.in_(existing)).values(last_audit_job=job_id))
    return job_id


def refresh_retractions(ctx: ServiceContext) -> int | None:
    """Reload the Retraction Watch CSV named in settings (the periodic refresh); None when unset."""
    csv = ctx.settings.retraction_watch_csv
    if not csv or not Path(csv).is_file():
        logger.info("retraction refresh skipped: ALETHEIA_RETRACTION_WATCH_CSV is not a file")
        return None
    count = ctx.runtime.load_retractions(csv)
    logger.info("retraction data refreshed", extra={"rows": count})
    return count


def commit_audit_root(ctx: ServiceContext) -> str | None:
    """The periodic Merkle commit across jobs (seed 002): every job root not yet covered."""
    info = audit_log_for(ctx.runtime).commit_global()
    return None if info is None else info.root
