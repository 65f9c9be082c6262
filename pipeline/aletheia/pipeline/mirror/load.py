"""`aletheia mirror load FILE...`: a dump file streamed into the mirror, resumable after a kill.

Each record goes through the parser a live answer of its source goes through (`parse_payload`);
its normalised fields are taken from the parsed record, its stored text is the source's own. Rows
are written a batch at a time, each batch in one transaction with the number of the file's
records it brings the load to (`mirror_files`): a run killed at any point leaves every batch
before it, and the next run skips that many records and goes on. A record the parser refuses
(a DBLP record without a title, a Crossref item that is not a work) is counted, not stored.
A broken file (truncated, corrupt) stops its load with a `DumpError` naming the file and the
offset; the records before it stay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Final

from aletheia.core.records import WorkRecord
from aletheia.core.text import normalize_title
from aletheia.sources.base import SourceParseError
from aletheia.sources.dumps import DumpItem, dump_source, open_dump, parse_payload, reader_for
from aletheia.sources.dumps.openalex_dump import partition_date
from aletheia.storage.mirror import FileProgress, MirrorRow, MirrorStore

BATCH_RECORDS: Final = 5000


@dataclass
class FileLoad:
    path: str
    source: str
    snapshot_date: date
    loaded: int = 0  # records written by this run
    resumed_at: int = 0  # records a previous run had committed
    unparsable: int = 0  # records the source's parser refused (counted, not stored)
    already_done: bool = False


def snapshot_date_of(path: Path, source: str) -> date:
    """The date a dump file is a copy of the source at: OpenAlex's `updated_date=` partition,
    else the file's modification day (DBLP's and Crossref's releases are dated by their files)."""
    found = partition_date(path) if source == "openalex" else None
    if found is not None:
        return found
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).date()


def mirror_row(source: str, item: DumpItem, record: WorkRecord, snapshot: date) -> MirrorRow | None:
    record_id = record.dblp_key if source == "dblp" else record.source_id
    if not record_id:
        return None
    return MirrorRow(
        source=source,
        record_id=record_id[:400],
        doi=record.doi[:300] if record.doi else None,
        arxiv_id=record.arxiv_id,
        title_norm=normalize_title(record.title or ""),
        year=record.year,
        raw=item.raw,
        snapshot_date=snapshot,
    )


def load_dump(
    store: MirrorStore,
    path: Path,
    *,
    source: str | None = None,
    snapshot_date: date | None = None,
    dtd: Path | None = None,
    batch_records: int = BATCH_RECORDS,
    on_progress: Callable[[int], None] | None = None,
) -> FileLoad:
    """Load one dump file (resuming a killed load of it); `on_progress` is told the bytes of the
    file read so far. Raises `DumpError` for a broken file, after committing what came before."""
    source = source or dump_source(path)
    key = str(path.resolve())
    size = path.stat().st_size
    previous = store.file_progress(key)
    if previous is not None and (previous.size != size or previous.source != source):
        store.forget_file(key)  # another file under the same name: load it from the start
        previous = None
    # A resumed (or finished) load keeps the date its first run gave the file's records.
    snapshot = snapshot_date or (previous.snapshot_date if previous else snapshot_date_of(path, source))
    result = FileLoad(key, source, snapshot, resumed_at=previous.records if previous else 0)
    if previous is not None and previous.done:
        result.already_done = True
        return result
    reader = reader_for(source, dtd=dtd)
    position = result.resumed_at
    rows: list[MirrorRow] = []

    def commit(done: bool) -> None:
        store.write_batch(rows, FileProgress(key, source, size, position, done, snapshot))
        result.loaded += len(rows)
        rows.clear()
        if on_progress is not None:
            on_progress(stream.file_offset)

    with open_dump(path) as stream:
        try:
            for item in reader.items(stream, skip=result.resumed_at):
                position += 1
                try:
                    row = mirror_row(source, item, parse_payload(source, item.payload), snapshot)
                except SourceParseError:
                    row = None
                if row is None:
                    result.unparsable += 1
                else:
                    rows.append(row)
                if position % batch_records == 0:
                    commit(done=False)
        except BaseException:
            commit(done=False)  # what was read before the break stays loaded
            raise
        commit(done=True)
    return result


def mark_loaded(store: MirrorStore, newest: dict[str, date], *, complete: bool) -> None:
    """Record what a load brought each source to: its snapshot's day (`newest`, never earlier than
    the day the mirror had), and complete when `complete` (every file of a whole dump loaded) or
    when it already was; the API increments' day is kept."""
    snapshots = store.snapshots()
    for source, day in newest.items():
        before = snapshots.get(source)
        store.mark_snapshot(
            source,
            max(day, before.snapshot_date) if before else day,
            complete=complete or bool(before and before.complete),
            updated_through=before.updated_through if before else None,
        )
