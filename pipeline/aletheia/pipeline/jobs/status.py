"""Progress of a job for producers (`aletheia status`, the Python client).

A job's status is read from the storage layer's thin read path (`storage/job_reads.py`: the job's
row and counts by SQLAlchemy Core, no ORM, no models) and the kind registry; nothing of the
pipeline, the sources or the gateway is imported, so `aletheia status` starts fast
(docs/benchmarks.md, "CLI start-up"; tests/unit/test_status_start_up.py keeps it so).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aletheia.core.verdicts import LOGIC_VERSION
from aletheia.pipeline.jobs.kinds import JobKind, kind_record
from aletheia.storage.job_reads import read_children_statuses, read_claim_stage, read_counts, read_job

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from aletheia.config import Settings
    from aletheia.pipeline.runtime import Runtime

# The job and item states (`storage.models.JobStatus`, `ItemStatus`), spelled out: the models
# import the ORM, which status does without.
_FINISHED = ("done", "failed")
_UNSETTLED = ("pending", "running")


def job_status(runtime: Runtime, job_id: str) -> dict[str, Any]:
    """The job's status from an open runtime (the client, the service); `JobNotFound` when there is
    no such job."""
    out = status_from_engine(runtime.jobs.engine, job_id)
    if out is None:
        from aletheia.core.errors import JobNotFound

        raise JobNotFound(job_id)
    return out


def read_job_status(settings: Settings, job_id: str) -> dict[str, Any] | None:
    """The job's status without opening a runtime (`aletheia status`), None when there is no such
    job: the database is opened, and migrated first when it is not at the newest migration, as
    `Runtime.open` does; no store, no source and no bundled snapshot is loaded for a read."""
    from aletheia.storage.db import engine_for

    return status_from_engine(engine_for(settings.sqlalchemy_url()), job_id)


def status_from_engine(engine: Engine, job_id: str) -> dict[str, Any] | None:
    """The job's state and counts (None: no such job), all read through the storage layer."""
    job = read_job(engine, job_id)
    if job is None:
        return None
    counts = read_counts(engine, job_id, logic_version=LOGIC_VERSION)
    items = counts.items
    out: dict[str, Any] = {
        "job_id": job_id,
        "kind": job.kind,
        "status": job.status,
        "submitted_by": job.submitted_by,
        "parent_id": job.parent_id,
        "total": sum(items.values()),
        "done": items.get("done", 0),
        "failed": items.get("failed", 0),
        "pending": sum(items.get(state, 0) for state in _UNSETTLED),
        "by_verdict": counts.verdicts,
        "error": job.error,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }
    if kind_record(job.kind).fans_out:
        kids = read_children_statuses(engine, job_id)
        out["children"] = {"total": len(kids), "finished": sum(status in _FINISHED for status in kids)}
    if job.kind == JobKind.CLAIM:
        out["stage"] = read_claim_stage(engine, job_id)  # the stage that runs next (claim_stages)
    if job.summary and "artifacts" in job.summary:
        out["artifacts"] = job.summary["artifacts"]
    return out
