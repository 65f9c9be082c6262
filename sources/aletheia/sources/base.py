"""What every source client shares: fetched records with their raw payload, the error tree,
the transport and cache interfaces.

Error tree (the queue maps each class onto what to do):

    SourceError                      base; picklable (a Celery task may raise it)
    ├── TransientSourceError         5xx, timeouts, resets, malformed bodies: retry with backoff
    │   └── RateLimitedError         429: retry after `retry_after` seconds, slow the bucket
    ├── PermanentSourceError         4xx other than 404/429: fail fast, record the status
    │   └── SourceParseError         a body we cannot read as the documented shape
    └── SourceUnavailableError       circuit open, source turned off, offline: do not call at all

"Not found" is never an exception: a client returns `None` (and caches that negative answer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

from aletheia.core.errors import AletheiaError
from aletheia.core.records import SourceName, WorkRecord

# `venue`: a venue registry's search or entry (issue 21), paced with the source's searches and
# counted apart in the request figures (`requests_venue`).
RequestKind = Literal["single", "search", "batch", "fulltext", "venue"]


class SourceError(AletheiaError):
    """Base of every error a source client raises. Picklable: args carry all state."""

    def __init__(self, source: str, detail: str, status_code: int | None = None) -> None:
        super().__init__(source, detail, status_code)
        self.source = source
        self.detail = detail
        self.status_code = status_code

    def __str__(self) -> str:
        code = f" (HTTP {self.status_code})" if self.status_code is not None else ""
        return f"{self.source}: {self.detail}{code}"


class TransientSourceError(SourceError):
    """Worth retrying later: the source may answer next time."""


class RateLimitedError(TransientSourceError):
    """The source said 429, or our own global bucket has no token for now."""

    def __init__(
        self, source: str, detail: str, status_code: int | None = 429, retry_after: float | None = None
    ) -> None:
        SourceError.__init__(self, source, detail, status_code)
        self.args = (source, detail, status_code, retry_after)
        self.retry_after = retry_after


class PermanentSourceError(SourceError):
    """Retrying will not help (400, 401, 403, 410, ...)."""


class SourceParseError(PermanentSourceError):
    """The body is not the documented shape."""


class SourceUnavailableError(SourceError):
    """The source is not to be called now: circuit open, turned off in settings, or offline."""


@dataclass(frozen=True)
class SourceRecord:
    """A parsed record with the exact payload it was parsed from, so every decision can be replayed."""

    record: WorkRecord
    raw: Any
    fetched_at: datetime
    url: str | None = None
    from_cache: bool = False

    @property
    def source(self) -> SourceName:
        return self.record.source


@dataclass(frozen=True)
class CachedRaw:
    """A cached answer: `found=False` is a negative entry (the source said it has no such work)."""

    raw: Any
    fetched_at: datetime
    found: bool
    url: str | None = None


class RawCache(Protocol):
    """Cache of raw payloads keyed by (source, canonical identifier), with positive and negative TTLs."""

    async def get(self, source: str, key: str) -> CachedRaw | None: ...

    async def put(self, source: str, key: str, raw: Any, *, found: bool, url: str | None = None) -> None: ...


@dataclass
class SourceStats:
    """Counters per source for the report summary: requests, errors, and the source's state.

    Counted through `transport.item_stats.count` / `count_extra`, which also count them for the
    reference being verified when `source` names the source (the queued job's per-reference
    counters)."""

    requests: int = 0
    errors: int = 0
    rate_limited: int = 0
    cache_hits: int = 0
    status: str = "ok"  # ok | degraded | unavailable | disabled
    last_error: str | None = None
    extra: dict[str, int] = field(default_factory=dict)
    source: str | None = field(default=None, compare=False)


# How a body is read (`Transport.call`): decoded JSON, text, or the bytes as they came.
BodyKind = Literal["json", "text", "bytes"]


class Transport(Protocol):
    """Polite HTTP to one source (implemented by `aletheia.sources.transport.polite.PoliteTransport`).

    `path` is appended to the source's configured base URL (`{base}{path}`). Every call waits for
    a token of the source's global bucket (`kind` picks the bucket: searches have a lower rate on
    Crossref), holds a slot of the source's concurrency cap, retries transient failures with full
    jitter within bounded attempts, honours `Retry-After`, and trips the source's circuit breaker.
    A 404 returns None (not found is a result); other failures raise the error tree above.

    The four calls clients make are `call` with a method and a way to read the body: an
    implementation writes `call` and inherits them.
    """

    source: SourceName
    base_url: str
    stats: SourceStats

    async def call(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None,
        headers: dict[str, str] | None,
        kind: RequestKind,
        body: BodyKind,
        json: Any = None,
    ) -> Any | None: ...

    async def get_json(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        kind: RequestKind = "single",
    ) -> Any | None:
        return await self.call("GET", path, params=params, headers=headers, kind=kind, body="json")

    async def get_text(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        kind: RequestKind = "single",
    ) -> str | None:
        return await self.call("GET", path, params=params, headers=headers, kind=kind, body="text")

    async def get_bytes(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        kind: RequestKind = "fulltext",
    ) -> bytes | None:
        return await self.call("GET", path, params=params, headers=headers, kind=kind, body="bytes")

    async def post_json(
        self,
        path: str,
        *,
        json: Any,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        kind: RequestKind = "batch",
    ) -> Any | None:
        return await self.call(
            "POST", path, params=params, headers=headers, kind=kind, body="json", json=json
        )
