"""The references of a PDF: its text (`pdf_reading.pdf_text`, in the sandbox when it is on), the
last References heading found, the section cut off at an appendix, and read as a plain-text list,
each entry named by its page. `inputs.iter_references` reads a PDF through here, and so does a
research text's reading (`claims/research_document.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from aletheia.config import get_settings
from aletheia.core.bibliography import InputProblem
from aletheia.core.bibliography.plain import reference_from_string
from aletheia.core.bibliography.plain_split import split_references
from aletheia.core.records import CitedReference
from aletheia.pipeline.documents.pdf_reading import _CONTINUATION, _PAGE_BREAK, pdf_text

__all__ = ["TextObserver", "extract_pdf_references"]

# Called with (origin, text) for each named input whose whole text was read (a PDF's extracted
# text, a decoded text file): the document-level signals read it instead of reading it again.
TextObserver = Callable[[str, str], None]

_SECTION_HEADING = re.compile(
    r"^\s*(?:(?:\d{1,2}|[IVX]{1,5}|[A-Z])\.?\s+)?(?:references?|bibliography|literature\s+cited|works\s+cited"
    r"|references\s+and\s+notes|cited\s+literature)\s*:?\s*$",
    re.IGNORECASE,
)
_APPENDIX_HEADING = re.compile(
    r"^(?:appendix|appendices|supplementary\s+(?:material|information|materials)|(?:[A-H](?:\.1)?)\s+"
    r"[A-Z][^.]{2,90}|appendix\s+[A-Z0-9][^.]{0,80})$",
    re.IGNORECASE,
)


def _reference_section(lines: list[str]) -> tuple[int, int] | None:
    """(first, end) line indexes of the last References section's body."""
    heading = None
    for index, line in enumerate(lines):
        if _SECTION_HEADING.match(line):  # centred headings count too, whatever their indent
            heading = index
    if heading is None:
        return None
    end = len(lines)
    for index in range(heading + 2, len(lines)):
        line = lines[index].strip()
        if lines[index].startswith(_CONTINUATION) or len(line.split()) > 12:
            continue
        if _APPENDIX_HEADING.match(line):
            end = index
            break
    return heading + 1, end


def _pdf_text(data: bytes, *, origin: str, max_pages: int | None, timeout: float | None) -> str:
    """The PDF's text, in the sandbox when it is on (the settings' limits unless given)."""
    settings = get_settings()
    pages_limit = max_pages if max_pages is not None else settings.max_pdf_pages
    seconds = timeout if timeout is not None else settings.pdf_timeout_seconds
    if settings.pdf_sandbox:
        # A child process under memory, CPU and time limits: one page can hold a decompression
        # bomb that pdf_text's between-page checks cannot stop (aletheia.pipeline.documents.sandbox).
        from aletheia.pipeline.documents.sandbox import pdf_text_isolated

        memory = settings.pdf_memory_limit_mb * 1024 * 1024 if settings.pdf_memory_limit_mb > 0 else None
        text = pdf_text_isolated(
            data, origin=origin, max_pages=pages_limit, timeout=seconds, memory_bytes=memory
        )
    else:
        text = pdf_text(data, origin=origin, max_pages=pages_limit, timeout=seconds)
    return text


def extract_pdf_references(
    data: bytes,
    *,
    origin: str,
    max_pages: int | None = None,
    timeout: float | None = None,
    on_text: TextObserver | None = None,
) -> list[CitedReference | InputProblem]:
    """The references of a PDF's References section, each read as a plain reference string
    (`on_text(origin, text)` is handed the whole extracted text first).

    Raises `InputError` for a document that cannot be read; a readable document without a
    References section gives one problem.
    """
    text = _pdf_text(data, origin=origin, max_pages=max_pages, timeout=timeout)
    if on_text is not None:
        on_text(origin, text)
    lines = text.split("\n")
    section = _reference_section(lines)
    if section is None:
        return [InputProblem(origin=origin, message="no References or Bibliography heading found in the PDF")]
    first, end = section
    # Page breaks are lines of their own; they are left out of the section so that an entry
    # running over a page break is read whole, and remembered to name each entry's page.
    kept: list[int] = []
    pages: list[int] = []
    page = 1 + sum(1 for line in lines[:first] if line == _PAGE_BREAK)
    for index in range(first, end):
        if lines[index] == _PAGE_BREAK:
            page += 1
            continue
        kept.append(index)
        pages.append(page)
    body = "\n".join(lines[index] for index in kept)
    results: list[CitedReference | InputProblem] = []
    for piece in split_references(body):
        if len(piece.text) < 20 or len(piece.text.split()) < 4:
            continue  # a stray heading, a page header that survived, a column fragment
        position = len(results) + 1
        page_number = pages[min(piece.line - 1, len(pages) - 1)]
        results.append(
            reference_from_string(piece.text, key=str(position), origin=f"{origin}:page {page_number}")
        )
    if not results:
        results.append(
            InputProblem(origin=origin, message="the References section holds no readable entries")
        )
    return results
