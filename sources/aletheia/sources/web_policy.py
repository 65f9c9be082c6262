"""Which URLs and addresses the web tier may reach: a pure policy, no I/O (docs/sources.md).

The web fetcher (`web_fetch`) is the one place that reaches hosts a user names, so it must not
become a way into the service's own network (SSRF). This module says what is allowed; the fetcher
resolves each host once, asks `check_address` about every address the name resolved to, and
connects to the address it checked (never resolving again), for the cited URL and for every
redirect.

Refused, IPv4 and IPv6 alike: private, loopback, link-local, multicast, reserved, unspecified,
shared address space (CGNAT, 100.64.0.0/10), benchmarking and documentation ranges (anything
`ipaddress` does not call global), unique-local fc00::/7, site-local fec0::/10, every IPv4-mapped
IPv6 address (::ffff:a.b.c.d), IPv4-compatible ::a.b.c.d, and 6to4 (2002::/16), Teredo
(2001::/32) and NAT64 (64:ff9b::/96) addresses whose embedded IPv4 address is refused; the cloud
metadata addresses (169.254.169.254, fd00:ec2::254) always, even inside the allow-list.

URLs: http and https only, no user name or password, a host, a port from the allowed ports (80
and 443 unless configured), at most `MAX_URL_LENGTH` characters, no whitespace or control
characters.

`allowed_networks` lets addresses through that would otherwise be refused: it exists for tests,
which run against local servers on 127.0.0.1, and is empty in the service
(`ALETHEIA_WEB_TIER_ALLOW_NETWORKS`).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from aletheia.core.errors import AletheiaError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

MAX_URL_LENGTH: Final = 2048
DEFAULT_PORTS: Final = frozenset({80, 443})
SCHEMES: Final = frozenset({"http", "https"})
# Cloud instance metadata (AWS, GCP, Azure, ...; AWS's IPv6 endpoint): refused whatever the
# allow-list says, since reaching them from a worker hands out credentials.
METADATA_ADDRESSES: Final = frozenset(
    {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
)
_CGNAT: Final = ipaddress.ip_network("100.64.0.0/10")
_UNIQUE_LOCAL: Final = ipaddress.ip_network("fc00::/7")
_NAT64: Final = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE: Final = ipaddress.ip_network("::/96")


class WebPolicyError(ValueError, AletheiaError):
    """A URL or an address the web tier must not reach (the message says which rule)."""


@dataclass(frozen=True, slots=True)
class WebPolicy:
    """What the fetcher may reach. `allowed_networks`: tests only (see the module docstring)."""

    ports: frozenset[int] = DEFAULT_PORTS
    allowed_networks: tuple[IPNetwork, ...] = field(default=())

    @classmethod
    def from_strings(cls, ports: str = "80,443", allow_networks: str = "") -> WebPolicy:
        """From the settings' comma-separated lists (`ALETHEIA_WEB_TIER_PORTS`, `..._ALLOW_NETWORKS`)."""
        port_set = frozenset(int(p) for p in ports.split(",") if p.strip())
        networks = tuple(
            ipaddress.ip_network(n.strip(), strict=False) for n in allow_networks.split(",") if n.strip()
        )
        return cls(ports=port_set or DEFAULT_PORTS, allowed_networks=networks)

    def allows_network(self, address: IPAddress) -> bool:
        return any(address.version == n.version and address in n for n in self.allowed_networks)


@dataclass(frozen=True, slots=True)
class Target:
    """A URL that passed `check_url`: what to resolve and how to connect."""

    url: str
    scheme: str
    host: str  # lower-case, IDNA-encoded, without brackets
    port: int
    literal: IPAddress | None  # the host is itself an address: nothing to resolve


def _port(scheme: str, port: int | None) -> int:
    return port if port is not None else (443 if scheme == "https" else 80)


def check_url(url: str, policy: WebPolicy) -> Target:
    """The URL's scheme, credentials, host and port under the policy; raise `WebPolicyError`."""
    if len(url) > MAX_URL_LENGTH:
        raise WebPolicyError(f"URL longer than {MAX_URL_LENGTH} characters")
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        raise WebPolicyError("URL with whitespace or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise WebPolicyError(f"malformed URL: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise WebPolicyError(f"scheme {scheme or '(none)'!r} refused: http and https only")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise WebPolicyError("credentials in URL refused")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise WebPolicyError("URL without a host")
    try:
        host = host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise WebPolicyError(f"host {host!r} is not a valid name") from None
    effective = _port(scheme, port)
    if effective not in policy.ports:
        raise WebPolicyError(f"port {effective} refused (allowed: {sorted(policy.ports)})")
    literal: IPAddress | None
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        check_address(literal, policy)
    return Target(url=url, scheme=scheme, host=host, port=effective, literal=literal)


def _embedded_v4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses an IPv6 address carries (6to4, Teredo server and client, NAT64)."""
    out: list[ipaddress.IPv4Address] = []
    if address.sixtofour is not None:
        out.append(address.sixtofour)
    if address.teredo is not None:
        out.extend(address.teredo)
    if address in _NAT64:
        out.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return out


def refusal(address: IPAddress) -> str | None:
    """Why the address must not be reached (None: it may be), ignoring any allow-list."""
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if address.is_unspecified:
        return "the unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if isinstance(address, ipaddress.IPv4Address):
        if address in _CGNAT:
            return "shared address space (CGNAT, 100.64.0.0/10)"
        return _not_global(address)
    if address.ipv4_mapped is not None:
        return "an IPv4-mapped IPv6 address"
    if address in _IPV4_COMPATIBLE:
        return "an IPv4-compatible IPv6 address"
    if address in _UNIQUE_LOCAL:
        return "a unique-local address (fc00::/7)"
    if address.is_site_local:
        return "a site-local address"
    for inner in _embedded_v4(address):
        why = refusal(inner)
        if why is not None:
            return f"an IPv6 address embedding {inner} ({why})"
    return _not_global(address)


def _not_global(address: IPAddress) -> str | None:
    """The registry's own classes, last: anything `ipaddress` does not call global."""
    if address.is_private:
        return "a private address"
    if address.is_reserved:
        return "a reserved address"
    if not address.is_global:
        return "a non-global address"
    return None


def check_address(address: IPAddress, policy: WebPolicy) -> None:
    """Raise `WebPolicyError` unless the fetcher may connect to `address`."""
    if address in METADATA_ADDRESSES:
        raise WebPolicyError(f"address {address} refused: a cloud metadata address")
    why = refusal(address)
    if why is not None and not policy.allows_network(address):
        raise WebPolicyError(f"address {address} refused: {why}")


def check_addresses(addresses: Iterable[IPAddress], policy: WebPolicy) -> IPAddress:
    """Every address a name resolved to must be allowed (one refused address refuses the name:
    which one a client would pick is not ours to guess); the first is the one to connect to."""
    found = list(dict.fromkeys(addresses))
    if not found:
        raise WebPolicyError("the name resolved to no address")
    for address in found:
        check_address(address, policy)
    return found[0]
