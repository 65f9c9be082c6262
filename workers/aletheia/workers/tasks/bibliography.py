"""Bibliography jobs: start (control pool) and heavy document conversion (parsing pool)."""

from __future__ import annotations

from celery import Task

from aletheia.pipeline.jobs import bibliography as jobs
from aletheia.pipeline.jobs.kinds import EXPAND_DOCUMENTS, START_BIBLIOGRAPHY
from aletheia.workers.app import task
from aletheia.workers.context import worker_context


@task(name=START_BIBLIOGRAPHY, bind=True, max_retries=5, default_retry_delay=10)
def start_bibliography_job(self: Task, job_id: str) -> None:
    """Expand the job's input into items and fan out; heavy documents go to the parsing pool."""
    jobs.start_bibliography_job(worker_context(), job_id)


@task(name=EXPAND_DOCUMENTS, bind=True, max_retries=3, default_retry_delay=30)
def expand_job(self: Task, job_id: str) -> None:
    """Convert PDF / HTML inputs and expand them into items (CPU-heavy: prefork, time limit)."""
    jobs.start_bibliography_job(worker_context(), job_id, in_parsing_pool=True)
