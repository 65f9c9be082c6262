"""Full text of a paper for excerpt matching: fetch (arXiv HTML, PMC, arXiv PDF, then the
open-access copy), convert, cache.

Order (seed 000 §4.1, §9): arXiv's HTML rendering first (Docling's HTML backend; the standard
library's HTML parser when Docling is not installed), then an open-access PubMed Central text
(Europe PMC's JATS, `pmc_fulltext`; issue 12), then the PDF: through Docling's layout
pipeline when `settings.docling_artifacts_path` names its models, otherwise pypdfium2's text
extraction, which needs no model. Then the open-access PDF or page OpenAlex and Semantic Scholar
link the work to, through the SSRF-safe fetcher (`oa_fulltext`; issue 19). When none gives text,
the abstract the source returned is the text, marked `origin="abstract"` (the artifact then says
`text_excerpts_unavailable: true`).

`convert_document(data, kind)` is the parsing pool's unit of work: pure bytes in, `PaperText` out,
cached on disk by the SHA-256 of the bytes (and the backend), so a paper is converted once.
Limits on PDFs are errors for that document only: more than `max_input_bytes`, more than
`max_pdf_pages` pages, or longer than `pdf_timeout_seconds` raise `DocumentLimitError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from io import BytesIO
from pathlib import Path
from typing import Any, Final, Literal

from aletheia.config import Settings, get_settings
from aletheia.core.excerpts import PaperText, TextBlock, TextOrigin
from aletheia.core.records import WorkRecord
from aletheia.core.text import normalize_whitespace
from aletheia.pipeline.documents.attempts import noted
from aletheia.pipeline.documents.oa_fulltext import oa_paper_text, oa_urls
from aletheia.pipeline.documents.pdf_reading import (
    ConversionError,
    DocumentLimitError,
    FulltextError,
    _open_pdf,
    read_pdf_paper,
)
from aletheia.pipeline.documents.pmc_fulltext import pmc_paper_text, wants_pmc

__all__ = [
    "CONVERSION_VERSION",
    "ConversionError",
    "DocumentKind",
    "DocumentLimitError",
    "FetchedText",
    "FulltextError",
    "abstract_only",
    "convert_document",
    "fetch_paper_text",
]

DocumentKind = Literal["html", "pdf"]
# Bumped whenever a conversion changes its output, so cached conversions are not reused.
CONVERSION_VERSION: Final = "1"
Converter = Callable[[bytes, DocumentKind], Awaitable[PaperText]]


# --- conversion -------------------------------------------------------------------------------------


def _backend(kind: DocumentKind, settings: Settings) -> str:
    if kind == "html":
        return "html"
    return "pdf-docling" if settings.docling_artifacts_path else "pdf-pdfium"


def _cache_file(cache_dir: Path, data: bytes, backend: str) -> Path:
    digest = hashlib.sha256(data).hexdigest()
    return cache_dir / f"{digest}-{backend}-v{CONVERSION_VERSION}.json"


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def convert_document(
    data: bytes,
    kind: DocumentKind,
    *,
    settings: Settings | None = None,
    cache_dir: Path | None = None,
) -> PaperText:
    """The text of an HTML page or a PDF, in blocks with their sections (and pages, for PDFs).

    Cached under `cache_dir` (default: `<data_dir>/fulltext`) by content hash. Raises
    `DocumentLimitError` for a document over a limit and `ConversionError` for one that cannot be
    read; neither is cached.
    """
    settings = settings or get_settings()
    if len(data) > settings.max_input_bytes:
        raise DocumentLimitError(f"document is {len(data)} bytes; the limit is {settings.max_input_bytes}")
    backend = _backend(kind, settings)
    directory = cache_dir if cache_dir is not None else settings.data_dir / "fulltext"
    cached = _cache_file(directory, data, backend)
    if cached.is_file():
        try:
            return PaperText.model_validate_json(cached.read_text(encoding="utf-8"))
        except ValueError:
            cached.unlink(missing_ok=True)  # a damaged cache entry is converted again
    if kind == "html":
        paper = _convert_html(data)
    elif backend == "pdf-docling":
        try:
            paper = _convert_pdf_docling(data, settings)
        except DocumentLimitError:
            raise
        except Exception:  # a layout-model failure falls back to the model-free path
            paper = _convert_pdf_text(data, settings)
    else:
        paper = _convert_pdf_text(data, settings)
    # A read-only cache directory costs a re-conversion next time, nothing more.
    with contextlib.suppress(OSError):
        _write_atomically(cached, paper.model_dump_json())
    return paper


# --- HTML ---------------------------------------------------------------------------------------------


def _convert_html(data: bytes) -> PaperText:
    try:
        from docling.datamodel.base_models import DocumentStream, InputFormat
        from docling.document_converter import DocumentConverter
    except ImportError:
        return _convert_html_stdlib(data)
    try:
        converter = DocumentConverter(allowed_formats=[InputFormat.HTML])
        result = converter.convert(DocumentStream(name="paper.html", stream=BytesIO(data)))
    except Exception as exc:
        raise ConversionError(f"HTML could not be converted: {exc}") from exc
    return _blocks_from_docling(result.document, origin="html")


def _blocks_from_docling(document: Any, *, origin: TextOrigin) -> PaperText:
    blocks: list[TextBlock] = []
    section: str | None = None
    paragraph = 0
    pages: set[int] = set()
    for item, _level in document.iterate_items():
        label = str(getattr(item, "label", ""))
        text = normalize_whitespace(getattr(item, "text", "") or "")
        page = None
        provenance = getattr(item, "prov", None) or []
        if provenance:
            page = provenance[0].page_no
            pages.add(page)
        if label.endswith("section_header"):
            section, paragraph = text or section, 0
            continue
        if label.endswith(("title", "page_header", "page_footer")) or not text:
            continue
        paragraph += 1
        blocks.append(TextBlock(text=text, section=section, page=page, paragraph=paragraph))
    return PaperText(blocks=tuple(blocks), origin=origin, pages=max(pages) if pages else None)


_SKIPPED_TAGS: Final = frozenset(
    {"script", "style", "nav", "header", "footer", "noscript", "annotation", "svg"}
)
_BLOCK_TAGS: Final = frozenset({"p", "li", "blockquote", "figcaption", "td", "th", "dd", "dt", "pre"})
_HEADING_TAGS: Final = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


class _TextCollector(HTMLParser):
    """Paragraphs under their headings, from any HTML; used when Docling is not installed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[TextBlock] = []
        self.section: str | None = None
        self.paragraph = 0
        self._skip = 0
        self._buffer: list[str] = []
        self._in_heading = False

    def _flush(self) -> None:
        text = normalize_whitespace("".join(self._buffer))
        self._buffer = []
        if not text:
            return
        if self._in_heading:
            self.section, self.paragraph = text, 0
        else:
            self.paragraph += 1
            self.blocks.append(TextBlock(text=text, section=self.section, paragraph=self.paragraph))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED_TAGS:
            self._skip += 1
        elif tag in _HEADING_TAGS or tag in _BLOCK_TAGS:
            self._flush()
            self._in_heading = tag in _HEADING_TAGS

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_TAGS:
            self._skip = max(0, self._skip - 1)
        elif tag in _HEADING_TAGS or tag in _BLOCK_TAGS:
            self._flush()
            self._in_heading = False

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._buffer.append(data)


