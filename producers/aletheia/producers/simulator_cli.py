"""`aletheia simulator serve`: the loopback API simulator, for demos and benchmarks."""

from __future__ import annotations

from pathlib import Path

import click


@click.group()
def simulator() -> None:
    """A loopback server speaking the sources' APIs from a JSONL universe of works."""


@simulator.command()
@click.option("--universe", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8765, show_default=True, help="0 picks a free port.")
@click.option("--unlimited", is_flag=True, help="Do not enforce the documented rate limits.")
def serve(universe: Path, host: str, port: int, unlimited: bool) -> None:
    """Serve the universe; prints the ALETHEIA_*_URL settings that point the clients at it."""
    import sys

    from aletheia.sources.simulator import SimulatorConfig, UniverseError, env_for
    from aletheia.sources.simulator import serve as run

    def ready(base_url: str) -> None:
        # The address first, then the settings that point every client at it (issue 20: the
        # command used to print nothing, leaving the port to guess).
        click.echo(base_url)
        for name, value in env_for(base_url).items():
            click.echo(f"{name}={value}")
        click.echo("(Ctrl-C stops it)", err=True)

    config = SimulatorConfig.unlimited() if unlimited else SimulatorConfig()
    try:
        run(universe, host, port, config, ready=ready)
    except UniverseError as exc:  # one line naming the file, the line and the problem (issue 30)
        click.echo(f"aletheia: bad universe: {exc}", err=True)
        sys.exit(2)
    except (OSError, UnicodeDecodeError) as exc:
        click.echo(f"aletheia: cannot serve {universe}: {exc}", err=True)
        sys.exit(2)
