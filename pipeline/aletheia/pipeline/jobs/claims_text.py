"""Claims-text jobs (`aletheia claims`, the `validate_research` tool): a research text's claims,
their citations checked, suggestions for the unsupported ones; the report is the job's summary
and is written as `claims.json` and `claims.html` in the job's report folder.

The job row carries the document and its bibliographies (`InputDocument`s as JSON), so any worker
on any host can run it. Every claim's trail (each cited claim's judgement, each suggestion's
search: `audit/claim_events.py`) is appended to the job's audit log before the summary is stored, and the
job's Merkle root is committed before it is marked done. Idempotent: a finished job is left alone;
a redelivered one recomputes the same report, logs nothing new (the events carry no timestamps)
and rewrites artifacts only when their content changes.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aletheia.core.records import CitedReference
from aletheia.pipeline.claims.cited_claims import DEFAULT_MAX_JUDGEMENTS
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.joblog import job_context
from aletheia.pipeline.jobs.context import ServiceContext, _run_in_job
from aletheia.pipeline.jobs.enqueue import enqueue_first_step
from aletheia.pipeline.jobs.kinds import JobKind, kind_record
from aletheia.pipeline.jobs.leases import Held
from aletheia.pipeline.jobs.rows import FINISHED, _job, _transition
from aletheia.pipeline.jobs.submission import InputDocument, check_input_size
from aletheia.pipeline.runtime import Runtime
from aletheia.storage.models import ItemStatus, Job, JobStatus

logger = logging.getLogger(__name__)


def submit_claims_text(
    runtime: Runtime,
    dispatcher: Any,
    document: InputDocument,
    bibliographies: Sequence[InputDocument] = (),
    *,
    submitted_by: str | None = None,
    suggest: bool = True,
    check: bool = True,
    max_suggestions: int = 20,
    max_judgements: int = DEFAULT_MAX_JUDGEMENTS,
    repository: str | Path | None = None,
    beside: Sequence[InputDocument] = (),
) -> str:
    """A claims-text job over `document`; its suggestions' artifacts go to `repository`/docs/citations
    (default: the job's report folder). `beside`: bibliographies only found next to the document,
    used when it has no reference list of its own."""
    check_input_size(runtime, [document, *bibliographies, *beside])
    job_input: dict[str, Any] = {
        "document": document.as_json(),
        "bibliographies": [d.as_json() for d in bibliographies],
        "beside": [d.as_json() for d in beside],
        "suggest": suggest,
        "check": check,
        "max_suggestions": max_suggestions,
        "max_judgements": max_judgements,
    }
    if repository is not None:
        job_input["repository"] = str(Path(repository).resolve())
    job_id = runtime.jobs.create_job(JobKind.CLAIMS_TEXT, job_input, submitted_by=submitted_by)
    runtime.jobs.add_items(job_id, [(1, document.name[:80], "document", {"document": document.name})])
    first = kind_record(JobKind.CLAIMS_TEXT).first_step
    enqueue_first_step(runtime, dispatcher, first, job_id)  # refused: failed, not queued
    return job_id


def check_claims_text(ctx: ServiceContext, job_id: str) -> None:
    """The one step of a claims-text job (its document item held while it runs)."""
    rt = ctx.runtime
    with job_context(job_id):
        job = _job(rt, job_id)
        if job.status in FINISHED:
            return
        _transition(rt, job_id, JobStatus.QUEUED, JobStatus.RUNNING)
        for item in rt.jobs.items(job_id):  # held while it runs: the re-drive leaves it alone
            rt.jobs.mark_item(item.id, ItemStatus.RUNNING)
        with ctx.hold(Held.ITEM, _document_item(rt, job_id)):
            _check(ctx, job)


def _document_item(runtime: Runtime, job_id: str) -> str:
    items = runtime.jobs.items(job_id)
    return items[0].id if items else job_id


def _check(ctx: ServiceContext, job: Job) -> None:
    """The report, its trail committed, its files written; then the job is done."""
    from aletheia.pipeline.audit.claim_events import ClaimTrail
    from aletheia.pipeline.audit.events import audit_log_for, commit_job_trail
    from aletheia.pipeline.claims.research_text import check_claims_text as check_research_text
    from aletheia.pipeline.jobs.files import write_artifact
    from aletheia.pipeline.reports.claims_html import render_claims_html

    rt = ctx.runtime
    job_id = job.id
    spec = job.input
    folder = rt.settings.reports_path() / job_id
    root = Path(spec.get("repository") or folder)
    root.mkdir(parents=True, exist_ok=True)
    trails: list[ClaimTrail] = []
    try:
        report = _run_in_job(
            ctx,
            job_id,
            check_research_text(
                InputDocument.from_json(spec["document"]),
                [InputDocument.from_json(d) for d in spec.get("bibliographies", [])],
                gateway=ctx.source_gateway(),
                settings=rt.settings,
                project_root=root,
                beside=[InputDocument.from_json(d) for d in spec.get("beside", [])],
                suggest=bool(spec.get("suggest", True)),
                check=bool(spec.get("check", True)),
                max_suggestions=int(spec.get("max_suggestions", 20)),
                max_judgements=int(spec.get("max_judgements", DEFAULT_MAX_JUDGEMENTS)),
                trails=trails,
                verify_references=_through_the_engine(ctx, job),
            ),
        )
    except ValueError as exc:  # InputError included: the document cannot be read
        error = f"{type(exc).__name__}: {exc}"
        rt.jobs.set_job_status(job_id, JobStatus.FAILED, error=error)
        for item in rt.jobs.items(job_id):
            rt.jobs.mark_item(item.id, ItemStatus.FAILED, error=error)
        return
    # The decisions first: a report is never stored without the trail that explains it.
    audit_log_for(rt).append(job_id, [event for trail in trails for event in trail.events])
    repository = str(spec.get("repository") or rt.settings.reports_path())
    written = []
    for name, content in (
        ("claims.json", json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n"),
        ("claims.html", render_claims_html(report)),
    ):
        write_artifact(rt, job_id, repository, folder / name, content, "report")
        written.append(str(folder / name))
    rt.jobs.set_summary(job_id, {**report, "artifacts": written})
    commit_job_trail(rt, job_id)  # the job's Merkle root, before it is marked done
    for item in rt.jobs.items(job_id):
        rt.jobs.mark_item(item.id, ItemStatus.DONE)
    if _transition(rt, job_id, JobStatus.RUNNING, JobStatus.DONE):
        logger.info("claims job done", extra={"claims": report["summary"]["claims"]})


def _through_the_engine(ctx: ServiceContext, job: Job) -> Any:
    """The cited references as a bibliography job of their own, its steps run in this step's
    process on its gateway and event loop (`jobs/in_process.verify_references`): item rows, the audit
    trail, deferrals and the steps' failure policy, as every reference verified. In a thread: the
    step's coroutine waits on the loop the engine's steps use."""
    import asyncio

    from aletheia.pipeline.jobs.in_process import verify_references

    gateway = ctx.source_gateway()  # opened here, not on the loop the coroutine below runs on

    async def verify(refs: list[CitedReference]) -> list[ReferenceOutcome]:
        run = await asyncio.to_thread(
            verify_references,
            ctx.runtime,
            refs,
            input_description={"cited_by": job.id},
            gateway=gateway,
            runner=ctx.runner,
            submitted_by=job.submitted_by,
        )
        return run.outcomes

    return verify


def claims_report(runtime: Runtime, job_id: str) -> dict[str, Any]:
    """The stored report of a finished claims-text job (its summary row)."""
    job = _job(runtime, job_id)
    return dict(job.summary or {}) | {"job_id": job_id, "status": job.status, "error": job.error}
