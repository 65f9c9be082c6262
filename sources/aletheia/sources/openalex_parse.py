"""OpenAlex work objects as `WorkRecord`s: pure parsers, no I/O (the client is `openalex.py`).

A work has a `primary_location` and a list of `locations`, each with a `source` typed `journal`,
`conference`, `book series`, `repository` (arXiv, institutional repositories, PubMed Central)...
OpenAlex often picks a repository copy as the primary location of a published work: then the
venue is the published location's source, the repository goes to `other_venues`, and the work is
not a preprint.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from aletheia.core.arxiv_ids import arxiv_id_from_doi, clean_arxiv_id
from aletheia.core.identifiers import clean_doi, clean_issn, clean_pmcid, clean_pmid
from aletheia.core.records import Author, RetractionKind, RetractionNotice, SourceName, WorkRecord
from aletheia.core.retraction import split_title_marker
from aletheia.sources.base import SourceParseError
from aletheia.sources.crossref_parse import markup_to_text

__all__ = [
    "ARXIV_SOURCE_ID",
    "abstract_from_inverted_index",
    "openalex_author_id",
    "parse_openalex_list",
    "parse_openalex_work",
    "split_display_name",
]

SOURCE: Final = SourceName.OPENALEX
ARXIV_SOURCE_ID: Final = "S4306400194"  # "arXiv (Cornell University)"


# --- names -----------------------------------------------------------------------------------------

_SUFFIXES: Final = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "v"})
# Lower-case particles that belong to the family name ("Ludwig van Beethoven", "Juan de la Cruz").
_PARTICLES: Final = frozenset(
    {
        "van",
        "von",
        "der",
        "den",
        "de",
        "del",
        "della",
        "di",
        "da",
        "du",
        "dos",
        "das",
        "la",
        "le",
        "ter",
        "ten",
    }
    | {"zu", "af", "bin", "ibn", "al", "el"}
)
# Words that make a byline an organisation, not a person ("Gemini Team", "The ATLAS Collaboration").
_ORGANISATION_WORDS: Final = frozenset(
    {
        "team",
        "consortium",
        "collaboration",
        "group",
        "committee",
        "organization",
        "organisation",
        "society",
        "association",
        "institute",
        "university",
        "project",
        "network",
        "council",
        "initiative",
        "alliance",
        "foundation",
        "laboratory",
        "investigators",
        "club",
        "inc",
        "inc.",
        "ltd",
        "ltd.",
        "corporation",
        "office",
        "agency",
        "ministry",
        "department",
        "board",
    }
)


def split_display_name(name: str, *, orcid: str | None = None) -> Author | None:
    """A byline name as an `Author`.

    `Family, Given` splits at the comma (a middle part that is a suffix, `Jr.`, goes to `suffix`);
    `Given Family` splits before the last word, which takes lower-case particles before it
    (`van`, `de la`) and leaves a trailing suffix aside; organisations and single words are kept
    whole (`literal`, resp. `family`).
    """
    text = " ".join(name.split())
    if not text:
        return None
    words = text.replace(",", " ").split()
    if any(word.casefold() in _ORGANISATION_WORDS for word in words):
        return Author(literal=text, orcid=orcid)
    if "," in text:
        parts = [part.strip() for part in text.split(",")]
        family = parts[0]
        rest = [part for part in parts[1:] if part]
        suffix = None
        if rest and rest[0].casefold() in _SUFFIXES and len(rest) > 1:
            suffix, rest = rest[0], rest[1:]
        elif rest and rest[-1].casefold() in _SUFFIXES and len(rest) > 1:
            suffix, rest = rest[-1], rest[:-1]
        given = ", ".join(rest) or None
        if not family:
            return Author(literal=text, orcid=orcid)
        return Author(given=given, family=family, suffix=suffix, orcid=orcid)
    suffix = None
    if len(words) > 2 and words[-1].casefold() in _SUFFIXES:
        suffix, words = words[-1], words[:-1]
    if len(words) == 1:
        return Author(family=words[0], suffix=suffix, orcid=orcid)
    start = len(words) - 1
    while start > 1 and words[start - 1] in _PARTICLES:
        start -= 1
    return Author(given=" ".join(words[:start]), family=" ".join(words[start:]), suffix=suffix, orcid=orcid)


def _orcid(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    match = re.search(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dXx])", value)
    return match.group(1).upper() if match else None


def openalex_author_id(value: Any) -> str | None:
    """`A5023888391` from an author id as OpenAlex gives it (`https://openalex.org/A...`)."""
    if not isinstance(value, str):
        return None
    match = re.fullmatch(r"\s*(?:https?://(?:api\.)?openalex\.org/(?:authors/)?)?([Aa]\d+)\s*", value)
    return match.group(1).upper() if match else None


def _authors(authorships: Any) -> tuple[Author, ...]:
    if not isinstance(authorships, list):
        return ()
    authors: list[Author] = []
    for authorship in authorships:
        if not isinstance(authorship, Mapping):
            continue
        author = authorship.get("author")
        author = author if isinstance(author, Mapping) else {}
        # The byline as published beats OpenAlex's disambiguated profile name, which can belong
        # to a different spelling or even a different entity ("Gemini Team" -> "Gemini Robotics Team").
        raw = authorship.get("raw_author_name")
        display = author.get("display_name")
        name = raw if isinstance(raw, str) and raw.strip() else display
        if not isinstance(name, str):
            continue
        parsed = split_display_name(markup_to_text(name), orcid=_orcid(author.get("orcid")))
        if parsed is not None:
            author_id = openalex_author_id(author.get("id"))
            authors.append(parsed.model_copy(update={"source_id": author_id}) if author_id else parsed)
    return tuple(authors)


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


# --- types, locations, identifiers -----------------------------------------------------------------

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


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _is_arxiv_source(source: Mapping[str, Any]) -> bool:
    source_id = source.get("id")
    if isinstance(source_id, str) and source_id.rsplit("/", 1)[-1] == ARXIV_SOURCE_ID:
        return True
    name = source.get("display_name")
    return isinstance(name, str) and name.lower().startswith("arxiv")


_OAI_ARXIV: Final = re.compile(r"oai:arxiv\.org:(.+)$", re.IGNORECASE)


def _location_arxiv(location: Mapping[str, Any]) -> str | None:
    """The arXiv id a location points to (landing page, PDF, OAI id, or arXiv DataCite DOI)."""
    for field in ("landing_page_url", "pdf_url", "id"):
        value = location.get(field)
        if not isinstance(value, str) or "arxiv" not in value.lower():
            continue
        oai = _OAI_ARXIV.search(value)
        parsed = clean_arxiv_id(oai.group(1) if oai else value.removeprefix("doi:"))
        if parsed is not None:
            return parsed.id
    return None


def _location_doi(location: Mapping[str, Any]) -> str | None:
    value = location.get("id")
    if isinstance(value, str) and value.lower().startswith("doi:"):
        return clean_doi(value[4:])
    landing = location.get("landing_page_url")
    if isinstance(landing, str) and re.search(r"//(dx\.)?doi\.org/", landing, re.IGNORECASE):
        return clean_doi(landing)
    return None


def _locations(work: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found: list[Mapping[str, Any]] = []
    for name in ("primary_location", "best_oa_location"):
        location = work.get(name)
        if isinstance(location, Mapping):
            found.append(location)
    locations = work.get("locations")
    if isinstance(locations, list):
        found.extend(location for location in locations if isinstance(location, Mapping))
    return found


def _pubmed_ids(ids: Mapping[str, Any], locations: list[Mapping[str, Any]]) -> tuple[str | None, str | None]:
    """(PMID, PMCID) from `ids`, else from the PubMed / PubMed Central locations."""
    pmid = clean_pmid(ids["pmid"]) if isinstance(ids.get("pmid"), str | int) else None
    pmcid = clean_pmcid(ids["pmcid"]) if isinstance(ids.get("pmcid"), str) else None
    for location in locations:
        location_id = location.get("id")
        if pmid is None and isinstance(location_id, str) and location_id.lower().startswith("pmid:"):
            pmid = clean_pmid(location_id[5:])
        landing = location.get("landing_page_url")
        if pmcid is None and isinstance(landing, str) and re.search(r"/pmc/|pmc\.ncbi", landing, re.I):
            pmcid = clean_pmcid(landing)
    return pmid, pmcid


# Published venues by OpenAlex source type, for works OpenAlex still types "preprint" after
# merging in their published version.
_PUBLISHED_SOURCE_TYPES: Final[dict[str, str]] = {
    "journal": "journal-article",
    "conference": "proceedings-article",
    "book series": "book-chapter",
    "ebook platform": "book",
}


def _primary_is_published(primary: Mapping[str, Any], primary_source: Mapping[str, Any]) -> bool:
    """The primary location is a published version in a journal, proceedings or book."""
    published = primary.get("version") == "publishedVersion" or primary.get("is_published") is True
    return published and primary_source.get("type") in _PUBLISHED_SOURCE_TYPES


def _published_location(work: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The location in a journal, proceedings or book (not arXiv), for a work whose primary location
    is a repository: a published version first, else the first such location."""
    candidates = [
        location
        for location in _locations(work)
        if _mapping(location.get("source")).get("type") in _PUBLISHED_SOURCE_TYPES
        and not _is_arxiv_source(_mapping(location.get("source")))
        # OpenAlex has "conference" sources named after arXiv categories ("Computer Vision and
        # Pattern Recognition" for cs.CV) whose locations are arXiv pages: not a publication.
        and _location_arxiv(location) is None
        and _source_name(location)
    ]
    published = [
        location
        for location in candidates
        if location.get("version") == "publishedVersion" or location.get("is_published") is True
    ]
    return (published or candidates)[0] if candidates else None


