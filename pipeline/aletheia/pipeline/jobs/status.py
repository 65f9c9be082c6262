"""Progress of a job for producers (`aletheia status`, the Python client)."""

from __future__ import annotations

from typing import Any

from aletheia.pipeline.jobs.claims import claim_stage
from aletheia.pipeline.jobs.context import (
    FINISHED,
    KIND_AUDIT,
    KIND_CLAIM,
    KIND_SWEEP,
    _job,
)
from aletheia.pipeline.jobs.sweeps import (
    children,
)
from aletheia.pipeline.runtime import Runtime


def job_status(runtime: Runtime, job_id: str) -> dict[str, Any]:
    job = _job(runtime, job_id)
    progress = runtime.jobs.progress(job_id)
    out: dict[str, Any] = {
        "job_id": job_id,
        "kind": job.kind,
        "status": job.status,
        "submitted_by": job.submitted_by,
        "parent_id": job.parent_id,
        "total": progress.total,
        "done": progress.done,
        "failed": progress.failed,
        "pending": progress.pending,
        "by_verdict": progress.by_verdict,
        "error": job.error,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }
    if job.kind in (KIND_SWEEP, KIND_AUDIT):
        kids = children(runtime, job_id)
        out["children"] = {"total": len(kids), "finished": sum(k.status in FINISHED for k in kids)}
    if job.kind == KIND_CLAIM:
        out["stage"] = claim_stage(runtime, job_id)  # the stage that runs next (claim_stages)
    if job.summary and "artifacts" in job.summary:
        out["artifacts"] = job.summary["artifacts"]
    return out
