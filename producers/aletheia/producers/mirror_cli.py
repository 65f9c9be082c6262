"""`aletheia mirror ...`: the local snapshot mirror of the sources' dumps (issue 32)."""

from __future__ import annotations

import sys
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from aletheia.storage.mirror import MirrorStore


@click.group()
def mirror() -> None:
    """The local mirror of DBLP, OpenAlex, Crossref and Semantic Scholar dumps (docs/sources.md,
    "The mirror tier")."""


def _store() -> MirrorStore:
    """The mirror of the configured database (migrated to the newest tables)."""
    from aletheia.config import get_settings
    from aletheia.storage.db import engine_for
    from aletheia.storage.mirror import MirrorStore

    return MirrorStore(engine_for(get_settings().sqlalchemy_url()))


@mirror.command("load")
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--source",
    type=click.Choice(["dblp", "openalex", "crossref", "semantic_scholar"]),
    default=None,
    help="The dump's source (default: read from each file's first bytes).",
)
@click.option(
    "--snapshot-date",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    help="The day the dump is a copy of the source at (default: OpenAlex's updated_date= partition, "
    "else the file's modification day).",
)
@click.option(
    "--dtd",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="DBLP's DTD (default: the file its DOCTYPE names, beside the dump).",
)
@click.option(
    "--complete",
    is_flag=True,
    help="FILES are the source's whole dump: a title the mirror lacks is then absent from the source "
    "(no request is made to prove it) while the snapshot is fresh, and afterwards for works of "
    "years it would hold.",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def load(
    files: tuple[Path, ...],
    source: str | None,
    snapshot_date: datetime | None,
    dtd: Path | None,
    complete: bool,
    quiet: bool,
) -> None:
    """Load dump FILES into the mirror: DBLP dblp.xml.gz, OpenAlex works/updated_date=*/part_*.gz,
    Crossref public-data *.json.gz. Run again after a kill: it resumes where it stopped."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

    from aletheia.pipeline.mirror.load import load_dump, mark_loaded
    from aletheia.sources.dumps import DumpError, dump_source

    store = _store()
    day = snapshot_date.date() if snapshot_date is not None else None
    failed = False
    newest: dict[str, date] = {}
    with Progress(
        TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TimeRemainingColumn(), disable=quiet
    ) as progress:
        for path in files:
            task = progress.add_task(path.name, total=path.stat().st_size)

            def advance(done: int, task: TaskID = task) -> None:
                progress.update(task, completed=done)

            try:
                kind = source or dump_source(path)
                result = load_dump(
                    store,
                    path,
                    source=kind,
                    snapshot_date=day,
                    dtd=dtd,
                    on_progress=advance,
                )
            except (DumpError, OSError) as exc:
                failed = True
                click.echo(f"aletheia: {exc}", err=True)
                continue
            progress.update(task, completed=path.stat().st_size)
            newest[kind] = max(newest.get(kind, result.snapshot_date), result.snapshot_date)
            if result.already_done:
                note = "already loaded"
            else:
                resumed = f", resumed after {result.resumed_at:,}" if result.resumed_at else ""
                note = f"{result.loaded:,} records loaded{resumed}, {result.unparsable:,} not works"
            progress.console.print(f"{path}: {kind}: {note}", soft_wrap=True, highlight=False, markup=False)
    mark_loaded(store, newest, complete=complete and not failed)
    sys.exit(2 if failed else 0)


@mirror.command("status")
def status() -> None:
    """What the mirror holds: records per source, the snapshot's date, whether it is complete."""
    store = _store()
    snapshots = store.snapshots()
    if not snapshots:
        click.echo("the mirror is empty")
    for name, snap in sorted(snapshots.items()):
        kind = "complete" if snap.complete else "partial"
        click.echo(
            f"{name}: {store.count(name):,} records, {kind}, "
            f"snapshot {snap.snapshot_date}, as of {snap.as_of}"
        )


@mirror.command("update")
def update() -> None:
    """Fetch what changed since the mirror's day from the APIs' update filters (Crossref
    from-update-date, OpenAlex from_updated_date) into the mirror. Beat runs it daily
    (ALETHEIA_MIRROR_UPDATE_SCHEDULE). DBLP has no such filter: load its next monthly dump."""
    from aletheia.pipeline.mirror.update import run_update
    from aletheia.pipeline.runtime import Runtime
    from aletheia.sources.base import SourceError

    try:
        results = run_update(Runtime.open())
    except SourceError as exc:
        click.echo(f"aletheia: mirror update stopped: {exc}", err=True)
        sys.exit(2)
    if not results:
        click.echo("nothing to update: no Crossref or OpenAlex dump was loaded into the mirror")
    for r in results:
        click.echo(f"{r.source}: {r.records:,} records changed since {r.since} ({r.pages} pages)")
