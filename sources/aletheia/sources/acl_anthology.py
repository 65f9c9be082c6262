"""The ACL Anthology: NLP papers by anthology id (`2023.acl-long.123`, `P19-1001`).

Endpoint (`{ALETHEIA_ACL_ANTHOLOGY_URL}`, default https://aclanthology.org): `/{id}.bib`, the
BibTeX export every paper page links to ("Cite" -> BibTeX); a 404 means no such paper. The
anthology is a static site with no search API, so it is asked only for an id the citation gives
(an aclanthology.org / aclweb.org URL: `core.acl_ids`), never searched. It documents no rate
limit: one request per second, one at a time (`ALETHEIA_ACL_ANTHOLOGY_LIMITS`), as a courtesy.
Answers are cached by id, negative ones too. The pure parser is in `acl_anthology_parse`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from aletheia.core.acl_ids import clean_acl_id
from aletheia.core.records import SourceName, WorkRecord
from aletheia.sources.acl_anthology_parse import parse_acl_bibtex
from aletheia.sources.base import RawCache, SourceParseError, SourceRecord, Transport
from aletheia.sources.cache import cache_key, read_cached

if TYPE_CHECKING:
    import httpx

    from aletheia.config.settings import Settings
    from aletheia.sources.breaker import CircuitBreaker
    from aletheia.sources.ratelimit import RateLimiter
    from aletheia.sources.transport import PoliteTransport

__all__ = ["AclAnthologyClient", "acl_anthology_transport", "parse_acl_bibtex"]

SOURCE: Final = SourceName.ACL_ANTHOLOGY


class AclAnthologyClient:
    """Papers of the ACL Anthology by id."""

    source: Final = SOURCE

    def __init__(self, transport: Transport, *, cache: RawCache | None = None) -> None:
        self.transport = transport
        self.cache = cache

    @classmethod
    def from_settings(
        cls,
        http: httpx.AsyncClient,
        settings: Settings,
        limiter: RateLimiter,
        *,
        cache: RawCache | None = None,
        breaker: CircuitBreaker | None = None,
    ) -> AclAnthologyClient:
        return cls(acl_anthology_transport(http, settings, limiter, breaker), cache=cache)

    async def by_id(self, anthology_id: str) -> SourceRecord | None:
        """The paper an anthology id names, or None when the anthology has none (cached either
        way). ValueError when `anthology_id` is not an anthology id."""
        ident = clean_acl_id(anthology_id)
        if ident is None:
            raise ValueError(f"not an ACL Anthology id: {anthology_id!r}")
        key = cache_key("acl", ident)
        path = f"/{ident}.bib"
        url = f"{self.transport.base_url.rstrip('/')}{path}"

        def parse(raw: Any) -> WorkRecord:
            if not isinstance(raw, str):
                raise SourceParseError(SOURCE.value, "an ACL Anthology record is BibTeX text")
            return parse_acl_bibtex(raw, ident)

        hit, cached = await read_cached(self.cache, SOURCE, key, self.transport.stats, parse)
        if hit:
            return cached
        text = await self.transport.get_text(path, kind="single")
        # Parsed before it is cached: a body we cannot read must not be served again from cache.
        record = parse(text) if text is not None else None
        if self.cache is not None:
            await self.cache.put(SOURCE.value, key, text, found=text is not None, url=url)
        if record is None:
            return None
        return SourceRecord(record, text, datetime.now(UTC), url)


def acl_anthology_transport(
    http: httpx.AsyncClient,
    settings: Settings,
    limiter: RateLimiter,
    breaker: CircuitBreaker | None = None,
) -> PoliteTransport:
    """The polite transport to the ACL Anthology, from settings."""
    from aletheia.sources.breaker import CircuitBreaker
    from aletheia.sources.crossref import polite_user_agent
    from aletheia.sources.transport import PoliteTransport

    return PoliteTransport(
        SOURCE,
        http,
        base_url=settings.acl_anthology_url,
        limits=settings.limits_for(SOURCE.value),
        limiter=limiter,
        breaker=breaker if breaker is not None else CircuitBreaker.from_settings(SOURCE.value, settings),
        headers={"User-Agent": polite_user_agent(settings.mailto)},
        attempts=settings.http_attempts,
        timeout=settings.http_timeout,
        enabled=not settings.offline and SOURCE.value not in settings.disabled,
    )
