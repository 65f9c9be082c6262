"""What goes into the audit trail for each decision (seed 002): the events, built from an outcome.

Per reference, in this order:

    source_consulted   one per question put to a source: source, kind, query, outcome, the ids and
                       digest of every record it returned, the error when it failed
    field_comparison   one per compared field: cited and found values, source, similarity,
                       threshold, decisive, agrees
    verdict            status, severity, reasons, match, sources consulted and unavailable, logic
                       version, and the sha256 of the stored verdict and evidence (so a later edit
                       of the verdicts table shows: `aletheia audit-log verify`)

and, from the writer, `artifact_written` (path, kind, sha256 of the content).

Bodies are deterministic in the decision (no timestamps: the row has its own), so a task that runs
twice and decides the same logs nothing new, and a re-decision that differs is logged after the
first: the log is what happened, the last verdict event per item is the one stored.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from aletheia.core.audit_chain import content_hash
from aletheia.core.records import WorkRecord
from aletheia.storage.audit_log import AuditLog

if TYPE_CHECKING:
    from aletheia.pipeline.evidence.outcome import ReferenceOutcome
    from aletheia.pipeline.runtime import Runtime

SOURCE_CONSULTED = "source_consulted"
FIELD_COMPARISON = "field_comparison"
VERDICT = "verdict"
ARTIFACT_WRITTEN = "artifact_written"


def _record_summary(record: WorkRecord) -> dict[str, Any]:
    first = record.authors[0].display if record.authors else None
    return {
        "source": record.source.value,
        "source_id": record.source_id,
        "doi": record.doi,
        "arxiv_id": record.arxiv_id,
        "pmid": record.pmid,
        "title": record.title,
        "year": record.year,
        "first_author": first,
        "sha256": content_hash(record.model_dump(mode="json")),
    }


def decision_events(
    item_key: str, outcome: ReferenceOutcome, *, position: int | None
) -> list[tuple[str, dict[str, Any]]]:
    """The events of one reference's decision, in order (see the module docstring)."""
    item = {"item": item_key, "position": position}
    events: list[tuple[str, dict[str, Any]]] = []
    for n, answer in enumerate(outcome.evidence.answers, 1):
        consulted = {
            **item,
            "n": n,
            "source": answer.source.value,
            "kind": answer.kind.value,
            "query": answer.query,
            "outcome": answer.outcome.value,
            "records": [_record_summary(r) for r in answer.records],
            "error": answer.error,
        }
        events.append((SOURCE_CONSULTED, consulted))
    verdict = outcome.verdict
    for name, ev in verdict.fields.items():
        events.append((FIELD_COMPARISON, {**item, "field": name, **ev.model_dump(mode="json")}))
    decided = {
        **item,
        "status": verdict.status.value,
        "severity": verdict.severity.value if verdict.severity else None,
        "reasons": [r.value for r in verdict.reasons],
        "match": _record_summary(verdict.match) if verdict.match is not None else None,
        "sources_consulted": [s.value for s in verdict.sources_consulted],
        "sources_unavailable": [s.value for s in verdict.sources_unavailable],
        "retraction_notices": len(outcome.evidence.retraction_notices),
        "logic_version": verdict.logic_version,
        # Digests of exactly what is stored in the verdict row, so an edit of the row shows.
        "verdict_sha256": content_hash(verdict.model_dump(mode="json")),
        "evidence_sha256": content_hash(outcome.evidence.model_dump(mode="json")),
    }
    events.append((VERDICT, decided))
    return events


# One AuditLog per database engine: it holds the in-process per-job locks, which must be shared by
# every thread appending to the same job.
_LOGS: weakref.WeakKeyDictionary[Engine, AuditLog] = weakref.WeakKeyDictionary()
_LOGS_GUARD = threading.Lock()


def audit_log_for(runtime: Runtime) -> AuditLog:
    """The audit log of the runtime's database."""
    engine = runtime.jobs.engine
    with _LOGS_GUARD:
        log = _LOGS.get(engine)
        if log is None:
            log = _LOGS[engine] = AuditLog(engine, anchor_file=runtime.settings.audit_anchor_file)
        return log


def commit_job_trail(runtime: Runtime, job_id: str) -> None:
    """At a job's end: commit its Merkle root, and the global root when one is due."""
    log = audit_log_for(runtime)
    log.commit_job(job_id)
    log.commit_global_if_due(runtime.settings.audit_global_commit_seconds)


def record_artifact_written(
    audit_log: AuditLog, job_id: str, *, repository: str, path: str, kind: str, content_sha256: str
) -> int:
    """The writer wrote (or found unchanged) a file: where, what kind, and the digest of its content."""
    body = {"repository": repository, "path": path, "kind": kind, "sha256": content_sha256}
    return audit_log.append(job_id, [(ARTIFACT_WRITTEN, body)])