_URL_LIKE: Final = re.compile(r"^(?:https?|ftp)://|^www\.", re.IGNORECASE)


def _source_name(location: Mapping[str, Any]) -> str | None:
    """The location's source name, else its `raw_source_name` unless that is a URL."""
    name = _mapping(location.get("source")).get("display_name")
    if not (isinstance(name, str) and name.strip()):
        name = location.get("raw_source_name")
        if isinstance(name, str) and _URL_LIKE.match(name.strip()):
            return None
    return " ".join(name.split()) if isinstance(name, str) and name.strip() else None


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
        return _PUBLISHED_SOURCE_TYPES[source_type]
    if openalex_type == "article" and source_type == "conference":
        return "proceedings-article"
    if openalex_type is None:
        return None
    return _OPENALEX_TYPES.get(openalex_type, openalex_type)


def _urls(work: Mapping[str, Any], doi: str | None, primary: Mapping[str, Any]) -> dict[str, str]:
    urls: dict[str, str] = {}
    openalex_id = work.get("id")
    if isinstance(openalex_id, str) and openalex_id:
        urls["openalex"] = openalex_id
    if doi:
        urls["doi"] = f"https://doi.org/{doi}"
    if isinstance(primary.get("landing_page_url"), str):
        urls["landing"] = primary["landing_page_url"]
    if isinstance(primary.get("pdf_url"), str):
        urls["pdf"] = primary["pdf_url"]
    best = _mapping(work.get("best_oa_location"))
    oa_url = (
        best.get("pdf_url") or best.get("landing_page_url") or _mapping(work.get("open_access")).get("oa_url")
    )
    if isinstance(oa_url, str) and oa_url:
        urls["open_access"] = oa_url
    urls.update(_open_access_urls(work))
    return urls


