"""A loopback HTTP server that speaks Crossref, OpenAlex, Semantic Scholar, arXiv and PubMed
E-utilities from a JSONL universe of works, with rate limits, latency, faults and counters.

For tests, benchmarks and offline demos; see docs/simulator.md for the universe schema, the routes
and every knob.
"""

from __future__ import annotations

from aletheia.sources.simulator.app import SimulatorApp, prefixes
from aletheia.sources.simulator.config import FaultRates, SimSource, SourceSimConfig
from aletheia.sources.simulator.routes import SIM_ROUTES, SIM_SOURCES, SimRoute
from aletheia.sources.simulator.run_config import SimulatorConfig
from aletheia.sources.simulator.server import ENV_NAMES, SimulatorServer, env_for, serve, url_for
from aletheia.sources.simulator.universe import Universe, UniverseError, universe_from_records, write_universe
from aletheia.sources.simulator.work import WORK_SOURCES, ArxivVersion, Related, SimAuthor, SimWork

__all__ = [
    "ENV_NAMES",
    "SIM_ROUTES",
    "SIM_SOURCES",
    "WORK_SOURCES",
    "ArxivVersion",
    "FaultRates",
    "Related",
    "SimAuthor",
    "SimRoute",
    "SimSource",
    "SimWork",
    "SimulatorApp",
    "SimulatorConfig",
    "SimulatorServer",
    "SourceSimConfig",
    "Universe",
    "UniverseError",
    "env_for",
    "prefixes",
    "serve",
    "universe_from_records",
    "url_for",
    "write_universe",
]
