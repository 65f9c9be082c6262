"""Claim jobs: find a paper that supports the claim and write its citation artifact, or record why
not (default-deny).
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from aletheia.core.verdicts import LOGIC_VERSION
from aletheia.pipeline.joblog import job_context
from aletheia.pipeline.jobs.context import (
    FINISHED,
    RENDER_REPORT,
    ServiceContext,
    _job,
    _run_in_job,
    _transition,
)
from aletheia.pipeline.jobs.reports import (
    record_artifact,
)
from aletheia.storage.models import ItemStatus, JobStatus

logger = logging.getLogger(__name__)

CLAIM_PIPELINE_MISSING = (
    "the claim pipeline (aletheia.pipeline.claims.verify_and_cite) is not installed in this version"
)


def verify_claim(ctx: ServiceContext, job_id: str) -> None:
    rt = ctx.runtime
    with job_context(job_id):
        job = _job(rt, job_id)
        if job.status in FINISHED:
            return
        try:
            from aletheia.pipeline.claims import verify_and_cite  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            rt.jobs.set_job_status(job_id, JobStatus.FAILED, error=CLAIM_PIPELINE_MISSING)
            for item in rt.jobs.items(job_id):
                rt.jobs.mark_item(item.id, ItemStatus.FAILED, error=CLAIM_PIPELINE_MISSING)
            logger.error(CLAIM_PIPELINE_MISSING)
            return
        _transition(rt, job_id, JobStatus.QUEUED, JobStatus.RUNNING)
        gateway = ctx.source_gateway()
        root = Path(job.input.get("repository") or rt.settings.reports_path() / job_id)
        root.mkdir(parents=True, exist_ok=True)
        citation, outcome = _run_in_job(
            ctx,
            job_id,
            verify_and_cite(
                job.input["claim"],
                job.input.get("hint"),
                paper=job.input.get("paper"),
                project_root=root,
                gateway=gateway,
                settings=rt.settings,
            ),
        )
        summary: dict[str, Any] = {"claim": job.input["claim"], "logic_version": LOGIC_VERSION}
        if citation is not None:
            artifact = Path(str(outcome))
            summary |= {"verified": True, "citation": _jsonable(citation), "artifact": str(artifact)}
            digest = hashlib.sha256(artifact.read_bytes()).hexdigest()
            record_artifact(rt, job_id, str(root), artifact, "citation", digest)
        else:  # default-deny: why it could not be proven
            summary |= {"verified": False, "conflict": _jsonable(outcome)}
        rt.jobs.set_summary(job_id, summary)
        for item in rt.jobs.items(job_id):
            rt.jobs.mark_item(item.id, ItemStatus.DONE)
        ctx.dispatcher.send(RENDER_REPORT, job_id)


def _jsonable(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return json.loads(json.dumps(asdict(value), default=str))
    return json.loads(json.dumps(value, default=str))
