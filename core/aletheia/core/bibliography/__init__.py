"""Bibliographies in, `CitedReference`s out: every input format, parsed without I/O.

The formats (`InputFormat`; each one's reader, extensions and label are its record in
`input_formats.INPUT_FORMATS`) and how each is read:

| format    | module       | what a reference is                                            |
|-----------|--------------|----------------------------------------------------------------|
| bibtex    | `bibtex`     | an entry (BibTeX and biblatex; streamed, @string, crossref)    |
| bbl/latex | `bbl`        | a `\\bibitem`, or a biblatex `\\entry` record                    |
| markdown  | `markdown`   | a reference-list item, a footnote, a DOI/arXiv link            |
| plain     | `documents`  | a numbered item, a paragraph, or a line (of the References     |
|           |              | section of a paper; a text that is no list gives none)         |
| html, xml | `documents`  | an item of the page's references section; a JATS/TEI reference |
| csl_json  | `csl_json`   | an item                                                        |
| ris       | `ris`        | a `TY`...`ER` record (read by rispy)                           |
| endnote_xml | `endnote_xml` | a `<record>`                                                |
| zotero_rdf | `zotero_rdf` | an item (a node with a `z:itemType`)                          |
| citation_ | `artifact`   | the work a citation artifact (docs/citations/{slug}.md) cites: |
| artifact  |              | its frontmatter, read through the artifact schema              |
| pdf       | (pipeline)   | the text of a PDF's reference section, read as plain text      |
| docx      | (pipeline)   | the text of a Word document, read as a plain-text document     |

The reference managers' records (RIS, EndNote XML, Zotero RDF) are read as the BibTeX entry the
same reference would be (`manager_fields`), so they get the `.bib`'s verdicts.

Readers yield `CitedReference`s and `InputProblem`s in one stream: a malformed entry is a problem
at its position, and reading continues. A whole input that cannot be read raises `InputError`.
Reading files, stdin and PDFs is the pipeline's job (`aletheia.pipeline.documents.inputs`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from aletheia.core.bibliography.bibtex import iter_bibtex
from aletheia.core.bibliography.formats import InputFormat, detect_format, detect_format_bytes
from aletheia.core.bibliography.input_formats import INPUT_FORMATS, supported, unsupported_doc_message
from aletheia.core.bibliography.plain import parse_reference_string
from aletheia.core.bibliography.problems import InputError, InputProblem
from aletheia.core.records import CitedReference

__all__ = [
    "SUPPORTED",
    "InputError",
    "InputFormat",
    "InputProblem",
    "detect_format",
    "detect_format_bytes",
    "iter_bibtex",
    "parse_reference_string",
    "parse_text",
    "unsupported_doc_message",
]

# The formats read, as error messages list them (their records' labels: `input_formats`).
SUPPORTED: Final = supported()


def parse_text(
    text: str, *, origin: str, fmt: InputFormat | None = None
) -> Iterator[CitedReference | InputProblem]:
    """Read a bibliography given as text, detecting its format from the content (and `origin`'s
    file extension, for ties) unless `fmt` says it, with that format's reader (its record in
    `input_formats.INPUT_FORMATS`). A detected plain text is read as a document (its References
    section, or nothing when it is no reference list: `documents`); `fmt=PLAIN` reads the whole
    text as a list.

    Raises `InputError` (naming `origin`) for input that is binary, in no supported format, or
    broken as a whole (JSON that does not parse); problems with single entries are yielded.
    """
    nul = text.find("\x00")
    if nul >= 0:
        raise InputError(origin, f"binary data, not text (NUL character at offset {nul})")
    detected = fmt is None
    if fmt is None:
        fmt = detect_format(text, origin)
    record = INPUT_FORMATS.get(fmt.value)
    if record is None:
        raise InputError(origin, f"not a bibliography format Aletheia reads ({supported()})")
    stream = record.reader(text, origin, detected)
    return _eager_errors(stream) if record.eager else stream


def _eager_errors(stream: Iterator[CitedReference | InputProblem]) -> Iterator[CitedReference | InputProblem]:
    """Run a reader up to its first result now, so a whole-input `InputError` is raised by the call
    to `parse_text` rather than by the first `next()` on the stream."""
    try:
        first = next(stream)
    except StopIteration:
        return iter(())

    def rest() -> Iterator[CitedReference | InputProblem]:
        yield first
        yield from stream

    return rest()
