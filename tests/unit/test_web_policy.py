"""The web tier's address and URL policy (pure): every forbidden family, IPv4 and IPv6."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.sources.web_policy import (
    WebPolicy,
    WebPolicyError,
    check_address,
    check_addresses,
    check_url,
    refusal,
)

POLICY = WebPolicy()

FORBIDDEN = [
    # IPv4
    ("0.0.0.0", "unspecified"),
    ("127.0.0.1", "loopback"),
    ("127.255.0.9", "loopback"),
    ("10.1.2.3", "private"),
    ("172.16.0.1", "private"),
    ("172.31.255.254", "private"),
    ("192.168.1.1", "private"),
    ("169.254.1.1", "link-local"),
    ("169.254.169.254", "metadata"),
    ("100.64.0.1", "CGNAT"),
    ("100.127.255.254", "CGNAT"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "broadcast"),
    ("192.0.2.1", "documentation"),
    ("198.18.0.1", "benchmarking"),
    # IPv6
    ("::", "unspecified"),
    ("::1", "loopback"),
    ("fe80::1", "link-local"),
    ("fc00::1", "unique-local"),
    ("fd12:3456::1", "unique-local"),
    ("fd00:ec2::254", "metadata"),
    ("fec0::1", "site-local"),
    ("ff02::1", "multicast"),
    ("::ffff:127.0.0.1", "IPv4-mapped loopback"),
    ("::ffff:8.8.8.8", "IPv4-mapped, even of a public address"),
    ("::127.0.0.1", "IPv4-compatible"),
    ("2002:7f00:1::1", "6to4 of 127.0.0.1"),
    ("2002:a9fe:a9fe::1", "6to4 of 169.254.169.254"),
    ("2002:0a00:0001::1", "6to4 of 10.0.0.1"),
    ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "Teredo whose client is 10.0.0.1"),
    ("64:ff9b::7f00:1", "NAT64 of 127.0.0.1"),
    ("64:ff9b::a9fe:a9fe", "NAT64 of 169.254.169.254"),
    ("2001:db8::1", "documentation"),
]

ALLOWED = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e"]


@pytest.mark.parametrize(("address", "family"), FORBIDDEN)
def test_every_forbidden_family_is_refused(address: str, family: str) -> None:
    with pytest.raises(WebPolicyError, match="refused"):
        check_address(ipaddress.ip_address(address), POLICY)


@pytest.mark.parametrize("address", ALLOWED)
def test_public_addresses_are_allowed(address: str) -> None:
    check_address(ipaddress.ip_address(address), POLICY)


def test_6to4_of_a_public_address_is_allowed() -> None:
    check_address(ipaddress.ip_address("2002:0808:0808::1"), POLICY)  # 6to4 of 8.8.8.8


def test_the_allow_list_lets_a_loopback_network_through_but_never_metadata() -> None:
    policy = WebPolicy.from_strings("80,443", "127.0.0.0/8, 169.254.0.0/16")
    check_address(ipaddress.ip_address("127.0.0.1"), policy)
    check_address(ipaddress.ip_address("169.254.1.1"), policy)
    with pytest.raises(WebPolicyError, match="metadata"):
        check_address(ipaddress.ip_address("169.254.169.254"), policy)
    with pytest.raises(WebPolicyError):  # IPv6 loopback is not in an IPv4 allow-list
        check_address(ipaddress.ip_address("::1"), policy)


def test_the_allow_list_is_empty_by_default() -> None:
    from aletheia.config import Settings

    settings = Settings()
    assert settings.web_tier is False
    policy = WebPolicy.from_strings(settings.web_tier_ports, settings.web_tier_allow_networks)
    assert policy.allowed_networks == ()
    assert policy.ports == frozenset({80, 443})


def test_one_forbidden_address_among_many_refuses_the_name() -> None:
    with pytest.raises(WebPolicyError):
        check_addresses([ipaddress.ip_address("8.8.8.8"), ipaddress.ip_address("10.0.0.1")], POLICY)
    with pytest.raises(WebPolicyError, match="no address"):
        check_addresses([], POLICY)
    assert str(check_addresses([ipaddress.ip_address("8.8.8.8")], POLICY)) == "8.8.8.8"


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://example.org/x", "scheme"),
        ("file:///etc/passwd", "scheme"),
        ("gopher://example.org/", "scheme"),
        ("javascript:alert(1)", "scheme"),
        ("data:text/html,hi", "scheme"),
        ("example.org/page", "scheme"),
        ("http://user:pass@example.org/", "credentials"),
        ("http://user@example.org/", "credentials"),
        ("https://example.org@evil.example/", "credentials"),
        ("http://example.org:8080/", "port"),
        ("http://example.org:22/", "port"),
        ("http:///path", "host"),
        ("http://exa mple.org/", "whitespace"),
        ("http://example.org/\x00", "control"),
        ("http://127.0.0.1/", "loopback"),
        ("http://[::1]/", "loopback"),
        ("http://169.254.169.254/latest/meta-data/", "metadata"),
        ("http://[fd00:ec2::254]/", "metadata"),
        ("http://[::ffff:127.0.0.1]/", "IPv4-mapped"),
        ("http://example.org:99999/", "malformed"),
        ("http://example.org/" + "a" * 3000, "longer"),
    ],
)
def test_urls_that_are_refused(url: str, why: str) -> None:
    with pytest.raises(WebPolicyError, match=why):
        check_url(url, POLICY)


def test_urls_that_pass() -> None:
    t = check_url("https://Example.ORG/a?b=c#d", POLICY)
    assert (t.scheme, t.host, t.port, t.literal) == ("https", "example.org", 443, None)
    t = check_url("http://xn--bcher-kva.example/", POLICY)
    assert t.host == "xn--bcher-kva.example" and t.port == 80
    assert check_url("http://bücher.example/", POLICY).host == "xn--bcher-kva.example"
    assert str(check_url("http://8.8.8.8/", POLICY).literal) == "8.8.8.8"
    assert check_url("http://example.org:8080/", WebPolicy.from_strings("8080", "")).port == 8080


@given(st.ip_addresses())
def test_refusal_agrees_with_the_global_flag(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
    """Nothing `ipaddress` calls non-global gets through, v4 or v6 (the policy may refuse more)."""
    if not address.is_global:
        assert refusal(address) is not None
