"""The queue-backed service, as plain functions: each Celery task calls exactly one of them.

The functions live in `aletheia.pipeline.jobs`, one module per job kind (the job state machine is
described there); this module re-exports their public names so callers need not know the split.
"""

from __future__ import annotations

from aletheia.core.errors import JobNotFound
from aletheia.pipeline.jobs.audit import commit_audit_root, refresh_retractions, start_audit
from aletheia.pipeline.jobs.bibliography import (
    HEAVY_EXTENSIONS,
    MAX_ITEM_ATTEMPTS,
    expand_documents,
    expand_items,
    expansion_failed,
    item_failed,
    needs_parsing_pool,
    read_references,
    start_bibliography_job,
    verify_item,
)
from aletheia.pipeline.jobs.claims import CLAIM_PIPELINE_MISSING, verify_claim
from aletheia.pipeline.jobs.context import (
    DEFERRED_MARK,
    AsyncRunner,
    DeferringLimiter,
    Dispatcher,
    LoopThread,
    ServiceContext,
    TokenDeferred,
    Verifier,
    deferral_wait,
)
from aletheia.pipeline.jobs.files import record_artifact, repository_lock, write_artifact
from aletheia.pipeline.jobs.inline import InlineDispatcher, run_step
from aletheia.pipeline.jobs.kinds import (
    AUDIT,
    CLAIM_ARTIFACT,
    CLAIM_CANDIDATES,
    CLAIM_DOCUMENTS,
    CLAIM_IDENTITY,
    CLAIM_JUDGE,
    CLAIM_STAGE_TASKS,
    CLAIM_TEXT,
    COMMIT_AUDIT_ROOT,
    EXPAND_DOCUMENTS,
    REDRIVE,
    REFRESH_RETRACTIONS,
    RENDER_REPORT,
    START_BIBLIOGRAPHY,
    START_SWEEP,
    TASK_NAMES,
    VERIFY_CLAIM,
    VERIFY_ITEM,
    JobKind,
)
from aletheia.pipeline.jobs.redrive import RedriveReport, redrive
from aletheia.pipeline.jobs.reports import (
    job_document,
    job_summary,
    render_report,
    report_files,
    stored_reference_json,
    sweep_summary,
)
from aletheia.pipeline.jobs.rows import FINISHED, UNSETTLED
from aletheia.pipeline.jobs.status import job_status
from aletheia.pipeline.jobs.submission import (
    InputDocument,
    register_repositories,
    submit_bibliography,
    submit_claim,
    submit_sweep,
)
from aletheia.pipeline.jobs.sweeps import (
    BIBLIOGRAPHY_EXTENSIONS,
    CITATIONS_DIR,
    SKIP_DIRS,
    child_job_id,
    children,
    discover,
    start_sweep,
)

__all__ = [
    "AUDIT",
    "BIBLIOGRAPHY_EXTENSIONS",
    "CITATIONS_DIR",
    "CLAIM_ARTIFACT",
    "CLAIM_CANDIDATES",
    "CLAIM_DOCUMENTS",
    "CLAIM_IDENTITY",
    "CLAIM_JUDGE",
    "CLAIM_PIPELINE_MISSING",
    "CLAIM_STAGE_TASKS",
    "CLAIM_TEXT",
    "COMMIT_AUDIT_ROOT",
    "DEFERRED_MARK",
    "EXPAND_DOCUMENTS",
    "FINISHED",
    "HEAVY_EXTENSIONS",
    "MAX_ITEM_ATTEMPTS",
    "REDRIVE",
    "REFRESH_RETRACTIONS",
    "RENDER_REPORT",
    "SKIP_DIRS",
    "START_BIBLIOGRAPHY",
    "START_SWEEP",
    "TASK_NAMES",
    "UNSETTLED",
    "VERIFY_CLAIM",
    "VERIFY_ITEM",
    "AsyncRunner",
    "DeferringLimiter",
    "Dispatcher",
    "InlineDispatcher",
    "InputDocument",
    "JobKind",
    "JobNotFound",
    "LoopThread",
    "RedriveReport",
    "ServiceContext",
    "TokenDeferred",
    "Verifier",
    "child_job_id",
    "children",
    "commit_audit_root",
    "deferral_wait",
    "discover",
    "expand_documents",
    "expand_items",
    "expansion_failed",
    "item_failed",
    "job_document",
    "job_status",
    "job_summary",
    "needs_parsing_pool",
    "read_references",
    "record_artifact",
    "redrive",
    "refresh_retractions",
    "register_repositories",
    "render_report",
    "report_files",
    "repository_lock",
    "run_step",
    "start_audit",
    "start_bibliography_job",
    "start_sweep",
    "stored_reference_json",
    "submit_bibliography",
    "submit_claim",
    "submit_sweep",
    "sweep_summary",
    "verify_claim",
    "verify_item",
    "write_artifact",
]
