"""Claims: evidence matching, LLM-bound (evidence pool, small concurrency)."""

from __future__ import annotations

from celery import Task

from aletheia.pipeline.jobs import claims as jobs
from aletheia.pipeline.jobs.context import VERIFY_CLAIM
from aletheia.workers.app import task
from aletheia.workers.context import worker_context


@task(name=VERIFY_CLAIM, bind=True, max_retries=3, default_retry_delay=30)
def verify_claim(self: Task, job_id: str) -> None:
    """Verify a claim and cite its sources; without the claim pipeline the job fails, saying why."""
    jobs.verify_claim(worker_context(), job_id)
