"""The registry of job kinds and steps: one record per kind, one per named step.

Everything that differs by job kind is read from here, never spelled out again elsewhere:

- the Celery routes (`workers/app.py`'s `ROUTES`: each step's pool) and the task names,
- the step itself: its one name (the Celery task's), its function and its failure policy, run by
  one runner (`jobs/runner.py`) on the queue (`workers/tasks/steps.py` registers one task per
  step from this table) and in this process (`jobs/inline.py`),
- the re-drive rules (each kind's `redrive` function: what to send again for a job of that kind),
- the summary, the report document, its formats, how it renders and the exit code it gives
  (`aletheia report`, `AletheiaClient.result`),
- whether its work is child jobs (sweeps and audits fan out).

A new job kind is one `KindRecord` and its `Step`s here and its functions in `jobs/KIND.py`; the
workers register a task for every step (`tests/unit/test_job_kinds.py` checks every step has its
task and route).

Functions are named as `"module:attribute"` strings and imported when first called: the registry
itself imports nothing of the pipeline, so producers (`aletheia status`) and the routing table
read it without loading the job modules, and the job modules read their task names from it
without an import cycle.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final

from aletheia.pipeline.report_formats import format_names


class JobKind(StrEnum):
    BIBLIOGRAPHY = "bibliography"
    CLAIM = "claim"
    SWEEP = "sweep"
    AUDIT = "audit"  # the weekly sweep of every registered repository (beat)
    CLAIMS_TEXT = "claims_text"  # a research text's claims (`aletheia claims`)


class Pool(StrEnum):
    """A worker pool: one queue each (docs/service.md), named in every task name it runs."""

    RETRIEVAL = "retrieval"
    PARSING = "parsing"
    EVIDENCE = "evidence"
    WRITER = "writer"
    CONTROL = "control"


# --- task names: the interface between producers, workers and the steps ---------------------------

START_BIBLIOGRAPHY: Final = "aletheia.control.start_bibliography_job"
EXPAND_DOCUMENTS: Final = "aletheia.parsing.expand_documents"
VERIFY_ITEM: Final = "aletheia.retrieval.verify_item"
VERIFY_CLAIM: Final = "aletheia.evidence.verify_claim"  # resumes a claim job at its stage (older messages)
CLAIM_CANDIDATES: Final = "aletheia.retrieval.claim_candidates"
CLAIM_TEXT: Final = "aletheia.retrieval.claim_text"
CLAIM_DOCUMENTS: Final = "aletheia.parsing.claim_documents"
CLAIM_JUDGE: Final = "aletheia.evidence.claim_judge"
CLAIM_IDENTITY: Final = "aletheia.retrieval.claim_identity"
CLAIM_ARTIFACT: Final = "aletheia.writer.claim_artifact"
RENDER_REPORT: Final = "aletheia.writer.render_report"
START_SWEEP: Final = "aletheia.control.start_sweep"
AUDIT: Final = "aletheia.control.start_audit"
REDRIVE: Final = "aletheia.control.redrive"
REFRESH_RETRACTIONS: Final = "aletheia.control.refresh_retractions"
COMMIT_AUDIT_ROOT: Final = "aletheia.control.commit_audit_root"
UPDATE_MIRROR: Final = "aletheia.control.update_mirror"
CONTRACT_CHECK: Final = "aletheia.control.contract_check"  # nightly: the sources' answer shapes
CHECK_CLAIMS_TEXT: Final = "aletheia.evidence.check_claims_text"

_JOBS = "aletheia.pipeline.jobs"


@dataclass(frozen=True)
class FailurePolicy:
    """What the runner (`jobs/runner.py`) does when a step raises, the same on the queue and in
    this process. A deferral (`TokenDeferred`: no rate-limit token soon enough) is no error: the
    step runs again after the wait, unbounded and uncounted. On the queue, a lost connection to
    PostgreSQL or Redis is no error either: the task's base waits it out (workers/retry.py).

    An error of a `retry_on` type is retried up to `max_retries` times, after `backoff(retries)`
    seconds; `settle` is told of each such error and settles the work when the retries are
    exhausted. Any other error, and one whose retries are exhausted without a `settle`, is raised:
    on the queue the task fails and the re-drive sends the step again once its lease has expired
    (jobs/redrive.py); in this process the dispatcher stops and raises it (`aletheia verify` then
    marks its job failed)."""

    retry_on: tuple[type[Exception], ...] = ()
    max_retries: int = 0
    first_backoff: float = 1.0  # seconds before the first retry, doubled at each later one
    max_backoff: float = 300.0
    # "module:attribute", `(ctx, *args, error, final) -> bool`: before each retry (`final` False),
    # True to run the step again, or False once it has settled the work itself; when the retries
    # are exhausted (`final` True) it settles the work (an item recorded as could-not-check, never
    # lost) and returns False.
    settle: str | None = None

    def backoff(self, retries: int) -> float:
        """Seconds before retry number `retries + 1`: doubling, capped, jittered (x 0.5-1.5) so that
        references failing together do not come back together."""
        base = min(self.max_backoff, self.first_backoff * 2.0 ** min(retries, 16))
        return round(base * (0.5 + random.random()), 3)


NO_RETRY: Final = FailurePolicy()


@dataclass(frozen=True)
class Step:
    """One named task: the pool whose queue takes it, the function it calls, `function(ctx, *args)`,
    and what is done when it fails. The Celery task and the inline dispatcher run it through the
    same runner (`jobs/runner.py`)."""

    name: str
    pool: Pool
    function: str  # "module:attribute"
    failure: FailurePolicy = NO_RETRY
    time_limited: bool = False  # CPU-heavy conversion: the parsing time limit applies

    def __post_init__(self) -> None:
        # The name says where it runs (`aletheia.<pool>.<verb>`): a log line or Flower names the pool.
        if not self.name.startswith(f"aletheia.{self.pool}."):
            raise ValueError(f"step {self.name!r} is not named for its pool {self.pool!r}")
        # One name per step: the task's verb is its function's name.
        if self.name.rpartition(".")[2] != self.function.rpartition(":")[2]:
            raise ValueError(f"step {self.name!r} calls {self.function!r}: one name per step")

    def __call__(self, ctx: Any, *args: Any) -> Any:
        return resolve(self.function)(ctx, *args)


@dataclass(frozen=True)
class KindRecord:
    """What a job kind is: where it starts, which steps it runs, and how its work is followed,
    re-driven and reported."""

    kind: JobKind
    first_step: str  # the step a submission asks for
    steps: tuple[str, ...]  # every step a job of this kind may run
    redrive: str  # (ctx, job, RedrivePass) -> [(task, arg)]: what to send again (jobs/redrive.py)
    summary: str  # (runtime, job) -> dict: the job's summary, from its rows
    document: str  # (runtime, job_id) -> dict: its report document (`aletheia report`, the client)
    formats: tuple[str, ...]  # the formats `aletheia report` renders its document to
    render: str  # (document, fmt, stream) -> None
    exit_code: str  # (summary) -> int: as `aletheia verify`'s, for `aletheia report`
    report_files: str  # (runtime, job_id) -> {name: content}: what the writer writes for it
    fans_out: bool = False  # its work is one child job per repository (sweeps, audits)
    # Every source asked again, no cached answer or library record read; the drift audit and the
    # link check of each repository before its children (the weekly audit, jobs/audit.py).
    asks_afresh: bool = False


# A bibliography's report renders to every report format (their records: `report_formats.py`).
BIBLIOGRAPHY_FORMATS: Final = format_names()

# The failure policies (FailurePolicy). A reference that keeps failing is retried, then recorded
# as could-not-check (`unverifiable`, default-deny), never lost and never passed; its attempts are
# also counted on its row (`MAX_ITEM_ATTEMPTS`, jobs/bibliography.py), which bounds redeliveries
# the runner does not see (a worker killed mid-step).
ITEM_POLICY: Final = FailurePolicy(
    retry_on=(Exception,), max_retries=4, first_backoff=1.0, max_backoff=300.0,
    settle=f"{_JOBS}.bibliography:item_failed",
)  # fmt: skip
# An expansion that keeps failing fails its job, with the error (its parent is told).
EXPANSION_POLICY: Final = FailurePolicy(
    retry_on=(Exception,), max_retries=3, first_backoff=10.0, max_backoff=60.0,
    settle=f"{_JOBS}.bibliography:expansion_failed",
)  # fmt: skip
# A claim stage: its state is a row; after its retries the re-drive sends it again once its lease
# has expired (`ALETHEIA_LEASE_SECONDS`).
CLAIM_STAGE_POLICY: Final = FailurePolicy(retry_on=(Exception,), max_retries=5, first_backoff=4.0)
# The writer: a full disk or a locked file is tried again later; anything else is the re-drive's.
WRITER_POLICY: Final = FailurePolicy(
    retry_on=(OSError,), max_retries=5, first_backoff=15.0, max_backoff=120.0
)

STEPS: Final[Mapping[str, Step]] = MappingProxyType(
    {
        step.name: step
        for step in (
            Step(
                START_BIBLIOGRAPHY,
                Pool.CONTROL,
                f"{_JOBS}.bibliography:start_bibliography_job",
                EXPANSION_POLICY,
            ),
            Step(
                EXPAND_DOCUMENTS,
                Pool.PARSING,
                f"{_JOBS}.bibliography:expand_documents",
                EXPANSION_POLICY,
                time_limited=True,
            ),
            Step(VERIFY_ITEM, Pool.RETRIEVAL, f"{_JOBS}.bibliography:verify_item", ITEM_POLICY),
            Step(RENDER_REPORT, Pool.WRITER, f"{_JOBS}.reports:render_report", WRITER_POLICY),
            # A claim job, stage by stage (jobs/claims.py), each on the pool its work needs.
            Step(VERIFY_CLAIM, Pool.EVIDENCE, f"{_JOBS}.claims:verify_claim"),
            Step(CLAIM_CANDIDATES, Pool.RETRIEVAL, f"{_JOBS}.claims:claim_candidates", CLAIM_STAGE_POLICY),
            Step(CLAIM_TEXT, Pool.RETRIEVAL, f"{_JOBS}.claims:claim_text", CLAIM_STAGE_POLICY),
            Step(
                CLAIM_DOCUMENTS,
                Pool.PARSING,
                f"{_JOBS}.claims:claim_documents",
                CLAIM_STAGE_POLICY,
                time_limited=True,
            ),
            Step(CLAIM_JUDGE, Pool.EVIDENCE, f"{_JOBS}.claims:claim_judge", CLAIM_STAGE_POLICY),
            Step(CLAIM_IDENTITY, Pool.RETRIEVAL, f"{_JOBS}.claims:claim_identity", CLAIM_STAGE_POLICY),
            Step(CLAIM_ARTIFACT, Pool.WRITER, f"{_JOBS}.claims:claim_artifact", CLAIM_STAGE_POLICY),
            Step(CHECK_CLAIMS_TEXT, Pool.EVIDENCE, f"{_JOBS}.claims_text:check_claims_text"),
            Step(START_SWEEP, Pool.CONTROL, f"{_JOBS}.sweeps:start_sweep"),
            # Beat's periodic steps (workers/app.py's schedule); AUDIT starts an audit job.
            Step(AUDIT, Pool.CONTROL, f"{_JOBS}.audit:start_audit"),
            Step(REDRIVE, Pool.CONTROL, f"{_JOBS}.redrive:redrive"),
            Step(REFRESH_RETRACTIONS, Pool.CONTROL, f"{_JOBS}.audit:refresh_retractions"),
            Step(COMMIT_AUDIT_ROOT, Pool.CONTROL, f"{_JOBS}.audit:commit_audit_root"),
            Step(UPDATE_MIRROR, Pool.CONTROL, f"{_JOBS}.audit:update_mirror"),
            Step(CONTRACT_CHECK, Pool.CONTROL, "aletheia.pipeline.contracts:contract_check"),
        )
    }
)

CLAIM_STAGE_TASKS: Final = (
    CLAIM_CANDIDATES, CLAIM_TEXT, CLAIM_DOCUMENTS, CLAIM_JUDGE, CLAIM_IDENTITY, CLAIM_ARTIFACT,
)  # fmt: skip
TASK_NAMES: Final = tuple(STEPS)

_DOCS = f"{_JOBS}.documents"
_SWEEP = KindRecord(
    kind=JobKind.SWEEP,
    first_step=START_SWEEP,
    steps=(START_SWEEP, RENDER_REPORT),
    redrive=f"{_JOBS}.redrive:redrive_sweep",
    summary=f"{_JOBS}.reports:sweep_summary",
    document=f"{_DOCS}:summary_document",
    formats=("json",),
    render=f"{_DOCS}:render_json",
    exit_code=f"{_DOCS}:sweep_exit_code",
    report_files=f"{_JOBS}.reports:summary_files",
    fans_out=True,
)

KINDS: Final[Mapping[JobKind, KindRecord]] = MappingProxyType(
    {
        record.kind: record
        for record in (
            KindRecord(
                kind=JobKind.BIBLIOGRAPHY,
                first_step=START_BIBLIOGRAPHY,
                steps=(START_BIBLIOGRAPHY, EXPAND_DOCUMENTS, VERIFY_ITEM, RENDER_REPORT),
                redrive=f"{_JOBS}.redrive:redrive_bibliography",
                summary=f"{_JOBS}.reports:bibliography_summary",
                document=f"{_JOBS}.reports:job_document",
                formats=BIBLIOGRAPHY_FORMATS,
                render=f"{_DOCS}:render_references",
                exit_code=f"{_DOCS}:bibliography_exit_code",
                report_files=f"{_JOBS}.reports:bibliography_files",
            ),
            KindRecord(
                kind=JobKind.CLAIM,
                first_step=CLAIM_CANDIDATES,
                steps=(*CLAIM_STAGE_TASKS, VERIFY_CLAIM, RENDER_REPORT),
                redrive=f"{_JOBS}.redrive:redrive_claim",
                summary=f"{_DOCS}:stored_summary",
                document=f"{_DOCS}:summary_document",
                formats=("json",),
                render=f"{_DOCS}:render_json",
                exit_code=f"{_DOCS}:claim_exit_code",
                report_files=f"{_JOBS}.reports:summary_files",
            ),
            _SWEEP,
            replace(_SWEEP, kind=JobKind.AUDIT, asks_afresh=True),
            KindRecord(
                kind=JobKind.CLAIMS_TEXT,
                first_step=CHECK_CLAIMS_TEXT,
                steps=(CHECK_CLAIMS_TEXT,),
                redrive=f"{_JOBS}.redrive:redrive_claims_text",
                summary=f"{_DOCS}:stored_summary",
                document=f"{_JOBS}.claims_text:claims_report",
                formats=("json", "html"),
                render=f"{_DOCS}:render_claims",
                exit_code=f"{_DOCS}:claims_text_exit_code",
                report_files=f"{_JOBS}.reports:summary_files",  # unused: its step writes claims.*
            ),
        )
    }
)


def kind_record(kind: str) -> KindRecord:
    """The record of a job's kind (a row's `kind` column); KeyError for a kind this version lacks."""
    return KINDS[JobKind(kind)]


def resolve(path: str) -> Callable[..., Any]:
    """The function a registry entry names (`"module:attribute"`), imported on first use and looked
    up at each call (a loaded module is a dictionary lookup), so a replaced attribute is seen."""
    module, _, attribute = path.partition(":")
    function: Callable[..., Any] = getattr(importlib.import_module(module), attribute)
    return function
