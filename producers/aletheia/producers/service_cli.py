"""`aletheia submit | sweep | status | wait | report | redrive`: the service's producers.

`submit` and `sweep` print the new job's id alone on stdout (scripts capture it); everything else
they have to say goes to stderr. With `ALETHEIA_BROKER_URL` set the job is queued for the worker
pools; without it the job runs in this process before the id is printed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:  # the client pulls in the pipeline: imported when a command runs, not at CLI start
    from aletheia.producers.client import AletheiaClient

REPORT_FORMATS = (
    "table",
    "json",
    "jsonl",
    "html",
    "bibtex",
    "csl-json",
    "markdown",
    "github",
    "sarif",
    "junit",
)


def _client() -> AletheiaClient:
    from aletheia.producers.client import AletheiaClient

    return AletheiaClient()


@click.command()
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--claim", "claim", help="Verify this claim instead of bibliography files.")
@click.option("--hint", help="With --claim: a title, author or identifier that points at the source.")
@click.option("--paper", help="With --claim: a DOI, arXiv id or PMID; judge this paper alone.")
@click.option(
    "--into",
    type=click.Path(file_okay=False, path_type=Path),
    help="With --claim: the repository whose docs/citations/ gets the artifact (default: the job's folder).",
)
@click.option(
    "--override-reason",
    help="With --claim: accept a triangulation conflict and record this reason in the artifact.",
)
def submit(
    files: tuple[Path, ...],
    claim: str | None,
    hint: str | None,
    paper: str | None,
    into: Path | None,
    override_reason: str | None,
) -> None:
    """Submit bibliography FILES (or --claim TEXT) as a job; print the job id."""
    if bool(files) == bool(claim):
        raise click.UsageError("give bibliography FILES or --claim TEXT (one of them)")
    client = _client()
    try:
        if (paper or override_reason is not None) and not claim:
            raise click.UsageError("--paper and --override-reason go with --claim")
        job_id = (
            client.submit_claim(claim, hint=hint, paper=paper, into=into, override_reason=override_reason)
            if claim
            else client.submit(list(files))
        )
    except (ValueError, OSError) as exc:
        click.echo(f"aletheia: {exc}", err=True)
        sys.exit(2)
    click.echo(job_id)


@click.command()
@click.argument(
    "paths", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@click.option("--register/--no-register", default=True, show_default=True, help="Add to the weekly audit.")
def sweep(paths: tuple[Path, ...], register: bool) -> None:
    """Re-verify the citation artifacts and bibliographies of each repository in PATHS; print the job id."""
    click.echo(_client().sweep(list(paths), register=register))


@click.command()
@click.argument("job_id")
def status(job_id: str) -> None:
    """Print the job's state and item counts as JSON."""
    try:
        click.echo(json.dumps(_client().status(job_id), indent=2))
    except LookupError:
        click.echo(f"aletheia: no job {job_id}", err=True)
        sys.exit(2)


@click.command()
@click.argument("job_id")
@click.option("--timeout", type=float, default=None, help="Give up after this many seconds (exit 124).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing; the exit code says it.")
def wait(job_id: str, timeout: float | None, quiet: bool) -> None:
    """Wait until the job is done (exit 0) or failed (exit 1)."""
    from aletheia.producers.client import JobTimeout

    client = _client()
    try:
        final = client.wait(job_id, timeout=timeout)
    except LookupError:
        click.echo(f"aletheia: no job {job_id}", err=True)
        sys.exit(2)
    except JobTimeout as exc:
        click.echo(f"aletheia: {exc}", err=True)
        sys.exit(124)
    if not quiet:
        click.echo(json.dumps(final, indent=2))
    sys.exit(0 if final["status"] == "done" else 1)


@click.command()
@click.argument("job_id")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(REPORT_FORMATS),
    default=None,
    help="Default: from the -o extension, else table.",
)
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here."
)
def report(job_id: str, fmt: str | None, output: Path | None) -> None:
    """Print the job's report from its rows (a running job: what is settled so far)."""
    from aletheia.pipeline.report import make_sink
    from aletheia.producers.report_output import OutputError, ReportOutput, format_for

    chosen = format_for(fmt, output, tty=True)  # as `verify` does, but a table by default
    client = _client()
    try:
        doc = client.result(job_id)
    except LookupError:
        click.echo(f"aletheia: no job {job_id}", err=True)
        sys.exit(2)
    try:
        target = ReportOutput(output, chosen)
    except (OutputError, OSError) as exc:
        click.echo(f"aletheia: {exc}", err=True)
        sys.exit(2)
    try:
        if "references" not in doc:  # claims, sweeps: their summary is the report
            if chosen not in ("json", "jsonl"):
                click.echo(
                    f"aletheia: a {doc['summary'].get('kind', 'claim')} job has a JSON report only", err=True
                )
            target.stream.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        else:
            sink = make_sink(chosen, target.stream)
            for ref in doc["references"]:
                sink.reference(ref)
            sink.summary(doc["summary"])
    except BaseException:
        target.discard()
        raise
    target.commit()


@click.command()
@click.option(
    "--older-than",
    type=float,
    default=None,
    help="Seconds without progress (default: the visibility timeout).",
)
def redrive(older_than: float | None) -> None:
    """Re-enqueue unfinished work from the database (after a crash or a broker restart)."""
    from aletheia.pipeline import service

    client = _client()
    if not client.queued:
        click.echo("aletheia: redrive needs ALETHEIA_BROKER_URL (the embedded mode has no queue)", err=True)
        sys.exit(2)
    from aletheia.workers.dispatch import CeleryDispatcher

    ctx = service.ServiceContext(
        runtime=client.runtime, dispatcher=CeleryDispatcher(), runner=service.LoopThread(), defer_tokens=False
    )
    try:
        result = service.redrive(ctx, older_than=older_than)
    finally:
        ctx.close()
    click.echo(json.dumps(result.as_json()))


COMMANDS = (submit, sweep, status, wait, report, redrive)
