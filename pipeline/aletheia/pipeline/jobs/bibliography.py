"""Bibliography jobs and their items: expand the documents into items (here or in the parsing
pool), verify one item per step, settle failed items, fan in to the writer.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from aletheia.core.bibliography.problems import InputError, InputProblem
from aletheia.core.evidence import Evidence
from aletheia.core.records import CitedReference
from aletheia.core.verdicts import Reason, Verdict, VerdictStatus
from aletheia.pipeline.audit.events import (
    audit_log_for,
    decision_events,
)
from aletheia.pipeline.evidence.gather import verify_reference
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.evidence.remember import remember_found
from aletheia.pipeline.joblog import job_context
from aletheia.pipeline.jobs.context import ServiceContext, TokenDeferred, _run_in_job, deferral_wait
from aletheia.pipeline.jobs.kinds import EXPAND_DOCUMENTS, RENDER_REPORT, VERIFY_ITEM
from aletheia.pipeline.jobs.leases import Held
from aletheia.pipeline.jobs.rows import FINISHED, UNSETTLED, _job, _transition
from aletheia.pipeline.jobs.submission import InputDocument, item_row
from aletheia.pipeline.jobs.sweeps import (
    _notify_parent,
)
from aletheia.pipeline.runtime import Runtime
from aletheia.sources.base import SourceStats
from aletheia.sources.transport import item_stats
from aletheia.storage.models import ItemStatus, Job, JobStatus

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Extensions whose conversion is CPU-heavy: their expansion goes to the parsing pool.
HEAVY_EXTENSIONS = frozenset({".pdf", ".html", ".htm", ".docx"})
MAX_ITEM_ATTEMPTS = 5
# A job input flag: every source asked again, no cached answer read (the weekly audit's children).
FRESH_SOURCES = "fresh_sources"


def _documents(job: Job) -> list[InputDocument]:
    return [InputDocument.from_json(d) for d in job.input.get("documents", [])]


def needs_parsing_pool(job: Job) -> bool:
    return any(Path(d.name).suffix.lower() in HEAVY_EXTENSIONS for d in _documents(job))


def start_bibliography_job(ctx: ServiceContext, job_id: str) -> None:
    """Expand the job's documents into items (here, or in the parsing pool when they are heavy)."""
    _start(ctx, job_id, in_parsing_pool=False)


def expand_documents(ctx: ServiceContext, job_id: str) -> None:
    """The parsing pool's step: the job's heavy documents (PDF, HTML) converted and expanded."""
    _start(ctx, job_id, in_parsing_pool=True)


def _start(ctx: ServiceContext, job_id: str, *, in_parsing_pool: bool) -> None:
    with job_context(job_id):
        job = _job(ctx.runtime, job_id)
        if job.status in FINISHED:
            return
        if not in_parsing_pool and needs_parsing_pool(job):
            ctx.dispatcher.send(EXPAND_DOCUMENTS, job_id)
            return
        expand_items(ctx, job_id)


def expansion_failed(ctx: ServiceContext, job_id: str, error: BaseException, *, final: bool) -> bool:
    """The expansion's failure policy (`jobs/kinds.py`): retried, then the job failed with the error
    (its parent told), never left queued for ever."""
    if not final:
        return True
    rt = ctx.runtime
    with job_context(job_id):
        job = _job(rt, job_id)
        if job.status in FINISHED:
            return False
        logger.error("expansion failed for good: %s: %s", type(error).__name__, error)
        message = f"expansion failed: {type(error).__name__}: {error}"
        rt.jobs.set_job_status(job_id, JobStatus.FAILED, error=message)
        _notify_parent(ctx, job)
    return False


def _cited_from_artifact(text_: str, origin: str, key: str) -> CitedReference:
    from aletheia.core.artifacts import parse_artifact
    from aletheia.core.bibliography.artifact import reference_from_artifact

    return reference_from_artifact(parse_artifact(text_), key=key, origin=origin)


