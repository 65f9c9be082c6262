"""The `aletheia` command line: one console script, one subcommand per job.

Importing it loads click alone: a subcommand's module is imported when that subcommand runs (or
when the help lists them all), and each command imports what it runs when it runs (`aletheia
status` reads the job's rows, not the sources; docs/benchmarks.md, "CLI start-up")."""

from __future__ import annotations

import atexit
import gc
import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from aletheia.producers import exits

if TYPE_CHECKING:
    from aletheia.producers.report_output import ReportOutput


class ReportFormatChoice(click.Choice):  # type: ignore[type-arg]
    """`--format` of `verify` and `aletheia report`: the report formats' names, read from their
    records (`pipeline/report_formats.py`) when the option is parsed or its help shown,
    so that the CLI starts without importing the pipeline."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        from aletheia.pipeline.report_formats import format_names

        return format_names()

    @choices.setter
    def choices(self, _: object) -> None:
        """`click.Choice.__init__` sets its choices; these are the records'."""


# Every subcommand but `verify` (below): its name -> "module:attribute" of its click command.
COMMAND_PATHS: dict[str, str] = {
    "library": "aletheia.producers.library_cli:library",
    "mirror": "aletheia.producers.mirror_cli:mirror",
    "admin": "aletheia.producers.admin_cli:admin",
    "simulator": "aletheia.producers.simulator_cli:simulator",
    "submit": "aletheia.producers.service_cli:submit",
    "sweep": "aletheia.producers.service_cli:sweep",
    "status": "aletheia.producers.service_cli:status",
    "wait": "aletheia.producers.service_cli:wait",
    "report": "aletheia.producers.service_cli:report",
    "redrive": "aletheia.producers.service_cli:redrive",
    "audit-log": "aletheia.producers.audit_cli:audit_log",
    "replay": "aletheia.producers.audit_cli:replay_command",
    "cite": "aletheia.producers.claims_cli:cite",
    "check": "aletheia.producers.claims_cli:check",
    "audit": "aletheia.producers.claims_cli:audit",
    "csl": "aletheia.producers.claims_cli:csl",
    "web-claim": "aletheia.producers.claims_cli:web_claim",
    "contract-check": "aletheia.producers.contracts_cli:contract_check",
    "claims": "aletheia.producers.text_cli:claims",
    "fix": "aletheia.producers.text_cli:fix",
    "bench": "aletheia.producers.bench_cli:bench",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported when first asked for (`COMMAND_PATHS`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMAND_PATHS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_PATHS:
            module, _, attribute = COMMAND_PATHS[cmd_name].partition(":")
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context) -> object:
        # Ctrl-C is 130, as a shell reports a process ended by SIGINT, never click's "Aborted!"
        # and 1, the code of a flagged reference (issue 30; `exits.py`).
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("aletheia: interrupted", err=True)
            sys.exit(exits.INTERRUPTED)
        except Exception as exc:
            # The database down is one line and exit 5, not a traceback and 1 ("job failed").
            from aletheia.producers.database_down import database_down_line, is_database_down

            if not is_database_down(exc):
                raise
            click.echo(f"aletheia: {database_down_line(exc)}; try again when it is back", err=True)
            sys.exit(exits.DATABASE_UNREACHABLE)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="aletheia-citations")
def main() -> None:
    """Aletheia: verify citations against the authoritative sources. Default-deny."""
    # At exit, the interpreter's last garbage collections walk every object the imports made
    # (SQLAlchemy's and pydantic's classes and functions): about 0.1 s of a short command such as
    # `aletheia status`, to free memory the process is about to give back. Frozen objects are left
    # out of them. Nothing relies on them: the commands close what they write (`ReportOutput`
    # commits a report whole), logging flushes at exit and the interpreter the standard streams.
    atexit.unregister(gc.freeze)  # once, however often `main` runs in one process (tests)
    atexit.register(gc.freeze)


