"""Shared fixtures: the location of ../shared/data (skipped cleanly when absent)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, Universe

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """`../shared/data` beside the clone; tests that need it skip where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is absent")
    return SHARED_DATA


SIMULATOR_UNIVERSE = REPO_ROOT / "tests" / "fixtures" / "simulator" / "universe.jsonl"


# The loopback simulator over the hand-written universe, shared by the simulator's own tests
# (unit, shapes, contract); a test module may override `universe` with its own works.
@pytest.fixture(scope="module")
def universe() -> Universe:
    return Universe.from_jsonl(SIMULATOR_UNIVERSE)


@pytest.fixture(scope="module")
def sim(universe: Universe) -> Iterator[SimulatorServer]:
    with SimulatorServer(universe, SimulatorConfig.unlimited()) as server:
        yield server


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=5.0) as http:
        yield http
