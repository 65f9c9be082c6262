"""Checking the audit trail (`AuditLog`): each job's hash chain, its Merkle commits, the global
commits that cover them, the anchor file outside the database, and whether the stored verdicts
are the ones the log recorded. `verify_job` and `verify_all` name every problem found, the first
bad event first (what `aletheia audit-log verify` reports).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import select

from aletheia.core.audit_chain import (
    AuditEntry,
    content_hash,
    global_leaves,
    merkle_root,
    verify_chain,
    verify_commit,
)
from aletheia.storage.audit_log import GLOBAL_SCOPE
from aletheia.storage.models import Item, MerkleCommit, VerdictRow

if TYPE_CHECKING:
    from aletheia.storage.audit_log import AuditLog

__all__ = ["JobVerification", "Problem", "verify_all", "verify_job"]


@dataclass
class Problem:
    """One thing wrong with the trail: where (job, seq) and what."""

    job_id: str | None
    seq: int | None
    problem: str

    def __str__(self) -> str:
        where = f"job {self.job_id}" if self.job_id else "global commits"
        if self.seq is not None:
            where += f", event seq {self.seq}"
        return f"{where}: {self.problem}"


@dataclass
class JobVerification:
    job_id: str
    events: int = 0
    committed_events: int = 0
    commits: int = 0
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def intact(self) -> bool:
        return not self.problems

    @property
    def first_problem(self) -> Problem | None:
        return self.problems[0] if self.problems else None


def verify_job(log: AuditLog, job_id: str) -> JobVerification:
    """The job's chain, its commits, the global commits that cover them, and its verdict rows."""
    result = JobVerification(job_id)
    entries = log.entries(job_id)
    result.events = len(entries)
    broken = verify_chain(entries, job_id=job_id)
    if broken is not None:
        result.problems.append(Problem(job_id, broken.seq, broken.problem))
    hashes = [e.hash for e in entries]
    commits = log.commits(job_id)
    result.commits = len(commits)
    prior: str | None = None
    for commit in commits:
        if commit.prior != prior:
            result.problems.append(
                Problem(job_id, None, f"commit {commit.id} does not follow the job's previous commit")
            )
        bad = verify_commit(hashes, event_count=commit.event_count, root=commit.root)
        if bad is not None:
            result.problems.append(Problem(job_id, bad.seq, f"commit {commit.id}: {bad.problem}"))
        prior = commit.root
        result.committed_events = max(result.committed_events, commit.event_count)
    if result.events > result.committed_events:
        uncommitted = result.events - result.committed_events
        result.warnings.append(f"{uncommitted} event(s) after the last commit are not committed yet")
    covering = _covering_globals(log, job_id)
    for problem in _verify_globals(log, only=covering):
        result.problems.append(Problem(job_id, None, problem.problem))
    _check_verdict_rows(log, job_id, entries, result)
    return result


def verify_all(log: AuditLog) -> tuple[list[JobVerification], list[Problem]]:
    """Every job's verification, and the problems of the global commits and anchor file."""
    jobs = [verify_job(log, job) for job in log.job_ids()]
    return jobs, _verify_globals(log, only=None)


def _covering_globals(log: AuditLog, job_id: str) -> set[int]:
    with log.sessions() as s:
        ids = s.scalars(
            select(MerkleCommit.covered_by).where(
                MerkleCommit.scope == job_id, MerkleCommit.covered_by.is_not(None)
            )
        ).all()
    return {int(i) for i in ids if i is not None}


