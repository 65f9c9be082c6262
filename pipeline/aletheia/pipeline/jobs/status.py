"""Progress of a job for producers (`aletheia status`, the Python client).

Only the stores and the kind registry are imported up front: the job modules (claims, sweeps,
the step context, which pull in the sources and the gateway) are imported by the branch that
needs them, so `aletheia status` starts fast (docs/benchmarks.md, "CLI start-up").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aletheia.pipeline.jobs.kinds import JobKind, kind_record

if TYPE_CHECKING:
    from aletheia.pipeline.runtime import Runtime


def job_status(runtime: Runtime, job_id: str) -> dict[str, Any]:
    job = runtime.jobs.job(job_id)
    if job is None:
        from aletheia.pipeline.jobs.context import JobNotFound

        raise JobNotFound(job_id)
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
    if kind_record(job.kind).fans_out:
        from aletheia.pipeline.jobs.context import FINISHED
        from aletheia.pipeline.jobs.sweeps import children

        kids = children(runtime, job_id)
        out["children"] = {"total": len(kids), "finished": sum(k.status in FINISHED for k in kids)}
    if job.kind == JobKind.CLAIM:
        from aletheia.pipeline.jobs.claims import claim_stage

        out["stage"] = claim_stage(runtime, job_id)  # the stage that runs next (claim_stages)
    if job.summary and "artifacts" in job.summary:
        out["artifacts"] = job.summary["artifacts"]
    return out
