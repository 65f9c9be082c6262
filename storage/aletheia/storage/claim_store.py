"""A claim job between its stages: its state row and the documents it fetched (issue 19).

The stages of a claim job run on different pools (`aletheia.pipeline.jobs.claims`); what one stage
found reaches the next through these rows, never through the broker. `advance` is a
compare-and-set on the row's version, so of two deliveries of one stage only one saves its result
and asks for the next stage; the documents are upserts on (job, key), their conversion written
once per key. Nothing here knows what a state holds: it is JSON to this layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, delete, select, update

from aletheia.storage.db import session_factory, upsert
from aletheia.storage.models import ClaimDocumentRow, ClaimStateRow, as_utc, utcnow


@dataclass(frozen=True)
class StageRow:
    job_id: str
    stage: str
    version: int
    state: dict[str, Any]
    updated_at: datetime


@dataclass(frozen=True)
class Conversion:
    """What the parsing stage made of a stored document: its text (a `PaperText` as JSON) or the
    error that stopped it (`error_kind`: the exception's class name). Neither: not converted yet."""

    paper: dict[str, Any] | None
    error: str | None
    error_kind: str | None

    @property
    def done(self) -> bool:
        return self.paper is not None or self.error is not None


class ClaimStageStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessions = session_factory(engine)

    # --- the state row ------------------------------------------------------------------------

    def load(self, job_id: str) -> StageRow | None:
        with self.sessions() as s:
            row = s.get(ClaimStateRow, job_id)
            if row is None:
                return None
            return StageRow(row.job_id, row.stage, row.version, dict(row.state), as_utc(row.updated_at))

    def create(self, job_id: str, stage: str, state: dict[str, Any]) -> StageRow:
        """The job's state row, created with `state` unless it exists (then left as it is)."""
        row = {"job_id": job_id, "stage": stage, "version": 0, "state": state, "updated_at": utcnow()}
        with self.sessions.begin() as s:
            upsert(s, ClaimStateRow.__table__, [row], conflict=["job_id"], update=[])
        found = self.load(job_id)
        assert found is not None
        return found

    def advance(self, job_id: str, version: int, stage: str, state: dict[str, Any]) -> bool:
        """Save `state` at `stage` over `version`; False (nothing written) when another delivery
        saved first."""
        with self.sessions.begin() as s:
            result = s.execute(
                update(ClaimStateRow)
                .where(ClaimStateRow.job_id == job_id, ClaimStateRow.version == version)
                .values(stage=stage, version=version + 1, state=state, updated_at=utcnow())
            )
            return bool(result.rowcount)  # type: ignore[attr-defined]

    def touch_if_stale(self, job_id: str, cutoff: datetime) -> bool:
        """Restart the row's clock when it has not moved since `cutoff` (the re-drive: True means
        this caller re-sends the stage; a second re-drive at the same time gets False)."""
        with self.sessions.begin() as s:
            result = s.execute(
                update(ClaimStateRow)
                .where(ClaimStateRow.job_id == job_id, ClaimStateRow.updated_at <= cutoff)
                .values(updated_at=utcnow())
            )
            return bool(result.rowcount)  # type: ignore[attr-defined]

    # --- documents -----------------------------------------------------------------------------

    def put_document(self, job_id: str, key: str, kind: str, data: bytes) -> None:
        row = {"job_id": job_id, "key": key, "kind": kind, "data": data, "created_at": utcnow()}
        with self.sessions.begin() as s:
            upsert(s, ClaimDocumentRow.__table__, [row], conflict=["job_id", "key"], update=[])

    def document_data(self, job_id: str, key: str) -> tuple[str, bytes] | None:
        """(kind, bytes) of a stored document, or None."""
        with self.sessions() as s:
            found = s.execute(
                select(ClaimDocumentRow.kind, ClaimDocumentRow.data).where(
                    ClaimDocumentRow.job_id == job_id, ClaimDocumentRow.key == key
                )
            ).first()
        return (str(found[0]), bytes(found[1])) if found is not None else None

    def conversion(self, job_id: str, key: str) -> Conversion | None:
        """The conversion of a stored document (without its bytes); None when it is not stored."""
        with self.sessions() as s:
            found = s.execute(
                select(ClaimDocumentRow.paper, ClaimDocumentRow.error, ClaimDocumentRow.error_kind).where(
                    ClaimDocumentRow.job_id == job_id, ClaimDocumentRow.key == key
                )
            ).first()
        return Conversion(found[0], found[1], found[2]) if found is not None else None

    def set_conversion(
        self,
        job_id: str,
        key: str,
        *,
        paper: dict[str, Any] | None = None,
        error: str | None = None,
        error_kind: str | None = None,
    ) -> None:
        with self.sessions.begin() as s:
            s.execute(
                update(ClaimDocumentRow)
                .where(ClaimDocumentRow.job_id == job_id, ClaimDocumentRow.key == key)
                .values(paper=paper, error=error, error_kind=error_kind)
            )

    def delete_documents(self, job_id: str) -> int:
        with self.sessions.begin() as s:
            result = s.execute(delete(ClaimDocumentRow).where(ClaimDocumentRow.job_id == job_id))
            return int(getattr(result, "rowcount", 0) or 0)
