"""The polite transport to one source as every client builds it, from settings.

Kept apart from `aletheia.sources.base` (the contract every client and the transport share) so
that the contract imports nothing of the transport that implements it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from aletheia.core.records import SourceName
from aletheia.sources.transport.breaker import CircuitBreaker
from aletheia.sources.transport.polite import PoliteTransport

if TYPE_CHECKING:
    import httpx

    from aletheia.config.settings import Settings
    from aletheia.sources.transport.limiter import RateLimiter

__all__ = ["TransportFactory", "contact_headers", "source_transport", "transport_from_settings"]

# What a source's etiquette asks every request to carry, read from settings (None: nothing).
SettingsPart = Callable[["Settings"], "dict[str, str] | None"]


class TransportFactory(Protocol):
    """A source's `<source>_transport(http, settings, limiter, breaker=None)`."""

    def __call__(
        self,
        http: httpx.AsyncClient,
        settings: Settings,
        limiter: RateLimiter,
        breaker: CircuitBreaker | None = None,
    ) -> PoliteTransport: ...


def contact_headers(settings: Settings) -> dict[str, str]:
    """The User-Agent naming Aletheia and the contact address (`settings.mailto`), as the scholarly
    indexes ask of scripts (Crossref's and OpenAlex's polite pools read the address)."""
    from aletheia.sources.transport.user_agent import user_agent

    return {"User-Agent": user_agent(settings.mailto)}


def source_transport(
    source: SourceName | str,
    *,
    url_setting: str | None = None,
    headers: SettingsPart | None = None,
    params: SettingsPart | None = None,
) -> TransportFactory:
    """The `<source>_transport` of a client module: `transport_from_settings` at the base URL of
    the `url_setting` field (by default `<source>_url`), every request carrying the `headers` and
    query `params` the source's etiquette asks for, read from settings when the transport is built."""

    def build(
        http: httpx.AsyncClient,
        settings: Settings,
        limiter: RateLimiter,
        breaker: CircuitBreaker | None = None,
    ) -> PoliteTransport:
        return transport_from_settings(
            source,
            http,
            settings,
            limiter,
            breaker,
            base_url=getattr(settings, url_setting) if url_setting is not None else None,
            headers=headers(settings) if headers is not None else None,
            default_params=params(settings) if params is not None else None,
        )

    return build


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
