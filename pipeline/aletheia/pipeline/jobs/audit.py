"""The periodic control jobs: the weekly audit sweep, the Retraction Watch refresh and the global
Merkle commit of the audit trail.

The weekly audit asks the sources again (issue 22): before its children re-verify each
repository's bibliographies and artifacts — with every source asked afresh, no cached answer or
library record read (`fresh_sources`) — it runs the drift audit of the citation artifacts
(`audit_existing_citations`, on a fresh gateway), marks every artifact found retracted or
withdrawn (its `retraction_status`, so `aletheia check` fails wherever it is cited), and runs the
mechanical link check (`check_citations`); both land in the audit's summary (`audits`). Every
record the audit fetched (the drift audit's, and the re-verification's of every work it matched)
replaces the Tier-0 library's record of the same work, so the jobs that follow answer from what
the audit learnt (issue 30).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from aletheia.core.records import RetractionKind
from aletheia.pipeline.audit.events import (
    audit_log_for,
)
from aletheia.pipeline.evidence.web_tiers import NOT_LIBRARY_SOURCES
from aletheia.pipeline.jobs.context import ServiceContext, _run_in_job
from aletheia.pipeline.jobs.kinds import JobKind
from aletheia.pipeline.jobs.submission import (
    submit_sweep,
)
from aletheia.pipeline.runtime import Runtime
from aletheia.sources.base import SourceRecord
from aletheia.storage.models import Job

logger = logging.getLogger(__name__)


def start_audit(ctx: ServiceContext, *, submitted_by: str = "beat") -> str | None:
    """The weekly audit: one sweep over every registered repository and every repository holding a
    stored artifact."""
    repositories = ctx.runtime.repositories
    paths = repositories.audited_paths()
    # A claim job without a repository writes its artifact into its own report folder: that folder
    # is a job's output, not a repository to audit.
    reports = ctx.settings.reports_path().resolve()
    existing = sorted(p for p in paths if Path(p).is_dir() and not Path(p).resolve().is_relative_to(reports))
    if not existing:
        logger.info("audit: no registered repository")
        return None
    job_id = submit_sweep(
        ctx.runtime, ctx.dispatcher, existing, submitted_by=submitted_by, kind=JobKind.AUDIT, register=False
    )
    repositories.mark_audited(existing, job_id)
    return job_id


def refresh_retractions(ctx: ServiceContext) -> int | None:
    """Reload the Retraction Watch CSV named in settings (the periodic refresh); None when unset."""
    csv = ctx.settings.retraction_watch_csv
    if not csv or not Path(csv).is_file():
        logger.info("retraction refresh skipped: ALETHEIA_RETRACTION_WATCH_CSV is not a file")
        return None
    count = ctx.runtime.load_retractions(csv)
    logger.info("retraction data refreshed", extra={"rows": count})
    return count


def update_mirror(ctx: ServiceContext) -> list[dict[str, Any]]:
    """The mirror's increments from the APIs' update filters (issue 32; `aletheia mirror update`)."""
    from aletheia.pipeline.mirror.update import run_update

    return [result.as_json() for result in run_update(ctx.runtime)]


def commit_audit_root(ctx: ServiceContext) -> str | None:
    """The periodic Merkle commit across jobs (seed 002): every job root not yet covered."""
    info = audit_log_for(ctx.runtime).commit_global()
    return None if info is None else info.root


def audit_repositories(ctx: ServiceContext, job: Job) -> None:
    """The drift audit and the link check of every repository of an audit job, once (a second
    delivery finds them in the job's summary and does nothing)."""
    if job.summary and "audits" in job.summary:
        return
    audits = [
        audit_repository(ctx, job.id, Path(repository)) for repository in job.input.get("repositories", [])
    ]
    ctx.runtime.jobs.set_summary(job.id, dict(job.summary or {}) | {"audits": audits})


def audit_repository(ctx: ServiceContext, job_id: str, root: Path) -> dict[str, Any]:
    """One repository: its artifacts' drift (sources asked afresh), those found retracted marked,
    then its citation links checked as `aletheia check` does."""
    from aletheia.pipeline.artifact_checks.drift_check import audit_existing_citations
    from aletheia.pipeline.artifact_checks.link_check import check_citations

    if not root.is_dir():
        return {"repository": str(root), "error": "not a directory"}
    learnt: list[SourceRecord] = []
    drift = _run_in_job(
        ctx,
        job_id,
        audit_existing_citations(
            root, ctx.source_gateway(fresh=True), learnt=learnt, quiescence=ctx.quiescence
        ),
    )
    # What the sources now say of each artifact's work replaces what the library held: a later
    # job answered from the library sees the retraction the audit found (issue 30).
    fresh = [r for r in learnt if not r.from_cache and r.record.source not in NOT_LIBRARY_SOURCES]
    if fresh:
        _run_in_job(ctx, job_id, ctx.runtime.library.remember(fresh, origin="audit"))
    marked = []
    for artifact in drift.artifacts:
        for found in artifact.drifts:
            if (
                found.kind == "retracted"
                and found.current is not None
                and mark_retracted(
                    ctx.runtime, job_id, root, root / artifact.path, RetractionKind(found.current)
                )
            ):
                marked.append(artifact.path)
    check = check_citations(root)
    return {
        "repository": str(root),
        "drift": drift.model_dump(mode="json"),
        "drift_exit_code": drift.exit_code(),
        "marked_retracted": marked,
        "check": check.as_dict(),
        "check_exit_code": check.exit_code(),
    }


def mark_retracted(runtime: Runtime, job_id: str, root: Path, path: Path, kind: RetractionKind) -> bool:
    """Record in the artifact that its work is retracted (or withdrawn): `aletheia check` then
    refuses every link to it. Written atomically under the repository's lock and recorded by
    path; an artifact already saying so is left alone (False)."""
    from aletheia.core.artifacts import parse_artifact, render_artifact
    from aletheia.pipeline.jobs.files import repository_lock, write_artifact

    with repository_lock(runtime, str(root)):
        artifact = parse_artifact(path.read_text(encoding="utf-8"))
        if artifact.frontmatter.retraction_status == kind:
            return False
        front = artifact.frontmatter.model_copy(update={"retraction_status": kind})
        text = render_artifact(artifact.model_copy(update={"frontmatter": front}))
        write_artifact(runtime, job_id, str(root), path, text, "citation")
    logger.warning("artifact marked %s", kind.value, extra={"path": str(path)})
    return True
