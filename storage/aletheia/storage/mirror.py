"""The local snapshot mirror's store (issue 32): records of the DBLP, OpenAlex and Crossref dumps,
each the source's own text beside its normalised fields, on the engine built for it — SQLite FTS5
in the embedded default, PostgreSQL's pg_trgm and full-text indexes in the service (the tables:
migration 0007_mirror). Every query of the mirror is here.

Loading is an upsert keyed by (source, record id) written in batches together with the file's
progress, so a load killed at any point resumes where its last batch committed, and a record
loaded twice is one row. A newer snapshot's record replaces an older one, never the reverse.
"""

from __future__ import annotations

import asyncio
import functools
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Final

from sqlalchemy import Engine, text

from aletheia.core.text import normalize_title
from aletheia.core.titles import title_similarity
from aletheia.sources.base import SourceParseError, SourceRecord
from aletheia.sources.dumps.common import parse_stored
from aletheia.storage.stores import database_threads

# A title search ORs this many of the title's rarest words (SQLite; the trigram index does the
# same work on PostgreSQL): enough that one misspelt or missing word does not lose the work, few
# enough that the posting lists read stay short.
SEARCH_TERMS: Final = 4
SEARCH_CANDIDATES: Final = 40
# The stored text is compressed (zlib, this level): the source's own JSON or XML, byte for byte,
# at about a fifth of its size; a level above this buys little at a load's cost.
RAW_COMPRESSION: Final = 6

_COLUMNS: Final = ("source", "record_id", "doi", "arxiv_id", "title_norm", "year", "raw", "snapshot_date")


@dataclass(frozen=True)
class MirrorRow:
    source: str
    record_id: str
    doi: str | None
    arxiv_id: str | None
    title_norm: str
    year: int | None
    raw: str
    snapshot_date: date


@dataclass(frozen=True)
class FileProgress:
    path: str
    source: str
    size: int
    records: int  # records of the file committed (the next run skips this many)
    done: bool
    snapshot_date: date


@dataclass(frozen=True)
class MirrorSnapshot:
    source: str
    snapshot_date: date  # the dump's date: what the mirror holds is as of then
    complete: bool  # a whole dump was loaded: a title it lacks is absent from the source then
    updated_through: date | None  # increments from the API applied up to this day

    @property
    def as_of(self) -> date:
        return max(self.snapshot_date, self.updated_through or self.snapshot_date)


@dataclass(frozen=True)
class MirrorHit:
    """A mirrored record, parsed as a live answer is, and the snapshot it is a copy of."""

    record: SourceRecord
    snapshot_date: date
    similarity: float = 1.0


def _as_date(value: Any) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])


