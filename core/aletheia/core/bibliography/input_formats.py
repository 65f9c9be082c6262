"""Every input format, one record each (issue 31): a new format is its reader and its record here.

`parse_text` reads a text with its format's record's reader; the file extensions that name a format
(`formats.extension_format`), the ones a folder's files are read by (`pipeline/documents/inputs.py`),
the list of formats an error message names (`SUPPORTED`) and docs/architecture.md's table of input
formats (`tests/unit/test_toy_formats.py`) come from `INPUT_FORMATS`.

Detection is an ordered set of rules over the built-in formats (`formats.detect_format`: which
signature wins when a text shows two, and when the extension breaks a tie). A format with a
signature of its own gives it as `sniff`: it is tried before those rules.

Pure: readers take text; PDF and Word files are read from their bytes by the pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

from aletheia.core.bibliography.bbl import iter_bbl
from aletheia.core.bibliography.bibtex import iter_bibtex
from aletheia.core.bibliography.csl_json import iter_csl_json
from aletheia.core.bibliography.documents import iter_html, iter_text_document, iter_xml
from aletheia.core.bibliography.endnote_xml import iter_endnote_xml
from aletheia.core.bibliography.markdown import iter_markdown
from aletheia.core.bibliography.plain import iter_plain
from aletheia.core.bibliography.problems import InputError, InputProblem
from aletheia.core.bibliography.ris import iter_ris
from aletheia.core.bibliography.zotero_rdf import iter_zotero_rdf
from aletheia.core.records import CitedReference

__all__ = ["INPUT_FORMATS", "InputFormatRecord", "Reader", "folder_extensions", "supported"]

Stream = Iterator[CitedReference | InputProblem]
# (text, origin, whether the format was detected rather than named) -> references and problems.
Reader = Callable[[str, str, bool], Stream]

# BibTeX given as one string is still fed to the streaming reader in pieces of this size.
_CHUNK_CHARS: Final = 64 * 1024


@dataclass(frozen=True, slots=True)
class InputFormatRecord:
    name: str  # the `InputFormat` value
    reader: Reader
    # File extensions (lower case, without the dot) that name it: for ties, and for a text with no
    # signature of its own (an empty `.bib`).
    extensions: tuple[str, ...] = ()
    # The extensions a folder's files are read by (`aletheia verify FOLDER`).
    folder_extensions: tuple[str, ...] = ()
    label: str = ""  # how the list of formats read names it ("" : not listed, e.g. refused)
    # Its own content signature, tried before the built-in rules (the head of the text, stripped).
    sniff: Callable[[str], bool] | None = None
    # Run to the first result at once, so that a whole input that cannot be read raises from
    # `parse_text` itself rather than from the first `next()` on the stream.
    eager: bool = False


def _chunks(text: str) -> Iterator[str]:
    for start in range(0, len(text), _CHUNK_CHARS):
        yield text[start : start + _CHUNK_CHARS]


def _bibtex(text: str, origin: str, _detected: bool) -> Stream:
    return iter_bibtex(_chunks(text), origin=origin)


def _plain(text: str, origin: str, detected: bool) -> Stream:
    # Text found to be plain may be a whole document: only its references are read. Told that it
    # is a plain list, the whole text is read as one.
    return iter_text_document(text, origin=origin) if detected else iter_plain(text, origin=origin)


def _artifact(text: str, origin: str, _detected: bool) -> Stream:
    # Imported here: the artifact schema loads PyYAML, which no other input needs.
    from aletheia.core.bibliography.artifact import iter_artifact

    return iter_artifact(text, origin=origin)


def _text(read: Callable[..., Stream]) -> Reader:
    return lambda text, origin, _detected: read(text, origin=origin)


def _from_bytes(name: str) -> Reader:
    def refuse(_text: str, origin: str, _detected: bool) -> Stream:
        raise InputError(
            origin,
            f"a {name.upper()} is read from its bytes, not as text (aletheia.pipeline.documents.inputs)",
        )

    return refuse


def _legacy_word(_text: str, origin: str, _detected: bool) -> Stream:
    raise InputError(origin, unsupported_doc_message())


def _records(*rows: InputFormatRecord) -> dict[str, InputFormatRecord]:
    return {row.name: row for row in rows}


# In the order the list of formats read names them. A plain dict: a test's toy format is put in
# with `monkeypatch.setitem`.
INPUT_FORMATS: Final[dict[str, InputFormatRecord]] = _records(
    InputFormatRecord("bibtex", _bibtex, ("bib", "bibtex"), ("bib",), "BibTeX/biblatex (.bib)"),
    InputFormatRecord("bbl", _text(iter_bbl), ("bbl",), ("bbl",), ".bbl"),
    InputFormatRecord("latex", _text(iter_bbl), ("tex", "ltx"), ("tex",), "LaTeX (.tex)"),
    InputFormatRecord("markdown", _text(iter_markdown), ("md", "markdown"), ("md", "markdown"), "Markdown"),
    InputFormatRecord("plain", _plain, ("txt", "text"), ("txt",), "plain text"),
    InputFormatRecord("html", _text(iter_html), ("html", "htm", "xhtml"), (), "HTML"),
    InputFormatRecord("xml", _text(iter_xml), ("xml", "nxml", "tei"), (), "JATS/TEI XML", eager=True),
    InputFormatRecord("csl_json", _text(iter_csl_json), ("json", "csl"), ("json",), "CSL-JSON", eager=True),
    InputFormatRecord("ris", _text(iter_ris), ("ris",), ("ris",), "RIS (.ris)"),
    InputFormatRecord("endnote_xml", _text(iter_endnote_xml), (), (), "EndNote XML", eager=True),
    InputFormatRecord(
        "zotero_rdf", _text(iter_zotero_rdf), ("rdf",), ("rdf",), "Zotero RDF (.rdf)", eager=True
    ),
    # Word: a .docx manuscript is read from its bytes (its text, then as a plain document); a
    # legacy binary .doc is recognised to be refused with the formats that are read.
    InputFormatRecord("docx", _from_bytes("docx"), ("docx", "docm"), ("docx",), "Word (.docx)"),
    InputFormatRecord("citation_artifact", _artifact, (), (), "citation artifacts"),
    InputFormatRecord("pdf", _from_bytes("pdf"), ("pdf",), ("pdf",), "PDF"),
    InputFormatRecord("doc", _legacy_word, ("doc",)),
)


def supported() -> str:
    """The formats read, as an error message lists them ("BibTeX/biblatex (.bib), ... or PDF")."""
    labels = [record.label for record in INPUT_FORMATS.values() if record.label]
    return ", ".join(labels[:-1]) + " or " + labels[-1] if len(labels) > 1 else "".join(labels)


def unsupported_doc_message() -> str:
    """Why a legacy binary Word file is refused, and what to give instead."""
    return (
        "a legacy Word .doc (binary) file is not read: save it as .docx (or PDF) and give that; "
        f"Aletheia reads {supported()}"
    )


def folder_extensions() -> frozenset[str]:
    """The suffixes (with the dot) of the files a folder's listing reads."""
    return frozenset(f".{ext}" for record in INPUT_FORMATS.values() for ext in record.folder_extensions)