def _web_url(value: Any) -> str | None:
    if isinstance(value, str) and value.strip().lower().startswith(("http://", "https://")):
        return value.strip()
    return None


def _open_access_urls(work: Mapping[str, Any]) -> dict[str, str]:
    """Where the open-access full text is, for the claim pipeline's full-text chain: `oa_pdf`, the
    PDF of `best_oa_location`, else of the first open-access `locations[]` entry with one (the
    recorded answers select no `best_oa_location`); `oa_html`, the best location's landing page,
    else `open_access.oa_url` (OpenAlex takes it from the best location: a PDF or a page), unless
    it is the PDF already. A closed location's PDF link is not kept: it would answer a paywall."""
    best = _mapping(work.get("best_oa_location"))
    locations = work.get("locations")
    open_locations = [
        loc
        for loc in (locations if isinstance(locations, list) else [])
        if _mapping(loc).get("is_oa") is True
    ]
    pdf = _web_url(best.get("pdf_url")) or next(
        (url for loc in open_locations if (url := _web_url(loc.get("pdf_url")))), None
    )
    html = _web_url(best.get("landing_page_url")) or _web_url(_mapping(work.get("open_access")).get("oa_url"))
    found = {"oa_pdf": pdf, "oa_html": html if html != pdf else None}
    return {key: url for key, url in found.items() if url is not None}


