"""Bibliographies in, `CitedReference`s out: every input format, parsed without I/O.

The formats (`InputFormat`) and how each is read:

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

from aletheia.core.bibliography.bbl import iter_bbl
from aletheia.core.bibliography.bibtex import iter_bibtex
from aletheia.core.bibliography.csl_json import iter_csl_json
from aletheia.core.bibliography.documents import iter_html, iter_text_document, iter_xml
from aletheia.core.bibliography.endnote_xml import iter_endnote_xml
from aletheia.core.bibliography.formats import InputFormat, detect_format, detect_format_bytes
from aletheia.core.bibliography.markdown import iter_markdown
from aletheia.core.bibliography.plain import iter_plain, parse_reference_string
from aletheia.core.bibliography.problems import InputError, InputProblem
from aletheia.core.bibliography.ris import iter_ris
from aletheia.core.bibliography.zotero_rdf import iter_zotero_rdf
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

# BibTeX given as one string is still fed to the streaming reader in pieces of this size.
_CHUNK_CHARS: Final = 64 * 1024

SUPPORTED: Final = (
    "BibTeX/biblatex (.bib), .bbl, LaTeX (.tex), Markdown, plain text, HTML, JATS/TEI XML, CSL-JSON, "
    "RIS (.ris), EndNote XML, Zotero RDF (.rdf), Word (.docx), citation artifacts or PDF"
)


def unsupported_doc_message() -> str:
    """Why a legacy binary Word file is refused, and what to give instead."""
    return (
        "a legacy Word .doc (binary) file is not read: save it as .docx (or PDF) and give that; "
        f"Aletheia reads {SUPPORTED}"
    )


def _chunks(text: str) -> Iterator[str]:
    for start in range(0, len(text), _CHUNK_CHARS):
        yield text[start : start + _CHUNK_CHARS]


def parse_text(
    text: str, *, origin: str, fmt: InputFormat | None = None
) -> Iterator[CitedReference | InputProblem]:
    """Read a bibliography given as text, detecting its format from the content (and `origin`'s
    file extension, for ties) unless `fmt` says it. A detected plain text is read as a document
    (its References section, or nothing when it is no reference list: `documents`); `fmt=PLAIN`
    reads the whole text as a list.

    Raises `InputError` (naming `origin`) for input that is binary, in no supported format, or
    broken as a whole (JSON that does not parse); problems with single entries are yielded.
    """
    nul = text.find("\x00")
    if nul >= 0:
        raise InputError(origin, f"binary data, not text (NUL character at offset {nul})")
    detected = fmt is None
    if fmt is None:
        fmt = detect_format(text, origin)
    if fmt is InputFormat.BIBTEX:
        return iter_bibtex(_chunks(text), origin=origin)
    if fmt in (InputFormat.BBL, InputFormat.LATEX):
        return iter_bbl(text, origin=origin)
    if fmt is InputFormat.MARKDOWN:
        return iter_markdown(text, origin=origin)
    if fmt is InputFormat.PLAIN:
        # Text found to be plain may be a whole document: only its references are read. Told that
        # it is a plain list, the whole text is read as one.
        return iter_text_document(text, origin=origin) if detected else iter_plain(text, origin=origin)
    if fmt is InputFormat.HTML:
        return iter_html(text, origin=origin)
    if fmt is InputFormat.XML:
        return _eager_errors(iter_xml(text, origin=origin))
    if fmt is InputFormat.CSL_JSON:
        return _eager_errors(iter_csl_json(text, origin=origin))
    if fmt is InputFormat.ARTIFACT:
        # Imported here: the artifact schema loads PyYAML, which no other input needs.
        from aletheia.core.bibliography.artifact import iter_artifact

        return iter_artifact(text, origin=origin)
    if fmt is InputFormat.RIS:
        return iter_ris(text, origin=origin)
    if fmt is InputFormat.ENDNOTE_XML:
        return _eager_errors(iter_endnote_xml(text, origin=origin))
    if fmt is InputFormat.ZOTERO_RDF:
        return _eager_errors(iter_zotero_rdf(text, origin=origin))
    if fmt in (InputFormat.PDF, InputFormat.DOCX):
        raise InputError(
            origin,
            f"a {fmt.value.upper()} is read from its bytes, not as text (aletheia.pipeline.documents.inputs)",
        )
    if fmt is InputFormat.DOC:
        raise InputError(origin, unsupported_doc_message())
    raise InputError(origin, f"not a bibliography format Aletheia reads ({SUPPORTED})")


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
