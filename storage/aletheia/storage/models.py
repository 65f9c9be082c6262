"""The record of every job: SQLAlchemy 2 models (PostgreSQL in the service, SQLite embedded).

A job is a row state machine (queued -> running -> done | failed); each reference or claim is an
item with its own state; progress is counted from item rows, never kept in a counter that a
crashed worker could leave wrong. Verdicts carry their logic version; raw source payloads are kept
with their fetch time so every verdict can be replayed against exactly what was seen.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(ts: datetime) -> datetime:
    """A stored timestamp as an aware UTC one: SQLite hands them back naive; they were written in UTC."""
    return ts if ts.tzinfo is not None else ts.replace(tzinfo=UTC)


def big_integer() -> BigInteger:
    """BIGINT on PostgreSQL; INTEGER on SQLite, where only an INTEGER primary key is the rowid."""
    return BigInteger().with_variant(Integer, "sqlite")


def surrogate_key() -> Mapped[int]:
    """The `id` of a table keyed by a generated number."""
    return mapped_column(big_integer(), primary_key=True, autoincrement=True)


def new_id() -> str:
    return uuid.uuid4().hex


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSON, list[Any]: JSON}


class JobStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class ItemStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


# An item not settled yet: its verdict is still to be recorded.
UNSETTLED_ITEMS = (ItemStatus.PENDING, ItemStatus.RUNNING)


class Job(Base):
    __tablename__ = "jobs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    kind: Mapped[str] = mapped_column(String(32))  # a JobKind (pipeline/jobs/kinds.py)
    status: Mapped[str] = mapped_column(String(16), default=JobStatus.QUEUED, index=True)
    input: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    submitted_by: Mapped[str | None] = mapped_column(String(200))
    parent_id: Mapped[str | None] = mapped_column(ForeignKey("jobs.id"), index=True)
    logic_version: Mapped[str] = mapped_column(String(32))
    error: Mapped[str | None] = mapped_column(Text)
    summary: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ClaimStateRow(Base):
    """A claim job between its stages (`aletheia.pipeline.claims.stages`): the stage that runs next
    and what the stages before it found, as JSON. `version` is the compare-and-set counter: a
    stage saves its result only over the version it read, so of two deliveries one wins."""

    __tablename__ = "claim_states"

    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    stage: Mapped[str] = mapped_column(String(16))
    version: Mapped[int] = mapped_column(Integer, default=0)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ClaimDocumentRow(Base):
    """A paper's HTML or PDF a claim job fetched, by kind and SHA-256 (`pdf:<sha256>`), and once the
    parsing stage ran, its text (`PaperText`) or why it could not be read. Deleted when the job is
    done (the text the decision rests on is in the job's state and trail by then)."""

    __tablename__ = "claim_documents"

    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(80), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    paper: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(Text)
    error_kind: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Item(Base):
    __tablename__ = "items"
    __table_args__ = (
        UniqueConstraint("job_id", "position", name="uq_item_job_position"),
        # Whether a job still has unsettled items, after every verdict (the writer's fan-in).
        Index("ix_items_job_status", "job_id", "status"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)  # 1-based order in the input
    key: Mapped[str] = mapped_column(String(500))
    kind: Mapped[str] = mapped_column(String(16), default="reference")  # reference | claim | problem
    status: Mapped[str] = mapped_column(String(16), default=ItemStatus.PENDING, index=True)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)  # the CitedReference / claim, as JSON
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)


class VerdictRow(Base):
    __tablename__ = "verdicts"
    # One verdict per item and logic version: a re-run of the same task overwrites, never duplicates.
    __table_args__ = (UniqueConstraint("item_id", "logic_version", name="uq_verdict_item_logic"),)

    id: Mapped[int] = surrogate_key()
    item_id: Mapped[str] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), index=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(32), index=True)
    severity: Mapped[str | None] = mapped_column(String(16))
    logic_version: Mapped[str] = mapped_column(String(32))
    verdict: Mapped[dict[str, Any]] = mapped_column(JSON)  # the full Verdict, as JSON
    evidence: Mapped[dict[str, Any]] = mapped_column(JSON)  # the Evidence decide() read
    # The requests the reference's verification made, per source (`item_stats.as_json`): what a
    # queued job's summary adds up. None: not counted (older rows, the in-process run).
    counters: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    decided_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SourceRecordRow(Base):
    """A raw payload from a source, keyed by (source, canonical key): also the HTTP cache."""

    __tablename__ = "source_records"
    __table_args__ = (UniqueConstraint("source", "key", name="uq_source_record_key"),)

    id: Mapped[int] = surrogate_key()
    source: Mapped[str] = mapped_column(String(32))
    key: Mapped[str] = mapped_column(String(600))
    found: Mapped[bool] = mapped_column(default=True)
    raw: Mapped[Any] = mapped_column(JSON, nullable=True)
    url: Mapped[str | None] = mapped_column(Text)
    fetched_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LibraryWork(Base):
    """Tier 0: a work verified before, with the source records that verified it."""

    __tablename__ = "library_works"

    id: Mapped[int] = surrogate_key()
    # "doi:..." / "arxiv:..." / "pmid:..." / "title:<normalised title>|<first surname>": NULL-free, so
    # the unique constraint really holds on both PostgreSQL and SQLite.
    identity: Mapped[str] = mapped_column(String(700))
    doi: Mapped[str | None] = mapped_column(String(300), index=True)
    arxiv_id: Mapped[str | None] = mapped_column(String(64), index=True)
    pmid: Mapped[str | None] = mapped_column(String(16), index=True)
    title_key: Mapped[str] = mapped_column(String(300), index=True)  # normalised title, for lookups
    # The record's abstract: with the title, what the full-text index holds (migration 0007).
    abstract_text: Mapped[str | None] = mapped_column(Text, nullable=True)
    source: Mapped[str] = mapped_column(String(32))
    record: Mapped[dict[str, Any]] = mapped_column(JSON)  # the WorkRecord
    raw: Mapped[Any] = mapped_column(JSON, nullable=True)
    fetched_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    origin: Mapped[str] = mapped_column(String(200), default="verified")  # verified | import:<file>

    __table_args__ = (UniqueConstraint("source", "identity", name="uq_library_identity"),)