def _report_target(fmt: str | None, output: Path | None, inputs: tuple[str, ...]) -> tuple[str, ReportOutput]:
    """The report's format and where it goes (written whole or not at all); exit 2 when `output`
    cannot be written or is one of the inputs."""
    from aletheia.producers.report_output import OutputError, ReportOutput, check_not_an_input, format_for

    try:
        chosen = format_for(fmt, output, tty=output is None and sys.stdout.isatty())
        if output is not None:
            check_not_an_input(output, inputs)
        return chosen, ReportOutput(output, chosen)
    except (OutputError, OSError) as exc:
        click.echo(f"aletheia: {exc}", err=True)
        sys.exit(exits.USAGE)


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option(
    "--format",
    "fmt",
    type=ReportFormatChoice(),
    default=None,
    help="Output format (default: from the -o extension, else table on a terminal, json otherwise). "
    "markdown: a pull-request comment; github: workflow annotations on the .bib lines; "
    "sarif: code-scanning upload; junit: CI test reports; csv: a table for a spreadsheet.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report here; without --format, its extension names the format (.html, .json, "
    ".jsonl, .bib, .csl.json, .md, .sarif, .xml for JUnit, .txt for the table, .csv); another "
    "extension is refused.",
)
@click.option("--offline", is_flag=True, help="Consult only the local library (no network).")
@click.option(
    "--no-mirror",
    is_flag=True,
    help="Do not consult the local snapshot mirror (`aletheia mirror load`): ask the APIs alone.",
)
# `jobs/in_process.DEFAULT_CONCURRENCY` (not imported here: the CLI starts without the pipeline).
@click.option("--concurrency", type=click.IntRange(1, 512), default=128, show_default=True)
def verify(
    inputs: tuple[str, ...],
    fmt: str | None,
    output: Path | None,
    offline: bool,
    no_mirror: bool,
    concurrency: int,
) -> None:
    """Verify every reference in INPUTS (files, directories, or - for stdin).

    Formats are detected from content: BibTeX/biblatex, .bbl/LaTeX, Markdown, plain reference
    lists, HTML, JATS/TEI XML, CSL-JSON, RIS, EndNote XML, Zotero RDF, Word .docx, PDF. Exit
    codes: 0 nothing flagged; 1 something flagged; 2 usage or input error (an -o that is one of
    the inputs too); 3 nothing flagged but some references could not be checked; 5 the database
    does not answer; 130 interrupted.
    """
    from aletheia.config import get_settings
    from aletheia.core.bibliography import InputError
    from aletheia.pipeline.documents.inputs import iter_references
    from aletheia.pipeline.documents.signals import DocumentCheck
    from aletheia.pipeline.reports.formats import make_sink
    from aletheia.pipeline.runtime import Runtime
    from aletheia.pipeline.verify import verify_to_sink

    settings = get_settings()
    if offline:
        settings = settings.model_copy(update={"offline": True})
    if no_mirror:
        settings = settings.model_copy(update={"mirror": False})
    chosen, target = _report_target(fmt, output, inputs)
    try:
        runtime = Runtime.open(settings)
        # A full-text input (a paper, not a bibliography) is itself checked for paper-mill signs,
        # from the text the parsers extract for its references.
        documents = DocumentCheck()
        refs = iter_references(
            list(inputs), stdin=sys.stdin, max_bytes=settings.max_input_bytes, on_text=documents.observe
        )
        sink = make_sink(chosen, target.stream, progress=chosen == "table" and target.isatty())
        run = verify_to_sink(
            runtime,
            refs,
            sink,
            input_description={"inputs": list(inputs), "format": chosen},
            concurrency=concurrency,
            documents=documents,
        )
    except (InputError, FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        # Nothing of the report is written: a document is whole or absent (`report_output`).
        target.discard()
        click.echo(f"aletheia: input error: {exc}", err=True)
        sys.exit(exits.USAGE)
    except BaseException:
        target.discard()
        raise
    target.commit()
    for problem in run.problems:
        click.echo(f"aletheia: input problem: {problem}", err=True)
    sys.exit(run.exit_code())
