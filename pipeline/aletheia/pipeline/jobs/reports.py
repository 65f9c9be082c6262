"""Reports (the writer): a job's summary and report files from its rows, written atomically and
recorded by path under a per-repository lock; then the job is done.
"""

from __future__ import annotations

import io
import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.evidence import Evidence, Outcome
from aletheia.core.records import CitedReference
from aletheia.core.transparency_counts import TransparencyCounts
from aletheia.core.verdicts import LOGIC_VERSION, Verdict
from aletheia.pipeline.audit.events import (
    commit_job_trail,
)
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.joblog import job_context
from aletheia.pipeline.jobs.files import repository_lock, write_artifact
from aletheia.pipeline.jobs.kinds import kind_record, resolve
from aletheia.pipeline.jobs.rows import FINISHED, _job, _transition
from aletheia.pipeline.jobs.sweeps import (
    _notify_parent,
    children,
)
from aletheia.pipeline.jobs.tally import VerifySummary, sources_block
from aletheia.pipeline.reports.formats import reference_json
from aletheia.pipeline.runtime import Runtime
from aletheia.sources.base import SourceStats
from aletheia.sources.transport import item_stats
from aletheia.sources.transport.figures import request_figures, requests_by_kind
from aletheia.storage.models import Item, Job, JobStatus

if TYPE_CHECKING:
    from aletheia.pipeline.jobs.context import ServiceContext

logger = logging.getLogger(__name__)


def job_summary(runtime: Runtime, job_id: str) -> dict[str, Any]:
    """The job's summary as its kind's record builds it (`jobs/kinds.py`)."""
    job = _job(runtime, job_id)
    summary: dict[str, Any] = resolve(kind_record(job.kind).summary)(runtime, job)
    return summary


def bibliography_summary(runtime: Runtime, job: Job) -> dict[str, Any]:
    """Counts by verdict, input problems and which sources could not be asked and the verdicts that
    needed them (`sources`: a partial run never reads as a clean one), tallied and built by the
    functions for `aletheia verify` and the queued service (`VerifySummary.add`, `sources_block`).
    The counters of `sources` and `requests` are the sum of those its references' rows hold
    (`item_stats`: a worker's gateway serves every job at once), or, for rows recorded before
    references kept counters, the stored gateway's or the evidence's."""
    summary = VerifySummary(job_id=job.id)
    answers = AnswerTally()
    measured: list[dict[str, Any]] = []
    # Row by row, a chunk at a time: neither the evidence nor the verdicts are held all at once.
    for item, row in runtime.jobs.iter_verdicts(job.id):
        if item.kind == "problem":
            summary.problems.append(InputProblem.model_validate(item.payload))
        elif row is not None:
            summary.add(Verdict.model_validate(row.verdict))
            answers.add(row.evidence)
            if row.counters is not None:
                measured.append(row.counters)
    stored = job.summary or {}
    if measured:  # every reference's own counters, in process or queued
        totals = item_stats.summed(measured)
        counters = measured_counters(totals, evidence_counters(answers, summary.affected))
        summary.requests = request_figures(totals, summary.total)
    elif stored.get("requests") and isinstance(stored.get("sources"), dict):
        # A job `aletheia verify` ran before references kept counters: its one gateway's.
        counters = {name: dict(entry) for name, entry in stored["sources"].items()}
        summary.requests = stored["requests"]
    else:  # rows recorded before references kept counters
        counters = evidence_counters(answers, summary.affected)
    summary.sources = sources_block(counters, summary.affected)
    out = summary.as_json()
    out["status"] = job.status
    if job.summary and job.summary.get("document_signals"):  # stored at expansion (document_signals)
        out["document_signals"] = job.summary["document_signals"]
    if job.input.get("repository"):
        out["repository"] = job.input["repository"]
    return out