def _convert_html_stdlib(data: bytes) -> PaperText:
    collector = _TextCollector()
    collector.feed(data.decode("utf-8", errors="replace"))
    collector.close()
    collector._flush()
    return PaperText(blocks=tuple(collector.blocks), origin="html")


# --- PDF ------------------------------------------------------------------------------------------------


def _convert_pdf_text(data: bytes, settings: Settings) -> PaperText:
    """The model-free PDF path; in a sandboxed child process unless `ALETHEIA_PDF_SANDBOX` is off
    (pdfium is native code reading a file from the outside: docs/reliability.md)."""
    if not settings.pdf_sandbox:
        return read_pdf_paper(data, max_pages=settings.max_pdf_pages, timeout=settings.pdf_timeout_seconds)
    from aletheia.core.bibliography import InputError
    from aletheia.pipeline.documents.sandbox import SandboxLimitError, paper_text_isolated

    memory = settings.pdf_memory_limit_mb * 1024 * 1024 if settings.pdf_memory_limit_mb > 0 else None
    try:
        raw = paper_text_isolated(
            data,
            origin="pdf",
            max_pages=settings.max_pdf_pages,
            timeout=settings.pdf_timeout_seconds,
            memory_bytes=memory,
        )
    except SandboxLimitError as exc:
        raise DocumentLimitError(exc.detail) from None
    except InputError as exc:
        raise ConversionError(exc.detail) from None
    return PaperText.model_validate_json(raw)


