"""One OpenAlex work object, as `/works/{id}`, the `results` of `/works?` and the works dump
give it: its ids, its locations (the venue, a book series, a repository copy, arXiv, PubMed), the
open access they make, its authorships and its abstract as an inverted index. A work recorded
from the real service (`native`) is served verbatim.
"""

from __future__ import annotations

from typing import Any, Final

from aletheia.sources.simulator.common import month_day
from aletheia.sources.simulator.ids import stable_hex, stable_int
from aletheia.sources.simulator.work import ARXIV_DOI_PREFIX, SimWork

# Crossref's type vocabulary (the universe's) -> OpenAlex's.
WORK_TYPES: Final = {
    "journal-article": "article",
    "proceedings-article": "article",
    "posted-content": "preprint",
    "book": "book",
    "monograph": "book",
    "edited-book": "book",
    "book-chapter": "book-chapter",
    "dataset": "dataset",
    "dissertation": "dissertation",
    "report": "report",
}


def _doi_url(work: SimWork) -> str | None:
    if work.doi:
        return f"https://doi.org/{work.doi}"
    if work.arxiv_id:
        # OpenAlex lists arXiv-only papers under arXiv's DataCite DOI.
        return f"https://doi.org/{ARXIV_DOI_PREFIX}arxiv.{work.arxiv_id.lower()}"
    return None


def _source(work: SimWork) -> dict[str, Any] | None:
    if not work.venue:
        return None
    kind = "conference" if work.type == "proceedings-article" else "journal"
    if work.type == "posted-content":
        kind = "repository"
    if work.type in ("book", "book-chapter", "monograph"):
        kind = "book series"
    source = _named_source(work.venue, kind, work.publisher, issn=work.issn)
    if work.venue_aliases:
        # Full source objects carry these; OpenAlex's nested ones may too.
        source["abbreviated_title"] = work.venue_aliases[0]
        source["alternate_titles"] = list(work.venue_aliases)
    return source


def _named_source(
    name: str, kind: str, publisher: str | None, *, issn: tuple[str, ...] = ()
) -> dict[str, Any]:
    return {
        "id": f"https://openalex.org/S{4_300_000_000 + stable_int('source', name)}",
        "display_name": name,
        "issn_l": issn[0] if issn else None,
        "issn": list(issn) if issn else None,
        "is_oa": kind == "repository",
        "is_in_doaj": False,
        "is_core": kind == "journal",
        "host_organization": None,
        "host_organization_name": publisher,
        "host_organization_lineage": [],
        "host_organization_lineage_names": [],
        "type": kind,
    }


def _extra_location(work: SimWork, name: str, kind: str, *, published: bool) -> dict[str, Any]:
    """A location in another source: a book series beside the proceedings, or a repository copy."""
    slug = stable_hex(kind, name, work.key)[:12]
    return {
        "id": f"{kind.replace(' ', '-')}:{slug}",
        "is_oa": not published,
        "landing_page_url": f"https://{'series' if published else 'repository'}.example.org/{slug}",
        "pdf_url": None if published else f"https://repository.example.org/{slug}.pdf",
        "source": _named_source(name, kind, work.publisher if published else None),
        "license": None,
        "license_id": None,
        "version": "publishedVersion" if published else "acceptedVersion",
        "is_accepted": True,
        "is_published": published,
        "raw_source_name": name,
        "raw_type": work.type if published else None,
    }


_ARXIV_SOURCE: Final = {
    "id": "https://openalex.org/S4306400194",
    "display_name": "arXiv (Cornell University)",
    "issn_l": None,
    "issn": None,
    "is_oa": True,
    "is_in_doaj": False,
    "is_core": False,
    "host_organization": "https://openalex.org/I205783295",
    "host_organization_name": "Cornell University",
    "host_organization_lineage": ["https://openalex.org/I205783295"],
    "host_organization_lineage_names": [],
    "type": "repository",
}


