"""The `aletheia` command line: one console script, one subcommand per job.

Importing it loads click and the command modules only: each command imports what it runs when it
runs (`aletheia status` needs the stores, not the sources; docs/benchmarks.md, "CLI start-up")."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from aletheia.producers import admin_cli, audit_cli, library_cli, service_cli, simulator_cli


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="aletheia-citations")
def main() -> None:
    """Aletheia: verify citations against the authoritative sources. Default-deny."""


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(
        ["table", "json", "jsonl", "html", "bibtex", "csl-json", "markdown", "github", "sarif", "junit"]
    ),
    default=None,
    help="Output format (default: from the -o extension, else table on a terminal, json otherwise). "
    "markdown: a pull-request comment; github: workflow annotations on the .bib lines; "
    "sarif: code-scanning upload; junit: CI test reports.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report here; without --format, its extension names the format (.html, .json, "
    ".jsonl, .bib, .csl.json, .md, .sarif, .xml for JUnit, .txt for the table).",
)
@click.option("--offline", is_flag=True, help="Consult only the local library (no network).")
@click.option("--concurrency", type=click.IntRange(1, 512), default=32, show_default=True)
def verify(
    inputs: tuple[str, ...], fmt: str | None, output: Path | None, offline: bool, concurrency: int
) -> None:
    """Verify every reference in INPUTS (files, directories, or - for stdin).

    Formats are detected from content: BibTeX/biblatex, .bbl/LaTeX, Markdown, plain reference
    lists, CSL-JSON, PDF. Exit codes: 0 nothing flagged; 1 something flagged; 2 usage or input
    error; 3 nothing flagged but some references could not be checked.
    """
    from aletheia.config import get_settings
    from aletheia.core.bibliography import InputError
    from aletheia.pipeline.documents.inputs import iter_references
    from aletheia.pipeline.documents.signals import DocumentCheck
    from aletheia.pipeline.reports.formats import make_sink
    from aletheia.pipeline.runtime import Runtime
    from aletheia.pipeline.verify import verify_to_sink
    from aletheia.producers.report_output import OutputError, ReportOutput, format_for

    settings = get_settings()
    if offline:
        settings = settings.model_copy(update={"offline": True})
    chosen = format_for(fmt, output, tty=output is None and sys.stdout.isatty())
    try:
        target = ReportOutput(output, chosen)
    except (OutputError, OSError) as exc:
        click.echo(f"aletheia: {exc}", err=True)
        sys.exit(2)
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
        sys.exit(2)
    except BaseException:
        target.discard()
        raise
    target.commit()
    for problem in run.problems:
        click.echo(f"aletheia: input problem: {problem}", err=True)
    sys.exit(run.exit_code())


main.add_command(library_cli.library)
main.add_command(admin_cli.admin)
main.add_command(simulator_cli.simulator)
for _command in service_cli.COMMANDS:
    main.add_command(_command)
for _command in audit_cli.COMMANDS:
    main.add_command(_command)

from aletheia.producers import claims_cli  # noqa: E402 - registered after the other commands

main.add_command(claims_cli.cite)
main.add_command(claims_cli.check)
main.add_command(claims_cli.audit)
from aletheia.producers import text_cli  # noqa: E402 - registered after the other commands

main.add_command(text_cli.claims)
main.add_command(text_cli.fix)
from aletheia.producers import bench_cli  # noqa: E402 - registered after the other commands

main.add_command(bench_cli.bench)
