"""Reports (the writer): a job's summary and report files from its rows, written atomically and
recorded by path under a per-repository lock; then the job is done.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import text

from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.evidence import Evidence
from aletheia.core.records import CitedReference
from aletheia.core.transparency_counts import TransparencyCounts
from aletheia.core.verdicts import LOGIC_VERSION, Verdict
from aletheia.pipeline.audit import (
    audit_log_for,
    commit_job_trail,
    record_artifact_written,
)
from aletheia.pipeline.evidence import ReferenceOutcome
from aletheia.pipeline.joblog import job_context
from aletheia.pipeline.jobs.context import (
    FINISHED,
    KIND_AUDIT,
    KIND_BIBLIOGRAPHY,
    KIND_CLAIM,
    KIND_SWEEP,
    ServiceContext,
    _job,
    _transition,
)
from aletheia.pipeline.jobs.sweeps import (
    _notify_parent,
    children,
)
from aletheia.pipeline.report import BibtexSink, reference_json, render_html
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.verify import VerifySummary
from aletheia.storage.models import ArtifactRow, Item, Job, JobStatus, utcnow

logger = logging.getLogger(__name__)


def job_summary(runtime: Runtime, job_id: str) -> dict[str, Any]:
    job = _job(runtime, job_id)
    if job.kind == KIND_CLAIM:
        return dict(job.summary or {}) | {"job_id": job_id, "status": job.status, "error": job.error}
    if job.kind in (KIND_SWEEP, KIND_AUDIT):
        return sweep_summary(runtime, job)
    summary = VerifySummary(job_id=job_id)
    for item, row in runtime.jobs.verdicts(job_id):
        if item.kind == "problem":
            summary.problems.append(InputProblem.model_validate(item.payload))
        elif row is not None:
            verdict = Verdict.model_validate(row.verdict)
            summary.total += 1
            summary.by_verdict[verdict.status.value] += 1
            summary.flagged += int(verdict.flagged)
            summary.transparency.add(verdict)
    out = summary.as_json()
    out["status"] = job.status
    if job.summary and job.summary.get("document_signals"):  # stored at expansion (document_signals)
        out["document_signals"] = job.summary["document_signals"]
    if job.input.get("repository"):
        out["repository"] = job.input["repository"]
    return out


def sweep_summary(runtime: Runtime, job: Job) -> dict[str, Any]:
    repositories = []
    totals: Counter[str] = Counter()
    transparency = TransparencyCounts()
    flagged = 0
    for kid in children(runtime, job.id):
        child = job_summary(runtime, kid.id)
        totals.update(child.get("by_verdict", {}))
        transparency.merge_json(child)
        flagged += int(child.get("flagged", 0))
        repositories.append(
            {"repository": kid.input.get("repository"), "job_id": kid.id, "status": kid.status,
             "total": child.get("total", 0), "by_verdict": child.get("by_verdict", {}),
             "flagged": child.get("flagged", 0), "error": kid.error}
        )  # fmt: skip
    return {
        "job_id": job.id,
        "kind": job.kind,
        "status": job.status,
        "total": sum(totals.values()),
        "by_verdict": dict(sorted(totals.items())),
        **transparency.as_json(),
        "flagged": flagged,
        "repositories": repositories,
        "logic_version": LOGIC_VERSION,
    }


def stored_reference_json(item: Item, verdict_row: Any) -> dict[str, Any]:
    """The report entry of an item, rebuilt from its stored verdict and evidence."""
    evidence = Evidence.model_validate(verdict_row.evidence)
    outcome = ReferenceOutcome(
        cited=CitedReference.model_validate(item.payload),
        verdict=Verdict.model_validate(verdict_row.verdict),
        evidence=evidence,
        raw=[],
    )
    entry = reference_json(outcome)
    if entry["match"] is not None:
        entry["match"]["sources"] = sorted({r.source.value for a in evidence.answers for r in a.records})
    return entry


def job_document(runtime: Runtime, job_id: str) -> dict[str, Any]:
    """The report of a job, from its rows: `{"summary": ..., "references": [...]}`."""
    from aletheia.pipeline.report_signals import refresh_predatory_list, summary_with_signals

    # The writer builds the signals of each reference: it must see the list the operator loaded.
    refresh_predatory_list(runtime.jobs.engine)
    summary = job_summary(runtime, job_id)
    references = [
        stored_reference_json(item, row)
        for item, row in runtime.jobs.verdicts(job_id)
        if item.kind == "reference" and row is not None
    ]
    # The document-level signals (citation cohorts: who, which citations) belong in the stored
    # report.json's summary too, not only in the HTML.
    summary = summary_with_signals(summary, references)
    return {"summary": summary, "references": references}


_LOCAL_REPOSITORY_LOCKS: dict[str, threading.Lock] = {}
_LOCAL_LOCKS_GUARD = threading.Lock()


@contextmanager
def repository_lock(runtime: Runtime, repository: str) -> Iterator[None]:
    """Serialise writes for one repository path: across hosts on PostgreSQL (an advisory lock held
    for the transaction), within the process otherwise (SQLite is single-host anyway)."""
    engine = runtime.jobs.engine
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.execute(
                text("SELECT pg_advisory_xact_lock(hashtext(:repo))"),
                {"repo": f"aletheia-writer:{repository}"},
            )
            yield
        return
    with _LOCAL_LOCKS_GUARD:
        lock = _LOCAL_REPOSITORY_LOCKS.setdefault(repository, threading.Lock())
    with lock:
        yield


def write_artifact(
    runtime: Runtime, job_id: str, repository: str, path: Path, content: str, kind: str
) -> str:
    """Write `content` atomically (unchanged content is not rewritten) and record it by path."""
    data = content.encode("utf-8")
    digest = hashlib.sha256(data).hexdigest()
    path.parent.mkdir(parents=True, exist_ok=True)
    if not (path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == digest):
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            Path(tmp).replace(path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    record_artifact(runtime, job_id, repository, path, kind, digest)
    return digest


def record_artifact(
    runtime: Runtime, job_id: str, repository: str, path: Path, kind: str, digest: str
) -> None:
    """Record a written file by path (idempotent) and append `artifact_written` to the job's trail."""
    from aletheia.storage.db import upsert

    with runtime.jobs.sessions.begin() as s:
        upsert(
            s,
            ArtifactRow.__table__,
            [{"job_id": job_id, "repository": repository, "path": str(path), "kind": kind,
              "content_hash": digest, "written_at": utcnow()}],
            conflict=["repository", "path"],
            update=["job_id", "kind", "content_hash", "written_at"],
        )  # fmt: skip
    record_artifact_written(
        audit_log_for(runtime),
        job_id,
        repository=repository,
        path=str(path),
        kind=kind,
        content_sha256=digest,
    )


