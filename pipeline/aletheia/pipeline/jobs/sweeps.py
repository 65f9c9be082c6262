"""Sweeps: re-verify the citation artifacts and bibliographies of repositories, one child
bibliography job per repository; the parent finishes when every child has.
"""

from __future__ import annotations

import logging
import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from aletheia.pipeline.joblog import job_context
from aletheia.pipeline.jobs.kinds import RENDER_REPORT, START_BIBLIOGRAPHY, JobKind, kind_record
from aletheia.pipeline.jobs.rows import FINISHED, _job, _transition
from aletheia.pipeline.jobs.submission import (
    InputDocument,
    submit_bibliography,
)
from aletheia.pipeline.runtime import Runtime
from aletheia.storage.models import Job, JobStatus

if TYPE_CHECKING:
    from aletheia.pipeline.jobs.context import ServiceContext

logger = logging.getLogger(__name__)

BIBLIOGRAPHY_EXTENSIONS = frozenset({".bib", ".bbl"})
CITATIONS_DIR = "docs/citations"
# Directories a sweep never descends into.
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox", "build", "dist"}
)


def discover(repository: Path) -> list[InputDocument]:
    """The citation artifacts (docs/citations/*.md) and bibliographies (*.bib, *.bbl) of a repository."""
    found: list[InputDocument] = []
    citations = repository / CITATIONS_DIR
    if citations.is_dir():
        for path in sorted(citations.glob("*.md")):
            if path.name.lower() != "readme.md":
                found.append(
                    InputDocument.read(path, role="artifact", name=str(path.relative_to(repository)))
                )
    for dirpath, dirnames, filenames in os.walk(repository):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for filename in sorted(filenames):
            if Path(filename).suffix.lower() in BIBLIOGRAPHY_EXTENSIONS:
                path = Path(dirpath) / filename
                found.append(InputDocument.read(path, name=str(path.relative_to(repository))))
    return found


def child_job_id(parent_id: str, repository: str) -> str:
    """Deterministic, so a repeated fan-out finds the child it created before."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"aletheia:{parent_id}:{repository}").hex


def start_sweep(ctx: ServiceContext, job_id: str) -> None:
    rt = ctx.runtime
    with job_context(job_id):
        job = _job(rt, job_id)
        if job.status in FINISHED:
            return
        afresh = kind_record(job.kind).asks_afresh
        if afresh:
            from aletheia.pipeline.jobs.audit import audit_repositories

            audit_repositories(ctx, job)  # drift audit and link check, before the re-verification
        started: list[str] = []
        for repository in job.input.get("repositories", []):
            child = child_job_id(job_id, repository)
            if rt.jobs.job(child) is None:
                repo = Path(repository)
                documents = discover(repo) if repo.is_dir() else []
                if documents:
                    submit_bibliography(
                        rt, ctx.dispatcher, documents, submitted_by=job.submitted_by, parent_id=job_id,
                        repository=repository, job_id=child, fresh_sources=afresh,
                    )  # fmt: skip
                else:
                    rt.jobs.create_job(
                        JobKind.BIBLIOGRAPHY,
                        {"documents": [], "repository": repository},
                        parent_id=job_id,
                        job_id=child,
                    )
                    problem = (
                        "no citation artifacts or bibliographies" if repo.is_dir() else "not a directory"
                    )
                    rt.jobs.set_summary(child, {"repository": repository, "total": 0, "note": problem})
                    rt.jobs.set_job_status(child, JobStatus.DONE)
            else:
                existing = rt.jobs.job(child)
                if existing is not None and existing.status == JobStatus.QUEUED:
                    ctx.dispatcher.send(START_BIBLIOGRAPHY, child)
            started.append(child)
        _transition(rt, job_id, JobStatus.QUEUED, JobStatus.RUNNING)
        logger.info("sweep fanned out", extra={"children": len(started)})
        _maybe_finish_parent(ctx, job_id)


def children(runtime: Runtime, job_id: str) -> list[Job]:
    return runtime.jobs.children(job_id)


def _maybe_finish_parent(ctx: ServiceContext, parent_id: str) -> None:
    kids = children(ctx.runtime, parent_id)
    parent = ctx.runtime.jobs.job(parent_id)
    if parent is None or parent.status in FINISHED:
        return
    if len(kids) >= len(parent.input.get("repositories", [])) and all(k.status in FINISHED for k in kids):
        ctx.dispatcher.send(RENDER_REPORT, parent_id)


def _notify_parent(ctx: ServiceContext, job: Job) -> None:
    if job.parent_id is not None:
        _maybe_finish_parent(ctx, job.parent_id)
