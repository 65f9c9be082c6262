"""A job's row as every step reads and moves it: the states that end a job or leave an item
unsettled, the job by id, the compare-and-set of its status. Light on purpose: the writer and
`aletheia report` read jobs without loading the evidence pipeline a verifying step needs
(`jobs/context.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aletheia.core.errors import JobNotFound
from aletheia.storage.models import UNSETTLED_ITEMS, JobStatus, utcnow

if TYPE_CHECKING:
    from aletheia.pipeline.runtime import Runtime
    from aletheia.storage.models import Job

FINISHED = (JobStatus.DONE, JobStatus.FAILED)
UNSETTLED = UNSETTLED_ITEMS


def _job(runtime: Runtime, job_id: str) -> Job:
    job = runtime.jobs.job(job_id)
    if job is None:
        raise JobNotFound(job_id)
    return job


def _transition(runtime: Runtime, job_id: str, source: str, target: str) -> bool:
    """Compare-and-set of the job's status: only one of two racing steps wins a transition."""
    values: dict[str, Any] = {}
    if target == JobStatus.RUNNING:
        values["started_at"] = utcnow()
    if target in FINISHED:
        values["finished_at"] = utcnow()
    return runtime.jobs.transition(job_id, source, target, **values)
