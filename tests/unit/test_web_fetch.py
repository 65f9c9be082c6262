"""The SSRF-safe fetcher against a local server on 127.0.0.1 (let through by the test-only
allow-list; without it, refused), and with fake resolvers for names."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator, Sequence

import pytest

from aletheia.sources.base import TransientSourceError
from aletheia.sources.web_fetch import WebFetcher, WebRefusedError
from aletheia.sources.web_policy import IPAddress, WebPolicy
from tests.unit.web_server import _Server, ipv6_loopback_works, local_server


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, _Server]]:
    with local_server() as running:
        yield running


def _port(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


def allowed(base: str, **kw: object) -> WebFetcher:
    """A fetcher whose policy lets 127.0.0.0/8 and the server's port through (tests only)."""
    policy = WebPolicy.from_strings(f"80,443,{_port(base)}", "127.0.0.0/8")
    return WebFetcher(policy, **kw)  # type: ignore[arg-type]


class Resolver:
    """Answers per call from a script (the last answer repeats); counts the calls."""

    def __init__(self, *answers: Sequence[str]) -> None:
        self.answers = [[ipaddress.ip_address(a) for a in answer] for answer in answers]
        self.calls: list[str] = []

    async def __call__(self, host: str, port: int) -> Sequence[IPAddress]:
        self.calls.append(host)
        return self.answers[min(len(self.calls), len(self.answers)) - 1]


async def test_a_page_is_fetched_with_head_then_get(server: tuple[str, _Server]) -> None:
    base, _ = server
    result = await allowed(base).fetch(f"{base}/page")
    assert result.ok and result.status == 200
    assert b"<title>Scaling Laws for Widgets" in result.body
    assert result.final_url == f"{base}/page" and result.redirects == ()
    assert result.address == "127.0.0.1" and not result.truncated


async def test_without_the_allow_list_loopback_is_refused(server: tuple[str, _Server]) -> None:
    base, _ = server
    policy = WebPolicy.from_strings(f"80,443,{_port(base)}", "")
    with pytest.raises(WebRefusedError, match="loopback"):
        await WebFetcher(policy).fetch(f"{base}/page")
    # a name that resolves to loopback is refused as well (the resolved address is what counts)
    with pytest.raises(WebRefusedError, match="loopback"):
        await WebFetcher(policy, resolver=Resolver(["127.0.0.1"])).fetch(
            f"http://intranet.test:{_port(base)}/page"
        )
    # and the system resolver's "localhost"
    with pytest.raises(WebRefusedError, match="loopback"):
        await WebFetcher(policy).fetch(f"http://localhost:{_port(base)}/page")


async def test_a_port_outside_the_allowed_ones_is_refused(server: tuple[str, _Server]) -> None:
    base, _ = server
    with pytest.raises(WebRefusedError, match="port"):
        await WebFetcher(WebPolicy.from_strings("80,443", "127.0.0.0/8")).fetch(f"{base}/page")


@pytest.mark.parametrize(
    "url",
    ["ftp://127.0.0.1/x", "file:///etc/passwd", "gopher://127.0.0.1/", "http://user:secret@127.0.0.1/page"],
)
async def test_schemes_and_credentials_are_refused_before_any_request(
    server: tuple[str, _Server], url: str
) -> None:
    base, srv = server
    before = len(srv.hosts)
    resolver = Resolver(["127.0.0.1"])
    with pytest.raises(WebRefusedError):
        await allowed(base, resolver=resolver).fetch(url.replace("127.0.0.1", f"127.0.0.1:{_port(base)}"))
    assert resolver.calls == [] and len(srv.hosts) == before


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://10.0.0.1/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://100.64.0.1/",
        "ftp://example.org/",
        "http://user:pw@example.org/",
    ],
)
async def test_a_redirect_to_a_forbidden_address_is_refused(server: tuple[str, _Server], target: str) -> None:
    base, _ = server
    with pytest.raises(WebRefusedError, match="refused"):
        await allowed(base).fetch(f"{base}/redirect?to={target}")


