"""Claims: one task per stage of a claim job, each on the pool its work needs (docs/service.md,
"Claim jobs"), and the claims-text job (evidence pool). Each task calls one function of
`aletheia.pipeline.jobs.claims`; the job's state between stages is a PostgreSQL row.

A stage whose source (or model) had no token soon enough goes back to the queue with a countdown
(unbounded: it is politeness, not failure). PostgreSQL or Redis unreachable: retried with backoff
for as long as the outage lasts (the tasks' base, workers/retry.py). Any other error is retried
with backoff a few times; after that the re-drive sends the stage again once its lease has expired
(`ALETHEIA_LEASE_SECONDS`; pipeline/jobs/leases.py).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable

from celery import Task

from aletheia.pipeline.jobs import claims as jobs
from aletheia.pipeline.jobs import claims_text as claims_text_jobs
from aletheia.pipeline.jobs.context import ServiceContext, TokenDeferred
from aletheia.pipeline.jobs.kinds import (
    CHECK_CLAIMS_TEXT,
    CLAIM_ARTIFACT,
    CLAIM_CANDIDATES,
    CLAIM_DOCUMENTS,
    CLAIM_IDENTITY,
    CLAIM_JUDGE,
    CLAIM_TEXT,
    VERIFY_CLAIM,
)
from aletheia.workers.app import task
from aletheia.workers.context import worker_context
from aletheia.workers.retry import is_outage

logger = logging.getLogger(__name__)

MAX_ERROR_RETRIES = 5


def _stage(self: Task, step: Callable[[ServiceContext, str], None], job_id: str) -> None:
    try:
        step(worker_context(), job_id)
    except TokenDeferred as deferred:
        raise self.retry(countdown=deferred.countdown()) from None
    except Exception as exc:
        if is_outage(exc) or self.request.retries >= MAX_ERROR_RETRIES:
            raise  # an outage: the task's base retries it (workers/retry.py), unbounded
        logger.exception("claim stage failed; retrying")
        backoff = min(300.0, 2.0 ** (self.request.retries + 2)) * (0.5 + random.random())
        raise self.retry(exc=exc, countdown=backoff) from None


@task(name=CLAIM_CANDIDATES, bind=True, max_retries=None)
def claim_candidates(self: Task, job_id: str) -> None:
    """Retrieval: the claim extracted, the named paper or the ranked search results."""
    _stage(self, jobs.claim_candidates, job_id)


@task(name=CLAIM_TEXT, bind=True, max_retries=None)
def claim_text(self: Task, job_id: str) -> None:
    """Retrieval: the next candidate's full text (documents to convert go to the parsing pool)."""
    _stage(self, jobs.claim_text, job_id)


@task(name=CLAIM_DOCUMENTS, bind=True, max_retries=None)
def claim_documents(self: Task, job_id: str) -> None:
    """Parsing: the fetched documents converted (CPU-heavy: prefork, time limit)."""
    _stage(self, jobs.claim_documents, job_id)


@task(name=CLAIM_JUDGE, bind=True, max_retries=None)
def claim_judge(self: Task, job_id: str) -> None:
    """Evidence: the candidate's excerpts located and judged."""
    _stage(self, jobs.claim_judge, job_id)


@task(name=CLAIM_IDENTITY, bind=True, max_retries=None)
def claim_identity(self: Task, job_id: str) -> None:
    """Retrieval: the triangulation gate and the retraction check."""
    _stage(self, jobs.claim_identity, job_id)


@task(name=CLAIM_ARTIFACT, bind=True, max_retries=None)
def claim_artifact(self: Task, job_id: str) -> None:
    """Writer: the artifact under the repository's lock, the decision, the job's summary."""
    _stage(self, jobs.claim_artifact, job_id)


@task(name=VERIFY_CLAIM, bind=True, max_retries=3, default_retry_delay=30)
def verify_claim(self: Task, job_id: str) -> None:
    """A message of the one-step claim task (queued before an upgrade): its stage is asked for."""
    jobs.verify_claim(worker_context(), job_id)


@task(name=CHECK_CLAIMS_TEXT, bind=True, max_retries=3, default_retry_delay=30)
def check_claims_text(self: Task, job_id: str) -> None:
    """A research text's claims: citations checked, suggestions for the unsupported ones."""
    claims_text_jobs.check_claims_text_job(worker_context(), job_id)