def read_references(
    documents: Sequence[InputDocument], max_bytes: int, on_text: Callable[[str, str], None] | None = None
) -> Iterator[CitedReference | InputProblem]:
    """References and problems of the documents, in order (bibliographies through the input
    parsers, citation artifacts through their frontmatter). `on_text(name, text)` is handed each
    document's text as the parsers extracted it, under the submitted name."""
    with tempfile.TemporaryDirectory(prefix="aletheia-job-") as tmp:
        for index, doc in enumerate(documents):
            if doc.role == "artifact":
                key = Path(doc.name).stem
                try:
                    yield _cited_from_artifact(doc.data.decode("utf-8"), doc.name, key)
                except (ValueError, UnicodeDecodeError) as exc:
                    yield InputProblem(origin=doc.name, message=f"unreadable citation artifact: {exc}")
                continue
            from aletheia.pipeline.documents.inputs import iter_references

            # The parsers detect formats by name and content: keep the name, in a folder of its own.
            folder = Path(tmp) / str(index)
            folder.mkdir()
            path = folder / (Path(doc.name).name or "input")
            path.write_bytes(doc.data)
            observe = None if on_text is None else _renamed(on_text, doc.name)
            try:
                for ref in iter_references([str(path)], stdin=None, max_bytes=max_bytes, on_text=observe):
                    yield _relabel(ref, str(path), doc.name)
            except InputError as exc:  # this document as a whole; the others still count
                yield InputProblem(origin=doc.name, message=str(exc).replace(str(path), doc.name))


def _renamed(on_text: Callable[[str, str], None], name: str) -> Callable[[str, str], None]:
    return lambda _tmp_path, text: on_text(name, text)


def _relabel(ref: CitedReference | InputProblem, tmp_path: str, name: str) -> CitedReference | InputProblem:
    origin = ref.origin
    if origin and tmp_path in origin:
        return ref.model_copy(update={"origin": origin.replace(tmp_path, name)})
    return ref


def expand_items(ctx: ServiceContext, job_id: str) -> None:
    """Items from the job's input (idempotent: positions are unique), then fan out the unsettled."""
    rt = ctx.runtime
    with job_context(job_id), ctx.hold(Held.EXPANSION, job_id):
        job = _job(rt, job_id)
        if job.status in FINISHED:
            return
        if not rt.jobs.has_items(job_id):
            from aletheia.pipeline.documents.signals import DocumentCheck

            rt.leases.renew(jobs=[job_id])  # the re-drive sees the expansion held

            # A paper given as input is itself checked for paper-mill signs, from the text the
            # parsers extracted for its references (no second reading); kept in the summary row.
            check = DocumentCheck()
            try:
                entries = list(read_references(_documents(job), rt.settings.max_input_bytes, check.observe))
            except Exception as exc:
                logger.exception("input of job %s is unreadable", job_id)
                rt.jobs.set_job_status(
                    job_id, JobStatus.FAILED, error=f"input error: {type(exc).__name__}: {exc}"
                )
                _notify_parent(ctx, job)
                return
            rows = [item_row(position, entry) for position, entry in enumerate(entries, 1)]
            if check.signals:
                rt.jobs.set_summary(job_id, {"document_signals": check.signals})
            rt.jobs.add_items(job_id, rows)
            rt.jobs.settle_problem_items(job_id)  # problems are settled at once: nothing to verify
        _transition(rt, job_id, JobStatus.QUEUED, JobStatus.RUNNING)
        pending = rt.jobs.unsettled_item_ids(job_id)
        logger.info("job expanded", extra={"items": len(pending)})
        for pending_id in pending:
            ctx.dispatcher.send(VERIFY_ITEM, pending_id)
        if not pending:
            ctx.dispatcher.send(RENDER_REPORT, job_id)


def verify_item(ctx: ServiceContext, item_id: str) -> None:
    """Verify one reference and record its verdict; the last one settled asks for the report.

    Raises `TokenDeferred` when a source had no token soon enough (nothing is recorded then).
    The whole step, its rows included, counts as running for the batching (`ctx.quiescence`): a
    batch of lookups goes out early only when every item step of the process waits on one."""
    with ctx.quiescence.running():
        _verify_item(ctx, item_id)