async def test_a_redirect_to_a_name_that_resolves_to_a_forbidden_address_is_refused(
    server: tuple[str, _Server],
) -> None:
    base, _ = server
    resolver = Resolver(["169.254.169.254"])
    with pytest.raises(WebRefusedError, match="metadata"):
        await allowed(base, resolver=resolver).fetch(f"{base}/redirect?to=http://metadata.test/")
    assert resolver.calls == ["metadata.test"]


async def test_redirects_are_followed_by_hand_and_bounded(server: tuple[str, _Server]) -> None:
    base, _ = server
    result = await allowed(base).fetch(f"{base}/redirect?to=/page")
    assert result.status == 200 and result.final_url == f"{base}/page"
    assert result.redirects  # the hop is recorded
    with pytest.raises(WebRefusedError, match="redirects"):
        await allowed(base, max_redirects=3).fetch(f"{base}/loop")


async def test_dns_rebinding_the_checked_address_is_the_one_connected_to(server: tuple[str, _Server]) -> None:
    """The name answers 127.0.0.1 (allowed here) first and the metadata address ever after: the
    fetcher asks once and connects to the first answer with the name as Host, for HEAD and GET."""
    base, srv = server
    port = _port(base)
    resolver = Resolver(["127.0.0.1"], ["169.254.169.254"])
    before = len(srv.hosts)
    result = await allowed(base, resolver=resolver).fetch(f"http://rebind.test:{port}/page")
    assert result.ok and result.address == "127.0.0.1"
    assert resolver.calls == ["rebind.test"]
    assert srv.hosts[before:] == [f"rebind.test:{port}", f"rebind.test:{port}"]  # HEAD, GET


async def test_a_name_whose_first_answer_is_forbidden_is_never_connected_to(
    server: tuple[str, _Server],
) -> None:
    base, srv = server
    before = len(srv.hosts)
    with pytest.raises(WebRefusedError):
        await allowed(base, resolver=Resolver(["169.254.169.254"], ["127.0.0.1"])).fetch(
            f"http://rebind.test:{_port(base)}/page"
        )
    assert len(srv.hosts) == before


async def test_a_name_with_one_forbidden_address_among_several_is_refused(
    server: tuple[str, _Server],
) -> None:
    base, _ = server
    with pytest.raises(WebRefusedError):
        await allowed(base, resolver=Resolver(["127.0.0.1", "10.0.0.5"])).fetch(
            f"http://mixed.test:{_port(base)}/"
        )


async def test_a_name_that_does_not_resolve_is_a_transient_failure(server: tuple[str, _Server]) -> None:
    base, _ = server

    async def nxdomain(host: str, port: int) -> Sequence[IPAddress]:
        raise OSError("Name or service not known")

    with pytest.raises(TransientSourceError, match="does not resolve"):
        await allowed(base, resolver=nxdomain).fetch(f"http://nowhere.test:{_port(base)}/")


async def test_an_oversized_body_is_cut_at_the_cap(server: tuple[str, _Server]) -> None:
    base, _ = server
    result = await allowed(base, max_bytes=50_000).fetch(f"{base}/big")
    assert result.truncated and len(result.body) == 50_000
    assert result.body.startswith(b"<html><head><title>Big</title>")


async def test_a_slow_response_is_cut_by_the_total_time_bound(server: tuple[str, _Server]) -> None:
    base, _ = server
    with pytest.raises(TransientSourceError, match="no complete answer"):
        await allowed(base, timeout=1.0).fetch(f"{base}/slow")


async def test_statuses_are_results_and_a_pdf_is_not_downloaded(server: tuple[str, _Server]) -> None:
    base, _ = server
    fetcher = allowed(base)
    assert (await fetcher.fetch(f"{base}/gone")).status == 404
    assert (await fetcher.fetch(f"{base}/error")).status == 500
    pdf = await fetcher.fetch(f"{base}/pdf")
    assert pdf.ok and pdf.body == b"" and (pdf.content_type or "").startswith("application/pdf")


