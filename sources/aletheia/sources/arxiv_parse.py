"""arXiv's export API Atom feed as `ArxivEntry`s and `WorkRecord`s: a pure parser, no I/O (the
client is `arxiv.py`).

Parser choices, all visible in `parse_arxiv_atom`:

- The entry `<id>` (`http://arxiv.org/abs/2104.12255v1`) gives the arXiv id and the version the
  feed describes; `published` is always the v1 date, so `year` is the year of first submission.
- `arxiv:doi` is the DOI of the *published* version (a journal article), not of this preprint, so
  it goes to `related_dois` and `doi` stays None; `arxiv:journal_ref` is kept as `venue` and as
  `published_venue`, as the authors wrote it. A record never claims a DOI it does not own.
- arXiv answers a malformed id with an Atom feed holding one "Error" entry (and HTTP 400); the
  parser recognises it and reports it in `ArxivFeed.errors` instead of returning a record. A feed
  that is not Atom, or an entry without an arXiv id, is a `SourceParseError`.
- The body is refused before parsing if it declares a DOCTYPE or entities (`safe_xml`): arXiv never
  sends either.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Final

from aletheia.core.arxiv_ids import ArxivId, clean_arxiv_id
from aletheia.core.authors import parse_name
from aletheia.core.identifiers import clean_doi
from aletheia.core.latex import latex_to_unicode
from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.core.text import normalize_whitespace
from aletheia.sources.base import SourceParseError
from aletheia.sources.safe_xml import parse_untrusted_xml

__all__ = ["ArxivEntry", "ArxivFeed", "parse_arxiv_atom", "parse_arxiv_feed"]

SOURCE: Final = SourceName.ARXIV
_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"
_OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"

_ABS_PATH = re.compile(r"/abs/(?P<id>.+?)/?$")
_YEAR = re.compile(r"^(\d{4})-")


@dataclass(frozen=True)
class ArxivEntry:
    """One paper of a feed: the common record plus the arXiv-only facts it has no field for."""

    record: WorkRecord
    entry_id: str  # the id as the feed gave it, with its version: "2104.12255v1"
    published: str | None  # v1 submission time, ISO 8601
    updated: str | None  # this version's time
    primary_category: str | None
    categories: tuple[str, ...]
    comment: str | None
    raw: str  # this entry alone, as a one-entry Atom feed (what the raw cache keeps)


@dataclass(frozen=True)
class ArxivFeed:
    entries: tuple[ArxivEntry, ...]
    errors: tuple[str, ...]  # the summaries of arXiv's "Error" entries ("incorrect id format for abc")
    total_results: int | None
    start_index: int | None
    items_per_page: int | None


def _text(element: ET.Element | None) -> str | None:
    if element is None:
        return None
    text = normalize_whitespace("".join(element.itertext()))
    return text or None


def _int(element: ET.Element | None) -> int | None:
    text = _text(element)
    if text is None:
        return None
    try:
        return int(text)
    except ValueError as exc:
        raise SourceParseError(SOURCE, f"not an integer in the feed header: {text!r}") from exc


def _is_error_entry(entry: ET.Element, entry_id: str | None) -> bool:
    # arXiv's error entries carry an id under https://arxiv.org/api/errors and the title "Error".
    if entry_id is not None and "/api/errors" in entry_id:
        return True
    return _text(entry.find(f"{_ATOM}title")) == "Error" and (entry_id is None or "/abs/" not in entry_id)


def _authors(entry: ET.Element) -> tuple[Author, ...]:
    authors = []
    for author in entry.findall(f"{_ATOM}author"):
        # arXiv metadata is typed by the submitters in TeX ("Schr\"odinger"): render it.
        name = latex_to_unicode(_text(author.find(f"{_ATOM}name")) or "")
        parsed = parse_name(name) if name else None
        if parsed is not None and (parsed.family or parsed.given or parsed.literal):  # "," is no author
            authors.append(parsed)
    return tuple(authors)


def _one_entry_feed(entry: ET.Element) -> str:
    feed = ET.Element(f"{_ATOM}feed")
    feed.append(entry)  # ElementTree keeps no parent links: the entry stays in its own feed too
    return ET.tostring(feed, encoding="unicode")


def _links(entry: ET.Element) -> dict[str, str]:
    """The entry's links by what they are: `pdf`, `doi` (the published version's), `abs`."""
    urls: dict[str, str] = {}
    for link in entry.findall(f"{_ATOM}link"):
        href = link.get("href")
        if not href:
            continue
        if link.get("title") == "pdf":
            urls["pdf"] = href
        elif link.get("title") == "doi":
            urls["doi"] = href
        elif link.get("rel") == "alternate":
            urls["abs"] = href
    return urls


def _related_dois(entry: ET.Element) -> tuple[str, ...]:
    """`arxiv:doi` may list several DOIs separated by spaces; each is a published version."""
    related_dois: list[str] = []
    for raw_doi in (_text(entry.find(f"{_ARXIV}doi")) or "").split():
        doi = clean_doi(raw_doi)
        if doi is not None and doi not in related_dois:
            related_dois.append(doi)
    return tuple(related_dois)


def _years(published: str | None, updated: str | None) -> tuple[int | None, tuple[int, ...]]:
    """(the v1 year, the served version's year when a later version came out in another year)."""
    year_match = _YEAR.match(published or "")
    updated_match = _YEAR.match(updated or "")
    version_year = int(updated_match.group(1)) if updated_match else None
    year = int(year_match.group(1)) if year_match else None
    other_years = (
        (version_year,) if version_year is not None and (not year_match or version_year != year) else ()
    )
    return year, other_years


def _record(
    entry: ET.Element, parsed: ArxivId, versioned_id: str, published: str | None, updated: str | None
) -> WorkRecord:
    title = _text(entry.find(f"{_ATOM}title"))
    journal_ref = _text(entry.find(f"{_ARXIV}journal_ref"))
    year, other_years = _years(published, updated)
    return WorkRecord(
        source=SOURCE,
        source_id=versioned_id,
        title=(latex_to_unicode(title) or None) if title else None,
        authors=_authors(entry),
        year=year,
        other_years=other_years,
        venue=journal_ref,
        work_type="preprint",
        doi=None,
        arxiv_id=parsed.id,
        arxiv_version=parsed.version,
        abstract=_text(entry.find(f"{_ATOM}summary")),
        urls=_links(entry),
        related_dois=_related_dois(entry),
        is_preprint=True,
        published_venue=journal_ref,
    )


def _parse_entry(entry: ET.Element) -> ArxivEntry:
    entry_id = _text(entry.find(f"{_ATOM}id"))
    match = _ABS_PATH.search(entry_id or "")
    parsed = clean_arxiv_id(match.group("id")) if match else None
    if match is None or parsed is None:
        raise SourceParseError(SOURCE, f"feed entry without an arXiv id: {entry_id!r}")
    versioned_id = match.group("id")
    published = _text(entry.find(f"{_ATOM}published"))
    updated = _text(entry.find(f"{_ATOM}updated"))
    primary = entry.find(f"{_ARXIV}primary_category")
    return ArxivEntry(
        record=_record(entry, parsed, versioned_id, published, updated),
        entry_id=versioned_id,
        published=published,
        updated=updated,
        primary_category=primary.get("term") if primary is not None else None,
        categories=tuple(
            term for c in entry.findall(f"{_ATOM}category") if (term := c.get("term")) is not None
        ),
        comment=_text(entry.find(f"{_ARXIV}comment")),
        raw=_one_entry_feed(entry),
    )


def parse_arxiv_atom(xml_text: str | bytes) -> ArxivFeed:
    """Parse an export-API response (or an `ArxivEntry.raw`) into an `ArxivFeed`."""
    root = parse_untrusted_xml(xml_text, source=SOURCE, allow_doctype=False)
    if root.tag != f"{_ATOM}feed":
        raise SourceParseError(SOURCE, f"not an Atom feed: root element {root.tag!r}")

    entries: list[ArxivEntry] = []
    errors: list[str] = []
    for entry in root.findall(f"{_ATOM}entry"):
        entry_id = _text(entry.find(f"{_ATOM}id"))
        if _is_error_entry(entry, entry_id):
            errors.append(_text(entry.find(f"{_ATOM}summary")) or entry_id or "error")
        else:
            entries.append(_parse_entry(entry))
    return ArxivFeed(
        entries=tuple(entries),
        errors=tuple(errors),
        total_results=_int(root.find(f"{_OPENSEARCH}totalResults")),
        start_index=_int(root.find(f"{_OPENSEARCH}startIndex")),
        items_per_page=_int(root.find(f"{_OPENSEARCH}itemsPerPage")),
    )


def parse_arxiv_feed(xml_text: str | bytes) -> list[WorkRecord]:
    """The papers of a feed, in feed order; arXiv's "Error" entries are left out."""
    return [entry.record for entry in parse_arxiv_atom(xml_text).entries]
