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
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Final

from aletheia.core.records import SourceName
from aletheia.sources.base import PermanentSourceError, SourceRecord, SourceStats, SourceUnavailableError
from aletheia.sources.web_fetch import FetchResult, WebFetcher, fetcher_from_settings
from aletheia.sources.web_parse import parse_web_page

if TYPE_CHECKING:
    from aletheia.config.settings import Settings, SourceLimits
    from aletheia.sources.ratelimit import RateLimiter

SOURCE: Final = SourceName.WEB
GONE: Final = frozenset({404, 410})


class WebPageClient:
    def __init__(
        self,
        fetcher: WebFetcher,
        limiter: RateLimiter,
        limits: SourceLimits,
        *,
        enabled: bool = True,
        why_disabled: str = "the web tier is off (ALETHEIA_WEB_TIER)",
    ) -> None:
        self.fetcher = fetcher
        self.limiter = limiter
        self.limits = limits
        self.enabled = enabled
        self.why_disabled = why_disabled
        self.stats = SourceStats(status="ok" if enabled else "disabled")

    async def check(self, url: str) -> SourceRecord | None:
        """The page at `url`, or None when it is gone; see the module docstring for failures."""
        if not self.enabled:
            raise SourceUnavailableError(SOURCE.value, self.why_disabled)
        async with self.limiter.slot(SOURCE.value, max(1, self.limits.concurrency)):
            await self.limiter.acquire(
                f"{SOURCE.value}:single", self.limits.rate, self.limits.burst, max_wait=self.fetcher.timeout
            )
            try:
                result = await self.fetcher.fetch(url, on_request=self._count)
            except Exception as exc:
                self.stats.errors += 1
                self.stats.last_error = str(exc)
                raise
        return self._answer(result)

    def _count(self) -> None:
        """One HTTP request sent (HEAD, GET, a redirect hop): the report's request figures."""
        self.stats.requests += 1
        self.stats.extra["requests_lookup"] = self.stats.extra.get("requests_lookup", 0) + 1

    def _answer(self, result: FetchResult) -> SourceRecord | None:
        if result.status in GONE:
            return None
        if not result.ok:
            self.stats.errors += 1
            raise PermanentSourceError(
                SOURCE.value, f"{result.final_url} answered HTTP {result.status}", result.status
            )
        record, raw = parse_web_page(
            url=result.url,
            final_url=result.final_url,
            status=result.status,
            content_type=result.content_type,
            body=result.body,
        )
        raw.update(redirects=list(result.redirects), address=result.address, truncated=result.truncated)
        return SourceRecord(record=record, raw=raw, fetched_at=datetime.now(UTC), url=result.final_url)


def web_client_from_settings(settings: Settings, limiter: RateLimiter, *, user_agent: str) -> WebPageClient:
    """The tier as the settings say: off unless `ALETHEIA_WEB_TIER`, and off when offline."""
    enabled = settings.web_tier and not settings.offline and SOURCE.value not in settings.disabled
    why = (
        "the web tier is off (ALETHEIA_WEB_TIER)"
        if not settings.web_tier
        else "offline"
        if settings.offline
        else "turned off (ALETHEIA_DISABLED_SOURCES)"
    )
    return WebPageClient(
        fetcher_from_settings(settings, user_agent=user_agent),
        limiter,
        settings.limits_for(SOURCE.value),
        enabled=enabled,
        why_disabled=why,
    )
