"""Claim jobs: find a paper that supports the claim and write its citation artifact, or record why
not (default-deny), one stage per pool (docs/service.md, "Claim jobs"):

    submit ─► retrieval.claim_candidates ─► retrieval.claim_text ◄─► parsing.claim_documents
                                                  │            (a fetched document to convert)
                                                  ▼
              evidence.claim_judge ─(neither supported nor contradicted: the next candidate)─┐
                    │ supported                                   retrieval.claim_text ◄──────┘
                    ▼
              retrieval.claim_identity ─► writer.claim_artifact ─► writer.render_report
      (a refusal at any stage goes straight to writer.claim_artifact, which records it)

The stages are those of `aletheia.pipeline.claims.stages` (what `verify_and_cite` runs in one
process). Between stages the job's state is a row (`claim_states`: the next stage, a version, the
state as JSON) and the fetched documents are rows (`claim_documents`): PostgreSQL is the record of
where the job is, never the broker. A stage runs only when the row names it, and saves its result
by compare-and-set on the version, so a message delivered twice (or re-driven while it was in fact
running) changes nothing. After every stage the claim's trail so far is appended to the job's
audit log (an event already there is skipped: a stage run twice appends nothing new).
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from aletheia.core.verdicts import LOGIC_VERSION
from aletheia.pipeline.audit.events import audit_log_for
from aletheia.pipeline.joblog import job_context
from aletheia.pipeline.jobs.context import (
    ServiceContext,
    TokenDeferred,
    _run_in_job,
    collect_deferrals,
    deferred_wait_in,
)
from aletheia.pipeline.jobs.files import record_artifact, repository_lock
from aletheia.pipeline.jobs.kinds import (
    CLAIM_ARTIFACT,
    CLAIM_CANDIDATES,
    CLAIM_DOCUMENTS,
    CLAIM_IDENTITY,
    CLAIM_JUDGE,
    CLAIM_TEXT,
    RENDER_REPORT,
)
from aletheia.pipeline.jobs.leases import Held
from aletheia.pipeline.jobs.rows import FINISHED, _job, _transition
from aletheia.pipeline.runtime import Runtime
from aletheia.sources.base import SourceError
from aletheia.storage.claim_store import ClaimStageStore, StageRow
from aletheia.storage.models import ItemStatus, Job, JobStatus

if TYPE_CHECKING:
    from aletheia.pipeline.claims.claim_state import ClaimState, StageEnv

logger = logging.getLogger(__name__)

CLAIM_PIPELINE_MISSING = (
    "the claim pipeline (aletheia.pipeline.claims.verify_and_cite) is not installed in this version"
)
# The task that runs each stage (a state at `done` whose job is not finished: the writer's last part).
STAGE_TASKS: Final = {
    "candidates": CLAIM_CANDIDATES,
    "text": CLAIM_TEXT,
    "parse": CLAIM_DOCUMENTS,
    "judge": CLAIM_JUDGE,
    "identity": CLAIM_IDENTITY,
    "write": CLAIM_ARTIFACT,
    "done": CLAIM_ARTIFACT,
}


# --- the tasks' functions -------------------------------------------------------------------------


def claim_candidates(ctx: ServiceContext, job_id: str) -> None:
    """Retrieval: the claim extracted, the named paper or the ranked search results."""
    _run_stage(ctx, job_id, "candidates")


def claim_text(ctx: ServiceContext, job_id: str) -> None:
    """Retrieval: the next candidate's full text (a document to convert goes to the parsing pool)."""
    _run_stage(ctx, job_id, "text")


def claim_judge(ctx: ServiceContext, job_id: str) -> None:
    """Evidence: the candidate's excerpts located and judged."""
    _run_stage(ctx, job_id, "judge")


def claim_identity(ctx: ServiceContext, job_id: str) -> None:
    """Retrieval: the triangulation gate and the retraction check; the artifact built."""
    _run_stage(ctx, job_id, "identity")


def claim_documents(ctx: ServiceContext, job_id: str) -> None:
    """Parsing: the documents the text stage fetched, converted; then the text stage again."""
    from aletheia.pipeline.claims.fetches import convert_stored

    with job_context(job_id), ctx.hold(Held.CLAIM, job_id):
        begun = _begin(ctx, job_id, "parse")
        if begun is None:
            return
        _job_row, store, row, state = begun
        for key in state.pending:
            convert_stored(store, job_id, key, settings=ctx.settings)
        converted = len(state.pending)
        state.pending = []
        state.stage = "text"
        _save(ctx, job_id, store, row, state)
        logger.info("claim stage done", extra={"stage": "parse", "next": "text", "documents": converted})


