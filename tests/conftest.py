"""Shared fixtures: the location of ../shared/data (skipped cleanly when absent)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, settings

from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, Universe

# Properties are judged by what they find, not by how fast a shared machine draws examples: no
# deadline and no "too slow" health check (both failed under a load average of 15 with nothing
# wrong in the code).
settings.register_profile("aletheia", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("aletheia")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """`../shared/data` beside the clone; tests that need it skip where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is absent")
    return SHARED_DATA


def verify_sample(tmp_path: Path, fmt: str) -> tuple[int, Path]:
    """`aletheia verify examples/sample.bib --format fmt` offline, run from the checkout (paths in
    the report relative to it), with its own data directory: the exit code and the report."""
    out = tmp_path / f"report.{fmt}"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "ALETHEIA_OFFLINE": "true"}
    env.pop("ALETHEIA_DATABASE_URL", None)
    env.pop("ALETHEIA_BROKER_URL", None)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "aletheia.producers",
            "verify",
            str(REPO_ROOT / "examples" / "sample.bib"),
            *("--format", fmt, "-o", str(out)),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=REPO_ROOT,
    )
    assert proc.returncode in (0, 1, 3), proc.stderr
    return proc.returncode, out


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
