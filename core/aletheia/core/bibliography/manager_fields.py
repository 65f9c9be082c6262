"""What the reference managers' formats (RIS, EndNote XML, Zotero RDF) have in common: a record of
typed fields, read as the BibTeX entry the same reference would be in a `.bib` (issue 30).

Each reader collects a record's values under BibTeX's field names (`title`, `author`, `journal`,
`booktitle`, `publisher`, `year`, `doi`, `url`, ...) and its type as a BibTeX entry type, and
`record_reference` hands them to the BibTeX field reader (`bibtex_fields.reference_from_fields`):
one set of rules for which field is the venue, how a year is vouched for and where identifiers
hide, so a reference exported from Zotero as RIS gets the verdict the `.bib` export gets. The
values are escaped for LaTeX first (a title's `50%` or `~` is text, not a comment or a space),
which also makes the kept `fields` a valid BibTeX entry for the corrected-bibliography export.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final

from aletheia.core.arxiv_ids import clean_arxiv_id
from aletheia.core.bibliography.bibtex_fields import reference_from_fields
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.bibtex_value import bibtex_escape
from aletheia.core.records import CitedReference

__all__ = [
    "arxiv_fields",
    "bibtex_name",
    "container_fields",
    "first_year",
    "identifiable_or_skipped",
    "is_identifiable",
    "join_pages",
    "record_reference",
]

# Fields kept as written (identifiers and links): BibTeX's reader takes them verbatim.
_VERBATIM: Final = frozenset({"doi", "url", "isbn", "issn", "eprint", "archiveprefix", "pmid", "pmcid"})
_TRUNCATION = re.compile(r"^\s*(?:et\.?\s*al\.?|others|\.\.\.|…)\s*$", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(1\d{3}|2\d{3})(?!\d)")


def bibtex_name(name: str) -> str | None:
    """One person as a BibTeX name: "Family, Given" (and "Family, Given, Jr.") as written, a name
    without a comma braced (one field: an organisation); "et al." -> "others"; blank -> None."""
    name = " ".join(name.split()).strip(" ;")
    if not name:
        return None
    if _TRUNCATION.match(name):
        return "others"
    escaped = bibtex_escape(name)
    if "," not in name:
        # The managers write a person "Family, Given"; a name without a comma is one field (an
        # organisation, a mononym), as Zotero reads it on import: kept whole.
        return "{" + escaped + "}"
    return escaped


def first_year(*values: str | None) -> str | None:
    """The first four-digit year in the first value that has one ("2017///", "2017/12/05")."""
    for value in values:
        if value:
            match = _YEAR.search(value)
            if match is not None:
                return match.group(1)
    return None


def join_pages(start: str | None, end: str | None) -> str | None:
    start, end = (start or "").strip(), (end or "").strip()
    if start and end and end != start:
        return f"{start}--{end}"
    return start or end or None


def container_fields(entry_type: str, container: str | None, publisher: str | None) -> dict[str, str | None]:
    """Where a record's container (journal, proceedings, book, series) and publisher go in the
    BibTeX entry of `entry_type`: the fields BibTeX's reader takes the venue from."""
    if entry_type == "article":
        return {"journal": container, "publisher": publisher}
    if entry_type in ("inproceedings", "incollection"):
        return {"booktitle": container, "publisher": publisher}
    if entry_type == "book":
        return {"series": container, "publisher": publisher}
    if entry_type == "techreport":
        return {"institution": publisher or container}
    if entry_type == "phdthesis":
        return {"school": publisher or container}
    return {"howpublished": container or publisher}


def arxiv_fields(candidate: str | None) -> dict[str, str | None]:
    """`eprint` and `archiveprefix` when `candidate` (an accession number, an archive id) is an
    arXiv id, else nothing."""
    arxiv = clean_arxiv_id(candidate) if candidate else None
    if arxiv is None:
        return {}
    return {"eprint": arxiv.id + (f"v{arxiv.version}" if arxiv.version else ""), "archiveprefix": "arXiv"}


def is_identifiable(reference: CitedReference) -> bool:
    """Whether a record's reference can be checked: it has a title or an identifier (a record with
    neither is skipped with a problem)."""
    return bool(reference.title or reference.doi or reference.arxiv_id or reference.pmid or reference.isbn)


def identifiable_or_skipped(
    reference: CitedReference, *, origin: str, key: str, what: str
) -> CitedReference | InputProblem:
    """`reference` when it can be checked (`is_identifiable`), else the problem that skips it;
    `what` names the entry in the input ("record 3", "item 2")."""
    if is_identifiable(reference):
        return reference
    return InputProblem(
        origin=origin, key=key, message=f"{what} has neither a title nor an identifier; skipped"
    )


def record_reference(
    *,
    key: str,
    entry_type: str,
    values: Mapping[str, str | None],
    authors: Iterable[str] = (),
    editors: Iterable[str] = (),
    origin: str,
) -> CitedReference:
    """One record as a `CitedReference`: `values` under BibTeX field names (unescaped text),
    `authors` and `editors` as the record writes each person."""
    fields: dict[str, str] = {}
    for name, value in values.items():
        text = " ".join((value or "").split())
        if text:
            fields[name] = text if name in _VERBATIM else bibtex_escape(text)
    for field_name, people in (("author", authors), ("editor", editors)):
        names = [n for n in (bibtex_name(p) for p in people) if n]
        if names and names != ["others"]:
            # "others" only ends a list (BibTeX's form of "et al.").
            ordered = [n for n in names if n != "others"] + (["others"] if "others" in names else [])
            fields[field_name] = " and ".join(ordered)
    return reference_from_fields(key, entry_type, fields, origin=origin)
