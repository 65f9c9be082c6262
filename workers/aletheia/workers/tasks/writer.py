"""Reports and artifacts (writer pool; writes for one repository path are serialised)."""

from __future__ import annotations

from celery import Task

from aletheia.pipeline.jobs import reports as jobs
from aletheia.pipeline.jobs.kinds import RENDER_REPORT
from aletheia.workers.app import task
from aletheia.workers.context import worker_context
from aletheia.workers.retry import is_outage


@task(name=RENDER_REPORT, bind=True, max_retries=5, default_retry_delay=15)
def render_report(self: Task, job_id: str) -> None:
    """Render the job's report files, record them, mark the job done, tell its parent."""
    try:
        jobs.render_report(worker_context(), job_id)
    except OSError as exc:  # a full disk or a locked file: try again later
        if is_outage(exc):  # the broker refused the parent's next step: the base's backoff
            raise
        raise self.retry(exc=exc) from None
