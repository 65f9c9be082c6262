"""A research text as `aletheia claims FILE` reads it (`research_text.py`): the document's text and
its own reference list (a PDF through the same reading path as `verify`, a Word manuscript as plain
text, anything else decoded by the one encoding rule), the bibliography files given with it, and,
on the producer's side, which `.bib` files on disk belong to it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple, Protocol

from aletheia.config import Settings
from aletheia.core.bibliography import (
    InputError,
    InputFormat,
    InputProblem,
    detect_format_bytes,
    parse_text,
    unsupported_doc_message,
)
from aletheia.core.bibliography.bbl import iter_bbl
from aletheia.core.bibliography.encoding import decode_bytes, sniff_encoding
from aletheia.core.bibliography.formats import SNIFF_BYTES
from aletheia.core.bibliography.markdown import iter_markdown
from aletheia.core.bibliography.plain import iter_plain
from aletheia.core.claim_rules import REFERENCE_HEADINGS
from aletheia.core.records import CitedReference
from aletheia.core.research_prose import text_format

__all__ = [
    "FoundBibliographies",
    "NamedBytes",
    "bibliography_references",
    "discover_bibliographies",
    "document_text",
]

_BIB_COMMAND = re.compile(r"\\(?:bibliography|addbibresource|addglobalbib)\s*(?:\[[^\]]*\])?\{([^}]+)\}")
_FRONT_MATTER_BIB = re.compile(
    r"\A---\n(?:.*\n)*?bibliography:\s*(.+)\n(?:(?:[ \t]+-\s*(.+)\n)*)", re.MULTILINE
)


class NamedBytes(Protocol):
    """A document as this check reads it: its name and its bytes. The claims-text job passes the
    `InputDocument`s of its row (`jobs/submission.py`); the claims import no job module."""

    @property
    def name(self) -> str: ...

    @property
    def data(self) -> bytes: ...


# --- the producer's side: which files make up the document ---------------------------------------


class FoundBibliographies(NamedTuple):
    """The bibliographies of a document found on disk: those it names, and those only beside it."""

    named: list[Path]
    beside: list[Path]


def discover_bibliographies(path: Path, text: str) -> FoundBibliographies:
    """The bibliography files a document names (`\\bibliography{refs}`, `\\addbibresource`,
    pandoc's `bibliography:`); else, only beside it, `STEM.bib` or the only `.bib` in its folder.
    A file only beside the document is used when the document has no reference list of its own
    (issue 30: an unrelated `refs.bib` in the folder took over a Markdown paper's `[1]`-`[3]`)."""
    folder = path.parent
    named: list[str] = []
    for m in _BIB_COMMAND.finditer(text):
        named.extend(n.strip() for n in m.group(1).split(","))
    front = _FRONT_MATTER_BIB.search(text)
    if front:
        first = front.group(1).strip().strip("[]")
        named.extend(n.strip().strip("'\"") for n in first.split(",") if n.strip())
        named.extend(n.strip().strip("'\"") for n in re.findall(r"^[ \t]+-\s*(.+)$", front.group(0), re.M))
    found = []
    for name in named:
        if not name or name == "-":
            continue
        candidate = folder / (name if name.endswith(".bib") else f"{name}.bib")
        if candidate.is_file():
            found.append(candidate)
    if found:
        return FoundBibliographies(found, [])
    beside = path.with_suffix(".bib")
    if beside.is_file() and beside != path:
        return FoundBibliographies([], [beside])
    others = sorted(p for p in folder.glob("*.bib") if p.is_file() and p != path)
    return FoundBibliographies([], others if len(others) == 1 else [])


# --- reading the document --------------------------------------------------------------------------


def document_text(
    doc: NamedBytes, settings: Settings
) -> tuple[str, str, list[CitedReference | InputProblem]]:
    """(text, format, the document's own references) of the submitted document."""
    if doc.data[:5] == b"%PDF-":
        from aletheia.pipeline.documents.pdf_references import extract_pdf_references

        # One reading (in the sandbox when it is on): the references' parser hands its text over.
        texts: list[str] = []
        own = extract_pdf_references(
            doc.data,
            origin=doc.name,
            max_pages=settings.max_pdf_pages,
            timeout=settings.pdf_timeout_seconds,
            on_text=lambda _origin, text: texts.append(text),
        )
        return "".join(texts).replace("\f", "\n\n"), "plain", own
    fmt_of_bytes = detect_format_bytes(doc.data[:SNIFF_BYTES], doc.name)
    if fmt_of_bytes is InputFormat.DOCX and sniff_encoding(doc.data[:SNIFF_BYTES]).codec == "utf-8":
        from aletheia.pipeline.documents.docx_reading import docx_text

        # A Word manuscript: its paragraphs as plain text (markers, claims and References alike).
        text = docx_text(doc.data, origin=doc.name, max_bytes=settings.max_input_bytes)
        return text, "plain", _own_references(text, "plain", doc.name)
    if fmt_of_bytes is InputFormat.DOC:
        raise InputError(doc.name, unsupported_doc_message())
    # One encoding rule for every input (`core.bibliography.encoding`); binary data is refused.
    text, _problem = decode_bytes(doc.data, doc.name)
    fmt = text_format(text, doc.name)
    return text, fmt, _own_references(text, fmt, doc.name)


def _own_references(text: str, fmt: str, origin: str) -> list[CitedReference | InputProblem]:
    """The reference list inside the document itself."""
    try:
        if fmt == "latex":
            return [r for r in iter_bbl(text, origin=origin) if isinstance(r, CitedReference)]
        if fmt == "markdown":
            return list(iter_markdown(text, origin=origin))
        lines = text.splitlines(keepends=True)
        heading = max(
            (i for i, line in enumerate(lines) if REFERENCE_HEADINGS.match(line.rstrip())), default=None
        )
        if heading is None:
            return []
        return list(iter_plain("".join(lines[heading + 1 :]), origin=origin))
    except InputError:
        return []


def bibliography_references(
    documents: Sequence[NamedBytes],
) -> tuple[list[CitedReference], list[InputProblem]]:
    refs: list[CitedReference] = []
    problems: list[InputProblem] = []
    for doc in documents:
        text, problem = decode_bytes(doc.data, doc.name)
        if problem is not None:
            problems.append(problem)
        for item in parse_text(text, origin=doc.name):
            (problems if isinstance(item, InputProblem) else refs).append(item)  # type: ignore[arg-type]
    return refs, problems
