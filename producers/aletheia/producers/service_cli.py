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

from aletheia.producers import exits
from aletheia.producers.cli import ReportFormatChoice

if TYPE_CHECKING:  # the client pulls in the pipeline: imported when a command runs, not at CLI start
    from aletheia.producers.client import AletheiaClient


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
    """Submit bibliography FILES (or --claim TEXT) as a job; print the job id.

    Exit codes: 0 queued (the id alone on stdout); 2 usage or input error; 3 the broker does not
    answer: nothing was queued (a job created before the broker refused it is marked failed,
    "never enqueued", so it never runs later); 5 the database does not answer: nothing was queued."""
    if bool(files) == bool(claim):
        raise click.UsageError("give bibliography FILES or --claim TEXT (one of them)")
    if (paper or override_reason is not None) and not claim:
        raise click.UsageError("--paper and --override-reason go with --claim")
    from sqlalchemy.exc import OperationalError

    from aletheia.pipeline.jobs.enqueue import BrokerUnavailable

    client = _client()
    try:
        job_id = (
            client.submit_claim(claim, hint=hint, paper=paper, into=into, override_reason=override_reason)
            if claim
            else client.submit(list(files))
        )
    except BrokerUnavailable as exc:
        failed = f"; job {exc.job_id} is marked failed (never enqueued)" if exc.job_id else ""
        click.echo(f"aletheia: {exc}: nothing was queued{failed}", err=True)
        sys.exit(exits.UNCHECKED)
    except OperationalError as exc:
        from aletheia.producers.database_down import database_down_line

        click.echo(f"aletheia: {database_down_line(exc)}: nothing was queued", err=True)
        sys.exit(exits.DATABASE_UNREACHABLE)
    except (ValueError, OSError) as exc:
        click.echo(f"aletheia: {exc}", err=True)
        sys.exit(exits.USAGE)
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
    # The storage layer's read path alone, not the client's runtime (its stores, the ORM, the
    # bundled snapshot): `aletheia status` must start fast (docs/benchmarks.md, "CLI start-up").
    from aletheia.config import get_settings
    from aletheia.pipeline.jobs.status import read_job_status

    found = read_job_status(get_settings(), job_id)
    if found is None:
        click.echo(f"aletheia: no job {job_id}", err=True)
        sys.exit(exits.USAGE)
    click.echo(json.dumps(found, indent=2))


@click.command()
@click.argument("job_id")
@click.option("--timeout", type=float, default=None, help="Give up after this many seconds (exit 124).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing; the exit code says it.")
@click.option(
    "--notice-after",
    type=click.FloatRange(min=0.5),
    default=10.0,
    show_default=True,
    help="When the job has not moved for this many seconds, check that a worker is there to move "
    "it, and say so on stderr if none is.",
)
def wait(job_id: str, timeout: float | None, quiet: bool, notice_after: float) -> None:
    """Wait until the job is done (exit 0) or failed (exit 1); exit 124 after --timeout.

    A queued job that nobody picks up (no worker running, a pool missing) is said on stderr once
    it has not moved for --notice-after seconds; the wait goes on until --timeout. A database that
    does not answer is said once on stderr and waited through (a restart); still down at
    --timeout, the wait ends with that line and exit 5."""
    from aletheia.producers.client import JobTimeout

    client = _client()
    told: set[str] = set()

    def tell_if_nobody_is_there(status: dict[str, object], idle: float) -> None:
        notice = _stall_notice(client, job_id, idle)
        if notice is None:
            return
        reason = notice.split(": ", 1)[1]  # without "job J has not moved for Ns", which grows
        if reason not in told:  # each distinct reason once, not at every check
            told.add(reason)
            click.echo(
                f"aletheia: {notice}; still waiting" + ("" if timeout else " (--timeout to give up)"),
                err=True,
            )

    down: list[bool] = []

    def tell_the_database_is_down(exc: Exception) -> None:
        from aletheia.producers.database_down import database_down_line

        if not down:  # said once; the wait goes on through a restart
            down.append(True)
            click.echo(f"aletheia: {database_down_line(exc)}; still waiting", err=True)

    try:
        final = client.wait(
            job_id,
            timeout=timeout,
            on_stall=tell_if_nobody_is_there,
            stall_after=notice_after,
            on_database_down=tell_the_database_is_down,
        )
    except LookupError:
        click.echo(f"aletheia: no job {job_id}", err=True)
        sys.exit(exits.USAGE)
    except JobTimeout as exc:
        click.echo(f"aletheia: {exc}", err=True)
        sys.exit(exits.TIMED_OUT)
    if not quiet:
        click.echo(json.dumps(final, indent=2))
    sys.exit(exits.OK if final["status"] == "done" else exits.FLAGGED)


