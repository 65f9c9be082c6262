"""Flower requires authentication: it refuses to start without a password, and once started answers
401 without credentials (or with wrong ones) and 200 with the configured ones. Needs Redis."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.integration.queue_stack import IN_CI, Unavailable, check_redis, free_port

pytestmark = [pytest.mark.integration, pytest.mark.slow]
PASSWORD = "flower-SECRET-3b2a"


@pytest.fixture(scope="module")
def redis_url() -> str:
    try:
        check_redis()
    except Unavailable as exc:
        if IN_CI:
            pytest.fail(str(exc))
        pytest.skip(str(exc))
    return "redis://127.0.0.1:6379/13"


def flower_env(redis_url: str, port: int, password: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ALETHEIA_", "FLOWER_"))}
    env |= {
        "ALETHEIA_BROKER_URL": redis_url,
        "ALETHEIA_FLOWER_PORT": str(port),
        "ALETHEIA_FLOWER_USER": "ops",
    }
    if password is not None:
        env["ALETHEIA_FLOWER_PASSWORD"] = password
    return env


def test_flower_refuses_to_start_without_a_password(redis_url: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "aletheia.workers.flower"],
        env=flower_env(redis_url, free_port(), None),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "refusing to start Flower without ALETHEIA_FLOWER_PASSWORD" in done.stderr


@pytest.fixture
def flower(redis_url: str) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "aletheia.workers.flower"],
        env=flower_env(redis_url, port, PASSWORD),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"Flower did not start (exit {process.poll()})")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def test_flower_answers_only_with_credentials(flower: str) -> None:
    assert httpx.get(flower + "/", timeout=10).status_code == 401
    assert httpx.get(flower + "/api/workers", timeout=10).status_code == 401
    assert httpx.get(flower + "/", auth=("ops", "wrong"), timeout=10).status_code == 401
    assert httpx.get(flower + "/", auth=("ops", PASSWORD), timeout=10).status_code == 200
    # Flower serves these two without asking, whatever --basic-auth says (issue 22): not ours.
    for path in ("/metrics", "/healthcheck"):
        assert httpx.get(flower + path, timeout=10).status_code == 401, path
        assert httpx.get(flower + path, auth=("ops", "wrong"), timeout=10).status_code == 401, path
        assert httpx.get(flower + path, auth=("ops", PASSWORD), timeout=10).status_code == 200, path
    # The password is not on any command line `ps` shows.
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    assert PASSWORD not in ps