def fts_query(terms: Iterable[str]) -> str:
    """An FTS5 MATCH expression ORing `terms`, each a quoted string (a term is a word of a
    normalised title: letters and digits; a quote inside one is doubled as FTS5 asks)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


class MirrorStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        self.threads = database_threads(engine)
        self._mark = "%s" if self.dialect == "postgresql" else "?"

    # --- loading -------------------------------------------------------------------------------

    def _date(self, value: date) -> Any:
        return value if self.dialect == "postgresql" else value.isoformat()

    def write_batch(self, rows: Sequence[MirrorRow], progress: FileProgress | None = None) -> None:
        """Upsert `rows` and record the file's progress, in one transaction."""
        marks = ", ".join([self._mark] * len(_COLUMNS))
        update = ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS[2:])
        # Placeholders and column names are the only text put in: the values go as parameters, in
        # the driver's own executemany (the fastest path for a load's batches).
        sql = (
            f"INSERT INTO mirror_records ({', '.join(_COLUMNS)}) VALUES ({marks}) "  # noqa: S608
            f"ON CONFLICT (source, record_id) DO UPDATE SET {update} "
            "WHERE excluded.snapshot_date >= mirror_records.snapshot_date"
        )
        # One row per key (PostgreSQL refuses an upsert touching a row twice), the last winning.
        unique = {(r.source, r.record_id): r for r in rows}
        params = [
            (
                r.source,
                r.record_id,
                r.doi,
                r.arxiv_id,
                r.title_norm,
                r.year,
                zlib.compress(r.raw.encode("utf-8"), RAW_COMPRESSION),
                self._date(r.snapshot_date),
            )
            for r in unique.values()
        ]
        with self.engine.begin() as conn:
            if params:
                conn.exec_driver_sql(sql, params)
            if progress is not None:
                self._write_progress(conn, progress)

    def _write_progress(self, conn: Any, p: FileProgress) -> None:
        conn.execute(
            text(
                "INSERT INTO mirror_files (path, source, size, records, done, snapshot_date, updated_at) "
                "VALUES (:path, :source, :size, :records, :done, :snapshot_date, :updated_at) "
                "ON CONFLICT (path) DO UPDATE SET source = excluded.source, size = excluded.size, "
                "records = excluded.records, done = excluded.done, snapshot_date = excluded.snapshot_date, "
                "updated_at = excluded.updated_at"
            ),
            {
                "path": p.path,
                "source": p.source,
                "size": p.size,
                "records": p.records,
                "done": p.done,
                "snapshot_date": self._date(p.snapshot_date),
                "updated_at": datetime.now(UTC),
            },
        )

    def file_progress(self, path: str) -> FileProgress | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                text(
                    "SELECT path, source, size, records, done, snapshot_date FROM mirror_files "
                    "WHERE path = :path"
                ),
                {"path": path},
            ).first()
        if row is None:
            return None
        return FileProgress(row[0], row[1], int(row[2]), int(row[3]), bool(row[4]), _as_date(row[5]))

    def forget_file(self, path: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(text("DELETE FROM mirror_files WHERE path = :path"), {"path": path})

    def mark_snapshot(
        self, source: str, snapshot_date: date, *, complete: bool, updated_through: date | None = None
    ) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO mirror_snapshots "
                    "(source, snapshot_date, complete, updated_through, updated_at) "
                    "VALUES (:source, :snapshot_date, :complete, :updated_through, :updated_at) "
                    "ON CONFLICT (source) DO UPDATE SET snapshot_date = excluded.snapshot_date, "
                    "complete = excluded.complete, updated_through = excluded.updated_through, "
                    "updated_at = excluded.updated_at"
                ),
                {
                    "source": source,
                    "snapshot_date": self._date(snapshot_date),
                    "complete": complete,
                    "updated_through": self._date(updated_through) if updated_through else None,
                    "updated_at": datetime.now(UTC),
                },
            )

    def snapshots(self) -> dict[str, MirrorSnapshot]:
        with self.engine.connect() as conn:
            rows = conn.exec_driver_sql(
                "SELECT source, snapshot_date, complete, updated_through FROM mirror_snapshots"
            ).all()
        return {
            r[0]: MirrorSnapshot(r[0], _as_date(r[1]), bool(r[2]), _as_date(r[3]) if r[3] else None)
            for r in rows
        }

    def count(self, source: str | None = None) -> int:
        with self.engine.connect() as conn:
            if source is None:
                return int(conn.exec_driver_sql("SELECT count(*) FROM mirror_records").scalar_one())
            return int(
                conn.execute(
                    text("SELECT count(*) FROM mirror_records WHERE source = :source"), {"source": source}
                ).scalar_one()
            )

    def size_bytes(self) -> int | None:
        """The bytes the mirror's tables and indexes take (PostgreSQL), or None (SQLite: the size
        of the database file is the measure; docs/benchmarks.md)."""
        if self.dialect != "postgresql":
            return None
        with self.engine.connect() as conn:
            return int(
                conn.exec_driver_sql(
                    "SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0) FROM pg_inherits "
                    "WHERE inhparent = 'mirror_records'::regclass"
                ).scalar_one()
            )

    # --- reading -------------------------------------------------------------------------------

    _BY_DOI: Final = text(
        "SELECT source, raw, snapshot_date FROM mirror_records WHERE doi = :doi AND source = :source"
    )
    _BY_ID: Final = text(
        "SELECT source, raw, snapshot_date FROM mirror_records WHERE source = :source AND record_id = :id"
    )
    _TERM: Final = text("SELECT doc FROM mirror_title_terms WHERE term = :term")
    _FTS: Final = text(
        "SELECT r.source, r.raw, r.snapshot_date FROM mirror_titles t "
        "JOIN mirror_records r ON r.id = t.rowid "
        "WHERE mirror_titles MATCH :query AND r.source = :source ORDER BY t.rank LIMIT :limit"
    )
    _PG_WORDS: Final = text(
        "SELECT source, raw, snapshot_date FROM mirror_records WHERE source = :source "
        "AND to_tsvector('simple', title_norm) @@ plainto_tsquery('simple', :norm) LIMIT :limit"
    )
    _PG_TRIGRAMS: Final = text(
        "SELECT source, raw, snapshot_date FROM mirror_records WHERE source = :source AND title_norm % :norm "
        "ORDER BY similarity(title_norm, :norm) DESC LIMIT :limit"
    )

    def _hits(self, rows: Iterable[Any]) -> list[MirrorHit]:
        hits: list[MirrorHit] = []
        for source, raw, snapshot in rows:
            try:
                record, payload = parse_stored(source, zlib.decompress(raw).decode("utf-8"))
            except SourceParseError:
                continue  # a record the loader's parser took is read by the same parser
            day = _as_date(snapshot)
            fetched = datetime(day.year, day.month, day.day, tzinfo=UTC)
            hits.append(
                MirrorHit(
                    SourceRecord(record=record, raw=payload, fetched_at=fetched, url=f"mirror:{source}"), day
                )
            )
        return hits

    def by_doi(self, doi: str, source: str) -> list[MirrorHit]:
        with self.engine.connect() as conn:
            rows = conn.execute(self._BY_DOI, {"doi": doi.lower(), "source": source}).all()
        return self._hits(rows)

    def by_record_id(self, source: str, record_id: str) -> list[MirrorHit]:
        with self.engine.connect() as conn:
            rows = conn.execute(self._BY_ID, {"source": source, "id": record_id}).all()
        return self._hits(rows)

    def search_title(self, title: str, source: str, *, limit: int = 5) -> list[MirrorHit]:
        """The records of `source` whose titles are nearest `title`, best first (by the title
        similarity the verdict rules use), at most `limit`."""
        norm = normalize_title(title)
        if not norm:
            return []
        rows = (
            self._title_candidates_pg(norm, source)
            if self.dialect == "postgresql"
            else self._title_candidates_sqlite(norm, source)
        )
        hits = [
            MirrorHit(h.record, h.snapshot_date, title_similarity(title, h.record.record.title or ""))
            for h in self._hits(rows)
        ]
        hits.sort(key=lambda h: -h.similarity)
        return hits[:limit]

    def _title_candidates_sqlite(self, norm: str, source: str) -> list[Any]:
        with self.engine.connect() as conn:
            # Each word's document count (`term =` is the vocabulary table's indexed constraint).
            counts: dict[str, int] = {}
            for word in sorted(set(norm.split())):
                found = conn.execute(self._TERM, {"term": word}).scalar()
                if found:
                    counts[word] = int(found)
            rarest = sorted(counts, key=lambda term: (counts[term], term))[:SEARCH_TERMS]
            if not rarest:
                return []
            query = {"query": fts_query(rarest), "source": source, "limit": SEARCH_CANDIDATES}
            return list(conn.execute(self._FTS, query).all())

    def _title_candidates_pg(self, norm: str, source: str) -> list[Any]:
        with self.engine.connect() as conn:
            query = {"source": source, "norm": norm, "limit": SEARCH_CANDIDATES}
            # Every word (the full-text index): the exact and near-exact titles, cheaply.
            rows = list(conn.execute(self._PG_WORDS, query).all())
            # Else the nearest by trigrams (pg_trgm's index): a misspelt or missing word.
            return rows or list(conn.execute(self._PG_TRIGRAMS, query).all())

    # --- off the event loop --------------------------------------------------------------------

    async def run(self, call: Any, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(
            self.threads, functools.partial(call, *args, **kwargs)
        )