def _verify_globals(log: AuditLog, *, only: set[int] | None) -> list[Problem]:
    problems: list[Problem] = []
    with log.sessions() as s:
        globals_ = s.scalars(
            select(MerkleCommit).where(MerkleCommit.scope == GLOBAL_SCOPE).order_by(MerkleCommit.id)
        ).all()
        members: dict[int, list[MerkleCommit]] = {}
        for c in s.scalars(
            select(MerkleCommit)
            .where(MerkleCommit.scope != GLOBAL_SCOPE, MerkleCommit.covered_by.is_not(None))
            .order_by(MerkleCommit.id)
        ):
            assert c.covered_by is not None
            members.setdefault(int(c.covered_by), []).append(c)
    known = {g.id for g in globals_}
    for gid, covered in members.items():
        if gid not in known and (only is None or gid in only):
            jobs = ", ".join(sorted({c.scope for c in covered}))
            problems.append(Problem(None, None, f"global commit {gid} covering job(s) {jobs} was removed"))
    prior: str | None = None
    for g in globals_:
        if only is None or g.id in only:
            if g.prior != prior:
                problems.append(
                    Problem(None, None, f"global commit {g.id} does not follow global commit before it")
                )
            covered = members.get(g.id, [])
            root = merkle_root(global_leaves(g.prior, [(c.scope, c.root, c.event_count) for c in covered]))
            if len(covered) != g.event_count or root != g.root:
                jobs = ", ".join(sorted({c.scope for c in covered})) or "none"
                what = f"global commit {g.id} no longer matches the job commits it covers"
                problems.append(Problem(None, None, f"{what} (a job's root was changed; jobs: {jobs})"))
        prior = g.root
    problems.extend(_verify_anchor(log.anchor_file, globals_, only))
    return problems


def _verify_anchor(
    anchor_file: Path | None, globals_: Sequence[MerkleCommit], only: set[int] | None
) -> list[Problem]:
    if anchor_file is None or not anchor_file.is_file():
        return []
    problems: list[Problem] = []
    by_id = {g.id: g for g in globals_}
    with anchor_file.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                anchored = json.loads(line)
                gid, root = int(anchored["id"]), str(anchored["root"])
            except (ValueError, KeyError, TypeError):
                problems.append(Problem(None, None, f"anchor file line {lineno} is unreadable"))
                continue
            if only is not None and gid not in only:
                continue
            stored = by_id.get(gid)
            if stored is None:
                problems.append(Problem(None, None, f"global commit {gid} (anchor line {lineno}) is missing"))
            elif stored.root != root:
                problems.append(
                    Problem(
                        None,
                        None,
                        f"global commit {gid} root differs from the anchor file (line {lineno})",
                    )
                )
    return problems


def _check_verdict_rows(
    log: AuditLog, job_id: str, entries: Sequence[AuditEntry], result: JobVerification
) -> None:
    """A verdict row must be the verdict the log recorded last for its item."""
    logged: dict[int, AuditEntry] = {}
    for entry in entries:
        if entry.event == "verdict" and isinstance(entry.body.get("position"), int):
            logged[entry.body["position"]] = entry
    with log.sessions() as s:
        rows = s.execute(
            select(Item.position, Item.key, VerdictRow.verdict, VerdictRow.evidence, VerdictRow.logic_version)
            .join(VerdictRow, VerdictRow.item_id == Item.id)
            .where(Item.job_id == job_id)
            .order_by(Item.position)
        ).all()
    unaudited = 0
    for position, key, verdict, evidence, logic_version in rows:
        logged_entry = logged.get(position)
        if logged_entry is None:
            unaudited += 1
            continue
        if logged_entry.body.get("logic_version") != logic_version:
            continue  # a verdict of another logic version (a replayed job) has its own events
        if content_hash(verdict) != logged_entry.body.get("verdict_sha256"):
            result.problems.append(
                Problem(
                    job_id,
                    logged_entry.seq,
                    f"stored verdict of item {position} ({key}) differs from the logged one",
                )
            )
        elif content_hash(evidence) != logged_entry.body.get("evidence_sha256"):
            result.problems.append(
                Problem(
                    job_id,
                    logged_entry.seq,
                    f"stored evidence of item {position} ({key}) differs from the logged one",
                )
            )
    if unaudited and entries:
        result.warnings.append(f"{unaudited} verdict(s) have no verdict event")
