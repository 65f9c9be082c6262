"""Claims: evidence matching, LLM-bound (evidence pool, small concurrency)."""

from __future__ import annotations

from celery import Task

from aletheia.pipeline.jobs import claims as jobs
from aletheia.pipeline.jobs import claims_text as claims_text_jobs
from aletheia.pipeline.jobs.context import CHECK_CLAIMS_TEXT, VERIFY_CLAIM
from aletheia.workers.app import task
from aletheia.workers.context import worker_context


@task(name=VERIFY_CLAIM, bind=True, max_retries=3, default_retry_delay=30)
def verify_claim(self: Task, job_id: str) -> None:
    """Verify a claim and cite its sources; without the claim pipeline the job fails, saying why."""
    jobs.verify_claim(worker_context(), job_id)


@task(name=CHECK_CLAIMS_TEXT, bind=True, max_retries=3, default_retry_delay=30)
def check_claims_text(self: Task, job_id: str) -> None:
    """A research text's claims: citations checked, suggestions for the unsupported ones."""
    claims_text_jobs.check_claims_text_job(worker_context(), job_id)