def _verify_item(ctx: ServiceContext, item_id: str) -> None:
    rt = ctx.runtime
    item = rt.jobs.item(item_id)
    if item is None:
        logger.warning("item %s does not exist", item_id)
        return
    with job_context(item.job_id):
        job = _job(rt, item.job_id)
        if job.status in FINISHED:
            return
        if item.status not in UNSETTLED:  # a second delivery of a settled item
            _maybe_finish(ctx, item.job_id)
            return
        claim = rt.jobs.claim_item(item_id)
        if claim is None:  # settled meanwhile by another delivery
            _maybe_finish(ctx, item.job_id)
            return
        cited = CitedReference.model_validate(item.payload)
        fresh = bool(job.input.get(FRESH_SOURCES))
        with ctx.hold(Held.ITEM, item_id):  # renewed while the sources are asked
            outcome, counters = _verify(ctx, item.job_id, cited, fresh=fresh)
        wait = deferral_wait(outcome.evidence)
        if wait is not None:
            _requeue_item(rt, item_id)
            raise TokenDeferred(wait)
        # The decision's events and its verdict in one transaction, and only while this delivery
        # still holds the item's claim: a delivery whose item was claimed since (a redelivery, the
        # re-drive after its lease expired) writes neither, and a process that dies in between
        # leaves neither, so the trail never logs one decision while the row stores another.
        recorded = audit_log_for(rt).append_if(
            item.job_id,
            decision_events(item.key, outcome, position=item.position),
            lambda session: rt.jobs.settle(
                session,
                item.job_id,
                item_id,
                claim=claim,
                verdict=outcome.verdict.model_dump(mode="json"),
                evidence=outcome.evidence.model_dump(mode="json"),
                counters=item_stats.as_json(counters),
            ),
        )
        if not recorded:
            logger.warning("item claimed by another delivery since: not recorded", extra={"item_id": item_id})
            return
        _run_in_job(ctx, item.job_id, remember_found(rt.library, outcome, audit=fresh))
        if ctx.on_verdict is not None:
            ctx.on_verdict(item.job_id, item.position, outcome)
        _maybe_finish(ctx, item.job_id)


def _verify(
    ctx: ServiceContext, job_id: str, cited: CitedReference, *, fresh: bool = False
) -> tuple[ReferenceOutcome, dict[str, SourceStats]]:
    """The reference's outcome and the requests its verification made, per source (the worker's
    gateway serves every job at once: the job's counters are its references', `item_stats`)."""
    if ctx.verifier is not None:
        return _run_in_job(ctx, job_id, item_stats.counted(ctx.verifier(cited)))
    gateway = ctx.source_gateway(fresh=fresh)
    year = datetime.now(UTC).year
    outcome, counters = _run_in_job(
        ctx, job_id, item_stats.counted(verify_reference(cited, gateway, current_year=year))
    )
    asked = {answer.source.value for answer in outcome.evidence.answers}
    item_stats.note_turned_off(counters, gateway.stats(), asked)
    return outcome, counters


def _requeue_item(runtime: Runtime, item_id: str) -> None:
    # A deferral is not an attempt: give back the one `mark_item(RUNNING)` counted.
    runtime.jobs.requeue_item(item_id)


def item_failed(ctx: ServiceContext, item_id: str, error: BaseException | str, *, final: bool) -> bool:
    """After an unexpected error: True when the step should be retried, else the item is settled
    as unverifiable (default-deny: a reference nobody could check is never passed)."""
    rt = ctx.runtime
    item = rt.jobs.item(item_id)
    if item is None:
        return False
    message = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    with job_context(item.job_id):
        if not final and item.attempts < MAX_ITEM_ATTEMPTS:
            rt.jobs.mark_item(item_id, ItemStatus.PENDING, error=message)
            return True
        verdict = Verdict(
            status=VerdictStatus.UNVERIFIABLE,
            reasons=(Reason.SOURCE_UNAVAILABLE,),
            notes=(f"verification failed after {item.attempts} attempt(s): {message}"[:500],),
        )
        failed = ReferenceOutcome(
            cited=CitedReference.model_validate(item.payload), verdict=verdict, evidence=Evidence(), raw=[]
        )
        # Events and verdict together, and only if no delivery recorded a decision meanwhile.
        settled = audit_log_for(rt).append_if(
            item.job_id,
            decision_events(item.key, failed, position=item.position),
            lambda session: rt.jobs.settle_failed(
                session,
                item.job_id,
                item_id,
                verdict=verdict.model_dump(mode="json"),
                evidence=Evidence().model_dump(mode="json"),
                error=message,
            ),
        )
        if settled:
            logger.error("item failed for good: %s", message, extra={"item_id": item_id})
            if ctx.on_verdict is not None:
                ctx.on_verdict(item.job_id, item.position, failed)
        _maybe_finish(ctx, item.job_id)
        return False


def _maybe_finish(ctx: ServiceContext, job_id: str) -> None:
    """Fan-in: once no item is unsettled, ask the writer for the report (twice is harmless)."""
    if not ctx.runtime.jobs.has_unsettled(job_id):
        ctx.dispatcher.send(RENDER_REPORT, job_id)
