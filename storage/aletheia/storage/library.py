"""The Tier-0 library's store (`library_works`): a verified work's records kept for the next run,
found by identifier or exact title as the one work a citation names (`core.library_work`), searched
by full text for claims (`library_search`). Its SQL runs in the database threads, off the sources'
event loop."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from sqlalchemy import Engine, func, select

from aletheia.core.author_match import surname_key
from aletheia.core.library_work import cited_library_work
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.core.text import normalize_title
from aletheia.sources.base import SourceRecord
from aletheia.storage.db import session_factory, upsert
from aletheia.storage.models import LibraryWork, as_utc
from aletheia.storage.stores import database_threads, off_loop

__all__ = ["SqlLibrary"]


def _identity(record: WorkRecord) -> str:
    if record.doi:
        return f"doi:{record.doi}"
    if record.arxiv_id:
        return f"arxiv:{record.arxiv_id}"
    if record.pmid:
        return f"pmid:{record.pmid}"
    first = surname_key(record.authors[0]) if record.authors else ""
    return f"title:{normalize_title(record.title or '')[:600]}|{first}"


def _library_record(row: LibraryWork) -> SourceRecord:
    return SourceRecord(
        record=WorkRecord.model_validate(row.record),
        raw=row.raw,
        fetched_at=as_utc(row.fetched_at),
        from_cache=True,
    )


class SqlLibrary:
    """Seed 004's Tier 0 in the `library_works` table (implements the pipeline's `WorksLibrary`)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessions = session_factory(engine)
        self.threads = database_threads(engine)

    def count(self) -> int:
        with self.sessions() as s:
            return int(s.scalar(select(func.count()).select_from(LibraryWork)) or 0)

    async def lookup(self, cited: CitedReference) -> list[SourceRecord]:
        return await off_loop(self.threads, self.lookup_sync, cited)  # off the event loop, as the cache's

    def lookup_sync(self, cited: CitedReference) -> list[SourceRecord]:
        with self.sessions() as s:
            q = select(LibraryWork)
            if cited.doi:
                rows = list(s.scalars(q.where(LibraryWork.doi == cited.doi)))
            elif cited.arxiv_id:
                rows = list(s.scalars(q.where(LibraryWork.arxiv_id == cited.arxiv_id)))
            elif cited.pmid:
                rows = list(s.scalars(q.where(LibraryWork.pmid == cited.pmid)))
            elif cited.title:
                rows = list(s.scalars(q.where(LibraryWork.title_key == normalize_title(cited.title)[:300])))
            else:
                rows = []
            if rows:
                # Bring in every record of the same work (e.g. the OpenAlex twin of a Crossref hit).
                dois = {r.doi for r in rows if r.doi}
                axs = {r.arxiv_id for r in rows if r.arxiv_id}
                titles = {r.title_key for r in rows}
                more = s.scalars(
                    q.where(
                        LibraryWork.doi.in_(dois)
                        | LibraryWork.arxiv_id.in_(axs)
                        | LibraryWork.title_key.in_(titles)
                    )
                )
                seen = {r.id for r in rows}
                rows.extend(r for r in more if r.id not in seen)
        # In the order they were stored (the first run's order of answers), so a hit credits each
        # field to the source the first run credited.
        found = [_library_record(r) for r in sorted(rows, key=lambda r: r.id)]
        # The rows sharing a title or an identifier may hold namesakes: a hit is the one work the
        # citation names (`core.library_work`), or nothing.
        work = cited_library_work(cited, [f.record for f in found])
        return [f for f in found if any(f.record is r for r in work)]

    async def search(
        self, words: Sequence[str], *, title: str | None = None, limit: int = 5
    ) -> list[SourceRecord]:
        """Tier 0 for claims: the works whose title (exactly, when `title` is given) or whose title
        and abstract (full text, `library_search`) best match; every record of each, best first."""
        return await off_loop(
            self.threads, functools.partial(self.search_sync, title=title, limit=limit), words
        )

    def search_sync(
        self, words: Sequence[str], *, title: str | None = None, limit: int = 5
    ) -> list[SourceRecord]:
        from aletheia.storage.library_search import search_library_rows

        with self.sessions() as s:
            return [_library_record(r) for r in search_library_rows(s, self.engine, words, title, limit)]

    async def remember(self, records: Sequence[SourceRecord], *, origin: str = "verified") -> None:
        await off_loop(self.threads, functools.partial(self.remember_sync, origin=origin), records)

    def remember_sync(self, records: Sequence[SourceRecord], *, origin: str = "verified") -> int:
        rows = [
            {
                "identity": _identity(r.record),
                "doi": r.record.doi,
                "arxiv_id": r.record.arxiv_id,
                "pmid": r.record.pmid,
                "title_key": normalize_title(r.record.title or "")[:300],
                "abstract_text": r.record.abstract,
                "source": r.record.source.value,
                "record": r.record.model_dump(mode="json"),
                "raw": r.raw,
                "fetched_at": r.fetched_at,
                "origin": origin[:200],
            }
            for r in records
            if r.record.source is not SourceName.LIBRARY
        ]
        # One row per (source, identity), the last one winning: PostgreSQL refuses an upsert
        # that would touch the same row twice (the same record returned by a lookup and a search).
        rows = list({(row["source"], row["identity"]): row for row in rows}.values())
        with self.sessions.begin() as s:
            for start in range(0, len(rows), 200):
                upsert(
                    s,
                    LibraryWork.__table__,
                    rows[start : start + 200],
                    conflict=["source", "identity"],
                    update=[
                        "record",
                        "raw",
                        "fetched_at",
                        "title_key",
                        "abstract_text",
                        "doi",
                        "arxiv_id",
                        "pmid",
                    ],
                )
        return len(rows)
