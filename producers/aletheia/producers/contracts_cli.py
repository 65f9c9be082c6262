"""`aletheia contract-check`: the nightly live-API contract check's latest report, or one run now."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import click


@click.command("contract-check")
@click.option(
    "--run", "run_now", is_flag=True, help="Ask each source now (one real query each) and store the report."
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def contract_check(run_now: bool, fmt: str) -> None:
    """Whether each source still answers in the shape Aletheia's parsers read (seed 000 §10.4).

    Without --run, the report the nightly beat task stored last. Exit codes: 0 every source in its
    recorded shape; 1 drift (a key gone, a type changed, an answer that no longer parses, or the
    recorded work gone); 2 no report yet (or offline with --run); 3 no drift, but a source could
    not be asked.
    """
    from aletheia.config import get_settings
    from aletheia.pipeline.contracts import check_contracts, latest_contract_report, store_contract_report

    settings = get_settings()
    if run_now:
        if settings.offline:
            click.echo("aletheia contract-check: --run needs the network (offline)", err=True)
            sys.exit(2)
        from aletheia.pipeline.runtime import Runtime

        async def run() -> Any:
            async with Runtime.open(settings).gateway(fresh=True) as gateway:
                return await check_contracts(gateway)

        report = asyncio.run(run())
        path = store_contract_report(settings, report)
        click.echo(f"stored: {path}", err=True)
    else:
        report = latest_contract_report(settings)
        if report is None:
            click.echo(
                "aletheia contract-check: no report yet (beat runs it nightly; --run runs one now)", err=True
            )
            sys.exit(2)
    if fmt == "json":
        click.echo(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    else:
        click.echo(f"contract check of {report.checked_at}")
        for result in report.results:
            line = f"{result.source}: {result.status} ({result.query})"
            click.echo(line + (f": {result.error}" if result.error else ""))
            for difference in result.differences:
                click.echo(f"  {difference['kind']}: {difference['detail']}")
    sys.exit(report.exit_code())
