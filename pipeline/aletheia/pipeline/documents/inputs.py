"""Reading bibliographies from files, directories, stdin and PDFs: the I/O around `core.bibliography`.

`iter_references` is the one entry point. For each path it checks the size limit, sniffs the
format from the content (`detect_format_bytes`, the extension only breaking ties), decodes the
text and hands it to the pure parsers. BibTeX is streamed: the file is read in 64 KiB chunks and
entries are yielded as they are parsed, so a 100,000-entry file costs no more memory than a small
one. `@string` macros carry over from one .bib file to the next within a call, as
`\\bibliography{strings,refs}` does.

Every text input is decoded by one function, whatever its format (`core.bibliography.encoding`,
issue 30): a byte-order mark names the encoding; UTF-16 without one is told by its NUL bytes;
anything else is UTF-8, whose invalid bytes are read as Windows-1252 with a problem naming the
first. Binary data (a NUL byte, mostly control characters) is refused with an `InputError` naming
the file and the byte offset. A Word .docx is read from its bytes (`docx_reading`): its text, as a
plain-text document; a legacy .doc is refused with the formats that are read.

PDFs: `pdf_text` (aletheia.pipeline.documents.pdf_reading) renders the text with pypdfium2 (no
models), keeping each line's indentation relative to its column (hanging indents are how
author-year reference lists separate entries) and a form feed between pages;
`extract_pdf_references` (`pdf_references.py`) finds the last References heading, cuts the section
off at an appendix, and reads it as a plain-text list. `pdf_text` is the boundary a Docling-based
reader can replace.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, Final, TextIO

from aletheia.config import get_settings
from aletheia.core.bibliography import (
    SUPPORTED,
    InputError,
    InputFormat,
    InputProblem,
    detect_format,
    detect_format_bytes,
    iter_bibtex,
    parse_text,
    unsupported_doc_message,
)
from aletheia.core.bibliography.encoding import TextDecoder, sniff_encoding
from aletheia.core.bibliography.formats import SNIFF_BYTES, SNIFF_CHARS
from aletheia.core.bibliography.input_formats import folder_extensions
from aletheia.core.records import CitedReference
from aletheia.pipeline.documents.pdf_references import TextObserver, extract_pdf_references

__all__ = [
    "BIBLIOGRAPHY_SUFFIXES",
    "NoReferencesFound",
    "iter_references",
]

CHUNK_BYTES: Final = 64 * 1024
# The suffixes of a folder's files that are read (the input formats' records say which).
BIBLIOGRAPHY_SUFFIXES: Final = folder_extensions()
STDIN_ORIGIN: Final = "<stdin>"


class NoReferencesFound(InputError):
    """A named input, stdin or a folder in which no reference was found (an empty file, blank
    lines, an empty folder, a page or paper without a reference list): an input error, exit 2,
    "no references found in FILE" (with what the reader noticed, when it noticed something)."""

    def __init__(self, origin: str, reason: str | None = None) -> None:
        super().__init__(origin, reason or "no references found")
        self.reason = reason

    def __str__(self) -> str:
        return f"no references found in {self.origin}" + (f" ({self.reason})" if self.reason else "")

    def __reduce__(self) -> tuple[object, ...]:
        return (NoReferencesFound, (self.origin, self.reason))


def _required(
    stream: Iterator[CitedReference | InputProblem], origin: str, *, macros: dict[str, str] | None = None
) -> Iterator[CitedReference | InputProblem]:
    """`stream`, which must hold a reference: the problems met before the first one are held back
    until it comes, and given as the reason when none does (`NoReferencesFound`). A .bib file
    that only defines `@string` macros for the next ones (`macros` grew) holds what it should."""
    defined = len(macros) if macros is not None else 0
    held: list[InputProblem] = []
    found = False
    for item in stream:
        if found:
            yield item
        elif isinstance(item, CitedReference):
            found = True
            yield from held
            yield item
        else:
            held.append(item)
    if not found and macros is not None and len(macros) > defined:
        yield from held
    elif not found:
        raise NoReferencesFound(origin, "; ".join(problem.message for problem in held) or None)


# --- files and directories ------------------------------------------------------------------------------


def files_in_folder(directory: Path) -> list[Path]:
    """Every bibliography file under `directory`, sorted, skipping hidden files and directories
    and symbolic links that lead out of the directory."""
    root = directory.resolve()
    found: list[Path] = []
    suffixes = folder_extensions()  # read now: a format added since import counts
    for current, dirs, files in os.walk(directory, followlinks=False):
        dirs[:] = sorted(name for name in dirs if not name.startswith("."))
        for name in sorted(files):
            if name.startswith(".") or Path(name).suffix.lower() not in suffixes:
                continue
            path = Path(current) / name
            if path.is_symlink():
                target = path.resolve()
                if not target.is_relative_to(root) or not target.is_file():
                    continue
            found.append(path)
    return found


def _check_size(origin: str, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise InputError(
            origin, f"{size} bytes, over the input limit of {max_bytes} bytes (ALETHEIA_MAX_INPUT_BYTES)"
        )


def _read_limited(stream: BinaryIO, origin: str, max_bytes: int) -> bytes:
    data = stream.read(max_bytes + 1)
    _check_size(origin, len(data), max_bytes)
    return data


def _file_references(
    path: Path,
    *,
    max_bytes: int,
    max_pdf_pages: int,
    macros: dict[str, str],
    on_text: TextObserver | None = None,
) -> Iterator[CitedReference | InputProblem]:
    origin = str(path)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise InputError(origin, f"cannot read: {error.strerror or error}") from None
    _check_size(origin, size, max_bytes)
    try:
        handle = path.open("rb")
    except OSError as error:
        raise InputError(origin, f"cannot read: {error.strerror or error}") from None
    with handle:
        yield from _binary_references(
            handle,
            origin=origin,
            name=path.name,
            max_bytes=max_bytes,
            max_pdf_pages=max_pdf_pages,
            macros=macros,
            on_text=on_text,
        )


def _binary_references(
    handle: BinaryIO,
    *,
    origin: str,
    name: str | None,
    max_bytes: int,
    max_pdf_pages: int,
    macros: dict[str, str],
    on_text: TextObserver | None = None,
) -> Iterator[CitedReference | InputProblem]:
    """The references of one input given as a stream of bytes (a file, stdin's bytes)."""
    decoder = TextDecoder(origin)
    head = handle.read(SNIFF_BYTES)
    if sniff_encoding(head).codec == "utf-8":
        fmt = detect_format_bytes(head, name)
        if fmt in (InputFormat.PDF, InputFormat.DOCX):
            data = head + _read_limited(handle, origin, max_bytes - len(head))
            if fmt is InputFormat.PDF:
                yield from extract_pdf_references(
                    data, origin=origin, max_pages=max_pdf_pages, on_text=on_text
                )
            else:
                yield from docx_references(data, origin=origin, max_bytes=max_bytes, on_text=on_text)
            return
        if fmt is InputFormat.DOC:
            raise InputError(origin, unsupported_doc_message())
        if fmt is InputFormat.UNKNOWN:
            nul = head.find(b"\x00")
            if nul >= 0:
                raise InputError(origin, "binary data, not text (a NUL byte)", offset=nul)
            raise InputError(origin, f"not a bibliography format Aletheia reads ({SUPPORTED})")
        if fmt is InputFormat.BIBTEX:
            yield from _stream_bibtex(handle, head, decoder, origin=origin, macros=macros)
            return
    # UTF-16 and UTF-32 (with or without a byte-order mark) are read whole and sniffed as text.
    data = head + _read_limited(handle, origin, max_bytes - len(head))
    text = decoder.decode(data, final=True)
    if on_text is not None:
        on_text(origin, text)
    problem = decoder.problem()
    if problem is not None:
        yield problem
    if detect_format(text, name) is InputFormat.BIBTEX:
        yield from iter_bibtex([text], origin=origin, macros=macros)
        return
    # The format is sniffed again on the decoded text (the head may have cut a marker in two), by
    # `parse_text` itself, so that a plain text is read as a document (its References section).
    yield from parse_text(text, origin=origin)


def docx_references(
    data: bytes, *, origin: str, max_bytes: int, on_text: TextObserver | None = None
) -> Iterator[CitedReference | InputProblem]:
    """The references of a Word document: its text (`docx_reading.docx_text`), read as a plain-text
    document (its References section)."""
    from aletheia.pipeline.documents.docx_reading import docx_text

    text = docx_text(data, origin=origin, max_bytes=max_bytes)
    if on_text is not None:
        on_text(origin, text)
    yield from parse_text(text, origin=origin, fmt=None)


def _stream_bibtex(
    handle: BinaryIO, head: bytes, decoder: TextDecoder, *, origin: str, macros: dict[str, str]
) -> Iterator[CitedReference | InputProblem]:
    def chunks() -> Iterator[str]:
        data = head
        while data:
            yield decoder.decode(data)
            data = handle.read(CHUNK_BYTES)
        yield decoder.decode(b"", final=True)

    yield from iter_bibtex(chunks(), origin=origin, macros=macros)
    problem = decoder.problem()
    if problem is not None:
        yield problem


class _LimitedReader:
    """stdin's bytes, refused once more than `max_bytes` were read."""

    def __init__(self, raw: BinaryIO, max_bytes: int) -> None:
        self.raw = raw
        self.max_bytes = max_bytes
        self.consumed = 0

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        self.consumed += len(data)
        _check_size(STDIN_ORIGIN, self.consumed, self.max_bytes)
        return data


def _stdin_references(
    stdin: TextIO, *, max_bytes: int, max_pdf_pages: int, macros: dict[str, str]
) -> Iterator[CitedReference | InputProblem]:
    raw = getattr(stdin, "buffer", None)
    if raw is not None:
        # The real stdin: its bytes, decoded as a file's are (one encoding rule for every input).
        yield from _binary_references(
            _LimitedReader(raw, max_bytes),  # type: ignore[arg-type]
            origin=STDIN_ORIGIN,
            name=None,
            max_bytes=max_bytes,
            max_pdf_pages=max_pdf_pages,
            macros=macros,
        )
        return
    consumed = 0

    def take(size: int) -> str:
        nonlocal consumed
        text = stdin.read(size)
        consumed += len(text.encode("utf-8", "surrogatepass"))
        _check_size(STDIN_ORIGIN, consumed, max_bytes)
        return text

    head = take(SNIFF_CHARS)
    fmt = detect_format(head, None)
    if fmt is InputFormat.BIBTEX:

        def chunks() -> Iterator[str]:
            text = head
            while text:
                if "\x00" in text:
                    raise InputError(STDIN_ORIGIN, "binary data, not text (a NUL character)")
                yield text
                text = take(CHUNK_BYTES)

        yield from iter_bibtex(chunks(), origin=STDIN_ORIGIN, macros=macros)
        return
    parts = [head]
    while True:
        more = take(CHUNK_BYTES)
        if not more:
            break
        parts.append(more)
    yield from parse_text("".join(parts), origin=STDIN_ORIGIN)


def iter_references(
    paths: Sequence[str | Path],
    *,
    stdin: TextIO | None = None,
    max_bytes: int,
    max_pdf_pages: int | None = None,
    on_text: TextObserver | None = None,
) -> Iterator[CitedReference | InputProblem]:
    """Every reference (and problem) in the given inputs, in order.

    `-` reads `stdin` (default `sys.stdin`); a directory means every bibliography file in it,
    recursively (.bib .bbl .tex .md .markdown .txt .json .pdf; hidden entries skipped, links out
    of the directory not followed). A named input that cannot be read as a whole (too large,
    binary, not UTF-8, unknown format, a broken PDF) raises `InputError` naming the file; a file
    found in a directory that cannot be read is one `InputProblem`, and the others are read.
    `on_text(origin, text)` sees the whole text of each named file read whole (not stdin, not the
    files of a directory, not streamed BibTeX): a paper given as input is checked from it.
    A named input, stdin or a folder without a single reference raises `NoReferencesFound`.
    """
    pages = max_pdf_pages if max_pdf_pages is not None else get_settings().max_pdf_pages
    macros: dict[str, str] = {}
    for path in paths:
        if str(path) == "-":
            stream = _stdin_references(
                stdin or sys.stdin, max_bytes=max_bytes, max_pdf_pages=pages, macros=macros
            )
            yield from _required(stream, STDIN_ORIGIN)
            continue
        candidate = Path(path)
        if not candidate.is_dir():
            files = _file_references(
                candidate, max_bytes=max_bytes, max_pdf_pages=pages, macros=macros, on_text=on_text
            )
            yield from _required(files, str(candidate), macros=macros)
            continue
        # A file of a folder without references is passed over (a README among .bib files); a
        # folder without any is an input error, as a file without any is.
        found = False
        for file in files_in_folder(candidate):
            try:
                for item in _file_references(file, max_bytes=max_bytes, max_pdf_pages=pages, macros=macros):
                    found = found or isinstance(item, CitedReference)
                    yield item
            except InputError as error:
                yield InputProblem(origin=error.origin, message=f"not read: {error.detail}")
        if not found:
            raise NoReferencesFound(str(candidate))
