"""Sweeps, audits, re-drive and data refresh (control pool, one at a time)."""

from __future__ import annotations

from typing import Any

from celery import Task

from aletheia.pipeline import contracts
from aletheia.pipeline.jobs import audit as audit_jobs
from aletheia.pipeline.jobs import redrive as redrive_jobs
from aletheia.pipeline.jobs import sweeps as sweep_jobs
from aletheia.pipeline.jobs.kinds import (
    AUDIT,
    COMMIT_AUDIT_ROOT,
    CONTRACT_CHECK,
    REDRIVE,
    REFRESH_RETRACTIONS,
    START_SWEEP,
    UPDATE_MIRROR,
)
from aletheia.workers.app import task
from aletheia.workers.broker_probe import RedisBrokerProbe
from aletheia.workers.context import worker_context


@task(name=START_SWEEP, bind=True, max_retries=5, default_retry_delay=10)
def start_sweep(self: Task, job_id: str) -> None:
    """Find each repository's citation artifacts and bibliographies; one child job per repository."""
    sweep_jobs.start_sweep(worker_context(), job_id)


@task(name=AUDIT)
def audit() -> str | None:
    """Beat, weekly: a sweep of every registered repository and stored artifact."""
    return audit_jobs.start_audit(worker_context())


@task(name=REDRIVE)
def redrive(older_than: float | None = None) -> dict[str, Any]:
    """Beat, every `ALETHEIA_REDRIVE_INTERVAL_SECONDS`: send again the work nobody holds (an expired
    lease, a message the broker lost), asking the broker what it still has."""
    probe = RedisBrokerProbe.from_settings()
    try:
        return redrive_jobs.redrive(worker_context(), older_than, probe=probe).as_json()
    finally:
        if probe is not None:
            probe.close()


@task(name=REFRESH_RETRACTIONS)
def refresh_retractions() -> int | None:
    """Beat, daily: reload the Retraction Watch data."""
    return audit_jobs.refresh_retractions(worker_context())


@task(name=COMMIT_AUDIT_ROOT)
def commit_audit_root() -> str | None:
    """Beat, hourly: commit a Merkle root over every job's audit trail not yet covered."""
    return audit_jobs.commit_audit_root(worker_context())


@task(name=UPDATE_MIRROR)
def update_mirror() -> list[dict[str, Any]]:
    """Beat, daily: the local mirror's increments from the APIs' update filters (issue 32)."""
    return audit_jobs.update_mirror(worker_context())


@task(name=CONTRACT_CHECK)
def contract_check() -> dict[str, Any]:
    """Beat, nightly: one real query per source, its answer's shape against the recording; drift
    is stored and logged, never raised (seed 000 §10.4)."""
    return contracts.run_contract_check(worker_context())
