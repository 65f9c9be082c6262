"""Reading PDFs with pypdfium2 alone: what the sandboxed child process runs
(aletheia.pipeline.documents.sandbox).

`pdf_text` renders a PDF's text for reference extraction (`pdf_references.extract_pdf_references`), keeping
each line's indentation relative to its column and a form feed between pages; `read_pdf_paper`
reads a paper into `PaperText` blocks split at headings for excerpt matching (`fulltext`). This
module imports nothing of the pipeline, so the sandbox that runs it depends on nothing that
depends on the sandbox.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from typing import TYPE_CHECKING, Any, Final

from aletheia.config import get_settings
from aletheia.core.bibliography import InputError
from aletheia.core.errors import AletheiaError
from aletheia.core.excerpts import USUAL_SECTIONS, PaperText, TextBlock
from aletheia.core.text import normalize_whitespace

if TYPE_CHECKING:
    from pypdfium2 import PdfTextPage

__all__ = [
    "ConversionError",
    "DocumentLimitError",
    "FulltextError",
    "pdf_text",
    "read_pdf_paper",
]


class FulltextError(AletheiaError):
    """A document could not be turned into text."""


class DocumentLimitError(FulltextError):
    """A document over a configured limit (size, pages, time); only that document is given up."""


class ConversionError(FulltextError):
    """The document is not readable as the kind it claims to be."""


# --- reference lists (inputs) ---------------------------------------------------------------

# Points of indentation that mark a continuation line (hanging indents are 8-20 pt).
_INDENT_POINTS: Final = 3.0
_CONTINUATION: Final = "    "
_PAGE_BREAK: Final = "\f"
_SPACES = re.compile(r"[\s\u00a0\u2000-\u200b\u202f\u3000]+")
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?\d{1,4}(?:\s+of\s+\d{1,4})?\s*$", re.IGNORECASE)


class _Line:
    __slots__ = ("bottom", "left", "right", "text", "top")

    def __init__(self, left: float, bottom: float, right: float, top: float, text: str) -> None:
        self.left, self.bottom, self.right, self.top, self.text = left, bottom, right, top, text


# How pdfium reports a hyphen at a line end (U+FFFE, or U+0002 in older builds).
_HYPHENATION: Final = "\ufffe\x02"


def _page_lines(textpage: PdfTextPage) -> list[_Line]:
    """The text lines of a page in pdfium's order, each with its box.

    The text is pdfium's own (`get_text_range`: its words, spaces and line breaks), and each
    character's box places its line. Asking for the text inside each text rectangle instead
    (`get_text_bounded`) read a glyph twice wherever glyph boxes overlap, as in Chromium-printed
    PDFs ("VaVaswani"), and split words at kerning gaps ("A s m all").
    """
    text = textpage.get_text_range()
    if len(text) != textpage.count_chars():
        # Characters outside the BMP make the text longer than the character count: read the
        # characters one by one to keep indexes and boxes together.
        text = "".join(textpage.get_text_range(index, 1) or " " for index in range(textpage.count_chars()))
    lines: list[_Line] = []
    chars: list[str] = []
    boxes: list[tuple[float, float, float, float]] = []

    def close() -> None:
        line = "".join(chars)
        if boxes and line.strip():
            lines.append(
                _Line(
                    min(box[0] for box in boxes),
                    min(box[1] for box in boxes),
                    max(box[2] for box in boxes),
                    max(box[3] for box in boxes),
                    line,
                )
            )
        chars.clear()
        boxes.clear()

    for index, char in enumerate(text):
        if char in "\r\n":
            close()
            continue
        chars.append(char)
        if char in _HYPHENATION:
            # pdfium marks a word hyphenated at a line end and runs the two lines together: the
            # line ends here, with the mark (`plain_split.join_lines` joins the halves).
            close()
        elif not char.isspace():
            boxes.append(textpage.get_charbox(index))
    close()
    return lines


def _margins(lines: list[_Line]) -> list[float]:
    """The left margins of a page's text blocks (columns), ascending.

    A margin is a left edge shared by at least three lines with no other such edge in the 25 pt
    before it: a hanging indent's continuation lines share an edge too, but it lies just right of
    its block's margin, and a stray line further left (a line number) is not shared.
    """
    counts: Counter[int] = Counter(round(line.left) for line in lines)
    shared = sorted(edge for edge in counts if sum(counts[e] for e in range(edge - 1, edge + 2)) >= 3)
    margins: list[float] = []
    for edge in shared:
        if not margins or edge - margins[-1] > 25:
            margins.append(float(edge))
    return margins or [min((line.left for line in lines), default=0.0)]


# The page's top and bottom edges, as a share of its height, where printed page furniture sits
# (Chromium's date, title, URL and "1/1"; a footer line): body text stays clear of them.
_FURNITURE_BAND: Final = 0.05


def _drop_furniture(lines: list[_Line], height: float) -> list[_Line]:
    """The lines without those in the page's top or bottom band that stand apart from the body
    (further from every line outside the band than half their own height, where lines of
    running text are a quarter apart): headers and footers a printer adds, which would otherwise
    be glued to the last reference on the page."""
    if height <= 0:
        return lines
    band = _FURNITURE_BAND * height

    def in_band(line: _Line) -> bool:
        return line.bottom >= height - band or line.top <= band

    body = [line for line in lines if not in_band(line)]

    def apart(line: _Line) -> bool:
        gap = 0.5 * max(line.top - line.bottom, 1.0)
        return all(other.bottom - line.top > gap or line.bottom - other.top > gap for other in body)

    return [line for line in lines if not (in_band(line) and apart(line))]


def _render_page(lines: list[_Line], height: float = 0.0) -> list[str]:
    lines = _drop_furniture(lines, height)
    if not lines:
        return []
    margins = _margins(lines)
    rendered: list[str] = []
    for line in lines:
        base = max((margin for margin in margins if margin <= line.left + 1.5), default=margins[0])
        indent = _CONTINUATION if line.left - base > _INDENT_POINTS else ""
        # Word-made PDFs space words with tabs, carriage returns and no-break spaces.
        text = _SPACES.sub(" ", line.text).strip()
        if text:
            rendered.append(indent + text)
    return rendered


def pdf_text(
    data: bytes, *, origin: str = "<pdf>", max_pages: int | None = None, timeout: float | None = None
) -> str:
    """The text of a PDF, line by line, with continuation lines (indented relative to their
    column) prefixed by four spaces and a form feed between pages; page numbers and lines that
    repeat on many pages (running headers) are dropped. Raises `InputError` for an unreadable,
    encrypted or over-long document."""
    import pypdfium2 as pdfium  # a native library: loaded only by the processes that read PDFs

    if max_pages is None:
        max_pages = get_settings().max_pdf_pages
    started = time.monotonic()
    try:
        document = pdfium.PdfDocument(data)
    except (pdfium.PdfiumError, ValueError, OSError) as error:
        raise InputError(origin, f"not a readable PDF ({error})") from None
    try:
        page_count = len(document)
        if page_count > max_pages:
            raise InputError(
                origin, f"{page_count} pages, over the limit of {max_pages} (ALETHEIA_MAX_PDF_PAGES)"
            )
        pages: list[list[str]] = []
        for number in range(page_count):
            if timeout is not None and time.monotonic() - started > timeout:
                raise InputError(
                    origin, f"reading took longer than {timeout:.0f} s (ALETHEIA_PDF_TIMEOUT_SECONDS)"
                )
            try:
                page = document[number]
                textpage = page.get_textpage()
            except pdfium.PdfiumError as error:
                raise InputError(origin, f"page {number + 1} cannot be read ({error})") from None
            try:
                pages.append(_render_page(_page_lines(textpage), page.get_height()))
            finally:
                textpage.close()
                page.close()
    finally:
        document.close()
    return f"\n{_PAGE_BREAK}\n".join("\n".join(lines) for lines in _drop_repeated(pages)) + "\n"


_EDGE_LINES: Final = 2  # how many lines at the top and bottom of a page can be a running header/footer


def _drop_repeated(pages: list[list[str]]) -> list[list[str]]:
    """Pages without page numbers and running headers/footers: a line among the first or last
    two of a page that recurs there on at least 3 pages and a third of them (digits ignored).
    Only the page edges are looked at: "Association for Computational Linguistics." recurs in
    the middle of every reference page and is text."""

    def shape(line: str) -> str:
        return re.sub(r"\d+", "#", line.strip().lower())

    def edges(lines: list[str]) -> set[int]:
        return set(range(min(_EDGE_LINES, len(lines)))) | set(
            range(max(len(lines) - _EDGE_LINES, 0), len(lines))
        )

    counts: Counter[str] = Counter()
    for lines in pages:
        counts.update({shape(lines[index]) for index in edges(lines)})
    threshold = max(3, len(pages) // 3)
    repeated = {key for key, count in counts.items() if count >= threshold and len(key) > 1}
    cleaned: list[list[str]] = []
    for lines in pages:
        at_edge = edges(lines)
        cleaned.append(
            [
                line
                for index, line in enumerate(lines)
                if not (index in at_edge and (_PAGE_NUMBER.match(line) or shape(line) in repeated))
            ]
        )
    return cleaned


# --- papers (fulltext) ----------------------------------------------------------------------

# A line that is a section heading in a paper's PDF text: numbered ("3.1 Threat model",
# "4. Results") or one of the usual unnumbered ones.
_NUMBERED_HEADING: Final = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.)\s+[A-Z][^.!?]{2,70}$")
_NAMED_HEADINGS: Final = USUAL_SECTIONS | {"references", "appendix"}


def _heading(line: str) -> str | None:
    text = normalize_whitespace(line)
    if not text or len(text) > 80:
        return None
    if text.lower().rstrip(":") in _NAMED_HEADINGS:
        return text.rstrip(":")
    if _NUMBERED_HEADING.match(text) and not re.search(r"\d{3,}|%|=", text):
        return text
    return None


def _open_pdf(data: bytes, max_pages: int) -> Any:
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as exc:
        raise ConversionError(f"not a readable PDF: {exc}") from exc
    if len(document) > max_pages:
        pages = len(document)
        document.close()
        raise DocumentLimitError(f"PDF has {pages} pages; the limit is {max_pages}")
    return document


def read_pdf_paper(data: bytes, *, max_pages: int, timeout: float) -> PaperText:
    """pypdfium2 text, page by page, split into blocks at lines that look like headings."""
    document = _open_pdf(data, max_pages)
    deadline = time.monotonic() + timeout
    blocks: list[TextBlock] = []
    section: str | None = None
    try:
        pages = len(document)
        for number in range(pages):
            if time.monotonic() > deadline:
                raise DocumentLimitError(f"PDF text extraction passed {timeout:g} s at page {number + 1}")
            page = document[number]
            textpage = page.get_textpage()
            try:
                raw = textpage.get_text_range()
            finally:
                textpage.close()
                page.close()
            lines: list[str] = []
            for line in raw.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
                heading = _heading(line)
                if heading is not None:
                    if lines:
                        blocks.append(TextBlock(text="\n".join(lines), section=section, page=number + 1))
                    lines, section = [], heading
                    continue
                lines.append(line)
            if any(line.strip() for line in lines):
                blocks.append(TextBlock(text="\n".join(lines), section=section, page=number + 1))
    finally:
        document.close()
    return PaperText(blocks=tuple(blocks), origin="pdf_text", pages=pages)
