"""A local HTTP server for the web tier's tests: on 127.0.0.1 (or ::1), a free port, in a thread.

Routes: `/page` (an HTML page with a title, og:title and h1), `/other` (another title), `/gone`
(404), `/error` (500), `/big` (a 2 MB body), `/slow` (trickles bytes for longer than any test's
time budget), `/redirect?to=URL` (302 to URL), `/loop` (redirects to itself), `/pdf` (a PDF
content type), `/nohead` (405 to HEAD, the page to GET), `/gzip` (the page gzipped), `/bomb` (20 MB
of zeros gzipped), `/brotli` (an encoding the fetcher does not read), `/web/<timestamp>/<url>` (the Wayback
Machine: a 2023 timestamp redirects to the 2025 snapshot, as the archive serves its nearest).
For the open-access full text: `/article.pdf` (a paper's PDF), `/article-octet` (the same PDF sent
as `application/octet-stream`), `/article.html` (the paper as a full-text HTML page, with its
references and a publisher's "Recommended articles"), `/landing.html` (a landing page: title,
abstract, links).
Every request's Host header is kept in `hosts` (to prove the pinned address was used with the
name as Host).
"""

from __future__ import annotations

import functools
import gzip
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PAGE = (
    b"<!doctype html><html><head><meta charset='utf-8'>"
    b"<title>Scaling Laws for Widgets | The Widget Blog</title>"
    b"<meta property='og:title' content='Scaling Laws for Widgets'></head>"
    b"<body><h1>Scaling laws for widgets</h1><p>text</p></body></html>"
)
OTHER = b"<html><head><title>Cooking with Cast Iron Pans</title></head><body></body></html>"
SLOW_SECONDS = 30

# The paper the open-access routes serve, as (section, paragraph) pairs.
ARTICLE_TITLE = "Sediment Transport in Braided Alpine Rivers"
ARTICLE_ABSTRACT = (
    "We measure bedload transport in three braided rivers of the western Alps over six summers."
)
ARTICLE_BODY = (
    (
        "1 Introduction",
        "Braided rivers rework their beds within hours of a flood, and the bedload they carry shapes "
        "the habitats of the valley floor. Field measurements of that transport remain scarce because "
        "the channels move faster than fixed instruments can be installed and maintained. ",
    ),
    (
        "2 Methods",
        "Impact plates were installed at twelve cross sections and read every ten minutes from June "
        "to September. Tracer pebbles fitted with passive transponders were seeded upstream of each "
        "section and located after every flood with a mobile antenna mounted on a small raft. ",
    ),
    (
        "3 Results",
        "Bedload transport rose sharply once discharge exceeded the bankfull threshold by a fifth. "
        "Tracer pebbles travelled a median of forty metres per flood, with the longest paths on the "
        "steepest reaches. Daily transport varied by two orders of magnitude between dry and wet weeks. ",
    ),
    (
        "4 Discussion",
        "The threshold we observe is lower than laboratory flumes suggest, which we attribute to the "
        "loose armour layer of glacier-fed channels. Models of alpine sediment budgets should therefore "
        "account for frequent small floods rather than rare large ones when estimating yearly loads. ",
    ),
)
OTHER_WORK = "Coastal dunes migrate inland by three metres a year under prevailing westerly winds."


def article_pdf() -> bytes:
    from aletheia.sources.simulator.pdf import render_pdf

    body = [("Abstract", ARTICLE_ABSTRACT), *((h, p * 2) for h, p in ARTICLE_BODY)]
    return render_pdf(ARTICLE_TITLE, ["Lena Brandt", "Mateo Ruiz"], "Journal of Alpine Hydrology", body)


def article_html() -> bytes:
    sections = "".join(f"<h2>{h}</h2><p>{p * 3}</p>" for h, p in ARTICLE_BODY)
    head = f"<!doctype html><html><head><meta charset='utf-8'><title>{ARTICLE_TITLE}</title></head>"
    return (
        f"{head}<body><h1>{ARTICLE_TITLE}</h1><h2>Abstract</h2><p>{ARTICLE_ABSTRACT}</p>{sections}"
        "<h2>References</h2><ul><li>Author, A. A flume study of bedload. 2001.</li></ul>"
        f"<h2>Recommended articles</h2><p>{OTHER_WORK}</p></body></html>"
    ).encode()