class RetractionRow(Base):
    __tablename__ = "retractions"
    __table_args__ = (
        Index("ix_retractions_doi", "doi"),
        Index("ix_retractions_pmid", "pmid"),
        UniqueConstraint("row_key", name="uq_retraction_row"),
    )

    id: Mapped[int] = surrogate_key()
    row_key: Mapped[str] = mapped_column(String(700))  # doi|pmid|nature|notice_doi, NULL-free
    doi: Mapped[str | None] = mapped_column(String(300))
    pmid: Mapped[str | None] = mapped_column(String(16))
    nature: Mapped[str] = mapped_column(String(64))
    notice_doi: Mapped[str | None] = mapped_column(String(300))
    date: Mapped[str | None] = mapped_column(String(32))
    loaded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ArtifactRow(Base):
    __tablename__ = "artifacts"
    __table_args__ = (UniqueConstraint("repository", "path", name="uq_artifact_path"),)

    id: Mapped[int] = surrogate_key()
    job_id: Mapped[str | None] = mapped_column(ForeignKey("jobs.id", ondelete="SET NULL"), index=True)
    repository: Mapped[str] = mapped_column(String(1000))
    path: Mapped[str] = mapped_column(String(1000))
    kind: Mapped[str] = mapped_column(String(32))  # citation | report | bibliography
    content_hash: Mapped[str] = mapped_column(String(64))
    written_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AuditEvent(Base):
    """Append-only, hash-chained decision log per job (seed 002; aletheia.core.audit_chain)."""

    __tablename__ = "audit_events"
    __table_args__ = (
        UniqueConstraint("job_id", "seq", name="uq_audit_job_seq"),
        # The same decision logged twice (a task delivered twice) is stored once (migration 0002).
        UniqueConstraint("job_id", "event_id", name="uq_audit_job_event"),
    )

    id: Mapped[int] = surrogate_key()
    job_id: Mapped[str] = mapped_column(String(32), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    ts: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    event: Mapped[str] = mapped_column(String(64))
    event_id: Mapped[str | None] = mapped_column(String(64))  # sha256 of (job, event, body)
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))


class MerkleCommit(Base):
    __tablename__ = "merkle_commits"

    id: Mapped[int] = surrogate_key()
    scope: Mapped[str] = mapped_column(String(64), index=True)  # a job id, or "global"
    root: Mapped[str] = mapped_column(String(64))
    prior: Mapped[str | None] = mapped_column(String(64))
    event_count: Mapped[int] = mapped_column(Integer)  # events (job) or job commits (global) covered
    committed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # A job commit: the id of the global commit that covers it, once one does (migration 0002).
    covered_by: Mapped[int | None] = mapped_column(big_integer(), index=True, nullable=True)


class Repository(Base):
    """A repository registered for the weekly audit."""

    __tablename__ = "repositories"

    id: Mapped[int] = surrogate_key()
    path: Mapped[str] = mapped_column(String(1000), unique=True)
    registered_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_audit_job: Mapped[str | None] = mapped_column(String(32))


class PredatoryVenueRow(Base):
    """A venue on the curated predatory / delisted list (issue 13; `aletheia library predatory`)."""

    __tablename__ = "predatory_venues"
    __table_args__ = (UniqueConstraint("row_key", name="uq_predatory_row"),)

    id: Mapped[int] = surrogate_key()
    row_key: Mapped[str] = mapped_column(String(700))  # issns|title|source, NULL-free
    issn: Mapped[list[Any]] = mapped_column(JSON)  # normalised ISSNs (print, electronic)
    title: Mapped[str] = mapped_column(String(500))
    source: Mapped[str] = mapped_column(String(300))  # who listed it
    date: Mapped[str | None] = mapped_column(String(32))
    note: Mapped[str | None] = mapped_column(Text)
    loaded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
