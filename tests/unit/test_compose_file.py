"""docker-compose.yml for more than one host (issue 33): every long-running service has a health
check (beat had none), the workers scale with `--scale` (no fixed container name, no host port),
beat may be scaled too (its schedule file is its container's own), and Debian's `docker-compose
config` accepts the file when it is installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
WORKERS = ("retrieval", "parsing", "evidence", "writer", "control")
ONE_SHOT = {"migrate"}


def services() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE.read_text())
    found: dict[str, Any] = loaded["services"]
    return found


def test_every_long_running_service_has_a_health_check() -> None:
    found = services()
    assert set(WORKERS) | {"beat", "flower", "redis", "postgres"} <= set(found)
    missing = [name for name, spec in found.items() if name not in ONE_SHOT and not spec.get("healthcheck")]
    assert missing == []
    beat = found["beat"]["healthcheck"]["test"]
    assert "inspect ping -d beat@$${HOSTNAME}" in " ".join(beat)
    assert "-n beat@$${HOSTNAME}" in found["beat"]["command"], "beat answers the ping by that name"


def test_workers_and_beat_scale() -> None:
    found = services()
    for name in (*WORKERS, "beat"):
        spec = found[name]
        assert "container_name" not in spec, name
        assert "ports" not in spec, f"{name} publishes a host port: a second replica could not start"
        if name in WORKERS:
            assert f"-n {name}@$${{HOSTNAME}}" in spec["command"], (
                "each replica names itself by its container"
            )
    # Replicas of beat must not share one schedule file on the shared volume.
    assert "/var/lib/aletheia" not in found["beat"]["command"]


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="Debian's docker-compose is not installed")
def test_docker_compose_config_accepts_the_file() -> None:
    checked = subprocess.run(
        ["docker-compose", "-f", str(COMPOSE), "config", "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stderr