def landing_html() -> bytes:
    head = f"<!doctype html><html><head><title>{ARTICLE_TITLE}</title></head>"
    return (
        f"{head}<body><h1>{ARTICLE_TITLE}</h1><h2>Abstract</h2><p>{ARTICLE_ABSTRACT}</p>"
        "<p><a href='/article.pdf'>Download PDF</a></p>"
        f"<h2>Recommended articles</h2><p>{OTHER_WORK}</p></body></html>"
    ).encode()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return

    def _send(
        self, status: int, body: bytes = b"", content_type: str = "text/html; charset=utf-8", **headers: str
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self) -> None:
        if self.path == "/nohead":  # a server that refuses HEAD: GET decides
            self.server.hosts.append(self.headers.get("Host", ""))
            self._send(405, b"")
            return
        self.do_GET()

    def do_GET(self) -> None:
        self.server.hosts.append(self.headers.get("Host", ""))
        parts = urlsplit(self.path)
        path = parts.path
        if path in ("/page", "/nohead"):
            self._send(200, PAGE)
        elif path == "/other":
            self._send(200, OTHER)
        elif path == "/gone":
            self._send(404, b"not here")
        elif path == "/error":
            self._send(500, b"oops")
        elif path == "/gzip":
            self._send(200, gzip.compress(PAGE), Content_Encoding="gzip")
        elif path == "/bomb":  # 20 MB of zeros in about 20 kB
            self._send(200, _bomb(), Content_Encoding="gzip")
        elif path == "/brotli":
            self._send(200, b"\x1b\x00", Content_Encoding="br")
        elif path == "/pdf":
            self._send(200, b"%PDF-1.4", content_type="application/pdf")
        elif path == "/article.pdf":
            self._send(200, article_pdf(), content_type="application/pdf")
        elif path == "/article-octet":
            self._send(200, article_pdf(), content_type="application/octet-stream")
        elif path == "/article.html":
            self._send(200, article_html())
        elif path == "/landing.html":
            self._send(200, landing_html())
        elif path == "/big":
            self._send(200, b"<html><head><title>Big</title></head><body>" + b"x" * 2_000_000)
        elif path == "/redirect":
            self._send(302, b"", Location=parse_qs(parts.query)["to"][0])
        elif path == "/loop":
            self._send(302, b"", Location="/loop")
        elif path.startswith("/web/2023"):  # no snapshot then: the archive serves its nearest, 2025
            self._send(302, b"", Location="/web/20250601000000/" + path.split("/", 3)[3])
        elif path.startswith("/web/"):
            self._send(200, PAGE)
        elif path == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            if self.command == "HEAD":
                return
            try:
                for _ in range(SLOW_SECONDS * 10):
                    self.wfile.write(b"<!-- -->")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:  # the client gave up: what the test wants
                return
        else:
            self._send(404, b"")


@functools.cache
def _bomb() -> bytes:
    return gzip.compress(b"<html><head><title>Bomb</title></head>" + bytes(20_000_000))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    hosts: list[str]


class _Server6(_Server):
    address_family = socket.AF_INET6


def ipv6_loopback_works() -> bool:
    """Whether this machine can listen on ::1 (containers often have no IPv6 at all)."""
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@contextmanager
def local_server(host: str = "127.0.0.1") -> Iterator[tuple[str, _Server]]:
    """(base URL "http://127.0.0.1:PORT" or "http://[::1]:PORT", server)."""
    server = (_Server6 if ":" in host else _Server)((host, 0), _Handler)
    server.hosts = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    shown = f"[{host}]" if ":" in host else host
    try:
        yield f"http://{shown}:{server.server_address[1]}", server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
