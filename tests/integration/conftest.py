"""Fixtures shared by the integration tests: for the claim tests over the loopback simulator, a
gateway over the module's own `settings` fixture and a project folder for the artifacts; for the
fault tests, a PostgreSQL (one per module) and a Redis (one per test) of their own, on free ports,
so stopping them disturbs nobody else."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from aletheia.config import Settings
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.sources.transport.ratelimit import build_rate_limiter
from tests.integration.private_postgres import PrivatePostgres
from tests.integration.queue_stack import PrivateRedis, Unavailable, unavailable


@pytest.fixture
async def gateway(settings: Settings) -> AsyncIterator[SourceGateway]:
    async with httpx.AsyncClient() as http:
        yield SourceGateway(settings, http, build_rate_limiter(settings))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture(scope="module")
def postgres() -> Iterator[PrivatePostgres]:
    try:
        pg = PrivatePostgres()
        pg.init()
        pg.start()
    except (Unavailable, OSError, subprocess.SubprocessError) as exc:  # no binaries, or initdb refused
        unavailable(f"cannot run a private PostgreSQL: {exc}")
    yield pg
    pg.remove()


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    try:
        server.start()
    except (OSError, Unavailable) as exc:
        unavailable(f"no redis-server to run a private broker: {exc}")
    yield server
    server.kill()
