"""EndNote XML (EndNote's "XML" export, also written by Zotero and Mendeley):
`<xml><records><record>...</record></records></xml>`.

Each `<record>` holds `ref-type` (its `name` attribute: "Journal Article", "Conference Paper", ...),
`contributors/authors/author` (and `secondary-authors`: editors), `titles/title`,
`titles/secondary-title` or `periodical/full-title` (the journal or proceedings),
`dates/year`, `electronic-resource-num` (the DOI), `urls/related-urls/url`, `isbn` (ISBN or
ISSN), `accession-num`, `volume`, `number`, `pages`, `publisher`, `pub-location`, `notes`,
`label`. Every text may be wrapped in EndNote's `<style face=...>` runs: an element's text is the
concatenation of all its text. The record becomes the BibTeX entry the same reference would be
(`manager_fields`); its key is the `label` when EndNote holds a citation key there, else its
`rec-number`, else its position.

The XML is parsed by defusedxml (`user_xml.parse_xml_safely`: no entity expansion, no external
entities or DTDs fetched).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from aletheia.core.bibliography.manager_fields import (
    arxiv_fields,
    container_fields,
    first_year,
    identifiable_or_skipped,
    record_reference,
)
from aletheia.core.bibliography.problems import InputError, InputProblem
from aletheia.core.bibliography.user_xml import element_text, parse_xml_safely
from aletheia.core.identifiers import clean_isbn
from aletheia.core.records import CitedReference

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

__all__ = ["ENDNOTE_TYPES", "iter_endnote_xml", "looks_like_endnote_xml"]

_ENDNOTE_ROOT = re.compile(r"^(?:\s*<\?xml[^>]*\?>)?(?:\s*<!--.*?-->)*\s*<xml>\s*<records[\s>]", re.DOTALL)

# EndNote reference types (the `name` of `ref-type`) -> BibTeX entry types; unknown -> misc.
ENDNOTE_TYPES: Final = {
    **dict.fromkeys(
        ("journal article", "electronic article", "magazine article", "newspaper article", "serial"),
        "article",
    ),
    **dict.fromkeys(("conference paper", "conference proceedings"), "inproceedings"),
    **dict.fromkeys(("book", "edited book", "electronic book", "classical work"), "book"),
    **dict.fromkeys(("book section", "electronic book section"), "incollection"),
    **dict.fromkeys(("report", "government document"), "techreport"),
    "thesis": "phdthesis",
    **dict.fromkeys(("manuscript", "unpublished work"), "unpublished"),
}


def looks_like_endnote_xml(head: str) -> bool:
    return _ENDNOTE_ROOT.match(head) is not None


def _first(record: Element, *paths: str) -> str | None:
    for path in paths:
        for element in record.iterfind(path):
            text = element_text(element)
            if text:
                return text
    return None


def _all(record: Element, path: str) -> list[str]:
    return [t for t in (element_text(e) for e in record.iterfind(path)) if t]


def _reference(record: Element, *, key: str, origin: str) -> CitedReference:
    ref_type = record.find("ref-type")
    type_name = (ref_type.get("name") if ref_type is not None else None) or ""
    entry_type = ENDNOTE_TYPES.get(type_name.strip().lower(), "misc")
    container = _first(
        record,
        "titles/secondary-title",
        "periodical/full-title",
        "secondary-title",
        "periodical/abbr-1",
        "titles/alt-title",
    )
    publisher = _first(record, "publisher")
    serial = _first(record, "isbn")
    values: dict[str, str | None] = {
        "title": _first(record, "titles/title", "title"),
        "year": first_year(_first(record, "dates/year"), _first(record, "dates/pub-dates/date")),
        "doi": _first(record, "electronic-resource-num"),
        "url": _first(record, "urls/related-urls/url", "urls/web-urls/url", "urls/url"),
        "volume": _first(record, "volume"),
        "number": _first(record, "number"),
        "pages": _first(record, "pages"),
        "address": _first(record, "pub-location"),
        "note": " ".join(_all(record, "notes") + _all(record, "custom1")) or None,
    }
    if serial:
        values["isbn" if clean_isbn(serial.split()[0]) else "issn"] = serial
    values |= container_fields(entry_type, container, publisher)
    values |= arxiv_fields(_first(record, "accession-num"))
    return record_reference(
        key=key,
        entry_type=entry_type,
        values=values,
        authors=_all(record, "contributors/authors/author"),
        editors=_all(record, "contributors/secondary-authors/author"),
        origin=origin,
    )


def iter_endnote_xml(text: str, *, origin: str) -> Iterator[CitedReference | InputProblem]:
    """Read EndNote XML (see the module docstring); raises `InputError` for XML that is not
    well-formed or is not EndNote's."""
    root = parse_xml_safely(text, origin, "EndNote XML")
    if root.tag != "xml" or root.find("records") is None:
        raise InputError(origin, "XML, but not EndNote XML (expected <xml><records><record>...)")
    for position, record in enumerate(root.iterfind("records/record"), start=1):
        label = _first(record, "label")
        number = _first(record, "rec-number")
        key = label if label and " " not in label else number or str(position)
        where = f"{origin}:record {position}"
        reference = _reference(record, key=key, origin=where)
        yield identifiable_or_skipped(reference, origin=origin, key=key, what=f"record {position}")