def parse_openalex_work(work: Mapping[str, Any]) -> WorkRecord:
    """One OpenAlex work object as a `WorkRecord`."""
    if not isinstance(work, Mapping):
        raise SourceParseError(SOURCE, f"a work must be an object, not {type(work).__name__}")
    ids = _mapping(work.get("ids"))
    raw_doi = work.get("doi") or ids.get("doi")
    doi = clean_doi(raw_doi) if isinstance(raw_doi, str) else None
    primary = _mapping(work.get("primary_location"))
    primary_source = _mapping(primary.get("source"))

    own_arxiv = arxiv_id_from_doi(doi) if doi else None
    arxiv_id = own_arxiv.id if own_arxiv else None
    primary_is_arxiv = _is_arxiv_source(primary_source) or (
        not primary_source and _location_arxiv(primary) is not None
    )
    if arxiv_id is None and primary_is_arxiv:
        arxiv_id = _location_arxiv(primary)
    raw_type = work.get("type")
    # OpenAlex merges a preprint and its published version into one work and does not always
    # update the type: a primary location that is a published version wins over "preprint".
    published = not primary_is_arxiv and _primary_is_published(primary, primary_source)
    # It also often makes a repository copy (arXiv, an institutional repository) the primary
    # location of a published work: the journal or proceedings location then gives the venue
    # (`published_venue` too), and the work is published. Unless its own DOI is the preprint's (an
    # arXiv or posted-content DOI): that record is the preprint's view, which keeps the repository
    # as its venue and only learns where the work appeared (`published_venue`).
    primary_is_repository = primary_is_arxiv or primary_source.get("type") == "repository"
    published_location = _published_location(work) if primary_is_repository else None
    doi_is_preprint = own_arxiv is not None or work.get("type_crossref") == "posted-content"
    venue_location = primary
    if published_location is not None and not doi_is_preprint:
        published, venue_location = True, published_location
    venue_source = _mapping(venue_location.get("source"))
    is_preprint = not published and (
        (isinstance(raw_type, str) and raw_type.lower() in ("preprint", "posted-content"))
        or work.get("type_crossref") == "posted-content"
        or primary_is_arxiv
        or arxiv_id is not None
    )

    related_dois: list[str] = []
    related_arxiv: list[str] = []
    for location in _locations(work):
        location_arxiv = _location_arxiv(location)
        if location_arxiv is not None:
            if location_arxiv != arxiv_id and location_arxiv not in related_arxiv:
                related_arxiv.append(location_arxiv)
            continue
        location_doi = _location_doi(location)
        if location_doi is not None and location_doi != doi and location_doi not in related_dois:
            related_dois.append(location_doi)

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

    venue = _source_name(venue_location)
    year = work.get("publication_year")
    openalex_id = work.get("id")
    score = work.get("relevance_score")
    pmid, pmcid = _pubmed_ids(ids, _locations(work))
    return WorkRecord(
        source=SOURCE,
        source_id=openalex_id.rsplit("/", 1)[-1] if isinstance(openalex_id, str) and openalex_id else None,
        title=title or None,
        authors=_authors(work.get("authorships")),
        authors_truncated=work.get("is_authors_truncated") is True,
        year=year if isinstance(year, int) and not isinstance(year, bool) else None,
        venue=venue,
        work_type=_work_type(work, venue_source, is_preprint=is_preprint, published=published),
        doi=doi,
        arxiv_id=arxiv_id,
        pmid=pmid,
        pmcid=pmcid,
        abstract=abstract_from_inverted_index(work.get("abstract_inverted_index")),
        urls=_urls(work, doi, primary),
        retraction_notices=tuple(notices),
        related_dois=tuple(related_dois),
        related_arxiv_ids=tuple(related_arxiv),
        is_preprint=is_preprint,
        score=float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None,
        venue_aliases=_venue_aliases(venue_source, venue),
        other_venues=_distinct([_source_name(location) for location in _locations(work)], exclude=venue),
        issn=_issns(venue_source),
        published_venue=_source_name(published_location) if published_location is not None else None,
    )


def parse_openalex_list(payload: Any) -> list[WorkRecord]:
    """Every work of a list response (`{"meta": ..., "results": [...]}`)."""
    results = payload.get("results") if isinstance(payload, Mapping) else None
    if not isinstance(results, list):
        raise SourceParseError(SOURCE, "not an OpenAlex list response (no `results` list)")
    return [parse_openalex_work(work) for work in results]