def _published_location(
    work: SimWork, location_id: str, *, is_oa: bool, landing_page_url: str | None, **overrides: Any
) -> dict[str, Any]:
    """A location of the published version: at its venue, or (`overrides`) where it is listed."""
    return {
        "id": location_id,
        "is_oa": is_oa,
        "landing_page_url": landing_page_url,
        "pdf_url": None,
        "source": _source(work),
        "license": None,
        "license_id": None,
        "version": "publishedVersion",
        "is_accepted": True,
        "is_published": True,
        "raw_source_name": work.venue,
        "raw_type": work.type,
        **overrides,
    }


def _locations(work: SimWork) -> list[dict[str, Any]]:
    locations: list[dict[str, Any]] = []
    if work.doi:
        locations.append(
            _published_location(work, f"doi:{work.doi}", is_oa=False, landing_page_url=_doi_url(work))
        )
    elif work.venue and work.type != "posted-content":
        # Published without a DOI (PMLR, OpenReview, NeurIPS proceedings): OpenAlex still names
        # the venue, with the proceedings' landing page.
        landing = f"https://proceedings.example.org/{stable_hex(work.key)[:12]}"
        locations.append(_published_location(work, f"venue:{work.key}", is_oa=True, landing_page_url=landing))
    if work.series and locations:
        locations.append(_extra_location(work, work.series, "book series", published=True))
    if work.repository_primary:
        # OpenAlex often makes a repository copy the primary location of a published work.
        locations.insert(0, _extra_location(work, work.repository_primary, "repository", published=False))
    arxiv_id = work.arxiv_id or (work.related.preprint_arxiv_id if work.related else None)
    if arxiv_id:
        locations.append(_arxiv_location(arxiv_id))
    if work.pmid:
        locations.append(_pubmed_location(work))
    return locations


def _arxiv_location(arxiv_id: str) -> dict[str, Any]:
    """The work's arXiv preprint (its own id, or the preprint of a published work)."""
    return {
        "id": f"pmh:oai:arXiv.org:{arxiv_id}",
        "is_oa": True,
        "landing_page_url": f"http://arxiv.org/abs/{arxiv_id}",
        "pdf_url": f"https://arxiv.org/pdf/{arxiv_id}",
        "source": dict(_ARXIV_SOURCE),
        "license": "other-oa",
        "license_id": "https://openalex.org/licenses/other-oa",
        "version": "submittedVersion",
        "is_accepted": False,
        "is_published": False,
        "raw_source_name": None,
        "raw_type": "text",
    }


def _pubmed_location(work: SimWork) -> dict[str, Any]:
    """The work's PubMed record, listed as a location of the published version."""
    pubmed = f"https://pubmed.ncbi.nlm.nih.gov/{work.pmid}"
    pubmed_source = {
        "id": "https://openalex.org/S4306525036",
        "display_name": "PubMed",
        "issn_l": None,
        "issn": None,
        "is_oa": False,
        "is_in_doaj": False,
        "is_core": False,
        "host_organization": "https://openalex.org/I1299303238",
        "host_organization_name": "National Institutes of Health",
        "host_organization_lineage": ["https://openalex.org/I1299303238"],
        "host_organization_lineage_names": [],
        "type": "repository",
    }
    return _published_location(
        work,
        f"pmid:{work.pmid}",
        is_oa=False,
        landing_page_url=pubmed,
        source=pubmed_source,
        raw_type=None,
    )


def _authorships(work: SimWork) -> list[dict[str, Any]]:
    authorships = []
    count = len(work.authors)
    for position, author in enumerate(work.authors):
        name = author.display
        if position == 0:
            where = "first"
        elif position == count - 1:
            where = "last"
        else:
            where = "middle"
        authorships.append(
            {
                "author_position": where,
                "author": {
                    "id": f"https://openalex.org/A{5_000_000_000 + stable_int('author', name)}",
                    "display_name": name,
                    "orcid": f"https://orcid.org/{author.orcid}" if author.orcid else None,
                },
                "institutions": [],
                "countries": [],
                "is_corresponding": position == 0,
                "raw_author_name": name,
                "raw_affiliation_strings": [],
                "raw_orcid": f"https://orcid.org/{author.orcid}" if author.orcid else None,
                "affiliations": [],
            }
        )
    return authorships


