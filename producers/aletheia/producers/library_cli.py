"""`aletheia library ...`: the Tier-0 library of source records (seed 004)."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.group()
def library() -> None:
    """The local library of verified works and imported source records."""


@library.command("import")
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
def import_(files: tuple[Path, ...]) -> None:
    """Load source records from JSONL FILES: one {"source": ..., "raw": <payload>} per line.

    Each payload is parsed by its source's own parser, exactly as a live answer would be.
    """
    from aletheia.pipeline.runtime import Runtime, import_library_lines

    runtime = Runtime.open()
    failed = False
    for path in files:
        with path.open(encoding="utf-8") as fh:
            result = import_library_lines(runtime.library, fh, origin=f"import:{path.name}")
        click.echo(f"{path}: {result.records} records imported")
        for problem in result.problems:
            failed = True
            click.echo(f"aletheia: {problem}", err=True)
    sys.exit(2 if failed else 0)


@library.command("stats")
def stats() -> None:
    """How many works the library holds."""
    from aletheia.pipeline.runtime import Runtime

    click.echo(f"{Runtime.open().library.count()} records")


@library.command("retractions")
@click.argument("csv", type=click.Path(exists=True, dir_okay=False))
def retractions(csv: str) -> None:
    """Load a Retraction Watch CSV into storage: the full export (its header names Record ID, ...,
    OriginalPaperDOI, RetractionNature, ...) or the short form with the header doi,nature (one row
    per retracted DOI; nature: Retraction, Expression of concern, Correction)."""
    from aletheia.pipeline.runtime import Runtime
    from aletheia.sources.base import SourceError

    try:
        n = Runtime.open().load_retractions(csv)
    except (SourceError, UnicodeDecodeError, OSError) as exc:
        click.echo(f"aletheia: {csv}: {exc}", err=True)
        sys.exit(2)
    click.echo(f"{n} retraction rows loaded")


@library.command("predatory")
@click.argument("csv", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def predatory(csv: Path) -> None:
    """Load (replace) the list of predatory or delisted venues from CSV: issn,title,source,date[,note].

    Matched against the venue of every verified work (ISSN first, then the exact title): the
    `predatory_source` signal, reported with its evidence; it never changes a verdict. Rows
    without a source, or with neither a valid ISSN nor a title, are skipped and reported.
    """
    from aletheia.config import get_settings
    from aletheia.core.signals import parse_predatory_csv
    from aletheia.storage.db import engine_for
    from aletheia.storage.lists import PredatoryStore

    with csv.open(encoding="utf-8", errors="replace", newline="") as fh:
        entries, problems = parse_predatory_csv(fh)
    for problem in problems:
        click.echo(f"aletheia: {csv}: {problem}", err=True)
    if not entries and problems:
        sys.exit(2)
    store = PredatoryStore(engine_for(get_settings().sqlalchemy_url()))
    n = store.replace(e.model_dump() for e in entries)
    click.echo(f"{n} predatory or delisted venues loaded")
