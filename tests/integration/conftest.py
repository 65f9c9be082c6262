"""Fixtures shared by the claim tests over the loopback simulator: a gateway over the module's own
`settings` fixture, and a project folder for the artifacts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from aletheia.config import Settings
from aletheia.pipeline.gateway import SourceGateway
from aletheia.sources.ratelimit import build_rate_limiter


@pytest.fixture
async def gateway(settings: Settings) -> AsyncIterator[SourceGateway]:
    async with httpx.AsyncClient() as http:
        yield SourceGateway(settings, http, build_rate_limiter(settings))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root
