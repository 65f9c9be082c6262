"""The SSRF-safe fetcher: the one place Aletheia reaches a host that a citation names.

Safe by construction (the rules are `web_policy`'s; docs/sources.md, "The web tier"):

- every URL, the cited one and each redirect target, passes `check_url` (http/https, no
  credentials, allowed port) before anything is resolved;
- the host is resolved ONCE per hop (`resolver`), every address it resolved to passes
  `check_addresses`, and the connection goes to that address: the request URL carries the
  address, the `Host` header the name, and TLS the name through httpx's `sni_hostname` request
  extension (httpcore hands it to `ssl.wrap_socket(server_hostname=...)`, so the certificate is
  still checked against the name). A name that answers differently the second time (DNS
  rebinding) is never asked a second time;
- redirects are followed here, by hand, at most `max_redirects`, each hop checked as above;
- HEAD first (unless the body is wanted whatever it is: `fetch(head=False)`, the open-access
  full text), then GET of at most `max_bytes` (streamed, cut at the cap), all of it within
  `timeout` seconds in total; no cookies, no proxies from the environment, nothing kept between
  fetches (one client per fetch: no connection or cookie is shared between arbitrary hosts);
- the web tier is off unless `ALETHEIA_WEB_TIER` is set (the gateway builds no fetcher for it);
  the open-access full text (`open_access.py`) has a fetcher of its own with the same rules.

Errors follow `base`'s tree under the source `web`: a refused URL or address is
`WebRefusedError` (permanent); a name that does not resolve, a refused connection, a timeout is
`TransientSourceError`. An HTTP status, 4xx and 5xx included, is a result (`FetchResult.status`).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import zlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import KW_ONLY, dataclass
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urljoin

import httpx

from aletheia.core.records import SourceName
from aletheia.sources.base import PermanentSourceError, TransientSourceError
from aletheia.sources.web_policy import (
    IPAddress,
    Target,
    WebPolicy,
    WebPolicyError,
    check_addresses,
    check_url,
)

if TYPE_CHECKING:
    from aletheia.config.settings import Settings

SOURCE: Final = SourceName.WEB
DEFAULT_MAX_BYTES: Final = 300_000
DEFAULT_TIMEOUT: Final = 10.0
DEFAULT_MAX_REDIRECTS: Final = 5
DEFAULT_ACCEPT: Final = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"
_REDIRECTS: Final = frozenset({301, 302, 303, 307, 308})

Resolver = Callable[[str, int], Awaitable[Sequence[IPAddress]]]


class WebRefusedError(PermanentSourceError):
    """The URL or an address on the way is refused by the policy (SSRF rules)."""


async def system_resolver(host: str, port: int) -> list[IPAddress]:
    """The host's addresses from the system resolver (one query; the fetcher never asks twice)."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    out: list[IPAddress] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        # An IPv6 sockaddr may carry a zone ("fe80::1%eth0"): the address is what is checked.
        out.append(ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0]))
    return out


@dataclass(frozen=True, slots=True)
class FetchResult:
    """What the page's host answered: the last hop's status and the first `max_bytes` of its body."""

    url: str
    final_url: str
    status: int
    content_type: str | None
    body: bytes
    truncated: bool
    redirects: tuple[str, ...]
    address: str  # the address the last hop connected to

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


@dataclass(frozen=True, slots=True)
class _Pinned:
    target: Target
    address: IPAddress

    def request_url(self) -> httpx.URL:
        # The port too is the one `check_url` checked, whatever httpx's own parse of the URL says.
        return httpx.URL(self.target.url).copy_with(host=str(self.address), port=self.target.port)

    def headers(self) -> dict[str, str]:
        default = 443 if self.target.scheme == "https" else 80
        host = self.target.host if self.target.literal is None else _bracketed(self.target.literal)
        return {"Host": host if self.target.port == default else f"{host}:{self.target.port}"}

    def extensions(self) -> dict[str, str]:
        # SNI carries a name only (an address is not allowed there, RFC 6066 section 3).
        if self.target.scheme == "https" and self.target.literal is None:
            return {"sni_hostname": self.target.host}
        return {}


def _bracketed(address: IPAddress) -> str:
    return f"[{address}]" if address.version == 6 else str(address)