def _convert_pdf_docling(data: bytes, settings: Settings) -> PaperText:
    """Docling's layout pipeline, with its models read from `docling_artifacts_path` (no download)."""
    document = _open_pdf(data, settings.max_pdf_pages)  # the page limit, checked before any model runs
    document.close()
    from docling.datamodel.base_models import DocumentStream, InputFormat
    from docling.datamodel.pipeline_options import PdfPipelineOptions
    from docling.document_converter import DocumentConverter, PdfFormatOption

    options = PdfPipelineOptions(
        artifacts_path=str(settings.docling_artifacts_path),
        do_ocr=False,
        do_table_structure=False,
        document_timeout=settings.pdf_timeout_seconds,
    )
    converter = DocumentConverter(
        allowed_formats=[InputFormat.PDF],
        format_options={InputFormat.PDF: PdfFormatOption(pipeline_options=options)},
    )
    result = converter.convert(
        DocumentStream(name="paper.pdf", stream=BytesIO(data)), max_num_pages=settings.max_pdf_pages
    )
    if str(getattr(result, "status", "")).lower().endswith("partial_success"):
        raise DocumentLimitError(f"Docling stopped before the end (limit {settings.pdf_timeout_seconds:g} s)")
    return _blocks_from_docling(result.document, origin="pdf_docling")


# --- fetching ---------------------------------------------------------------------------------------


@dataclass
class FetchedText:
    """The text matched against, and what was tried to get it (for the artifact's reviewer)."""

    paper: PaperText | None
    attempts: list[str] = field(default_factory=list)

    @property
    def abstract_only(self) -> bool:
        return self.paper is not None and self.paper.origin == "abstract"


def abstract_only(record: WorkRecord) -> PaperText | None:
    """The abstract as the only text (the fallback); None when the source gave none."""
    if not record.abstract or not record.abstract.strip():
        return None
    return PaperText(blocks=(TextBlock(text=record.abstract, section="Abstract"),), origin="abstract")


def _has_text(paper: PaperText) -> bool:
    return sum(len(block.text) for block in paper.blocks) >= 200


async def _convert_in_thread(data: bytes, kind: DocumentKind) -> PaperText:
    return await asyncio.to_thread(convert_document, data, kind)


async def _arxiv_text(
    gateway: Any, record: WorkRecord, kind: DocumentKind, convert: Converter, attempts: list[str]
) -> PaperText | None:
    """arXiv's HTML rendering or its PDF, converted; None (noted in `attempts`) when it fails."""
    fetch = gateway.arxiv.fetch_html if kind == "html" else gateway.arxiv.fetch_pdf
    body = await noted(f"arxiv_{kind}", fetch(record.arxiv_id), "not available", attempts)
    if body is None:
        return None
    data = body.encode("utf-8") if isinstance(body, str) else body
    try:
        paper = await convert(data, kind)
    except FulltextError as exc:
        attempts.append(f"arxiv_{kind}: {exc}")
        return None
    if not _has_text(paper):
        attempts.append(f"arxiv_{kind}: too little text ({len(paper.text)} characters)")
        return None
    if kind == "html":
        paper = paper.model_copy(update={"origin": "arxiv_html"})
    attempts.append(f"arxiv_{kind}: {paper.origin}, {len(paper.blocks)} blocks")
    return paper


async def fetch_paper_text(
    gateway: Any, record: WorkRecord, *, convert: Converter | None = None
) -> FetchedText:
    """arXiv HTML, then PubMed Central's open-access JATS (`pmc_fulltext`), then the arXiv PDF,
    then the open-access copy the record links to (`oa_fulltext`), then the abstract (seed 000 §9,
    issues 12 and 19). Never raises for a source or conversion failure: each is recorded in
    `attempts` and the next way is tried.

    `convert` turns bytes into text; by default in a thread of this process (the queue passes a
    function that runs `convert_document` on the parsing pool).
    """
    convert = convert or _convert_in_thread
    fetched = FetchedText(paper=None)
    pmc = wants_pmc(record)
    if record.arxiv_id:
        fetched.paper = await _arxiv_text(gateway, record, "html", convert, fetched.attempts)
    if fetched.paper is None and pmc:
        paper = await pmc_paper_text(gateway, record, fetched.attempts)
        if paper is not None and not _has_text(paper):
            fetched.attempts.append(f"pmc: too little text ({len(paper.text)} characters)")
            paper = None
        fetched.paper = paper
    if fetched.paper is None and record.arxiv_id:
        fetched.paper = await _arxiv_text(gateway, record, "pdf", convert, fetched.attempts)
    if fetched.paper is None:
        fetched.paper = await oa_paper_text(gateway, record, convert, fetched.attempts)
    if fetched.paper is not None:
        return fetched
    if not record.arxiv_id and not pmc and not oa_urls(record):
        fetched.attempts.append("full_text: no arXiv id, no PMC route, no open-access link")
    fetched.paper = abstract_only(record)
    fetched.attempts.append("abstract_only" if fetched.paper is not None else "abstract: none")
    return fetched
