"""A scripted `Transport` for source-client tests: records every call, answers from a handler."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aletheia.core.records import SourceName
from aletheia.sources.base import RequestKind, SourceStats

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@dataclass
class Call:
    method: str  # get_json | get_text | get_bytes | post_json
    path: str
    params: dict[str, Any]
    headers: dict[str, str]
    kind: RequestKind
    json: Any = None


Handler = Callable[[Call], Any]


@dataclass
class FakeTransport:
    """Implements the `Transport` protocol. The handler returns the body (None = 404) or raises."""

    handler: Handler
    source: SourceName = SourceName.SEMANTIC_SCHOLAR
    base_url: str = "https://fake.test"
    stats: SourceStats = field(default_factory=SourceStats)
    calls: list[Call] = field(default_factory=list)

    async def _answer(self, call: Call) -> Any:
        self.calls.append(call)
        await asyncio.sleep(0)  # yield, as a real request would
        return self.handler(call)

    async def get_json(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        kind: RequestKind = "single",
    ) -> Any | None:
        return await self._answer(Call("get_json", path, dict(params or {}), dict(headers or {}), kind))

    async def get_text(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        kind: RequestKind = "single",
    ) -> str | None:
        body: str | None = await self._answer(
            Call("get_text", path, dict(params or {}), dict(headers or {}), kind)
        )
        return body

    async def get_bytes(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        kind: RequestKind = "fulltext",
    ) -> bytes | None:
        body: bytes | None = await self._answer(
            Call("get_bytes", path, dict(params or {}), dict(headers or {}), kind)
        )
        return body

    async def post_json(
        self,
        path: str,
        *,
        json: Any,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        kind: RequestKind = "batch",
    ) -> Any | None:
        return await self._answer(
            Call("post_json", path, dict(params or {}), dict(headers or {}), kind, json)
        )


def fixture_text(area: str, name: str) -> str:
    return (FIXTURES / area / name).read_text(encoding="utf-8")
