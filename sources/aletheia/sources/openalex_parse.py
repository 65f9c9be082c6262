"""OpenAlex work objects as `WorkRecord`s: pure parsers, no I/O (the client is `openalex.py`).

Where the work appeared (and so its venue, whether it is a preprint, its other versions) comes
from its locations (`openalex_locations`); its authors from the authorships (`openalex_bylines`).
This module reads the rest: types, abstract, title and retraction, venue names and ISSNs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from aletheia.core.identifiers import clean_doi, clean_issn
from aletheia.core.records import RetractionKind, RetractionNotice, SourceName, WorkRecord
from aletheia.core.retraction import split_title_marker
from aletheia.sources.base import SourceParseError
from aletheia.sources.markup_text import markup_to_text
from aletheia.sources.openalex_bylines import authors_of
from aletheia.sources.openalex_locations import (
    PUBLISHED_SOURCE_TYPES,
    mapping,
    placement,
    pubmed_ids,
    related_ids,
    source_name,
    work_locations,
    work_urls,
)

__all__ = [
    "abstract_from_inverted_index",
    "parse_openalex_list",
    "parse_openalex_work",
]

SOURCE: Final = SourceName.OPENALEX


# --- abstracts -------------------------------------------------------------------------------------

# An inverted index claiming more positions than this is not an abstract (hostile or broken input).
_MAX_ABSTRACT_WORDS: Final = 20_000


def abstract_from_inverted_index(index: Any) -> str | None:
    """OpenAlex's `abstract_inverted_index` (word -> positions) back into text."""
    if not isinstance(index, Mapping) or not index:
        return None
    placed: list[tuple[int, str]] = []
    for word, positions in index.items():
        if not isinstance(word, str) or not isinstance(positions, list):
            continue
        for position in positions:
            if isinstance(position, int) and not isinstance(position, bool) and position >= 0:
                placed.append((position, word))
                if len(placed) > _MAX_ABSTRACT_WORDS:
                    return None
    if not placed:
        return None
    placed.sort()
    text = " ".join(word for _, word in placed)
    return " ".join(text.split()) or None


# --- types, venue names ----------------------------------------------------------------------------

_OPENALEX_TYPES: Final[dict[str, str]] = {
    "article": "journal-article",
    "review": "journal-article",
    "letter": "journal-article",
    "editorial": "journal-article",
    "preprint": "preprint",
    "posted-content": "preprint",
    "book": "book",
    "book-chapter": "book-chapter",
    "reference-entry": "book-chapter",
    "dataset": "dataset",
    "dissertation": "thesis",
    "report": "report",
    "standard": "standard",
    "peer-review": "peer-review",
    "paratext": "other",
    "other": "other",
    "retraction": "notice",
    "erratum": "notice",
}
_CROSSREF_TYPES: Final[dict[str, str]] = {
    "journal-article": "journal-article",
    "proceedings-article": "proceedings-article",
    "posted-content": "preprint",
    "book": "book",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "book-chapter": "book-chapter",
    "book-section": "book-chapter",
    "book-part": "book-chapter",
    "reference-entry": "book-chapter",
    "report": "report",
    "dissertation": "thesis",
    "dataset": "dataset",
    "standard": "standard",
    "peer-review": "peer-review",
}


def _distinct(names: list[Any], *, exclude: str | None) -> tuple[str, ...]:
    """The string names, whitespace-normalised, each once (case-insensitive), without `exclude`."""
    seen = {exclude.casefold()} if exclude else set()
    kept: list[str] = []
    for name in names:
        if not isinstance(name, str) or not name.strip():
            continue
        text = " ".join(name.split())
        if text.casefold() not in seen:
            seen.add(text.casefold())
            kept.append(text)
    return tuple(kept)


def _venue_aliases(source: Mapping[str, Any], venue: str | None) -> tuple[str, ...]:
    """The source's other names: `abbreviated_title` and `alternate_titles` (full source objects
    carry them; the dehydrated sources inside a work usually do not)."""
    alternates = source.get("alternate_titles")
    return _distinct(
        [source.get("abbreviated_title"), *(alternates if isinstance(alternates, list) else [])],
        exclude=venue,
    )


def _issns(source: Mapping[str, Any]) -> tuple[str, ...]:
    raw = source.get("issn")
    values = [*(raw if isinstance(raw, list) else [raw]), source.get("issn_l")]
    cleaned = [clean_issn(value) for value in values if isinstance(value, str)]
    return tuple(dict.fromkeys(issn for issn in cleaned if issn))