def claim_artifact(ctx: ServiceContext, job_id: str) -> None:
    """Writer: the artifact written under the repository's lock and the decision recorded; then the
    job's summary, its items settled and its report asked for."""
    from aletheia.core.artifacts import ArtifactPathError
    from aletheia.pipeline.audit.claim_events import ClaimTrail
    from aletheia.pipeline.claims.claim_outcome import write_stage

    rt = ctx.runtime
    with job_context(job_id), ctx.hold(Held.CLAIM, job_id):
        begun = _begin(ctx, job_id, "write", "done")
        if begun is None:
            return
        job, store, row, state = begun
        if state.stage == "write":
            root = _project_root(rt, job)
            trail = ClaimTrail()
            try:
                with repository_lock(rt, str(root)):
                    citation, path = write_stage(state, root, trail)
                    state.events.extend(trail.events)
                    audit_log_for(rt).append(job_id, state.events)  # the decision before the file's record
                    if citation is not None:
                        assert isinstance(path, Path)
                        digest = hashlib.sha256(path.read_bytes()).hexdigest()
                        record_artifact(rt, job_id, str(root), path, "citation", digest)
            except ArtifactPathError as exc:  # a symlinked or foreign docs/citations: never written
                _fail(rt, job_id, f"ArtifactPathError: {exc}")
                return
            if not store.advance(job_id, row.version, state.stage, _dump(state)):
                return  # another delivery wrote it first and finishes the job
            cited = citation is not None
            logger.info("claim stage done", extra={"stage": "write", "next": "done", "cited": cited})
        _finish(ctx, job, state)


def verify_claim(ctx: ServiceContext, job_id: str) -> None:
    """A message of the one-step claim task (an older producer): the job's current stage is asked for."""
    job = _job(ctx.runtime, job_id)
    if job.status in FINISHED:
        return
    row = ctx.runtime.claim_stages.load(job_id)
    ctx.dispatcher.send(STAGE_TASKS[row.stage] if row is not None else CLAIM_CANDIDATES, job_id)


# --- one stage --------------------------------------------------------------------------------------


def _begin(
    ctx: ServiceContext, job_id: str, *stages: str
) -> tuple[Job, ClaimStageStore, StageRow, ClaimState] | None:
    """The job, its state row and state when one of `stages` is next; None when there is nothing to
    do (the job is finished, the claim pipeline is missing, or the message is stale: another
    delivery moved the job on)."""
    rt = ctx.runtime
    job = _job(rt, job_id)
    if job.status in FINISHED:
        return None
    try:
        import aletheia.pipeline.claims.verify_and_cite  # noqa: F401 - the pipeline this job needs
    except ImportError:
        _fail(rt, job_id, CLAIM_PIPELINE_MISSING)
        logger.error(CLAIM_PIPELINE_MISSING)
        return None
    from aletheia.pipeline.claims.claim_state import ClaimState

    _transition(rt, job_id, JobStatus.QUEUED, JobStatus.RUNNING)
    store = rt.claim_stages
    row = store.load(job_id) or store.create(job_id, "candidates", _initial_state(job))
    if row.stage not in stages:
        logger.info("claim stage not next", extra={"wanted": list(stages), "stage": row.stage})
        return None
    return job, store, row, ClaimState.model_validate(row.state)


def _initial_state(job: Job) -> dict[str, Any]:
    from aletheia.pipeline.claims.claim_state import ClaimRequest, ClaimState

    spec = job.input
    request = ClaimRequest(
        claim=spec["claim"],
        hint=spec.get("hint"),
        paper=spec.get("paper"),
        override_reason=spec.get("override_reason"),
    )
    return _dump(ClaimState(request=request))


def _dump(state: ClaimState) -> dict[str, Any]:
    dumped: dict[str, Any] = state.model_dump(mode="json")
    return dumped


def _run_stage(ctx: ServiceContext, job_id: str, stage: str) -> None:
    from aletheia.pipeline.claims.fetches import ConversionNeeded, StagedFetches
    from aletheia.pipeline.claims.stages import run_stage

    # Marked as running for the sources' batching (`ctx.quiescence`), as an item step is.
    with job_context(job_id), ctx.hold(Held.CLAIM, job_id), ctx.quiescence.running():
        begun = _begin(ctx, job_id, stage)
        if begun is None:
            return
        _job_row, store, row, state = begun
        fetches = StagedFetches(store, job_id, dict(state.fetched))
        env = _env(ctx, job_id, fetches if stage == "text" else None)
        if env is None:
            return

        async def staged() -> tuple[list[float], str | None]:
            deferrals = collect_deferrals()
            try:
                await run_stage(state, env)
            except ConversionNeeded as needed:  # the text stage waits for the parsing pool
                return deferrals, needed.key
            return deferrals, None

        try:
            deferrals, to_convert = _run_in_job(ctx, job_id, staged())
        except SourceError as exc:  # e.g. the model's token, deferred (it is not a source answer)
            wait = deferred_wait_in(str(exc))
            if wait is None:
                raise
            raise TokenDeferred(wait) from None
        wait = _deferred(deferrals, env, state)
        if wait is not None:
            # A source (or the model) had no token soon enough: the whole stage goes back to the
            # queue and runs again later; nothing it found is saved (a deferral is no answer).
            raise TokenDeferred(wait)
        if to_convert is not None:
            state.fetched, state.pending, state.stage = fetches.fetched, [to_convert], "parse"
        state.events.extend(env.trail.events)
        _save(ctx, job_id, store, row, state)
        logger.info("claim stage done", extra={"stage": stage, "next": state.stage})


