"""Crossref work items as `WorkRecord`s: pure parsers, no I/O (the client is `crossref.py`).

Shapes worth knowing (they break naive parsers):
- `title`, `subtitle`, `container-title` are LISTS in the REST API, strings in the CSL-JSON that
  content negotiation returns; both are accepted (`crossref_values`).
- `container-title` may hold more than one name: the proceedings title first, then the series
  ("Lecture Notes in Computer Science"). The first is `venue`, the others `other_venues`;
  `short-container-title` gives `venue_aliases`.
- Standing notices come from Crossmark updates (`updated-by`, `update-to`): `crossref_notices`
  reads them; a title marked "RETRACTED:" adds one more.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from aletheia.core.arxiv_ids import arxiv_id_from_doi, clean_arxiv_id
from aletheia.core.identifiers import clean_doi, clean_isbn, clean_issn
from aletheia.core.records import Author, RetractionNotice, SourceName, WorkRecord
from aletheia.core.retraction import split_title_marker
from aletheia.sources.base import SourceParseError
from aletheia.sources.crossref_notices import standing_notices
from aletheia.sources.crossref_values import date_parts, first_text, objects, texts
from aletheia.sources.markup_text import markup_to_text
from aletheia.sources.orcid_text import orcid_in

__all__ = [
    "CROSSREF_WORK_MESSAGE_TYPES",
    "crossref_message_type",
    "parse_crossref_message",
    "parse_crossref_work",
]

SOURCE: Final = SourceName.CROSSREF

# Envelopes that carry works; every other `message-type` (funder, member, journal, license-list,
# prefix, type, work-agency, validation-failure, resource-failure, ...) is not a work.
CROSSREF_WORK_MESSAGE_TYPES: Final = frozenset({"work", "work-list"})


# --- small readers ---------------------------------------------------------------------------------


def _distinct(names: list[str], *, exclude: str | None) -> tuple[str, ...]:
    """The names, each once (case-insensitive), without `exclude`."""
    seen = {exclude.casefold()} if exclude else set()
    kept: list[str] = []
    for name in names:
        if name.casefold() not in seen:
            seen.add(name.casefold())
            kept.append(name)
    return tuple(kept)


# Publication date fields, most authoritative first. `issued` is Crossref's own "earliest of print
# and online"; `published` is its newer alias; `created` is only when the DOI was registered, the
# last resort for deposits without any publication date.
_YEAR_FIELDS: Final = ("issued", "published", "published-print", "published-online", "posted", "created")


def _year(item: Mapping[str, Any]) -> int | None:
    for name in _YEAR_FIELDS:
        parts = date_parts(item.get(name))
        if parts:
            return parts[0]
    return None


def _other_years(item: Mapping[str, Any]) -> tuple[int, ...]:
    """Every year among the work's dates (print, online, posted...), besides `_year`'s."""
    first = _year(item)
    years: dict[int, None] = {}
    for name in _YEAR_FIELDS:
        parts = date_parts(item.get(name))
        if parts and parts[0] != first:
            years.setdefault(parts[0], None)
    return tuple(years)


def _clean_name_part(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = markup_to_text(value)
    return text or None


_ET_AL: Final = re.compile(r"^\s*(et\.?\s*al\.?|and others)\s*$", re.IGNORECASE)


def _authors(raw: Any) -> tuple[tuple[Author, ...], bool]:
    """Authors in order, and whether the deposit itself cut the list ("et al." as an author)."""
    if not isinstance(raw, list):
        return (), False
    authors: list[Author] = []
    truncated = False
    for entry in raw:
        if not isinstance(entry, Mapping):
            continue
        given = _clean_name_part(entry.get("given"))
        family = _clean_name_part(entry.get("family"))
        literal = _clean_name_part(entry.get("name"))
        if any(part is not None and _ET_AL.match(part) for part in (family, literal, given)):
            truncated = True
            continue
        if family is None and given is None and literal is None:
            continue
        if family is None and given is not None and literal is None:
            # A deposit with only `given` is a whole name in the wrong field; keep it whole.
            literal, given = given, None
        authors.append(
            Author(
                given=given if family is not None else None,
                family=family,
                literal=literal if family is None else None,
                suffix=_clean_name_part(entry.get("suffix")),
                orcid=orcid_in(entry.get("ORCID")),
            )
        )
    return tuple(authors), truncated


# Crossref work types (and the CSL types content negotiation uses) -> Aletheia's normalised types.
_WORK_TYPES: Final[dict[str, str]] = {
    "journal-article": "journal-article",
    "article-journal": "journal-article",
    "proceedings-article": "proceedings-article",
    "paper-conference": "proceedings-article",
    "posted-content": "preprint",
    "book": "book",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "book-set": "book",
    "book-series": "book",
    "book-chapter": "book-chapter",
    "chapter": "book-chapter",
    "book-section": "book-chapter",
    "book-part": "book-chapter",
    "book-track": "book-chapter",
    "reference-entry": "book-chapter",
    "entry-encyclopedia": "book-chapter",
    "entry-dictionary": "book-chapter",
    "report": "report",
    "report-series": "report",
    "report-component": "report",
    "dissertation": "thesis",
    "thesis": "thesis",
    "dataset": "dataset",
    "database": "dataset",
    "component": "component",
    "standard": "standard",
    "peer-review": "peer-review",
    "journal": "journal",
    "journal-issue": "journal-issue",
    "journal-volume": "journal-volume",
    "proceedings": "proceedings",
    "proceedings-series": "proceedings",
    "grant": "grant",
    "other": "other",
}
# Types that are themselves an editorial notice rather than a work.
_NOTICE_TYPES: Final = frozenset(
    {"retraction", "correction", "erratum", "expression-of-concern", "expression_of_concern", "withdrawal"}
)
# Posted content that is a preprint; other subtypes (letter, report, other) are not.
_PREPRINT_SUBTYPES: Final = frozenset({"preprint", "working_paper", "working-paper"})


def _work_type(item: Mapping[str, Any]) -> tuple[str | None, bool]:
    """(normalised type, is_preprint)."""
    raw = item.get("type")
    if not isinstance(raw, str) or not raw:
        return None, False
    raw = raw.lower()
    if raw in _NOTICE_TYPES:
        return "notice", False
    if raw == "posted-content":
        subtype = item.get("subtype")
        if subtype is None or (isinstance(subtype, str) and subtype.lower() in _PREPRINT_SUBTYPES):
            return "preprint", True
        return "posted-content", False
    return _WORK_TYPES.get(raw, raw), False


# Crossref relations between versions of one work (preprint <-> published, print <-> online).
_VERSION_RELATIONS: Final = (
    "is-preprint-of",
    "has-preprint",
    "is-version-of",
    "has-version",
    "is-identical-to",
    "is-same-as",
    "is-manifestation-of",
    "has-manifestation",
)


def _related_ids(relation: Any, own_doi: str | None) -> tuple[list[str], list[str]]:
    """(related DOIs, related arXiv ids) from `relation`; arXiv's DataCite DOIs become arXiv ids."""
    dois: list[str] = []
    arxiv_ids: list[str] = []
    if not isinstance(relation, Mapping):
        return dois, arxiv_ids
    for name in _VERSION_RELATIONS:
        for entry in objects(relation.get(name)):
            value = entry.get("id")
            if not isinstance(value, str):
                continue
            id_type = str(entry.get("id-type", "")).lower()
            arxiv = None
            if id_type == "arxiv" or "arxiv" in value.lower():
                arxiv = clean_arxiv_id(value)
            if arxiv is not None:
                if arxiv.id not in arxiv_ids:
                    arxiv_ids.append(arxiv.id)
                continue
            doi = clean_doi(value) if id_type in ("doi", "uri") else None
            if doi is not None and doi != own_doi and doi not in dois:
                dois.append(doi)
    return dois, arxiv_ids


