"""Whole lists the service loads and replaces at once: the Retraction Watch data and the
predatory-venue list (`aletheia library ...`), each in its table.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Engine, func, select

from aletheia.storage.db import session_factory, upsert
from aletheia.storage.models import PredatoryVenueRow, RetractionRow, utcnow


class RetractionStore:
    """Retraction Watch rows, loaded once and indexed in memory by the pipeline."""

    def __init__(self, engine: Engine) -> None:
        self.sessions = session_factory(engine)

    def replace(self, rows: Iterable[dict[str, Any]]) -> int:
        batch: list[dict[str, Any]] = []
        n = 0
        with self.sessions.begin() as s:
            s.query(RetractionRow).delete()
            for row in rows:
                key = "|".join(str(row.get(k) or "") for k in ("doi", "pmid", "nature", "notice_doi"))
                batch.append({**row, "row_key": key[:700], "loaded_at": utcnow()})
                if len(batch) >= 1000:
                    upsert(s, RetractionRow.__table__, batch, conflict=["row_key"], update=[])
                    n += len(batch)
                    batch = []
            if batch:
                upsert(s, RetractionRow.__table__, batch, conflict=["row_key"], update=[])
                n += len(batch)
        return n

    def count(self) -> int:
        with self.sessions() as s:
            return int(s.scalar(select(func.count()).select_from(RetractionRow)) or 0)

    def rows(self) -> list[dict[str, Any]]:
        with self.sessions() as s:
            return [
                {"doi": r.doi, "pmid": r.pmid, "nature": r.nature, "notice_doi": r.notice_doi, "date": r.date}
                for r in s.scalars(select(RetractionRow))
            ]


class PredatoryStore:
    """The curated list of predatory or delisted venues (`predatory_venues`), replaced as a whole
    by `aletheia library predatory FILE`; rows are `PredatoryEntry` fields."""

    def __init__(self, engine: Engine) -> None:
        self.sessions = session_factory(engine)

    def replace(self, rows: Iterable[dict[str, Any]]) -> int:
        batch: dict[str, dict[str, Any]] = {}
        for row in rows:
            issn = list(row.get("issn") or ())
            key = "|".join([";".join(issn), str(row.get("title") or ""), str(row.get("source") or "")])
            batch[key[:700]] = {
                "row_key": key[:700],
                "issn": issn,
                "title": str(row.get("title") or "")[:500],
                "source": str(row["source"])[:300],
                "date": row.get("date"),
                "note": row.get("note"),
                "loaded_at": utcnow(),
            }
        with self.sessions.begin() as s:
            s.query(PredatoryVenueRow).delete()
            values = list(batch.values())
            for start in range(0, len(values), 1000):
                upsert(
                    s,
                    PredatoryVenueRow.__table__,
                    values[start : start + 1000],
                    conflict=["row_key"],
                    update=[],
                )
        return len(batch)

    def count(self) -> int:
        with self.sessions() as s:
            return int(s.scalar(select(func.count()).select_from(PredatoryVenueRow)) or 0)

    def rows(self) -> list[dict[str, Any]]:
        with self.sessions() as s:
            return [
                {
                    "issn": tuple(r.issn or ()),
                    "title": r.title,
                    "source": r.source,
                    "date": r.date,
                    "note": r.note,
                }
                for r in s.scalars(select(PredatoryVenueRow).order_by(PredatoryVenueRow.id))
            ]