async def test_without_head_the_body_is_read_whatever_it_is(server: tuple[str, _Server]) -> None:
    # The open-access full text wants the PDF itself: one GET, under the same rules and cap.
    base, srv = server
    before = len(srv.hosts)
    pdf = await allowed(base).fetch(f"{base}/pdf", head=False)
    assert pdf.ok and pdf.body == b"%PDF-1.4" and len(srv.hosts) == before + 1
    with pytest.raises(WebRefusedError, match="metadata"):
        await allowed(base).fetch(f"{base}/redirect?to=http://169.254.169.254/", head=False)
    big = await allowed(base, max_bytes=1000).fetch(f"{base}/big", head=False)
    assert big.truncated and len(big.body) == 1000


async def test_a_refused_connection_is_a_transient_failure() -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    fetcher = WebFetcher(WebPolicy.from_strings(str(port), "127.0.0.0/8"))
    with pytest.raises(TransientSourceError, match="ConnectError"):
        await fetcher.fetch(f"http://127.0.0.1:{port}/")


async def test_a_server_that_refuses_head_is_read_with_get(server: tuple[str, _Server]) -> None:
    base, _ = server
    result = await allowed(base).fetch(f"{base}/nohead")
    assert result.status == 200 and b"Scaling Laws for Widgets" in result.body


async def test_compressed_bodies_are_inflated_under_the_cap(server: tuple[str, _Server]) -> None:
    base, _ = server
    page = await allowed(base).fetch(f"{base}/gzip")
    assert b"<title>Scaling Laws for Widgets" in page.body and not page.truncated
    bomb = await allowed(base, max_bytes=50_000).fetch(f"{base}/bomb")
    assert bomb.truncated and len(bomb.body) <= 50_000 and bomb.body.startswith(b"<html><head><title>Bomb")
    other = await allowed(base).fetch(f"{base}/brotli")
    assert other.status == 200 and other.body == b"" and other.truncated


# --- IPv6: a local server on [::1], the pinned address end to end ----------------------------------


@pytest.fixture(scope="module")
def server6() -> Iterator[tuple[str, _Server]]:
    if not ipv6_loopback_works():
        pytest.skip("this machine has no IPv6 loopback (::1)")
    with local_server("::1") as running:
        yield running


async def test_an_ipv6_server_is_reached_through_the_allow_list_only(server6: tuple[str, _Server]) -> None:
    base, srv = server6
    port = _port(base)
    assert base == f"http://[::1]:{port}"
    policy = WebPolicy.from_strings(f"80,443,{port}", "::1/128")
    result = await WebFetcher(policy).fetch(f"{base}/page")
    assert result.ok and result.address == "::1" and b"Scaling Laws" in result.body
    assert srv.hosts[-1] == f"[::1]:{port}"
    # without the allow-list ::1 is a loopback address like any other, literal or resolved
    bare = WebPolicy.from_strings(f"80,443,{port}", "")
    before = len(srv.hosts)
    with pytest.raises(WebRefusedError, match="loopback"):
        await WebFetcher(bare).fetch(f"{base}/page")
    with pytest.raises(WebRefusedError, match="loopback"):
        await WebFetcher(bare, resolver=Resolver(["::1"])).fetch(f"http://v6.test:{port}/page")
    # an IPv4 allow-list does not let ::1 through
    with pytest.raises(WebRefusedError, match="loopback"):
        await WebFetcher(WebPolicy.from_strings(f"80,443,{port}", "127.0.0.0/8")).fetch(f"{base}/page")
    assert len(srv.hosts) == before  # nothing refused reached the server


async def test_a_name_resolving_to_ipv6_connects_to_the_pinned_address(server6: tuple[str, _Server]) -> None:
    """The name is resolved once, to ::1; the connection goes there with the name as Host, and a
    second answer of the resolver (a public address) is never asked for or used."""
    base, srv = server6
    port = _port(base)
    resolver = Resolver(["::1"], ["2001:4860:4860::8888"])
    policy = WebPolicy.from_strings(f"80,443,{port}", "::1/128")
    result = await WebFetcher(policy, resolver=resolver).fetch(f"http://v6.test:{port}/redirect?to=/page")
    assert result.ok and result.address == "::1" and result.final_url == f"http://v6.test:{port}/page"
    assert resolver.calls == ["v6.test"]  # HEAD, the redirect and GET all reused the one answer
    assert srv.hosts[-3:] == [f"v6.test:{port}"] * 3