def _isbns(item: Mapping[str, Any]) -> tuple[str, ...]:
    values: list[str] = []
    raw = item.get("ISBN")
    if isinstance(raw, list):
        values.extend(v for v in raw if isinstance(v, str))
    for entry in objects(item.get("isbn-type")):
        if isinstance(entry.get("value"), str):
            values.append(entry["value"])
    cleaned: list[str] = []
    for value in values:
        isbn = clean_isbn(value)
        if isbn is not None and isbn not in cleaned:
            cleaned.append(isbn)
    return tuple(cleaned)


def _venue(item: Mapping[str, Any], work_type: str | None) -> str | None:
    venue = first_text(item.get("container-title"))
    if venue:
        return venue
    event = item.get("event")
    if isinstance(event, Mapping):
        name = first_text(event.get("name"))
        if name:
            return name
    if work_type in ("preprint", "posted-content"):
        # Posted content names its server as the "institution" (bioRxiv, Research Square, ...).
        for institution in objects(item.get("institution")):
            name = first_text(institution.get("name"))
            if name:
                return name
    return None


def _other_venues(item: Mapping[str, Any], venue: str | None) -> tuple[str, ...]:
    """Container titles beyond the first (a series beside the proceedings or book title, in either
    order) and the event's name (a conference beside its proceedings)."""
    names = texts(item.get("container-title"))[1:]
    event = item.get("event")
    if isinstance(event, Mapping):
        names.extend(texts(event.get("name")))
    return _distinct(names, exclude=venue)