def report_files(runtime: Runtime, job_id: str) -> dict[str, str]:
    """The files the writer produces for a job: name -> content (deterministic from the rows)."""
    job = _job(runtime, job_id)
    if job.kind != KIND_BIBLIOGRAPHY:
        summary = job_summary(runtime, job_id)
        summary["status"] = JobStatus.DONE
        return {"report.json": json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True) + "\n"}
    doc = job_document(runtime, job_id)
    doc["summary"]["status"] = JobStatus.DONE  # what the job is once these files exist
    files = {"report.json": json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=True) + "\n"}
    files["report.html"] = render_html(doc)
    if doc["references"]:
        buffer = io.StringIO()
        sink = BibtexSink(buffer)
        for ref in doc["references"]:
            sink.reference(ref)
        sink.summary(doc["summary"])
        files["corrected.bib"] = buffer.getvalue()
    return files


def render_report(ctx: ServiceContext, job_id: str) -> list[str]:
    """The writer: the job's report files, then the job is done (and its parent told)."""
    rt = ctx.runtime
    with job_context(job_id):
        job = _job(rt, job_id)
        if job.status in FINISHED:
            return []
        if job.kind == KIND_BIBLIOGRAPHY and rt.jobs.progress(job_id).pending:
            return []  # an early message; the last item asks again
        if job.kind in (KIND_SWEEP, KIND_AUDIT) and any(
            k.status not in FINISHED for k in children(rt, job_id)
        ):
            return []
        repository = str(job.input.get("repository") or rt.settings.reports_path())
        folder = rt.settings.reports_path() / job_id
        written = []
        with repository_lock(rt, repository):
            for name, content in sorted(report_files(rt, job_id).items()):
                kind = "bibliography" if name.endswith(".bib") else "report"
                write_artifact(rt, job_id, repository, folder / name, content, kind)
                written.append(str(folder / name))
        summary = job_summary(rt, job_id)
        summary["status"] = JobStatus.DONE
        summary["artifacts"] = written
        rt.jobs.set_summary(job_id, summary)
        commit_job_trail(rt, job_id)  # the job's Merkle root, before it is marked done
        if _transition(rt, job_id, JobStatus.RUNNING, JobStatus.DONE) or _transition(
            rt, job_id, JobStatus.QUEUED, JobStatus.DONE
        ):
            logger.info("job done", extra={"artifacts": len(written)})
        _notify_parent(ctx, job)
        return written
