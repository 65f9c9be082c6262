"""Replay: recompute every verdict of a job from the evidence stored with it, under today's logic.

`decide()` is pure and reads only the sources' answers, which are stored with each verdict
(`verdicts.evidence`), so the same evidence under the same logic must give the same verdict; a
difference means the logic changed (`LOGIC_VERSION`, docs/verdicts.md) or a row was edited. The
year a verdict was decided in is the `current_year` of the replay (the future-year rule depends on
it). Nothing is written.

A claim job (`aletheia cite`, `submit --claim`) or a claims-text job has no verdict rows: its
decisions are in its audit trail (`claim_events.py`), and `replay_claim_job` judges every stored
excerpt again with today's rules judge (`replay_claim_events`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC
from typing import Any

from sqlalchemy import Engine

from aletheia.core.decide import decide
from aletheia.core.errors import JobNotFound
from aletheia.core.evidence import Evidence
from aletheia.core.records import CitedReference, WorkRecord
from aletheia.core.verdicts import LOGIC_VERSION, Verdict, VerdictStatus
from aletheia.pipeline.audit.claim_events import CLAIM_EVENT_KINDS, ClaimReplay, replay_claim_events
from aletheia.storage.audit_log import AuditLog
from aletheia.storage.stores import JobStore


@dataclass(frozen=True)
class VerdictDifference:
    position: int
    key: str
    stored_logic_version: str
    changes: dict[str, tuple[Any, Any]]  # what -> (stored, replayed)

    def describe(self) -> str:
        parts = []
        for what, (old, new) in self.changes.items():
            if what == "reasons":
                added = [r for r in new if r not in old]
                removed = [r for r in old if r not in new]
                parts.append("reasons " + " ".join([*(f"+{r}" for r in added), *(f"-{r}" for r in removed)]))
            else:
                parts.append(f"{what} {old} -> {new}")
        return f"#{self.position} {self.key}: " + "; ".join(parts)


@dataclass
class ReplayReport:
    job_id: str
    logic_version: str = LOGIC_VERSION
    replayed: int = 0
    same: int = 0
    differences: list[VerdictDifference] = field(default_factory=list)
    not_replayable: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """Every field, in order; a difference's changes as {what: {"stored": ..., "replayed": ...}}."""
        document = asdict(self)
        for difference in document["differences"]:
            changes = difference["changes"].items()
            difference["changes"] = {what: {"stored": old, "replayed": new} for what, (old, new) in changes}
        return document


def _match_id(record: WorkRecord | None) -> str | None:
    if record is None:
        return None
    for prefix, value in (("doi", record.doi), ("arxiv", record.arxiv_id), ("pmid", record.pmid)):
        if value:
            return f"{prefix}:{value}"
    return f"{record.source.value}:{record.source_id or record.title}"


def compare_verdicts(stored: Verdict, replayed: Verdict) -> dict[str, tuple[Any, Any]]:
    """What a replay changed: status, severity, reasons, the matched work, unavailable sources."""
    changes: dict[str, tuple[Any, Any]] = {}
    if stored.status is not replayed.status:
        changes["status"] = (stored.status.value, replayed.status.value)
    if stored.severity is not replayed.severity:
        changes["severity"] = (
            stored.severity.value if stored.severity else None,
            replayed.severity.value if replayed.severity else None,
        )
    if list(stored.reasons) != list(replayed.reasons):
        changes["reasons"] = ([r.value for r in stored.reasons], [r.value for r in replayed.reasons])
    if _match_id(stored.match) != _match_id(replayed.match):
        changes["match"] = (_match_id(stored.match), _match_id(replayed.match))
    if set(stored.sources_unavailable) != set(replayed.sources_unavailable):
        changes["sources_unavailable"] = (
            sorted(s.value for s in stored.sources_unavailable),
            sorted(s.value for s in replayed.sources_unavailable),
        )
    return changes


def job_kind(engine: Engine, job_id: str) -> str:
    job = JobStore(engine).job(job_id)
    if job is None:
        raise JobNotFound(job_id)
    return job.kind


def replay_claim_job(engine: Engine, job_id: str) -> ClaimReplay:
    """Every claim judgement in the job's audit trail judged again (rules judge; a model's
    judgement is listed as not replayable); nothing is written."""
    job_kind(engine, job_id)
    events = [(e.event, e.body) for e in AuditLog(engine).entries(job_id) if e.event in CLAIM_EVENT_KINDS]
    report = replay_claim_events(events)
    if not events:
        report.not_replayable.append(f"job {job_id}: no claim decision in its audit trail")
    return report


def replay_job(engine: Engine, job_id: str) -> ReplayReport:
    """Recompute the newest stored verdict of every item of the job; nothing is written."""
    report = ReplayReport(job_id)
    jobs = JobStore(engine)
    if jobs.job(job_id) is None:
        raise JobNotFound(job_id)
    for item, row in jobs.newest_verdicts(job_id):
        label = f"#{item.position} {item.key}"
        if item.kind != "reference":
            continue
        if row is None:
            report.not_replayable.append(f"{label}: no verdict stored")
            continue
        stored = Verdict.model_validate(row.verdict)
        evidence = Evidence.model_validate(row.evidence)
        if not evidence.answers and stored.status is VerdictStatus.UNVERIFIABLE and stored.notes:
            # Settled as unverifiable after its task failed for good: no source was ever consulted.
            report.not_replayable.append(f"{label}: no evidence recorded ({stored.notes[0][:120]})")
            continue
        cited = CitedReference.model_validate(item.payload)
        decided = row.decided_at if row.decided_at.tzinfo is not None else row.decided_at.replace(tzinfo=UTC)
        replayed = decide(cited, evidence, current_year=decided.year)
        report.replayed += 1
        changes = compare_verdicts(stored, replayed)
        if changes:
            report.differences.append(VerdictDifference(item.position, item.key, row.logic_version, changes))
        else:
            report.same += 1
    return report