def _work_type(
    work: Mapping[str, Any], primary_source: Mapping[str, Any], *, is_preprint: bool, published: bool
) -> str | None:
    raw = work.get("type")
    openalex_type = raw.lower() if isinstance(raw, str) else None
    if openalex_type in ("retraction", "erratum"):
        return "notice"
    if is_preprint:
        return "preprint"
    crossref_type = work.get("type_crossref")
    if isinstance(crossref_type, str) and crossref_type.lower() in _CROSSREF_TYPES:
        mapped = _CROSSREF_TYPES[crossref_type.lower()]
        if mapped != "preprint" or not published:
            return mapped
    source_type = primary_source.get("type")
    if openalex_type in ("preprint", "posted-content") and published and isinstance(source_type, str):
        return PUBLISHED_SOURCE_TYPES[source_type]
    if openalex_type == "article" and source_type == "conference":
        return "proceedings-article"
    if openalex_type is None:
        return None
    return _OPENALEX_TYPES.get(openalex_type, openalex_type)


def _title_and_notices(work: Mapping[str, Any]) -> tuple[str | None, list[RetractionNotice]]:
    """The title (a "RETRACTED:"-style marker cut off) and the notices of `is_retracted` and of
    that marker."""
    notices: list[RetractionNotice] = []
    if work.get("is_retracted") is True:
        notices.append(RetractionNotice(kind=RetractionKind.RETRACTED, source=SOURCE, detail="is_retracted"))
    raw_title = work.get("title") or work.get("display_name")
    title = markup_to_text(raw_title) if isinstance(raw_title, str) else None
    if title:
        title, marked = split_title_marker(title)
        if marked is not None:
            notices.append(
                RetractionNotice(kind=marked, source=SOURCE, detail=f"title marked {marked.value}")
            )
    return title, notices


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def parse_openalex_work(work: Mapping[str, Any]) -> WorkRecord:
    """One OpenAlex work object as a `WorkRecord`."""
    if not isinstance(work, Mapping):
        raise SourceParseError(SOURCE, f"a work must be an object, not {type(work).__name__}")
    ids = mapping(work.get("ids"))
    raw_doi = work.get("doi") or ids.get("doi")
    doi = clean_doi(raw_doi) if isinstance(raw_doi, str) else None
    where = placement(work, doi)
    venue_source = mapping(where.venue_location.get("source"))
    related_dois, related_arxiv = related_ids(work, doi, where.arxiv_id)
    title, notices = _title_and_notices(work)
    venue = source_name(where.venue_location)
    year = work.get("publication_year")
    openalex_id = work.get("id")
    pmid, pmcid = pubmed_ids(ids, work_locations(work))
    return WorkRecord(
        source=SOURCE,
        source_id=openalex_id.rsplit("/", 1)[-1] if isinstance(openalex_id, str) and openalex_id else None,
        title=title or None,
        authors=authors_of(work.get("authorships")),
        authors_truncated=work.get("is_authors_truncated") is True,
        year=year if isinstance(year, int) and not isinstance(year, bool) else None,
        venue=venue,
        work_type=_work_type(work, venue_source, is_preprint=where.is_preprint, published=where.published),
        doi=doi,
        arxiv_id=where.arxiv_id,
        pmid=pmid,
        pmcid=pmcid,
        abstract=abstract_from_inverted_index(work.get("abstract_inverted_index")),
        urls=work_urls(work, doi, mapping(work.get("primary_location"))),
        retraction_notices=tuple(notices),
        related_dois=tuple(related_dois),
        related_arxiv_ids=tuple(related_arxiv),
        is_preprint=where.is_preprint,
        score=_number(work.get("relevance_score")),
        venue_aliases=_venue_aliases(venue_source, venue),
        other_venues=_distinct([source_name(location) for location in work_locations(work)], exclude=venue),
        issn=_issns(venue_source),
        published_venue=source_name(where.published_location)
        if where.published_location is not None
        else None,
    )


def parse_openalex_list(payload: Any) -> list[WorkRecord]:
    """Every work of a list response (`{"meta": ..., "results": [...]}`)."""
    results = payload.get("results") if isinstance(payload, Mapping) else None
    if not isinstance(results, list):
        raise SourceParseError(SOURCE, "not an OpenAlex list response (no `results` list)")
    return [parse_openalex_work(work) for work in results]
