"""The `aletheia` command line: one console script, one subcommand per job."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="aletheia-citations")
def main() -> None:
    """Aletheia: verify citations against the authoritative sources. Default-deny."""
