"""RIS, the tagged format every reference manager exports (Zotero, Mendeley, EndNote, Web of
Science, Scopus, publishers' "export citation" links): `TY  - JOUR` ... `ER  - ` records.

The tags are read by `rispy` (a maintained RIS parser: tag names, repeated tags as lists,
continuation lines), one record at a time so that each reference keeps the line it starts on and a
broken record costs only itself. Before that, lines are cut into records here: a record runs from
its `TY` line to its `ER` line; one without `ER` (a truncated export) is read up to the next `TY`
with a problem; text between records is a problem and skipped. Tags written with one space or none
before the dash (`TY - JOUR`, `ER  -`) are accepted, as the exporters that write them are common.

A record becomes the BibTeX entry the same reference would be (`manager_fields`): `TY` the entry
type; `TI`/`T1` (or `BT` for a book) the title; `AU`/`A1` the authors, `A2`/`ED` the editors;
`T2`/`JO`/`JF`/`JA`/`BT`/`C3`/`J2` the journal or proceedings; `PY`/`Y1`/`DA` the year; `DO`,
`UR`, `SN` (ISBN for books and reports, else ISSN), `AN` (an arXiv or PubMed accession), `VL`,
`IS`, `SP`-`EP`, `PB`, `CY`, `N1`/`M1`/`M3` (notes, where exporters put DOIs and arXiv ids). The
key is `ID` when the exporter writes one (Mendeley, EndNote), else the record's position.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

from aletheia.core.bibliography.manager_fields import (
    arxiv_fields,
    container_fields,
    first_year,
    is_identifiable,
    join_pages,
    record_reference,
)
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.identifiers import clean_pmid
from aletheia.core.records import CitedReference

__all__ = ["RIS_TYPES", "iter_ris", "looks_like_ris"]

# A tag line as exporters write it: two characters (a capital, then a capital or digit), spaces,
# a dash. Canonicalised to RIS's `XX  - value` before rispy reads it.
_TAG_LINE = re.compile(r"^\ufeff?([A-Z][A-Z0-9])[ \t]{0,3}-(?:[ \t]|$)(.*)$")
_START: Final = "TY"
_END: Final = "ER"

# RIS reference types -> BibTeX entry types (RIS 2011 specification's list; unknown -> misc).
RIS_TYPES: Final = {
    **dict.fromkeys(("JOUR", "JFULL", "EJOUR", "MGZN", "NEWS", "INPR", "ABST", "SER"), "article"),
    **dict.fromkeys(("CONF", "CPAPER"), "inproceedings"),
    **dict.fromkeys(("BOOK", "EBOOK", "EDBOOK", "CLSWK"), "book"),
    **dict.fromkeys(("CHAP", "ECHAP"), "incollection"),
    **dict.fromkeys(("RPRT", "GOVDOC"), "techreport"),
    "THES": "phdthesis",
    **dict.fromkeys(("UNPB", "MANSCPT"), "unpublished"),
}
_BOOKISH: Final = frozenset({"book", "incollection", "techreport"})


def looks_like_ris(head: str) -> bool:
    """Whether a text opens as RIS: its first non-blank line is a `TY` tag."""
    for line in head.splitlines():
        if line.strip():
            match = _TAG_LINE.match(line)
            return match is not None and match.group(1) == _START
    return False


def _unended(origin: str, line: int, what_was_read: str) -> InputProblem:
    return InputProblem(origin=origin, line=line, message=f"RIS record without an ER line{what_was_read}")


def _stray_text(origin: str, line: int) -> InputProblem:
    return InputProblem(origin=origin, line=line, message="text outside a RIS record; skipped")


def _records(text: str, origin: str) -> Iterator[tuple[int, list[str]] | InputProblem]:
    """(line number of `TY`, the record's lines in canonical form) for each record, and problems."""
    current: list[str] | None = None
    start = 0
    stray: int | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        match = _TAG_LINE.match(raw)
        tag = match.group(1) if match else None
        if tag == _START:
            if current is not None:
                yield _unended(origin, start, "; read up to the next TY")
                yield start, current
            if stray is not None:
                yield _stray_text(origin, stray)
                stray = None
            current, start = [f"TY  - {match.group(2).strip()}"], number  # type: ignore[union-attr]
        elif current is None:
            if raw.strip() and stray is None:
                stray = number
        elif tag == _END:
            yield start, current
            current = None
        elif match is not None:
            current.append(f"{tag}  - {match.group(2).rstrip()}")
        elif raw.strip():
            current.append(raw.strip())  # a continuation line of the tag above
    if current is not None:
        yield _unended(origin, start, " at the end; read")
        yield start, current
    elif stray is not None:
        yield _stray_text(origin, stray)


def _one(record: dict[str, Any], *names: str) -> str | None:
    for name in names:
        value = record.get(name)
        if isinstance(value, list):
            value = next((v for v in value if isinstance(v, str) and v.strip()), None)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _many(record: dict[str, Any], *names: str) -> list[str]:
    out: list[str] = []
    for name in names:
        value = record.get(name)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item.strip():
                out.append(item.strip())
    return out


def _unknown(record: dict[str, Any], tag: str) -> str | None:
    values = (record.get("unknown_tag") or {}).get(tag) or []
    return next((v.strip() for v in values if isinstance(v, str) and v.strip()), None)


def _reference(record: dict[str, Any], *, key: str, origin: str) -> CitedReference:
    ris_type = (_one(record, "type_of_reference") or "GEN").upper()
    entry_type = RIS_TYPES.get(ris_type, "misc")
    book_title = _unknown(record, "BT")
    title = _one(record, "title", "primary_title") or (book_title if entry_type == "book" else None)
    container = _one(record, "secondary_title", "journal_name", "alternate_title3", "alternate_title2")
    container = container or (book_title if entry_type != "book" else None) or _one(record, "custom3")
    container = container or _one(record, "alternate_title1")
    values: dict[str, str | None] = {
        "title": title,
        "year": first_year(_one(record, "year"), _one(record, "publication_year"), _one(record, "date")),
        "doi": _one(record, "doi"),
        "url": _one(record, "urls"),
        "volume": _one(record, "volume"),
        "number": _one(record, "number"),
        "pages": join_pages(_one(record, "start_page"), _one(record, "end_page")),
        "address": _one(record, "place_published"),
        "note": " ".join(_many(record, "notes", "note", "type_of_work")) or None,
    }
    serial = _one(record, "issn")
    values["isbn" if entry_type in _BOOKISH else "issn"] = serial
    publisher = _one(record, "publisher")
    values |= container_fields(entry_type, container, publisher)
    accession = _one(record, "accession_number")
    if accession:
        arxiv = arxiv_fields(accession)
        database = " ".join(_many(record, "name_of_database", "database_provider")).lower()
        if arxiv:
            values |= arxiv
        elif "pubmed" in database or "medline" in database:
            values["pmid"] = clean_pmid(accession)
    return record_reference(
        key=key,
        entry_type=entry_type,
        values=values,
        authors=_many(record, "authors", "first_authors"),
        editors=_many(record, "secondary_authors") + ([v for v in [_unknown(record, "ED")] if v]),
        origin=origin,
    )


def iter_ris(text: str, *, origin: str) -> Iterator[CitedReference | InputProblem]:
    """Read RIS (see the module docstring); problems are yielded where they are met."""
    import rispy  # imported here: only RIS inputs need it

    position = 0
    for item in _records(text, origin):
        if isinstance(item, InputProblem):
            yield item
            continue
        line, lines = item
        position += 1
        parsed = rispy.loads("\n".join([*lines, "ER  - "]) + "\n")
        if not parsed:
            yield InputProblem(origin=origin, line=line, message="RIS record that could not be read; skipped")
            continue
        record = parsed[0]
        key = _one(record, "id") or str(position)
        reference = _reference(record, key=key, origin=f"{origin}:{line}")
        if not is_identifiable(reference):
            yield InputProblem(
                origin=origin,
                line=line,
                key=key,
                message="RIS record with neither a title nor an identifier; skipped",
            )
            continue
        yield reference
