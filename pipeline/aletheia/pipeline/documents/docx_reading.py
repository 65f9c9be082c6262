"""The text of a Word (.docx) manuscript: its paragraphs in document order, one a paragraph of text
(issue 30: a .docx was refused as "binary data").

A .docx is a ZIP archive of XML parts (Office Open XML); the text is in `word/document.xml`. Read
here without Word or Docling (Docling's DOCX backend needs python-docx, which its extra here does not
install): every `w:p` in document order, including those in tables and content controls (where
Zotero and Mendeley put a bibliography they manage), its text the `w:t` runs, `w:tab` a tab,
`w:br`/`w:cr` a line break. What is not the document's text is left out: deleted tracked changes
(`w:delText`), field instructions (`w:instrText`: "ADDIN ZOTERO_ITEM CSL_CITATION {...}"), text
moved away (`w:moveFrom`). A text box's paragraphs come after the paragraph that anchors it.
Paragraphs are separated by a blank line, so the plain-text reader takes each paragraph of a
References section as one reference (`core.bibliography.documents.iter_text_document`).

A .docx is a compressed archive: each part is read up to the input limit, whatever size its
header claims (a ZIP bomb stops there), and the XML goes through defusedxml.
"""

from __future__ import annotations

import io
import zipfile
from typing import TYPE_CHECKING, Final

from aletheia.core.bibliography import SUPPORTED, InputError
from aletheia.core.bibliography.user_xml import parse_xml_safely

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

__all__ = ["DOCUMENT_PART", "docx_text"]

DOCUMENT_PART: Final = "word/document.xml"
_W: Final = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_PARAGRAPH: Final = f"{_W}p"
_TEXT: Final = f"{_W}t"
_BREAKS: Final = frozenset({f"{_W}br", f"{_W}cr"})
_TAB: Final = f"{_W}tab"
_HYPHEN: Final = f"{_W}noBreakHyphen"
_SKIPPED: Final = frozenset(
    {f"{_W}moveFrom", f"{_W}del", f"{_W}instrText", f"{_W}delText", f"{_W}rPr", f"{_W}pPr"}
)
_TEXT_BOX: Final = f"{_W}txbxContent"


def _paragraph_text(paragraph: Element, nested: list[Element]) -> str:
    """The text of one paragraph; paragraphs of text boxes inside it are put in `nested`."""
    parts: list[str] = []

    def walk(element: Element) -> None:
        for child in element:
            tag = child.tag
            if tag in _SKIPPED:
                continue
            if tag == _TEXT_BOX:
                nested.extend(child.iter(_PARAGRAPH))
                continue
            if tag == _TEXT:
                parts.append(child.text or "")
            elif tag == _TAB:
                parts.append("\t")
            elif tag in _BREAKS:
                parts.append("\n")
            elif tag == _HYPHEN:
                parts.append("-")
            else:
                walk(child)

    walk(paragraph)
    return "".join(parts)


def _paragraphs(root: Element) -> list[str]:
    texts: list[str] = []
    seen: set[int] = set()
    for paragraph in root.iter(_PARAGRAPH):
        if id(paragraph) in seen:
            continue
        pending = [paragraph]
        while pending:
            current = pending.pop(0)
            if id(current) in seen:
                continue
            seen.add(id(current))
            nested: list[Element] = []
            text = _paragraph_text(current, nested)
            if text.strip():
                texts.append(text.strip())
            pending = nested + pending
    return texts


def _read_part(archive: zipfile.ZipFile, name: str, origin: str, max_bytes: int) -> bytes:
    try:
        with archive.open(name) as handle:
            data = handle.read(max_bytes + 1)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError, EOFError) as error:
        raise InputError(origin, f"a damaged Word document: {name} cannot be read ({error})") from None
    if len(data) > max_bytes:
        raise InputError(
            origin,
            f"{name} uncompresses to more than {max_bytes} bytes, over the input limit "
            "(ALETHEIA_MAX_INPUT_BYTES)",
        )
    return data


def docx_text(data: bytes, *, origin: str, max_bytes: int) -> str:
    """The text of a .docx: its paragraphs, in order, a blank line between them.

    Raises `InputError` naming `origin` for a ZIP archive that is no Word document, a damaged one,
    or a part over the input limit once uncompressed.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as error:
        raise InputError(origin, f"a ZIP archive that cannot be opened ({error})") from None
    with archive:
        if DOCUMENT_PART not in archive.namelist():
            raise InputError(
                origin,
                f"a ZIP archive without {DOCUMENT_PART}, so not a Word document; Aletheia reads {SUPPORTED}",
            )
        xml = _read_part(archive, DOCUMENT_PART, origin, max_bytes)
    # The part's bytes go to the XML parser, which decodes them as its declaration says.
    root = parse_xml_safely(xml, origin, "a Word document")
    try:
        paragraphs = _paragraphs(root)
    except RecursionError:
        # Word nests a few levels (tables in tables, content controls); thousands are an attack.
        raise InputError(origin, f"{DOCUMENT_PART} is nested too deeply to be a Word document") from None
    return "\n\n".join(paragraphs) + "\n"