def measured_counters(
    totals: dict[str, SourceStats], counted: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """A job's counters for `sources_block`, summed from its references' own counters (`totals`);
    a source's status is the evidence's (`evidence_counters`, here `counted`), which also lists the
    sources asked without a request (turned off, circuit open, a cached answer), unless the
    verifying process had turned it off (`disabled`, `offline`: recorded with the counters,
    `item_stats.note_turned_off`, so a report read elsewhere says the same)."""
    out: dict[str, dict[str, Any]] = {}
    for name in sorted(set(totals) | set(counted)):
        st = totals.get(name, SourceStats())
        status = counted[name]["status"] if name in counted else "ok"
        out[name] = {
            "requests": st.requests,
            "errors": st.errors,
            "status": st.status if st.status in item_stats.TURNED_OFF else status,
            "rate_limited": st.rate_limited,
            "cache_hits": st.cache_hits,
            "requests_by_kind": requests_by_kind(st),
        }
    return out


@dataclass
class AnswerTally:
    """Per source, the answers a job's stored evidence holds, and how many failed."""

    answered: Counter[str] = field(default_factory=Counter)
    failed: Counter[str] = field(default_factory=Counter)

    def add(self, evidence: dict[str, Any]) -> None:
        """One reference's stored evidence (`Evidence` as JSON), read without building the model."""
        for answer in evidence.get("answers") or ():
            bucket = self.failed if answer.get("outcome") == Outcome.FAILED.value else self.answered
            bucket[str(answer.get("source"))] += 1


def evidence_counters(tally: AnswerTally, affected: dict[str, Counter[str]]) -> dict[str, dict[str, Any]]:
    """A job's counters for `sources_block`, from the stored evidence (rows recorded before
    references kept their own counters): every answer a source gave (or failed to give) is in the
    evidence; `requests` counts answers, and the figures only a gateway sees (429s, cache hits,
    requests by kind) are 0. A source is `unavailable` when it never answered, `degraded` when
    some of its answers failed."""
    answered, failed = tally.answered, tally.failed
    out: dict[str, dict[str, Any]] = {}
    for name in sorted(set(answered) | set(failed) | set(affected)):
        hit = affected.get(name, Counter())
        status = "ok" if not failed[name] and not hit else "degraded" if answered[name] else "unavailable"
        out[name] = {
            "requests": answered[name] + failed[name],
            "errors": failed[name],
            "status": status,
            "rate_limited": 0,
            "cache_hits": 0,
            "requests_by_kind": {},
        }
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
        # An audit's drift audit and link check per repository (jobs/audit.py).
        **({"audits": job.summary["audits"]} if job.summary and "audits" in job.summary else {}),
    }


def stored_reference_json(item: Item, verdict_row: Any) -> dict[str, Any]:
    """The report entry of an item, rebuilt from its stored verdict and evidence."""
    return reference_entry(
        CitedReference.model_validate(item.payload),
        Verdict.model_validate(verdict_row.verdict),
        Evidence.model_validate(verdict_row.evidence),
    )


def reference_entry(cited: CitedReference, verdict: Verdict, evidence: Evidence) -> dict[str, Any]:
    """The report entry of one reference from what is stored of it (the cited fields, verdict and
    evidence; not the raw payloads): the queued report's and `aletheia verify`'s stream's."""
    # The match's sources are its work's, read from the evidence's answers (`reference_json`).
    return reference_json(ReferenceOutcome(cited=cited, verdict=verdict, evidence=evidence, raw=[]))


def job_document(runtime: Runtime, job_id: str) -> dict[str, Any]:
    """The report of a job, from its rows: `{"summary": ..., "references": [...]}`."""
    from aletheia.pipeline.predatory import refresh_predatory_list
    from aletheia.pipeline.reports.signals import summary_with_signals

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


def report_files(runtime: Runtime, job_id: str) -> dict[str, str]:
    """The files the writer produces for a job, as its kind's record names them: name -> content
    (deterministic from the rows)."""
    job = _job(runtime, job_id)
    files: dict[str, str] = resolve(kind_record(job.kind).report_files)(runtime, job_id)
    return files


def summary_files(runtime: Runtime, job_id: str) -> dict[str, str]:
    """Claims, sweeps, audits: their report is their summary."""
    summary = job_summary(runtime, job_id)
    summary["status"] = JobStatus.DONE
    return {"report.json": json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True) + "\n"}


def bibliography_files(runtime: Runtime, job_id: str) -> dict[str, str]:
    """report.json, report.html and, when there are references, corrected.bib; none for a job
    whose producer printed its report as it ran (`aletheia verify`: the files would hold the
    whole job in memory at once, and `aletheia report JOB` renders any format from the rows)."""
    # The writer's formats, imported here: `aletheia report` renders one (`reports/formats.py`).
    from aletheia.pipeline.jobs.submission import READ_BY_PRODUCER
    from aletheia.pipeline.reports.bibtex import BibtexSink
    from aletheia.pipeline.reports.html import render_html

    if _job(runtime, job_id).input.get(READ_BY_PRODUCER):
        return {}
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
        if rt.jobs.progress(job_id).pending:
            return []  # an early message; the last item settled asks again
        if kind_record(job.kind).fans_out and any(k.status not in FINISHED for k in children(rt, job_id)):
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