def _env(ctx: ServiceContext, job_id: str, fetches: Any) -> StageEnv | None:
    from aletheia.pipeline.audit.claim_events import ClaimTrail
    from aletheia.pipeline.claims.claim_state import StageEnv
    from aletheia.pipeline.claims.judge import judge_from_settings, paced_judge
    from aletheia.pipeline.claims.reasoner import paced_reasoner, reasoner_from_settings
    from aletheia.pipeline.llm.client import LLMError

    gateway = ctx.source_gateway()
    try:
        # Model calls (reasoner and judge) under the global limiter's `llm` bucket.
        judge = paced_judge(judge_from_settings(ctx.settings), gateway)
        reasoner = paced_reasoner(reasoner_from_settings(ctx.settings), gateway)
    except LLMError as exc:  # a model asked for by the settings but not configured: nothing can run
        _fail(ctx.runtime, job_id, f"LLMError: {exc}")
        return None
    if fetches is None:
        return StageEnv(gateway, reasoner, judge, ClaimTrail())
    return StageEnv(fetches.gateway(gateway), reasoner, judge, ClaimTrail(), convert=fetches.convert)


def _deferred(deferrals: list[float], env: StageEnv, state: ClaimState) -> float | None:
    """The wait to go back to the queue for, when a lookup of this stage was deferred."""
    seen = [*deferrals]
    text = json.dumps([env.trail.events, env.failures], default=str)
    if state.refusal is not None:
        text += state.refusal.model_dump_json()
    found = deferred_wait_in(text)
    if found is not None:
        seen.append(found)
    return max(seen) if seen else None


def _save(ctx: ServiceContext, job_id: str, store: ClaimStageStore, row: StageRow, state: ClaimState) -> None:
    """Save the stage's result over the version it read, append the trail, ask for the next stage."""
    if not store.advance(job_id, row.version, state.stage, _dump(state)):
        logger.info("claim stage saved by another delivery first", extra={"stage": row.stage})
        return
    audit_log_for(ctx.runtime).append(job_id, state.events)
    ctx.dispatcher.send(STAGE_TASKS[state.stage], job_id)


def _finish(ctx: ServiceContext, job: Job, state: ClaimState) -> None:
    """The writer's last part (idempotent): the trail, the summary, the items; the report asked for."""
    from aletheia.pipeline.claims.claim_outcome import state_outcome

    rt = ctx.runtime
    job_id = job.id
    audit_log_for(rt).append(job_id, state.events)
    citation, detail = state_outcome(state)
    summary: dict[str, Any] = {"claim": job.input["claim"], "logic_version": LOGIC_VERSION}
    if citation is not None:
        summary |= {"verified": True, "citation": citation.model_dump(mode="json"), "artifact": str(detail)}
        if citation.human_overridden:  # the human decision, as the artifact and the trail record it
            summary["override_reason"] = job.input.get("override_reason")
    else:  # default-deny: why it could not be proven
        assert not isinstance(detail, Path)
        summary |= {"verified": False, "conflict": detail.model_dump(mode="json")}
    rt.jobs.set_summary(job_id, summary)
    for item in rt.jobs.items(job_id):
        if item.status != ItemStatus.DONE:
            rt.jobs.mark_item(item.id, ItemStatus.DONE)
    rt.claim_stages.delete_documents(job_id)
    ctx.dispatcher.send(RENDER_REPORT, job_id)  # report.json, the Merkle root, the job done


def _project_root(runtime: Runtime, job: Job) -> Path:
    root = Path(job.input.get("repository") or runtime.settings.reports_path() / job.id)
    root.mkdir(parents=True, exist_ok=True)
    return root


def _fail(runtime: Runtime, job_id: str, error: str) -> None:
    runtime.jobs.set_job_status(job_id, JobStatus.FAILED, error=error)
    for item in runtime.jobs.items(job_id):
        runtime.jobs.mark_item(item.id, ItemStatus.FAILED, error=error)
    runtime.claim_stages.delete_documents(job_id)
