"""Sweeps, audits, re-drive and data refresh (control pool, one at a time)."""

from __future__ import annotations

from typing import Any

from celery import Task

from aletheia.pipeline import service
from aletheia.workers.app import task
from aletheia.workers.context import worker_context


@task(name=service.START_SWEEP, bind=True, max_retries=5, default_retry_delay=10)
def start_sweep(self: Task, job_id: str) -> None:
    """Find each repository's citation artifacts and bibliographies; one child job per repository."""
    service.start_sweep(worker_context(), job_id)


@task(name=service.AUDIT)
def audit() -> str | None:
    """Beat, weekly: a sweep of every registered repository and stored artifact."""
    return service.start_audit(worker_context())


@task(name=service.REDRIVE)
def redrive(older_than: float | None = None) -> dict[str, Any]:
    """Beat, every few minutes: re-enqueue unfinished work whose messages were lost."""
    return service.redrive(worker_context(), older_than=older_than).as_json()


@task(name=service.REFRESH_RETRACTIONS)
def refresh_retractions() -> int | None:
    """Beat, daily: reload the Retraction Watch data."""
    return service.refresh_retractions(worker_context())


@task(name=service.COMMIT_AUDIT_ROOT)
def commit_audit_root() -> str | None:
    """Beat, hourly: commit a Merkle root over every job's audit trail not yet covered."""
    return service.commit_audit_root(worker_context())
