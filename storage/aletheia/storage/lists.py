"""Whole lists the service loads and replaces at once: the Retraction Watch data and the
predatory-venue list (`aletheia library ...`), each in its table.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from typing import Any

from sqlalchemy import Engine, func, select

from aletheia.storage.db import session_factory, upsert
from aletheia.storage.models import PredatoryVenueRow, RetractionRow, utcnow

# Rows per INSERT statement while a list is written.
_BATCH_ROWS = 1000


class _WholeList:
    """A table that holds one list, replaced as a whole: rows keyed by `row_key`."""

    row: type[RetractionRow] | type[PredatoryVenueRow]

    def __init__(self, engine: Engine) -> None:
        self.sessions = session_factory(engine)

    def _replace_with(self, values: Iterable[dict[str, Any]]) -> int:
        """Delete every row, then insert `values` in batches (a `row_key` already written is left as
        it is), in one transaction; the number of values given."""
        written = 0
        with self.sessions.begin() as s:
            s.query(self.row).delete()
            pending = iter(values)
            while batch := list(islice(pending, _BATCH_ROWS)):
                upsert(s, self.row.__table__, batch, conflict=["row_key"], update=[])
                written += len(batch)
        return written

    def count(self) -> int:
        with self.sessions() as s:
            return int(s.scalar(select(func.count()).select_from(self.row)) or 0)


class RetractionStore(_WholeList):
    """Retraction Watch rows, loaded once and indexed in memory by the pipeline."""

    row = RetractionRow

    def replace(self, rows: Iterable[dict[str, Any]]) -> int:
        return self._replace_with(
            {**row, "row_key": _retraction_key(row), "loaded_at": utcnow()} for row in rows
        )

    def rows(self) -> list[dict[str, Any]]:
        with self.sessions() as s:
            return [
                {"doi": r.doi, "pmid": r.pmid, "nature": r.nature, "notice_doi": r.notice_doi, "date": r.date}
                for r in s.scalars(select(RetractionRow))
            ]


def _retraction_key(row: dict[str, Any]) -> str:
    """doi|pmid|nature|notice_doi, NULL-free, at most 700 characters."""
    return "|".join(str(row.get(k) or "") for k in ("doi", "pmid", "nature", "notice_doi"))[:700]


class PredatoryStore(_WholeList):
    """The curated list of predatory or delisted venues (`predatory_venues`), replaced as a whole
    by `aletheia library predatory FILE`; rows are `PredatoryEntry` fields."""

    row = PredatoryVenueRow

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
        return self._replace_with(batch.values())

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
