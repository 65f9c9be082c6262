"""The open-access step of the full-text chain (issue 19): the PDF or page OpenAlex and Semantic
Scholar link a work to, fetched through the SSRF-safe fetcher from a local server on 127.0.0.1
(let through by the test-only allow-list), sniffed, converted, its text used; refused hosts,
oversized bodies, failed conversions and landing pages written down and gone past; arXiv links
through the arXiv client; nothing fetched when the setting is off."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from aletheia.config import Settings
from aletheia.config.settings import SourceLimits
from aletheia.core.excerpts import PaperText, locate_excerpt
from aletheia.core.records import SourceName, WorkRecord
from aletheia.pipeline.documents.fulltext import DocumentKind, convert_document, fetch_paper_text
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.sources.open_access import document_kind
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from tests.unit.web_server import (
    ARTICLE_ABSTRACT,
    ARTICLE_BODY,
    OTHER_WORK,
    _Server,
    article_pdf,
    local_server,
)

FAST = SourceLimits(rate=1000, burst=1000, concurrency=8)
RESULT = "Tracer pebbles travelled a median of forty metres per flood"


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, _Server]]:
    with local_server() as running:
        yield running


def settings_for(base: str, tmp_path: Path, **overrides: Any) -> Settings:
    """The local server let through (tests only: 127.0.0.0/8 and its port), conversions cached
    under `tmp_path`."""
    values: dict[str, Any] = {
        "data_dir": tmp_path,
        "docling_artifacts_path": None,
        "web_tier_allow_networks": "127.0.0.0/8",
        "web_tier_ports": f"80,443,{base.rsplit(':', 1)[1]}",
        "oa_fulltext_limits": FAST,
        "oa_fulltext_timeout_seconds": 20.0,
        **overrides,
    }
    return Settings(_env_file=None, **values)


@pytest.fixture
async def gateway(server: tuple[str, _Server], tmp_path: Path) -> AsyncIterator[SourceGateway]:
    async with httpx.AsyncClient() as http:
        yield SourceGateway(settings_for(server[0], tmp_path), http, LocalRateLimiter())


def converter(settings: Settings) -> Any:
    """What the queue passes as `convert`: `convert_document` with these settings, off the loop."""

    async def convert(data: bytes, kind: DocumentKind) -> PaperText:
        return await asyncio.to_thread(convert_document, data, kind, settings=settings)

    return convert


def record(**urls: str) -> WorkRecord:
    # A computer-science DOI: no arXiv id and no PMC route, so only the open-access step can read it.
    return WorkRecord(
        source=SourceName.OPENALEX,
        title="Sediment Transport in Braided Alpine Rivers",
        doi="10.5555/alpine.2024.7",
        venue="Conference on Computational Geomorphology",
        abstract=ARTICLE_ABSTRACT,
        urls=urls,
    )


async def fetch(gateway: SourceGateway, work: WorkRecord) -> Any:
    return await fetch_paper_text(gateway, work, convert=converter(gateway.settings))


# --- sniffing ---------------------------------------------------------------------------------------


def test_the_bytes_say_what_a_document_is() -> None:
    assert document_kind("application/pdf", b"%PDF-1.7\n...") == "pdf"
    assert document_kind("application/octet-stream", b"%PDF-1.4") == "pdf"
    assert document_kind("text/html", b"\r\n%PDF-1.5 after a stray line") == "pdf"  # the bytes win
    assert document_kind("text/html; charset=utf-8", b"<p>text</p>") == "html"
    assert document_kind(None, b"\xef\xbb\xbf  <!DOCTYPE html><html>") == "html"
    assert document_kind("application/pdf", b"<html>a viewer, no PDF</html>") is None
    assert document_kind("image/png", b"\x89PNG\r\n") is None


# --- the step ---------------------------------------------------------------------------------------


async def test_an_open_access_pdf_is_fetched_and_its_text_used(
    gateway: SourceGateway, server: tuple[str, _Server]
) -> None:
    base, _ = server
    fetched = await fetch(gateway, record(oa_pdf=f"{base}/article.pdf"))
    paper = fetched.paper
    assert paper is not None and paper.origin == "pdf_text" and not fetched.abstract_only
    assert len(fetched.attempts) == 1
    assert fetched.attempts[0].startswith(f"oa_pdf: {base}/article.pdf, pdf_text, ")
    found = locate_excerpt(RESULT, paper)
    assert found is not None and found.section == "3 Results"
    assert gateway.open_access.stats.requests == 1  # one GET, no HEAD


async def test_a_pdf_sent_as_octet_stream_is_read_as_a_pdf(
    gateway: SourceGateway, server: tuple[str, _Server]
) -> None:
    base, _ = server
    fetched = await fetch(gateway, record(oa_pdf=f"{base}/article-octet"))
    assert fetched.paper is not None and fetched.paper.origin == "pdf_text"


async def test_an_html_full_text_is_read_without_the_pages_other_works(
    gateway: SourceGateway, server: tuple[str, _Server]
) -> None:
    base, _ = server
    fetched = await fetch(gateway, record(oa_html=f"{base}/article.html"))
    paper = fetched.paper
    assert paper is not None and paper.origin == "html"
    assert fetched.attempts[0].startswith(f"oa_html: {base}/article.html, html, ")
    assert locate_excerpt(RESULT, paper) is not None
    # The publisher's "Recommended articles" and the reference list are no part of the paper.
    assert locate_excerpt(OTHER_WORK, paper) is None
    assert "A flume study of bedload" not in paper.text
    assert {block.section for block in paper.blocks} >= {heading for heading, _ in ARTICLE_BODY}


async def test_a_landing_page_is_not_the_full_text(
    gateway: SourceGateway, server: tuple[str, _Server]
) -> None:
    base, _ = server
    fetched = await fetch(gateway, record(oa_html=f"{base}/landing.html"))
    assert fetched.abstract_only
    assert fetched.attempts[0].startswith(f"oa_html: {base}/landing.html: html, ")
    assert fetched.attempts[0].endswith("characters beside the abstract (a landing page?)")
    assert fetched.attempts[-1] == "abstract_only"


async def test_the_pdf_comes_first_and_a_failure_falls_through_to_the_page(
    gateway: SourceGateway, server: tuple[str, _Server]
) -> None:
    base, _ = server
    # `/pdf` answers a PDF header and nothing more: a conversion failure, noted; the page is next.
    fetched = await fetch(gateway, record(oa_pdf=f"{base}/pdf", oa_html=f"{base}/article.html"))
    assert fetched.paper is not None and fetched.paper.origin == "html"
    assert [a.split(": ", 1)[0] for a in fetched.attempts] == ["oa_pdf", "oa_html"]
    assert fetched.attempts[0].startswith(f"oa_pdf: {base}/pdf: ")
    # An HTTP error is a line too.
    fetched = await fetch(gateway, record(oa_pdf=f"{base}/gone"))
    assert fetched.attempts == [f"oa_pdf: {base}/gone: HTTP 404", "abstract_only"]


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/",  # cloud metadata: refused whatever the allow-list
        "http://10.0.0.1/paper.pdf",
        "http://[::ffff:127.0.0.1]/paper.pdf",
        "file:///etc/passwd",
    ],
)
async def test_a_forbidden_host_is_refused_and_recorded(
    gateway: SourceGateway, server: tuple[str, _Server], target: str
) -> None:
    base, srv = server
    before = len(srv.hosts)
    # Linked directly, and reached through a redirect from an allowed host.
    fetched = await fetch(gateway, record(oa_pdf=target, oa_html=f"{base}/redirect?to={target}"))
    assert fetched.abstract_only
    assert fetched.attempts[0].startswith("oa_pdf: ") and ": refused: " in fetched.attempts[0]
    assert fetched.attempts[1].startswith("oa_html: ") and ": refused: " in fetched.attempts[1]
    assert len(srv.hosts) == before + 1  # the redirect only; nothing after it


async def test_loopback_is_refused_without_the_test_allow_list(
    server: tuple[str, _Server], tmp_path: Path
) -> None:
    base, srv = server
    before = len(srv.hosts)
    settings = settings_for(base, tmp_path, web_tier_allow_networks="")
    async with httpx.AsyncClient() as http:
        gateway = SourceGateway(settings, http, LocalRateLimiter())
        fetched = await fetch(gateway, record(oa_pdf=f"{base}/article.pdf"))
    assert fetched.abstract_only and "loopback" in fetched.attempts[0]
    assert len(srv.hosts) == before


async def test_an_oversized_body_is_refused(server: tuple[str, _Server], tmp_path: Path) -> None:
    base, _ = server
    settings = settings_for(base, tmp_path, oa_fulltext_max_bytes=100_000)
    async with httpx.AsyncClient() as http:
        gateway = SourceGateway(settings, http, LocalRateLimiter())
        fetched = await fetch(gateway, record(oa_html=f"{base}/big"))
    assert fetched.abstract_only
    assert fetched.attempts[0] == (
        f"oa_html: {base}/big: not read: larger than 100000 bytes (ALETHEIA_OA_FULLTEXT_MAX_BYTES)"
    )


@pytest.mark.parametrize(
    ("overrides", "why"),
    [
        ({"oa_fulltext": False}, "open-access full text is off (ALETHEIA_OA_FULLTEXT)"),
        ({"offline": True}, "offline"),
        ({"disabled_sources": "oa_fulltext"}, "turned off (ALETHEIA_DISABLED_SOURCES)"),
    ],
)
async def test_turned_off_nothing_is_fetched(
    server: tuple[str, _Server], tmp_path: Path, overrides: dict[str, Any], why: str
) -> None:
    base, srv = server
    before = len(srv.hosts)
    settings = settings_for(base, tmp_path, **overrides)
    async with httpx.AsyncClient() as http:
        gateway = SourceGateway(settings, http, LocalRateLimiter())
        assert gateway.open_access.fetcher is None
        fetched = await fetch(gateway, record(oa_pdf=f"{base}/article.pdf"))
    assert fetched.attempts == [f"oa: not tried: {why}", "abstract_only"]
    assert len(srv.hosts) == before


def test_on_by_default() -> None:
    assert Settings(_env_file=None).oa_fulltext


async def test_a_record_without_links_asks_nothing(gateway: SourceGateway) -> None:
    fetched = await fetch(gateway, record())
    assert fetched.attempts == [
        "full_text: no arXiv id, no PMC route, no open-access link",
        "abstract_only",
    ]
    assert gateway.open_access.stats.requests == 0


# --- arXiv links ----------------------------------------------------------------------------------


class FakeArxiv:
    """arXiv's web client: a PDF for `pdfs`' ids, None (no such paper) for the rest; calls kept."""

    def __init__(self, pdfs: dict[str, bytes]) -> None:
        self.pdfs = pdfs
        self.calls: list[tuple[str, str]] = []

    async def fetch_html(self, arxiv_id: str) -> str | None:
        self.calls.append(("html", arxiv_id))
        return None

    async def fetch_pdf(self, arxiv_id: str) -> bytes | None:
        self.calls.append(("pdf", arxiv_id))
        return self.pdfs.get(arxiv_id)


async def test_an_arxiv_link_is_read_through_the_arxiv_client(
    gateway: SourceGateway, server: tuple[str, _Server], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, srv = server
    arxiv = FakeArxiv({"2101.00001": article_pdf()})
    monkeypatch.setattr(gateway, "arxiv", arxiv)
    before = len(srv.hosts)
    # A published work whose open copy is its arXiv preprint: arXiv's pacing, not the fetcher.
    fetched = await fetch(gateway, record(oa_pdf="https://arxiv.org/pdf/2101.00001v2"))
    assert fetched.paper is not None and fetched.paper.origin == "pdf_text"
    assert arxiv.calls == [("pdf", "2101.00001")]
    assert gateway.open_access.stats.requests == 0 and len(srv.hosts) == before


async def test_the_open_access_step_comes_after_the_arxiv_steps(
    gateway: SourceGateway, server: tuple[str, _Server], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, _ = server
    arxiv = FakeArxiv({})
    monkeypatch.setattr(gateway, "arxiv", arxiv)
    work = record(
        oa_pdf="http://arxiv.org/pdf/2101.00002",  # the record's own id: tried above, not again
        oa_html=f"{base}/article.pdf",
    ).model_copy(update={"arxiv_id": "2101.00002"})
    fetched = await fetch(gateway, work)
    assert fetched.paper is not None and fetched.paper.origin == "pdf_text"
    assert [a.split(":", 1)[0] for a in fetched.attempts] == ["arxiv_html", "arxiv_pdf", "oa_pdf", "oa_html"]
    assert fetched.attempts[2] == "oa_pdf: http://arxiv.org/pdf/2101.00002: arXiv 2101.00002, tried above"
    assert arxiv.calls == [("html", "2101.00002"), ("pdf", "2101.00002")]
