"""`aletheia mirror update` (and the beat task `aletheia.control.update_mirror`): the mirror's
increments from the APIs' update filters (issue 32). For each source a dump was loaded for that
has one — Crossref's `from-update-date`, OpenAlex's `from_updated_date` (DBLP publishes monthly
dumps instead, Semantic Scholar releases of its datasets: load the next one) — every work whose
record changed since the mirror's day (`MirrorSnapshot.as_of`) is fetched, page by page, through
the source's own client (its polite transport and limits), parsed as a live answer, and upserted
dated today. The mirror's `updated_through` then moves to today: a complete mirror stays fresh
while it is updated.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Final

from aletheia.pipeline.mirror.load import mirror_row
from aletheia.sources.base import SourceParseError
from aletheia.sources.dumps import DumpItem, parse_payload
from aletheia.storage.mirror import MirrorRow, MirrorStore

logger = logging.getLogger(__name__)

# The sources whose APIs have an update filter.
UPDATABLE: Final = ("crossref", "openalex")

Page = Callable[[str, str], Awaitable[tuple[list[Mapping[str, Any]], str | None]]]


@dataclass
class SourceUpdate:
    source: str
    since: date
    records: int = 0
    pages: int = 0
    unparsable: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "since": self.since.isoformat(),
            "records": self.records,
            "pages": self.pages,
            "unparsable": self.unparsable,
        }


async def update_source(
    store: MirrorStore, source: str, page: Page, *, since: date, today: date
) -> SourceUpdate:
    """Fetch every page of `source`'s works changed since `since` (`page(day, cursor)`) into the
    mirror, each page written as it comes (a kill loses at most the page in hand; the next run
    asks again from the same day)."""
    result = SourceUpdate(source, since)
    cursor: str | None = "*"
    while cursor is not None:
        works, cursor = await page(since.isoformat(), cursor)
        result.pages += 1
        rows: list[MirrorRow] = []
        for work in works:
            try:
                record = parse_payload(source, work)
            except SourceParseError:
                result.unparsable += 1
                continue
            row = mirror_row(
                source, DumpItem(raw=json.dumps(work, ensure_ascii=False), payload=work), record, today
            )
            if row is None:
                result.unparsable += 1
            else:
                rows.append(row)
        await store.run(store.write_batch, rows)
        result.records += len(rows)
    return result


async def update_mirror(store: MirrorStore, gateway: Any, *, today: date | None = None) -> list[SourceUpdate]:
    """Every updatable source the mirror holds, brought up to `today` through `gateway`'s clients."""
    today = today or datetime.now(UTC).date()
    pages: dict[str, Page] = {
        "crossref": lambda day, cursor: gateway.crossref.updated_since(day, cursor=cursor),
        "openalex": lambda day, cursor: gateway.openalex.updated_since(day, cursor=cursor),
    }
    done: list[SourceUpdate] = []
    for source, snapshot in sorted(store.snapshots().items()):
        if source not in UPDATABLE:
            continue
        result = await update_source(store, source, pages[source], since=snapshot.as_of, today=today)
        store.mark_snapshot(source, snapshot.snapshot_date, complete=snapshot.complete, updated_through=today)
        logger.info("mirror updated", extra=result.as_json())
        done.append(result)
    return done


def run_update(runtime: Any) -> list[SourceUpdate]:
    """`aletheia mirror update` on `runtime`'s database and sources (the beat task's body too)."""
    import asyncio

    store = MirrorStore(runtime.jobs.engine)
    if not store.snapshots():
        return []

    async def go() -> list[SourceUpdate]:
        async with runtime.gateway() as gateway:
            return await update_mirror(store, gateway)

    return asyncio.run(go())
