"""The polite transport to one source as every client builds it, from settings.

Kept apart from `aletheia.sources.base` (the contract every client and the transport share) so
that the contract imports nothing of the transport that implements it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aletheia.core.records import SourceName
from aletheia.sources.transport.breaker import CircuitBreaker
from aletheia.sources.transport.polite import PoliteTransport

if TYPE_CHECKING:
    import httpx

    from aletheia.config.settings import Settings
    from aletheia.sources.transport.limiter import RateLimiter

__all__ = ["transport_from_settings"]


def transport_from_settings(
    source: SourceName | str,
    http: httpx.AsyncClient,
    settings: Settings,
    limiter: RateLimiter,
    breaker: CircuitBreaker | None = None,
    *,
    base_url: str | None = None,
    headers: dict[str, str] | None = None,
    default_params: dict[str, str] | None = None,
) -> PoliteTransport:
    """The polite transport to `source` as every client's `<source>_transport` builds it: limits,
    attempts, timeout and on/off from settings, at `base_url` (by default the `<source>_url`
    setting), with the source's own headers or query parameters. `breaker` is the caller's when it
    shares one (the gateway holds one per source, and arXiv's two transports share theirs); without
    it the transport has a breaker of its own from settings."""
    name = SourceName(source)
    return PoliteTransport(
        name,
        http,
        base_url=base_url if base_url is not None else getattr(settings, f"{name.value}_url"),
        limits=settings.limits_for(name.value),
        limiter=limiter,
        breaker=breaker if breaker is not None else CircuitBreaker.from_settings(name.value, settings),
        headers=headers,
        default_params=default_params,
        attempts=settings.http_attempts,
        timeout=settings.http_timeout,
        enabled=not settings.offline and name.value not in settings.disabled,
    )
