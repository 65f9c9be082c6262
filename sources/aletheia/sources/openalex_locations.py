"""Where an OpenAlex work is: its locations (primary, best open-access, every other), which of
them is arXiv, a repository or the published version, what the record therefore is (`placement`),
and the ids and URLs the locations carry.

A work has a `primary_location` and a list of `locations`, each with a `source` typed `journal`,
`conference`, `book series`, `repository` (arXiv, institutional repositories, PubMed Central)...
OpenAlex often picks a repository copy as the primary location of a published work: then the
venue is the published location's source, the repository goes to `other_venues`, and the work is
not a preprint.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from aletheia.core.arxiv_ids import arxiv_id_from_doi, clean_arxiv_id
from aletheia.core.identifiers import clean_doi, clean_pmcid, clean_pmid

__all__ = [
    "ARXIV_SOURCE_ID",
    "PUBLISHED_SOURCE_TYPES",
    "Placement",
    "mapping",
    "placement",
    "pubmed_ids",
    "related_ids",
    "source_name",
    "work_locations",
    "work_urls",
]

ARXIV_SOURCE_ID: Final = "S4306400194"  # "arXiv (Cornell University)"


def mapping(value: Any) -> Mapping[str, Any]:
    """The value if it is an object, else an empty one (absent objects are null or missing)."""
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


def work_locations(work: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found: list[Mapping[str, Any]] = []
    for name in ("primary_location", "best_oa_location"):
        location = work.get(name)
        if isinstance(location, Mapping):
            found.append(location)
    locations = work.get("locations")
    if isinstance(locations, list):
        found.extend(location for location in locations if isinstance(location, Mapping))
    return found


def pubmed_ids(ids: Mapping[str, Any], locations: list[Mapping[str, Any]]) -> tuple[str | None, str | None]:
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
PUBLISHED_SOURCE_TYPES: Final[dict[str, str]] = {
    "journal": "journal-article",
    "conference": "proceedings-article",
    "book series": "book-chapter",
    "ebook platform": "book",
}


def _primary_is_published(primary: Mapping[str, Any], primary_source: Mapping[str, Any]) -> bool:
    """The primary location is a published version in a journal, proceedings or book."""
    published = primary.get("version") == "publishedVersion" or primary.get("is_published") is True
    return published and primary_source.get("type") in PUBLISHED_SOURCE_TYPES


def _published_location(work: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The location in a journal, proceedings or book (not arXiv), for a work whose primary location
    is a repository: a published version first, else the first such location."""
    candidates = [
        location
        for location in work_locations(work)
        if mapping(location.get("source")).get("type") in PUBLISHED_SOURCE_TYPES
        and not _is_arxiv_source(mapping(location.get("source")))
        # OpenAlex has "conference" sources named after arXiv categories ("Computer Vision and
        # Pattern Recognition" for cs.CV) whose locations are arXiv pages: not a publication.
        and _location_arxiv(location) is None
        and source_name(location)
    ]
    published = [
        location
        for location in candidates
        if location.get("version") == "publishedVersion" or location.get("is_published") is True
    ]
    return (published or candidates)[0] if candidates else None


_URL_LIKE: Final = re.compile(r"^(?:https?|ftp)://|^www\.", re.IGNORECASE)


def source_name(location: Mapping[str, Any]) -> str | None:
    """The location's source name, else its `raw_source_name` unless that is a URL."""
    name = mapping(location.get("source")).get("display_name")
    if not (isinstance(name, str) and name.strip()):
        name = location.get("raw_source_name")
        if isinstance(name, str) and _URL_LIKE.match(name.strip()):
            return None
    return " ".join(name.split()) if isinstance(name, str) and name.strip() else None


def work_urls(work: Mapping[str, Any], doi: str | None, primary: Mapping[str, Any]) -> dict[str, str]:
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
    best = mapping(work.get("best_oa_location"))
    oa_url = (
        best.get("pdf_url") or best.get("landing_page_url") or mapping(work.get("open_access")).get("oa_url")
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
    best = mapping(work.get("best_oa_location"))
    locations = work.get("locations")
    open_locations = [
        loc for loc in (locations if isinstance(locations, list) else []) if mapping(loc).get("is_oa") is True
    ]
    pdf = _web_url(best.get("pdf_url")) or next(
        (url for loc in open_locations if (url := _web_url(loc.get("pdf_url")))), None
    )
    html = _web_url(best.get("landing_page_url")) or _web_url(mapping(work.get("open_access")).get("oa_url"))
    found = {"oa_pdf": pdf, "oa_html": html if html != pdf else None}
    return {key: url for key, url in found.items() if url is not None}


@dataclass(frozen=True)
class Placement:
    """What the record is, from its locations: its arXiv id, whether it is the published work or a
    preprint, the location that gives its venue, and the published location found beside a
    repository primary (None when the primary location is not a repository, or none was found)."""

    arxiv_id: str | None
    published: bool
    is_preprint: bool
    venue_location: Mapping[str, Any]
    published_location: Mapping[str, Any] | None


def placement(work: Mapping[str, Any], doi: str | None) -> Placement:
    """Where the work appeared and whether this record is its preprint (see `Placement`)."""
    primary = mapping(work.get("primary_location"))
    primary_source = mapping(primary.get("source"))
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
    is_preprint = not published and (
        (isinstance(raw_type, str) and raw_type.lower() in ("preprint", "posted-content"))
        or work.get("type_crossref") == "posted-content"
        or primary_is_arxiv
        or arxiv_id is not None
    )
    return Placement(arxiv_id, published, is_preprint, venue_location, published_location)


def related_ids(
    work: Mapping[str, Any], doi: str | None, arxiv_id: str | None
) -> tuple[list[str], list[str]]:
    """(DOIs, arXiv ids) of the other versions the work's locations point to."""
    related_dois: list[str] = []
    related_arxiv: list[str] = []
    for location in work_locations(work):
        location_arxiv = _location_arxiv(location)
        if location_arxiv is not None:
            if location_arxiv != arxiv_id and location_arxiv not in related_arxiv:
                related_arxiv.append(location_arxiv)
            continue
        location_doi = _location_doi(location)
        if location_doi is not None and location_doi != doi and location_doi not in related_dois:
            related_dois.append(location_doi)
    return related_dois, related_arxiv
