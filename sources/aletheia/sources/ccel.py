"""CCEL, the Christian Classics Ethereal Library (Tier 3): one section page of a work.

`{base}{path}`, the path from the table of canonical works (`core/data/canonical_works.json`,
e.g. `/ccel/augustine/confess.x.xxvii.html` for Confessions 10.27); 404 is "no such section".
One request per second by default (`ALETHEIA_CCEL_LIMITS`); none is documented. Pure parser:
`canonical_parse`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from aletheia.core.records import SourceName, WorkRecord
from aletheia.sources.base import RawCache, SourceRecord, Transport
from aletheia.sources.cache import cache_key, read_cached
from aletheia.sources.canonical_parse import parse_ccel_page

if TYPE_CHECKING:
    import httpx

    from aletheia.config.settings import Settings
    from aletheia.sources.breaker import CircuitBreaker
    from aletheia.sources.ratelimit import RateLimiter
    from aletheia.sources.transport import PoliteTransport

SOURCE: Final = SourceName.CCEL


class CcelClient:
    source: Final = SOURCE

    def __init__(self, transport: Transport, *, cache: RawCache | None = None) -> None:
        self.transport = transport
        self.cache = cache

    async def page(self, path: str) -> SourceRecord | None:
        """The text of the section page at `path` (starting with `/`), or None when there is none."""
        if not path.startswith("/") or ".." in path or "?" in path or "#" in path:
            raise ValueError(f"not a CCEL path: {path!r}")
        key = cache_key("ccel", path)
        url = f"{self.transport.base_url}{path}"

        def parse(raw: Any) -> WorkRecord:
            record = parse_ccel_page(str(raw), path=path, url=url)
            if record is None:
                raise ValueError("cached CCEL page without text")
            return record

        hit, cached = await read_cached(self.cache, SOURCE, key, self.transport.stats, parse)
        if hit:
            return cached
        body = await self.transport.get_text(path, kind="single")
        record = parse_ccel_page(body, path=path, url=url) if body is not None else None
        if self.cache is not None:
            await self.cache.put(SOURCE, key, body if record else None, found=record is not None, url=url)
        return None if record is None else SourceRecord(record, body, datetime.now(UTC), url)


def ccel_transport(
    http: httpx.AsyncClient, settings: Settings, limiter: RateLimiter, breaker: CircuitBreaker | None = None
) -> PoliteTransport:
    from aletheia.sources.breaker import CircuitBreaker
    from aletheia.sources.crossref import polite_user_agent
    from aletheia.sources.transport import PoliteTransport

    return PoliteTransport(
        SOURCE,
        http,
        base_url=settings.ccel_url,
        limits=settings.limits_for(SOURCE.value),
        limiter=limiter,
        breaker=breaker if breaker is not None else CircuitBreaker.from_settings(SOURCE.value, settings),
        headers={"User-Agent": polite_user_agent(settings.mailto)},
        attempts=settings.http_attempts,
        timeout=settings.http_timeout,
        enabled=not settings.offline and SOURCE.value not in settings.disabled,
    )
