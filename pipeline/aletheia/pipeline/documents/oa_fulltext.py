"""The open-access step of the full-text chain (`fulltext.fetch_paper_text`): arXiv HTML, PMC, the
arXiv PDF, then this, then the abstract.

A work's open-access copy is where OpenAlex (`best_oa_location`, an open `locations[].pdf_url`,
`open_access.oa_url`) and Semantic Scholar (`openAccessPdf`) say it is: the parsers keep those
links as `urls["oa_pdf"]` and `urls["oa_html"]`, tried in that order. Only the record at hand is
read; no source is asked again to find a link.

- A link on arxiv.org is fetched through the arXiv client (`/pdf/{id}`), under arXiv's own
  pacing (one request every 3 s), never through the generic fetcher; not at all when it is the
  record's own arXiv id, which the arXiv steps already tried.
- Any other link goes through `gateway.open_access` (`sources/open_access.py`): the SSRF-safe
  fetcher, one GET, the body sniffed (`%PDF-`, else an HTML Content-Type) and converted by the
  chain's `convert` (kind `pdf` or `html`; on the queue, the parsing pool). Origin `pdf_text`,
  `pdf_docling` or `html`, as the converter gives.
- An HTML page is the paper's text only when it reads like one: the blocks under a references,
  "related articles", "cited by" ... heading are dropped (they hold other works' words), and what
  is left beside the abstract must be at least `MIN_HTML_CHARACTERS` long. A landing page that
  shows the abstract and links is not the full text.

Nothing here raises for a fetch or a conversion that fails: each outcome is one line of the
chain's `attempts` (`oa_pdf: https://..., pdf_text, 42 blocks`, `oa_pdf: http://10.0.0.8/x.pdf:
refused: ...`, `oa_pdf: https://...: HTTP 403`) and the chain goes on. Turned off
(`ALETHEIA_OA_FULLTEXT=false`, or offline), a record with links gets one line saying so and no
request is made.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, Final
from urllib.parse import urlsplit

from aletheia.core.arxiv_ids import clean_arxiv_id
from aletheia.core.excerpts import PaperText
from aletheia.core.records import WorkRecord
from aletheia.pipeline.documents.attempts import noted
from aletheia.pipeline.documents.pdf_reading import FulltextError
from aletheia.sources.base import SourceError
from aletheia.sources.open_access import DocumentKind

__all__ = ["MIN_HTML_CHARACTERS", "OA_URL_KEYS", "oa_paper_text", "oa_urls"]

Converter = Callable[[bytes, DocumentKind], Awaitable[PaperText]]
# The record's open-access links, in the order tried: the PDF, then the page.
OA_URL_KEYS: Final = ("oa_pdf", "oa_html")
# As the chain's other steps (`fulltext._has_text`): less text than this is no paper.
MIN_TEXT_CHARACTERS: Final = 200
# An HTML page is a paper's full text only with this much beside its abstract: a landing page
# holds the abstract, a title, links and a few lines of boilerplate.
MIN_HTML_CHARACTERS: Final = 2000
# Headings under which a publisher's page shows other works or page furniture (not "Related work",
# a section of the paper itself).
_NOT_THE_PAPER: Final = re.compile(
    r"(?:\d+(?:\.\d+)*\.?\s+)?"  # a section number
    r"(?:references?|bibliography|literature cited|works cited|cited by|citing articles"
    r"|(?:related|recommended|similar|more) (?:articles|content|papers)|you may also like"
    r"|people also read|metrics|comments?)",
    re.IGNORECASE,
)
_URL_SHOWN: Final = 160


def oa_urls(record: WorkRecord) -> list[tuple[str, str]]:
    """(key, URL) of the record's open-access links, in order, each URL once."""
    out: list[tuple[str, str]] = []
    for key in OA_URL_KEYS:
        url = (record.urls.get(key) or "").strip()
        if url and url not in (u for _, u in out):
            out.append((key, url))
    return out


async def oa_paper_text(
    gateway: Any, record: WorkRecord, convert: Converter, attempts: list[str]
) -> PaperText | None:
    """The text of the record's open-access copy, or None; every link tried is a line of
    `attempts`. No links, no line (as the arXiv steps say nothing for a work without an id)."""
    links = oa_urls(record)
    if not links:
        return None
    client = getattr(gateway, "open_access", None)
    if client is None:
        attempts.append("oa: no open-access fetcher")
        return None
    if not client.enabled:
        attempts.append(f"oa: not tried: {client.why_disabled}")
        return None
    tried_arxiv = {record.arxiv_id} if record.arxiv_id else set()
    for key, url in links:
        label = f"{key}: {_shown(url)}"
        if not _on_arxiv(url):
            paper = await _fetched_copy(client, url, convert, label, attempts)
        elif (parsed := clean_arxiv_id(url)) is None:
            attempts.append(f"{label}: an arXiv page that names no paper")
            continue
        elif parsed.id in tried_arxiv:
            attempts.append(f"{label}: arXiv {parsed.id}, tried above")
            continue
        else:
            tried_arxiv.add(parsed.id)
            paper = await _arxiv_copy(gateway, parsed.id, convert, label, attempts)
        if paper is not None:
            return paper
    return None


async def _fetched_copy(
    client: Any, url: str, convert: Converter, label: str, attempts: list[str]
) -> PaperText | None:
    try:
        document = await client.fetch(url)
    except SourceError as exc:
        attempts.append(f"{label}: {exc.detail}")
        return None
    return await _converted(document.body, document.kind, convert, label, attempts)


async def _arxiv_copy(
    gateway: Any, arxiv_id: str, convert: Converter, label: str, attempts: list[str]
) -> PaperText | None:
    """An arXiv link (a published work's preprint copy): arXiv's PDF through its own client."""
    body = await noted(label, gateway.arxiv.fetch_pdf(arxiv_id), f"arXiv has no PDF of {arxiv_id}", attempts)
    if body is None:
        return None
    return await _converted(body, "pdf", convert, label, attempts)


async def _converted(
    data: bytes, kind: DocumentKind, convert: Converter, label: str, attempts: list[str]
) -> PaperText | None:
    try:
        paper = await convert(data, kind)
    except FulltextError as exc:
        attempts.append(f"{label}: {exc}")
        return None
    if kind == "html":
        paper = _paper_part(paper)
        beside = sum(len(b.text) for b in paper.blocks if (b.section or "").strip().lower() != "abstract")
        if beside < MIN_HTML_CHARACTERS:
            attempts.append(f"{label}: html, {beside} characters beside the abstract (a landing page?)")
            return None
    elif len(paper.text) < MIN_TEXT_CHARACTERS:
        attempts.append(f"{label}: too little text ({len(paper.text)} characters)")
        return None
    attempts.append(f"{label}, {paper.origin}, {len(paper.blocks)} blocks")
    return paper


def _paper_part(paper: PaperText) -> PaperText:
    """The page without the blocks under headings that are no part of the paper (`_NOT_THE_PAPER`)."""
    kept = tuple(b for b in paper.blocks if not (b.section and _NOT_THE_PAPER.fullmatch(b.section.strip())))
    return paper if len(kept) == len(paper.blocks) else paper.model_copy(update={"blocks": kept})


def _on_arxiv(url: str) -> bool:
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:  # not a URL at all: the fetcher refuses it, with its reason
        return False
    return host == "arxiv.org" or host.endswith(".arxiv.org")


def _shown(url: str) -> str:
    return url if len(url) <= _URL_SHOWN else url[: _URL_SHOWN - 3] + "..."
