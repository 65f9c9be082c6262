"""One call of the polite transport: its fixed parts (`Request`, shared by its attempts), how its
answer's body is read, how it is shown in an error (secrets redacted) and how it is counted.
"""

from __future__ import annotations

import json as jsonlib
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from aletheia.sources.base import RequestKind
from aletheia.sources.transport.redaction import redact_text, redact_url

__all__ = [
    "Request",
    "exception_text",
    "is_name_resolution_failure",
    "read_bytes",
    "read_json",
    "read_text",
    "reported_kind",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """One call's fixed parts, shared by its attempts."""

    method: str
    url: str
    params: dict[str, Any]
    headers: dict[str, str]
    json_body: Any
    kind: RequestKind
    secrets: tuple[str, ...]

    def describe(self, what: str) -> str:
        """`METHOD URL: what`, with API keys redacted from the URL and secrets from the text."""
        try:
            shown = redact_url(httpx.URL(self.url, params=self.params))
        except (httpx.InvalidURL, TypeError, ValueError):
            shown = self.url
        return redact_text(f"{self.method} {shown}: {what}", self.secrets)


def reported_kind(kind: RequestKind, params: Mapping[str, Any] | None) -> str:
    """A request's kind as reported (`stats.extra["requests_<kind>"]`, one per request sent,
    retries included): `single` is a lookup; Crossref's `filter=doi:a,doi:b` list query is a batch
    of lookups even though it draws from the search bucket."""
    if kind == "single":
        return "lookup"
    if kind == "search" and params and str(params.get("filter", "")).startswith("doi:"):
        return "batch"
    return kind


def is_name_resolution_failure(exc: BaseException) -> bool:
    """The host did not resolve (a `socket.gaierror` under httpx's and httpcore's errors)."""
    seen: BaseException | None = exc
    for _ in range(6):  # httpx -> httpcore -> socket.gaierror
        if seen is None:
            return False
        if isinstance(seen, socket.gaierror):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def exception_text(exc: Exception) -> str:
    message = str(exc).strip()
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def read_json(response: httpx.Response) -> Any:
    return jsonlib.loads(response.content)


def read_text(response: httpx.Response) -> str:
    return response.text


def read_bytes(response: httpx.Response) -> bytes:
    return response.content
