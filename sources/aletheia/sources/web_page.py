"""The web tier's client: fetch a cited URL (through `WebFetcher`, the SSRF-safe fetcher) under the
global limiter, and turn the answer into a page record (`web_parse`).

Answers, for the evidence gatherer: a `SourceRecord` of the page when it answered 2xx; None when
the page is gone (404, 410: "not found" is a result); `PermanentSourceError` for another 4xx or 5xx,
`WebRefusedError` for a URL or address the policy refuses, `TransientSourceError` for a name that
does not resolve, a refused connection or a timeout. The fetch is not retried: a page that does not
answer now leaves the reference `unverifiable`, which a later run may change.

Every fetch of any host draws from one bucket `web:single` (`ALETHEIA_WEB_LIMITS`) and holds a
slot of the tier's concurrency cap, like any other source; every HTTP request it sends (HEAD, GET,
each redirect hop) is counted in the tier's `requests`.

An HTTP answer is cached (the raw cache, source `web`, key `url:<SHA-1 of the cited URL>`): the
status, the final URL, the redirect chain, the page's titles and the archive date, never the body,
so a second run of the same file sends no request. A 2xx answer is reused for
`ALETHEIA_WEB_TIER_CACHE_TTL_SECONDS`, any other status (a page gone, a 5xx) only for
`ALETHEIA_WEB_TIER_FAILURE_CACHE_TTL_SECONDS`: pages come back. A fetch that got no HTTP answer (a
timeout, a name that does not resolve, a refused address) is not cached.
"""

from __future__ import annotations

import hashlib
from dataclasses import KW_ONLY, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from aletheia.core.records import SourceName
from aletheia.sources.base import PermanentSourceError, SourceRecord, SourceStats, SourceUnavailableError
from aletheia.sources.transport.item_stats import count, count_extra
from aletheia.sources.web_fetch import FetchResult, WebFetcher, fetcher_from_settings
from aletheia.sources.web_parse import page_record, parse_web_page

if TYPE_CHECKING:
    from aletheia.config.settings import Settings, SourceLimits
    from aletheia.sources.base import RawCache
    from aletheia.sources.transport.limiter import RateLimiter

SOURCE: Final = SourceName.WEB
GONE: Final = frozenset({404, 410})


@dataclass(eq=False)
class WebPageClient:
    """`fetcher` None: the tier is off (nothing about it was read from the settings)."""

    fetcher: WebFetcher | None
    limiter: RateLimiter
    limits: SourceLimits
    _: KW_ONLY
    cache: RawCache | None = None
    ttl_seconds: float = 7 * 24 * 3600
    failure_ttl_seconds: float = 3600
    enabled: bool = True
    why_disabled: str = "the web tier is off (ALETHEIA_WEB_TIER)"
    stats: SourceStats = field(init=False)

    def __post_init__(self) -> None:
        self.enabled = self.enabled and self.fetcher is not None
        self.stats = SourceStats(status="ok" if self.enabled else "disabled", source=SOURCE.value)

    async def check(self, url: str) -> SourceRecord | None:
        """The page at `url`, or None when it is gone; see the module docstring for failures."""
        if not self.enabled or self.fetcher is None:
            raise SourceUnavailableError(SOURCE.value, self.why_disabled)
        key = page_cache_key(url)
        cached = await self._cached(key)
        if cached is not None:
            return cached.answer(self.stats)
        async with self.limiter.slot(SOURCE.value, max(1, self.limits.concurrency)):
            await self.limiter.acquire(
                f"{SOURCE.value}:single", self.limits.rate, self.limits.burst, max_wait=self.fetcher.timeout
            )
            try:
                result = await self.fetcher.fetch(url, on_request=self._count)
            except Exception as exc:
                count(self.stats, "errors")
                self.stats.last_error = str(exc)
                raise
        answer = _Answer(_raw_of(result), datetime.now(UTC), from_cache=False)
        if self.cache is not None:
            await self.cache.put(SOURCE.value, key, answer.raw, found=answer.ok, url=result.final_url)
        return answer.answer(self.stats)

    async def _cached(self, key: str) -> _Answer | None:
        """The cached answer, unless it is older than its TTL (failures expire sooner)."""
        if self.cache is None:
            return None
        entry = await self.cache.get(SOURCE.value, key)
        if entry is None or not isinstance(entry.raw, dict) or not isinstance(entry.raw.get("status"), int):
            return None
        fetched_at = entry.fetched_at if entry.fetched_at.tzinfo else entry.fetched_at.replace(tzinfo=UTC)
        answer = _Answer(entry.raw, fetched_at, from_cache=True)
        ttl = self.ttl_seconds if answer.ok else self.failure_ttl_seconds
        if (datetime.now(UTC) - fetched_at).total_seconds() >= ttl:
            return None
        count(self.stats, "cache_hits")
        return answer

    def _count(self) -> None:
        """One HTTP request sent (HEAD, GET, a redirect hop): the report's request figures."""
        count(self.stats, "requests")
        count_extra(self.stats, "requests_lookup")


def page_cache_key(url: str) -> str:
    """The cache key of a cited URL, hashed: a URL may be longer than a key may be."""
    return f"url:{hashlib.sha1(url.encode('utf-8'), usedforsecurity=False).hexdigest()}"


def _raw_of(result: FetchResult) -> dict[str, Any]:
    _record, raw = parse_web_page(
        url=result.url,
        final_url=result.final_url,
        status=result.status,
        content_type=result.content_type,
        body=result.body,
    )
    raw.update(redirects=list(result.redirects), address=result.address, truncated=result.truncated)
    return raw


class _Answer:
    """One HTTP answer's raw payload (fresh or cached) and what the client returns for it."""

    def __init__(self, raw: dict[str, Any], fetched_at: datetime, *, from_cache: bool) -> None:
        self.raw = raw
        self.fetched_at = fetched_at
        self.from_cache = from_cache
        self.status: int = raw["status"]

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def answer(self, stats: SourceStats) -> SourceRecord | None:
        if self.status in GONE:
            return None
        final_url = str(self.raw.get("final_url") or self.raw.get("url") or "")
        if not self.ok:
            count(stats, "errors")
            raise PermanentSourceError(SOURCE.value, f"{final_url} answered HTTP {self.status}", self.status)
        return SourceRecord(
            record=page_record(self.raw),
            raw=self.raw,
            fetched_at=self.fetched_at,
            url=final_url,
            from_cache=self.from_cache,
        )


def web_client_from_settings(
    settings: Settings, limiter: RateLimiter, *, user_agent: str, cache: RawCache | None = None
) -> WebPageClient:
    """The tier as the settings say: off unless `ALETHEIA_WEB_TIER`, and off when offline. Off,
    no fetcher is built and the tier's address settings are never read."""
    enabled = settings.web_tier and not settings.offline and SOURCE.value not in settings.disabled
    why = (
        "the web tier is off (ALETHEIA_WEB_TIER)"
        if not settings.web_tier
        else "offline"
        if settings.offline
        else "turned off (ALETHEIA_DISABLED_SOURCES)"
    )
    return WebPageClient(
        fetcher_from_settings(settings, user_agent=user_agent) if enabled else None,
        limiter,
        settings.limits_for(SOURCE.value),
        cache=cache,
        ttl_seconds=settings.web_tier_cache_ttl_seconds,
        failure_ttl_seconds=settings.web_tier_failure_cache_ttl_seconds,
        enabled=enabled,
        why_disabled=why,
    )
