"""`python -m aletheia.bench.simproc UNIVERSE PORT CONFIG_JSON`: the simulator in a
child process for the benchmarks (see `common.SimulatorProcess`)."""

from __future__ import annotations

import sys
from pathlib import Path

from aletheia.sources.simulator import SimulatorConfig, serve


def main(argv: list[str]) -> None:
    universe, port, config_file = argv
    config = SimulatorConfig.model_validate_json(Path(config_file).read_text(encoding="utf-8"))
    serve(universe, "127.0.0.1", int(port), config)


if __name__ == "__main__":
    main(sys.argv[1:])
