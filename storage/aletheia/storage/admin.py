"""Operator actions on the database itself: `aletheia admin clear-database`.

`clear_database` deletes the record of the work done — jobs (bibliographies, claims, sweeps,
audits), their items and verdicts, and the rows of the reports and citation artifacts written
(with a claim job go its stage state and any fetched document still stored) — and keeps what was
learned or configured: the Tier-0 library (`library_works`), the raw source cache
(`source_records`), the retraction data, the predatory-venue list, the repositories registered
for the weekly audit, and the audit trail (append-only: its global Merkle commits
cover the deleted jobs' roots, so deleting it would read as tampering; the clearing itself is
logged in it, under the scope `admin`).

It refuses while any job is queued or running (a worker would write items and verdicts for a job
that no longer exists): the check and the deletion happen in one transaction that holds the
jobs table against writers (`LOCK TABLE ... EXCLUSIVE` on PostgreSQL, the database write lock on
SQLite), so a job submitted meanwhile waits for the clearing or is seen by it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, delete, func, select, text, update
from sqlalchemy.orm import Session

from aletheia.core.errors import AletheiaError
from aletheia.storage.db import session_factory
from aletheia.storage.models import (
    ArtifactRow,
    ClaimDocumentRow,
    ClaimStateRow,
    Item,
    Job,
    JobStatus,
    VerdictRow,
)

#: Where the clearing is logged in the audit trail (a scope of its own, not a job id).
ADMIN_SCOPE = "admin"
DATABASE_CLEARED = "database_cleared"
UNFINISHED = (JobStatus.QUEUED, JobStatus.RUNNING)


class JobsRunning(RuntimeError, AletheiaError):
    """The database was not cleared: some jobs are still queued or running."""

    def __init__(self, job_ids: list[str]) -> None:
        self.job_ids = job_ids
        shown = ", ".join(job_ids[:5]) + (" ..." if len(job_ids) > 5 else "")
        super().__init__(f"{len(job_ids)} job(s) queued or running: {shown}")


@dataclass
class ClearResult:
    """How many rows of each table were deleted, and the ids of the deleted jobs."""

    deleted: dict[str, int] = field(default_factory=dict)
    job_ids: list[str] = field(default_factory=list)
    by_kind: dict[str, int] = field(default_factory=dict)


def unfinished_job_ids(session: Session) -> list[str]:
    return list(session.scalars(select(Job.id).where(Job.status.in_(UNFINISHED)).order_by(Job.created_at)))


def _hold_jobs_table(session: Session) -> None:
    if session.get_bind().dialect.name == "postgresql":
        # Readers go on; writers (a new job, a status change) wait until this transaction ends.
        session.execute(text("LOCK TABLE jobs IN EXCLUSIVE MODE"))
    else:
        # A write takes SQLite's database lock now (pysqlite begins transactions lazily).
        session.execute(update(Job).where(text("0 = 1")).values(status=Job.status))


def _delete_all(session: Session, table: Any) -> int:
    result = session.execute(delete(table))
    return int(getattr(result, "rowcount", 0) or 0)


def counts(engine: Engine) -> dict[str, int]:
    """Rows that a clearing would delete, per table (nothing is changed)."""
    with session_factory(engine)() as s:
        return {
            table.__tablename__: int(s.scalar(select(func.count()).select_from(table)) or 0)
            for table in (Job, Item, VerdictRow, ArtifactRow)
        }


def clear_database(engine: Engine) -> ClearResult:
    """Delete jobs, items, verdicts and artifact rows in one transaction; raise `JobsRunning` (and
    change nothing) when a job is queued or running."""
    result = ClearResult()
    with session_factory(engine).begin() as s:
        _hold_jobs_table(s)
        running = unfinished_job_ids(s)
        if running:
            raise JobsRunning(running)
        result.job_ids = list(s.scalars(select(Job.id).order_by(Job.created_at, Job.id)))
        result.by_kind = {
            str(kind): int(n) for kind, n in s.execute(select(Job.kind, func.count()).group_by(Job.kind))
        }
        # Children before parents: verdicts -> items -> artifact rows -> jobs (parent links first).
        for table in (VerdictRow, Item, ArtifactRow):
            result.deleted[table.__tablename__] = _delete_all(s, table)
        for claim_table in (ClaimDocumentRow, ClaimStateRow):  # part of their claim jobs: not counted
            _delete_all(s, claim_table)
        s.execute(update(Job).where(Job.parent_id.is_not(None)).values(parent_id=None))
        result.deleted[Job.__tablename__] = _delete_all(s, Job)
    return result