def _stall_notice(client: AletheiaClient, job_id: str, idle: float) -> str | None:
    """Why nothing moves the job, when the reason is that no worker is there; None otherwise."""
    if not client.queued:
        unset = "ALETHEIA_BROKER_URL is not set, no worker can run it"
        return f"job {job_id} has not moved for {idle:.0f}s: {unset}"
    from aletheia.workers.pool_presence import pools_seen, stall_notice

    return stall_notice(job_id, idle, pools_seen())


@click.command()
@click.argument("job_id")
@click.option(
    "--format",
    "fmt",
    type=ReportFormatChoice(),
    default=None,
    help="Default: from the -o extension, else table.",
)
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here."
)
def report(job_id: str, fmt: str | None, output: Path | None) -> None:
    """Print the job's report from its rows (a running job: what is settled so far). The formats
    and the exit code are its kind's (`aletheia verify`'s for a bibliography: 0 nothing flagged,
    1 flagged, 2 input problems, 3 some references could not be checked)."""
    from aletheia.pipeline.jobs.kinds import kind_record, resolve
    from aletheia.producers.report_output import OutputError, ReportOutput, format_for

    client = _client()
    job = client.runtime.jobs.job(job_id)
    if job is None:
        click.echo(f"aletheia: no job {job_id}", err=True)
        sys.exit(exits.USAGE)
    record = kind_record(job.kind)
    try:
        chosen = format_for(fmt, output, tty=True)  # as `verify` does, but a table by default
    except OutputError as exc:
        click.echo(f"aletheia: {exc}", err=True)
        sys.exit(exits.USAGE)
    if fmt is None and output is None and chosen not in record.formats:
        chosen = record.formats[0]  # a claim's or a sweep's report is its JSON
    if chosen not in record.formats:
        click.echo(
            f"aletheia: a {job.kind} job's report comes as {', '.join(record.formats)}, not {chosen}",
            err=True,
        )
        sys.exit(exits.USAGE)
    try:
        doc = client.result(job_id)
    except LookupError:
        click.echo(f"aletheia: no job {job_id}", err=True)
        sys.exit(exits.USAGE)
    try:
        target = ReportOutput(output, chosen)
    except (OutputError, OSError) as exc:
        click.echo(f"aletheia: {exc}", err=True)
        sys.exit(exits.USAGE)
    try:
        resolve(record.render)(doc, chosen, target.stream)
    except BaseException:
        target.discard()
        raise
    target.commit()
    sys.exit(resolve(record.exit_code)(doc.get("summary") or {}))


@click.command()
@click.option(
    "--older-than",
    type=float,
    default=None,
    help="Send everything unsettled and idle this many seconds, whatever the broker holds "
    "(default: work whose lease expired, or whose message the broker lost).",
)
def redrive(older_than: float | None) -> None:
    """Re-enqueue unfinished work from the database (after a crash or a broker restart)."""
    from aletheia.pipeline import service

    client = _client()
    if not client.queued:
        click.echo("aletheia: redrive needs ALETHEIA_BROKER_URL (the embedded mode has no queue)", err=True)
        sys.exit(exits.USAGE)
    from aletheia.workers.dispatch import CeleryDispatcher

    ctx = service.ServiceContext(
        runtime=client.runtime, dispatcher=CeleryDispatcher(), runner=service.LoopThread(), defer_tokens=False
    )
    from aletheia.workers.broker_probe import RedisBrokerProbe

    probe = RedisBrokerProbe.from_settings()
    try:
        result = service.redrive(ctx, older_than, probe=probe)
    finally:
        ctx.close()
        if probe is not None:
            probe.close()
    click.echo(json.dumps(result.as_json()))


COMMANDS = (submit, sweep, status, wait, report, redrive)
