"""What a `SourceGateway` shares with the groups of clients built outside its module (`TierSources`,
`CsSources`): one HTTP client, limiter, set of breakers and cache, and the clients' transports
handed back for the gateway's stats, so that their requests are counted like any other source's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from aletheia.sources.base import PermanentSourceError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    import httpx

    from aletheia.config import Settings
    from aletheia.core.records import SourceName
    from aletheia.sources.base import RawCache, Transport
    from aletheia.sources.transport.breaker import CircuitBreaker
    from aletheia.sources.transport.limiter import RateLimiter
    from aletheia.sources.transport.polite import PoliteTransport

    # A client module's `<source>_transport(http, settings, limiter, breaker)`.
    TransportFactory = Callable[[httpx.AsyncClient, Settings, RateLimiter, CircuitBreaker | None], Any]


class SourceClient(Protocol):
    """A client of one source on one transport."""

    @property
    def source(self) -> SourceName: ...

    @property
    def transport(self) -> Transport: ...


C = TypeVar("C")


@dataclass(frozen=True)
class GatewayParts:
    settings: Settings
    http: httpx.AsyncClient
    limiter: RateLimiter
    breakers: Mapping[SourceName, CircuitBreaker]
    cache: RawCache | None

    def client(self, make: Callable[..., C], transport: TransportFactory, source: SourceName) -> C:
        """`make(transport, cache=...)`: a client on the source's transport, with the gateway's
        breaker for that source (one of its own when the gateway has none) and the shared cache."""
        breaker = self.breakers.get(source)
        return make(transport(self.http, self.settings, self.limiter, breaker), cache=self.cache)


def transports_of(*clients: SourceClient) -> dict[SourceName, PoliteTransport]:
    """Each client's transport by its source (built as `PoliteTransport`s by `GatewayParts.client`)."""
    return {client.source: cast("PoliteTransport", client.transport) for client in clients}


def searchable(source: SourceName, call: Callable[[], Awaitable[C]]) -> Callable[[], Awaitable[C]]:
    """A client refuses (ValueError) a title with no searchable word for it: that source could not
    be asked, which is a failed answer (the verdict stays unverifiable), never a "no such work"."""

    async def run() -> C:
        try:
            return await call()
        except ValueError as exc:
            raise PermanentSourceError(source.value, f"no searchable query: {exc}") from None

    return run
