"""`ai_generated_suspect` on the document being checked (issue 13): when `aletheia verify` is given
a full text (a PDF, Markdown, LaTeX or plain-text paper, not a bibliography file), its body (the
text before the References heading) and its section headings go through the same heuristics as a
cited work's abstract (`aletheia.core.paper_mill`). The signal lands in the summary's `signals`,
with the document's name; it never changes a verdict.

The PDF is read as the references are (`pdf_text`, in the sandbox when `ALETHEIA_PDF_SANDBOX` is
on): once more, which costs a second text extraction of a document that is being verified anyway.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from aletheia.core.paper_mill import WorkText, ai_generated_signal, headings_in_text

if TYPE_CHECKING:
    from aletheia.config import Settings

# Inputs that can be a paper's full text; BibTeX, CSL-JSON and .bbl files are bibliographies only.
FULL_TEXT_SUFFIXES: Final = frozenset({".pdf", ".md", ".markdown", ".tex", ".txt"})
MIN_BODY_WORDS: Final = 300  # fewer words before the references: a reference list, not a paper
_REFERENCES: Final = re.compile(
    r"^\s*(?:#{1,6}\s*)?(?:\\section\*?\{)?(?:\d{1,2}\.?\s+)?"
    r"(?:references|bibliography|works cited)\}?\s*:?\s*$",
    re.IGNORECASE,
)

_CHECKED: ContextVar[tuple[dict[str, Any], ...]] = ContextVar("aletheia_document_signals", default=())


def _text(path: Path, settings: Settings) -> str:
    data = path.read_bytes()[: settings.max_input_bytes]
    if path.suffix.lower() != ".pdf":
        return data.decode("utf-8", errors="replace")
    if settings.pdf_sandbox:
        from aletheia.pipeline.sandbox import pdf_text_isolated

        memory = settings.pdf_memory_limit_mb * 1024 * 1024 if settings.pdf_memory_limit_mb > 0 else None
        return pdf_text_isolated(
            data,
            origin=str(path),
            max_pages=settings.max_pdf_pages,
            timeout=settings.pdf_timeout_seconds,
            memory_bytes=memory,
        )
    from aletheia.pipeline.pdf_reading import pdf_text

    return pdf_text(
        data, origin=str(path), max_pages=settings.max_pdf_pages, timeout=settings.pdf_timeout_seconds
    )


def body_of(text: str) -> WorkText | None:
    """The paper's body (before its last References heading) and headings; None when too short to
    be a paper (a reference list in a .txt or .md file)."""
    lines = text.splitlines()
    cut = max((i for i, line in enumerate(lines) if _REFERENCES.match(line)), default=len(lines))
    body = lines[:cut]
    joined = "\n".join(body)
    if len(joined.split()) < MIN_BODY_WORDS:
        return None
    headings = headings_in_text(body)
    return WorkText(parts={"full_text": joined}, headings=headings or None)


def document_signal(path: Path, settings: Settings) -> dict[str, Any] | None:
    """The signal of one input file, as a summary `signals` entry; None when it does not fire or
    the file is not a full text (an unreadable file is the references' problem, not this one's)."""
    from aletheia.core.bibliography import InputError

    if path.suffix.lower() not in FULL_TEXT_SUFFIXES or not path.is_file():
        return None
    try:
        work = body_of(_text(path, settings))
    except (InputError, OSError):
        return None
    signal = ai_generated_signal(work) if work is not None else None
    if signal is None:
        return None
    out = signal.model_dump(mode="json")
    out["evidence"] = {"document": str(path), **out["evidence"]}
    return out


def documents_checked(inputs: Sequence[str], settings: Settings) -> list[dict[str, Any]]:
    """The signals of the full-text inputs among `inputs` (files named directly; `-` and
    directories of bibliographies are not papers)."""
    found = [document_signal(Path(name), settings) for name in inputs if name != "-"]
    return [s for s in found if s is not None]


@contextmanager
def reporting_documents(signals: Sequence[dict[str, Any]]) -> Iterator[None]:
    """Within this block, every summary the sinks write carries `signals` about the documents."""
    token = _CHECKED.set(tuple(signals))
    try:
        yield
    finally:
        _CHECKED.reset(token)


def checked_documents() -> list[dict[str, Any]]:
    return list(_CHECKED.get())