@dataclass(eq=False)
class WebFetcher:
    """Fetch one URL under the policy (see the module docstring). `transport` is for tests."""

    policy: WebPolicy
    _: KW_ONLY
    resolver: Resolver = system_resolver
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout: float = DEFAULT_TIMEOUT
    max_redirects: int = DEFAULT_MAX_REDIRECTS
    user_agent: str = "Aletheia (citation verification)"
    accept: str = DEFAULT_ACCEPT
    transport: httpx.AsyncBaseTransport | None = None

    async def fetch(
        self, url: str, *, on_request: Callable[[], None] | None = None, head: bool = True
    ) -> FetchResult:
        """HEAD, then GET (unless HEAD showed a body that is no page), within `timeout` in total;
        `head=False`: GET only, for a caller that wants the body whatever its type (a PDF).
        `on_request` is called for every HTTP request sent (HEAD, GET and each redirect hop)."""
        try:
            async with asyncio.timeout(self.timeout):
                if not head:
                    async with self._client() as client:
                        return await self._follow(client, "GET", url, {}, on_request or _nothing)
                return await self._fetch(url, on_request or _nothing)
        except TimeoutError:
            raise TransientSourceError(
                SOURCE.value, f"no complete answer within {self.timeout:g} s"
            ) from None

    async def _fetch(self, url: str, on_request: Callable[[], None]) -> FetchResult:
        # One resolution per host for the whole fetch: HEAD and GET reach the same checked address.
        pins: dict[tuple[str, int], IPAddress] = {}
        async with self._client() as client:
            head = await self._follow(client, "HEAD", url, pins, on_request)
            if head.ok and not _may_be_page(head.content_type):
                return head  # a PDF, an image, an archive: it answers, and there is no page to read
            # A HEAD that failed tells little (servers refuse or mishandle HEAD): GET decides.
            start = head.final_url if head.ok else url
            get = await self._follow(client, "GET", start, pins, on_request)
            redirects = head.redirects + get.redirects if head.ok else get.redirects
            return FetchResult(
                url=url,
                final_url=get.final_url,
                status=get.status,
                content_type=get.content_type,
                body=get.body,
                truncated=get.truncated,
                redirects=redirects,
                address=get.address,
            )

    def _client(self) -> httpx.AsyncClient:
        transport = self.transport or httpx.AsyncHTTPTransport(retries=0, trust_env=False)
        return httpx.AsyncClient(
            transport=transport,
            trust_env=False,  # no proxy from the environment: the connection goes where we checked
            follow_redirects=False,
            timeout=httpx.Timeout(self.timeout),
            headers={
                "User-Agent": self.user_agent,
                "Accept": self.accept,
                # Compressed bodies are decoded here under the cap (`_read`), not by httpx.
                "Accept-Encoding": "gzip, deflate, identity",
            },
        )

    async def _pin(self, url: str, pins: dict[tuple[str, int], IPAddress]) -> _Pinned:
        try:
            target = check_url(url, self.policy)
            if target.literal is not None:
                return _Pinned(target, target.literal)
        except WebPolicyError as exc:
            raise WebRefusedError(SOURCE.value, f"refused: {exc}") from None
        pinned = pins.get((target.host, target.port))
        if pinned is not None:
            return _Pinned(target, pinned)
        try:
            addresses = await self.resolver(target.host, target.port)
        except (OSError, UnicodeError) as exc:
            raise TransientSourceError(SOURCE.value, f"{target.host} does not resolve: {exc}") from None
        try:
            address = check_addresses(addresses, self.policy)
        except WebPolicyError as exc:
            raise WebRefusedError(SOURCE.value, f"refused: {target.host}: {exc}") from None
        pins[(target.host, target.port)] = address
        return _Pinned(target, address)

    async def _follow(
        self,
        client: httpx.AsyncClient,
        method: str,
        url: str,
        pins: dict[tuple[str, int], IPAddress],
        on_request: Callable[[], None],
    ) -> FetchResult:
        redirects: list[str] = []
        current = url
        for _hop in range(self.max_redirects + 1):
            pinned = await self._pin(current, pins)
            request = client.build_request(
                method, pinned.request_url(), headers=pinned.headers(), extensions=pinned.extensions()
            )
            on_request()
            try:
                response = await client.send(request, stream=True)
            except httpx.HTTPError as exc:
                raise TransientSourceError(
                    SOURCE.value, f"{type(exc).__name__} at {pinned.target.host}"
                ) from None
            try:
                location = response.headers.get("location")
                if response.status_code in _REDIRECTS and location:
                    redirects.append(current)
                    current = urljoin(current, location.strip())
                    continue
                body, truncated = (b"", False) if method == "HEAD" else await self._read(response)
            except httpx.HTTPError as exc:
                raise TransientSourceError(
                    SOURCE.value, f"{type(exc).__name__} reading {pinned.target.host}"
                ) from None
            finally:
                await response.aclose()
            return FetchResult(
                url=url,
                final_url=current,
                status=response.status_code,
                content_type=response.headers.get("content-type"),
                body=body,
                truncated=truncated,
                redirects=tuple(redirects),
                address=str(pinned.address),
            )
        raise WebRefusedError(SOURCE.value, f"refused: more than {self.max_redirects} redirects")

    async def _read(self, response: httpx.Response) -> tuple[bytes, bool]:
        """At most `max_bytes` of the body, decoded; the rest is never read.

        The raw bytes are read (`aiter_raw`) and a gzip or deflate body is inflated here with an
        output bound, so a small compressed answer cannot expand past the cap in memory (httpx's
        own decoder inflates a whole network chunk at once). Any other encoding is not read."""
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
            return b"", True
        inflate = None if encoding in ("", "identity") else zlib.decompressobj(wbits=47)  # gzip or zlib
        chunks: list[bytes] = []
        size = 0
        async for raw in response.aiter_raw():
            chunk = raw if inflate is None else _inflate(inflate, raw, self.max_bytes - size)
            room = self.max_bytes - size
            if len(chunk) >= room or (inflate is not None and inflate.unconsumed_tail):
                chunks.append(chunk[:room])
                return b"".join(chunks), True
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks), False


def _inflate(inflate: Any, data: bytes, room: int) -> bytes:
    try:
        return bytes(inflate.decompress(data, max(1, room)))
    except zlib.error:
        return b""


def _nothing() -> None:
    return None


def _may_be_page(content_type: str | None) -> bool:
    if not content_type:
        return True
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind == "application/xhtml+xml" or kind.startswith("text/")


def fetcher_from_settings(settings: Settings, *, user_agent: str) -> WebFetcher:
    """The fetcher the settings describe (`ALETHEIA_WEB_TIER_*`)."""
    return WebFetcher(
        WebPolicy.from_strings(settings.web_tier_ports, settings.web_tier_allow_networks),
        max_bytes=settings.web_tier_max_bytes,
        timeout=settings.web_tier_timeout_seconds,
        max_redirects=settings.web_tier_max_redirects,
        user_agent=user_agent,
    )