def _issns(item: Mapping[str, Any]) -> tuple[str, ...]:
    values = texts(item.get("ISSN"))
    values.extend(
        entry["value"] for entry in objects(item.get("issn-type")) if isinstance(entry.get("value"), str)
    )
    return tuple(dict.fromkeys(issn for value in values if (issn := clean_issn(value))))


def _urls(item: Mapping[str, Any], doi: str | None) -> dict[str, str]:
    urls: dict[str, str] = {}
    if doi:
        urls["doi"] = f"https://doi.org/{doi}"
    resource = item.get("resource")
    if isinstance(resource, Mapping):
        primary = resource.get("primary")
        if isinstance(primary, Mapping) and isinstance(primary.get("URL"), str):
            urls["landing"] = primary["URL"]
    for link in objects(item.get("link")):
        if link.get("content-type") == "application/pdf" and isinstance(link.get("URL"), str):
            urls["pdf"] = link["URL"]
            break
    return urls


def _title(item: Mapping[str, Any]) -> tuple[str | None, RetractionNotice | None]:
    """The title, and the notice its "RETRACTED:"-style marker gives (the marker cut off)."""
    title = first_text(item.get("title"))
    if title is None:
        return None, None
    title, marked = split_title_marker(title)
    if marked is None:
        return title, None
    return title, RetractionNotice(kind=marked, source=SOURCE, detail=f"title marked {marked.value}")


def _abstract(item: Mapping[str, Any]) -> str | None:
    raw = item.get("abstract")
    abstract = markup_to_text(raw, drop_heading="abstract") if isinstance(raw, str) else None
    return abstract or None


def _score(item: Mapping[str, Any]) -> float | None:
    score = item.get("score")
    return float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None


def parse_crossref_work(item: Mapping[str, Any]) -> WorkRecord:
    """One Crossref work item (REST `message` / `items[]`, or CSL-JSON) as a `WorkRecord`."""
    if not isinstance(item, Mapping):
        raise SourceParseError(SOURCE, f"a work item must be an object, not {type(item).__name__}")
    raw_doi = item.get("DOI")
    doi = clean_doi(raw_doi) if isinstance(raw_doi, str) else None
    work_type, is_preprint = _work_type(item)
    authors, truncated = _authors(item.get("author"))
    notices, notice_for = standing_notices(item, doi)
    if notice_for:
        work_type, is_preprint = "notice", False
    title, title_notice = _title(item)
    if title_notice is not None:
        notices.append(title_notice)
    related_dois, related_arxiv = _related_ids(item.get("relation"), doi)
    arxiv = arxiv_id_from_doi(doi) if doi else None
    venue = _venue(item, work_type)

    return WorkRecord(
        source=SOURCE,
        source_id=doi,
        title=title or None,
        subtitle=first_text(item.get("subtitle")),
        authors=authors,
        authors_truncated=truncated,
        year=_year(item),
        other_years=_other_years(item),
        venue=venue,
        work_type=work_type,
        doi=doi,
        arxiv_id=arxiv.id if arxiv else None,
        arxiv_version=arxiv.version if arxiv else None,
        isbn=_isbns(item),
        abstract=_abstract(item),
        urls=_urls(item, doi),
        retraction_notices=tuple(notices),
        related_dois=tuple(related_dois),
        related_arxiv_ids=tuple(related_arxiv),
        notice_for=tuple(notice_for),
        is_preprint=is_preprint or arxiv is not None,
        score=_score(item),
        venue_aliases=_distinct(texts(item.get("short-container-title")), exclude=venue),
        other_venues=_other_venues(item, venue),
        issn=_issns(item),
    )


def crossref_message_type(payload: Any) -> str | None:
    """The envelope's `message-type` (`work`, `work-list`, `funder-list`, `validation-failure`...);
    `work` for a bare CSL-JSON work; None for anything else."""
    if not isinstance(payload, Mapping):
        return None
    message_type = payload.get("message-type")
    if isinstance(message_type, str):
        return message_type
    if "message" not in payload and isinstance(payload.get("DOI"), str):
        return "work"
    return None


def parse_crossref_message(payload: Any) -> list[WorkRecord]:
    """Every work in a Crossref response: a single-work envelope, a `work-list` envelope (search,
    filter, sample), or a bare CSL-JSON work. Any other envelope is a SourceParseError."""
    message_type = crossref_message_type(payload)
    if message_type not in CROSSREF_WORK_MESSAGE_TYPES:
        raise SourceParseError(SOURCE, f"not a Crossref work response (message-type {message_type!r})")
    if "message" not in payload:
        return [parse_crossref_work(payload)]
    message = payload["message"]
    if message_type == "work":
        return [parse_crossref_work(message)]
    items = message.get("items") if isinstance(message, Mapping) else None
    if not isinstance(items, list):
        raise SourceParseError(SOURCE, "a work-list without `message.items`")
    return [parse_crossref_work(item) for item in items]
