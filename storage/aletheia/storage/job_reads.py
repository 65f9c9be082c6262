"""What following a job reads (`aletheia status`, `AletheiaClient.status`, `wait`): the job's row
and its counts, by SQLAlchemy Core alone.

Neither the ORM nor the models are imported: `aletheia status` must start fast
(docs/benchmarks.md, "CLI start-up"), and the ORM with the models was a fifth of its start. The
columns named here are the models' (`storage/models.py`; tests/unit/test_status_start_up.py
checks them against the tables), read with the models' types, so a value reads back as the ORM
reads it (a `DateTime` a `datetime`, a `JSON` a dict) on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Engine, String, Text, column, func, select, table

JOBS = table(
    "jobs",
    column("id", String),
    column("kind", String),
    column("status", String),
    column("submitted_by", String),
    column("parent_id", String),
    column("error", Text),
    column("summary", JSON),
    column("created_at", DateTime(timezone=True)),
    column("started_at", DateTime(timezone=True)),
    column("finished_at", DateTime(timezone=True)),
)
ITEMS = table("items", column("job_id", String), column("status", String))
VERDICTS = table(
    "verdicts", column("job_id", String), column("status", String), column("logic_version", String)
)
CLAIM_STATES = table("claim_states", column("job_id", String), column("stage", String))


@dataclass(frozen=True)
class JobRow:
    """The columns of a job that its status shows."""

    id: str
    kind: str
    status: str
    submitted_by: str | None
    parent_id: str | None
    error: str | None
    summary: dict[str, Any] | None
    created_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None


@dataclass(frozen=True)
class JobCounts:
    """A job's items by status and its verdicts of one logic version by status."""

    items: dict[str, int]
    verdicts: dict[str, int]


def read_job(engine: Engine, job_id: str) -> JobRow | None:
    with engine.connect() as conn:
        row = conn.execute(select(JOBS).where(JOBS.c.id == job_id)).mappings().first()
    return None if row is None else JobRow(**row)


def read_counts(engine: Engine, job_id: str, *, logic_version: str) -> JobCounts:
    """Counted from the item and verdict rows (never kept in a counter a crashed worker could leave
    wrong), as `JobStore.progress` counts them."""
    with engine.connect() as conn:
        items = conn.execute(
            select(ITEMS.c.status, func.count()).where(ITEMS.c.job_id == job_id).group_by(ITEMS.c.status)
        ).all()
        verdicts = conn.execute(
            select(VERDICTS.c.status, func.count())
            .where(VERDICTS.c.job_id == job_id, VERDICTS.c.logic_version == logic_version)
            .group_by(VERDICTS.c.status)
        ).all()
    return JobCounts(
        items={str(status): int(n) for status, n in items},
        verdicts={str(status): int(n) for status, n in verdicts},
    )


def read_children_statuses(engine: Engine, job_id: str) -> list[str]:
    """The status of each of a sweep's (or an audit's) child jobs."""
    with engine.connect() as conn:
        return [
            str(s) for s in conn.execute(select(JOBS.c.status).where(JOBS.c.parent_id == job_id)).scalars()
        ]


def read_claim_stage(engine: Engine, job_id: str) -> str | None:
    """The stage a claim job runs next (`ClaimStageStore`'s row), None before the first."""
    with engine.connect() as conn:
        stage = conn.execute(select(CLAIM_STATES.c.stage).where(CLAIM_STATES.c.job_id == job_id)).scalar()
    return None if stage is None else str(stage)