def inverted_index(text: str) -> dict[str, list[int]]:
    """OpenAlex's `abstract_inverted_index`: each word with the positions it occupies."""
    index: dict[str, list[int]] = {}
    for position, word in enumerate(text.split()):
        index.setdefault(word, []).append(position)
    return index


def _ids(work: SimWork, openalex_url: str, doi_url: str | None) -> dict[str, Any]:
    ids: dict[str, Any] = {"openalex": openalex_url}
    if doi_url:
        ids["doi"] = doi_url
    if work.pmid:
        ids["pmid"] = f"https://pubmed.ncbi.nlm.nih.gov/{work.pmid}"
    if work.pmcid:
        ids["pmcid"] = f"https://www.ncbi.nlm.nih.gov/pmc/articles/{work.pmcid[3:]}"
    return ids


def _indexed_in(work: SimWork) -> list[str]:
    """The sources OpenAlex says index the work: those whose identifier it has."""
    return [
        name
        for name, known in (
            ("crossref", bool(work.doi)),
            ("pubmed", bool(work.pmid)),
            ("arxiv", bool(work.arxiv_id)),
        )
        if known
    ]


def _open_access(oa_location: dict[str, Any] | None) -> dict[str, Any]:
    """Open access as the first open location makes it (green: a repository copy)."""
    return {
        "is_oa": oa_location is not None,
        "oa_status": "green" if oa_location is not None else "closed",
        "oa_url": oa_location["pdf_url"] if oa_location is not None else None,
        "any_repository_has_fulltext": oa_location is not None,
    }


def _biblio(work: SimWork) -> dict[str, Any]:
    return {
        "volume": work.volume,
        "issue": work.issue,
        "first_page": work.pages.split("-")[0] if work.pages else None,
        "last_page": work.pages.split("-")[-1] if work.pages and "-" in work.pages else None,
    }


def render_work(work: SimWork) -> dict[str, Any]:
    """One OpenAlex work object, as `/works/{id}` and the `results` of `/works?` give it."""
    recorded = work.native.get("openalex")
    if recorded is not None:
        return dict(recorded)  # the real service's work object, verbatim
    openalex_url = f"https://openalex.org/{work.derived_openalex_id}"
    doi_url = _doi_url(work)
    month, day = month_day(work, "openalex")
    locations = _locations(work)
    oa_location = next((loc for loc in locations if loc["is_oa"]), None)
    title = work.display_title
    return {
        "id": openalex_url,
        "doi": doi_url,
        "title": title,
        "display_name": title,
        "publication_year": work.year,
        "publication_date": f"{work.year:04d}-{month:02d}-{day:02d}" if work.year else None,
        "ids": _ids(work, openalex_url, doi_url),
        "language": "en",
        "primary_location": locations[0] if locations else None,
        "type": WORK_TYPES.get(work.type, "other"),
        "type_crossref": work.type,
        "indexed_in": _indexed_in(work),
        "open_access": _open_access(oa_location),
        "authorships": _authorships(work),
        "countries_distinct_count": 0,
        "institutions_distinct_count": 0,
        "corresponding_author_ids": [],
        "corresponding_institution_ids": [],
        "cited_by_count": stable_int("cited", work.key, digits=3),
        "biblio": _biblio(work),
        "is_retracted": work.retracted,
        "is_paratext": False,
        "locations_count": len(locations),
        "locations": locations,
        "best_oa_location": oa_location,
        "referenced_works_count": 0,
        "referenced_works": [],
        "related_works": [],
        "abstract_inverted_index": inverted_index(work.abstract) if work.abstract else None,
        "cited_by_api_url": f"https://api.openalex.org/works?filter=cites:{work.derived_openalex_id}",
        "counts_by_year": [],
        "updated_date": "2025-01-15T00:00:00.000000",
        "created_date": f"{max(work.year or 2016, 2016)}-{month:02d}-{day:02d}",
    }
