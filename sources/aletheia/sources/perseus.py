"""Perseus (Tier 3, Greek and Latin texts) through its Canonical Text Services API.

`{base}/api/cts?request=GetPassage&urn={urn}:{passage}` (the CTS protocol's GetPassage; Perseus'
Scaife CTS endpoint by default, `ALETHEIA_PERSEUS_URL`). A CTS error naming an invalid URN or
passage, or a 404, is "no such passage": an answer, cached as one. One request per second by
default (`ALETHEIA_PERSEUS_LIMITS`); none is documented. Pure parser: `canonical_parse`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from aletheia.core.records import SourceName, WorkRecord
from aletheia.sources.base import RawCache, SourceRecord, Transport
from aletheia.sources.cache import cache_key, read_cached
from aletheia.sources.canonical_parse import parse_cts_passage

if TYPE_CHECKING:
    import httpx

    from aletheia.config.settings import Settings
    from aletheia.sources.breaker import CircuitBreaker
    from aletheia.sources.ratelimit import RateLimiter
    from aletheia.sources.transport import PoliteTransport

SOURCE: Final = SourceName.PERSEUS
CTS_PATH: Final = "/api/cts"


class PerseusClient:
    source: Final = SOURCE

    def __init__(self, transport: Transport, *, cache: RawCache | None = None) -> None:
        self.transport = transport
        self.cache = cache

    def _url(self, urn: str) -> str:
        return f"{self.transport.base_url}{CTS_PATH}?request=GetPassage&urn={urn}"

    async def passage(self, urn: str) -> SourceRecord | None:
        """The passage a CTS URN names (`urn:cts:greekLit:tlg0012.tlg001.perseus-grc2:1.1`), or None."""
        if not urn.startswith("urn:cts:"):
            raise ValueError(f"not a CTS URN: {urn!r}")
        key = cache_key("cts", urn)
        url = self._url(urn)

        def parse(raw: Any) -> WorkRecord:
            record = parse_cts_passage(str(raw), url=url)
            if record is None:  # a cached positive entry always held a passage
                raise ValueError("cached CTS reply without a passage")
            return record

        hit, cached = await read_cached(self.cache, SOURCE, key, self.transport.stats, parse)
        if hit:
            return cached
        params = {"request": "GetPassage", "urn": urn}
        body = await self.transport.get_text(CTS_PATH, params=params, kind="single")
        record = parse_cts_passage(body, url=url) if body is not None else None
        if self.cache is not None:
            await self.cache.put(SOURCE, key, body if record else None, found=record is not None, url=url)
        return None if record is None else SourceRecord(record, body, datetime.now(UTC), url)


def perseus_transport(
    http: httpx.AsyncClient, settings: Settings, limiter: RateLimiter, breaker: CircuitBreaker | None = None
) -> PoliteTransport:
    from aletheia.sources.breaker import CircuitBreaker
    from aletheia.sources.crossref import polite_user_agent
    from aletheia.sources.transport import PoliteTransport

    return PoliteTransport(
        SOURCE,
        http,
        base_url=settings.perseus_url,
        limits=settings.limits_for(SOURCE.value),
        limiter=limiter,
        breaker=breaker if breaker is not None else CircuitBreaker.from_settings(SOURCE.value, settings),
        headers={"User-Agent": polite_user_agent(settings.mailto)},
        attempts=settings.http_attempts,
        timeout=settings.http_timeout,
        enabled=not settings.offline and SOURCE.value not in settings.disabled,
    )
