"""OpenAlex (`api.openalex.org`): `/works/{id}` and `/works?filter=...&search=...`.

Ids a single-work path accepts: `W123`, `https://openalex.org/W123`, `doi:10.x/y`,
`https://doi.org/10.x/y`, a bare DOI, `pmid:123`, `pmcid:PMC123`. Lists come in the
`{"meta": {...}, "results": [...], "group_by": []}` envelope. Search is OpenAlex's: stop words
dropped, plurals stemmed, words not joined by an operator must all match (AND); `search` looks in
the title and abstract, `filter=title.search:` in the title only. Filters are split on commas and
OR-ed with `|` inside one filter, as the real API does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from aletheia.sources.simulator import common as paging
from aletheia.sources.simulator.common import SimContext, filter_pairs, month_day, parse_int, works_by_year
from aletheia.sources.simulator.config import RequestKind
from aletheia.sources.simulator.http import Request, Response, json_response
from aletheia.sources.simulator.ids import normalize_doi, normalize_pmcid, stable_hex, stable_int
from aletheia.sources.simulator.search import (
    Clause,
    FieldIndex,
    evaluate,
    parse_query,
    positive_clauses,
    tokenize,
)
from aletheia.sources.simulator.universe import SourceCatalog
from aletheia.sources.simulator.work import ARXIV_DOI_PREFIX, SimWork

MAX_PER_PAGE: Final = 200
_NOT_FOUND_MESSAGE: Final = (
    "The requested URL was not found on the server. If you entered the URL manually please check "
    "your spelling and try again."
)
_FILTERS: Final = (
    "doi",
    "ids.openalex",
    "openalex",
    "ids.pmid",
    "pmid",
    "ids.pmcid",
    "pmcid",
    "publication_year",
    "from_publication_date",
    "to_publication_date",
    "type",
    "is_retracted",
    "has_doi",
    "from_updated_date",
    "title.search",
    "display_name.search",
    "default.search",
    "title_and_abstract.search",
    "abstract.search",
    "raw_author_name.search",
)
_TYPES: Final = {
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


def classify(request: Request, path: str) -> tuple[RequestKind, list[str]]:
    stripped = path.rstrip("/")
    if stripped.startswith("/works/"):
        return "single", [stripped[len("/works/") :]]
    ids: list[str] = []
    for name, value in filter_pairs(request.param("filter") or ""):
        if name in ("doi", "ids.openalex", "openalex", "ids.pmid", "pmid", "ids.pmcid", "pmcid"):
            ids.extend(v for v in value.split("|") if v)
    return ("batch" if ids and not request.param("search") else "search"), ids


def rate_limited(retry_after: str) -> Response:
    payload = {"error": "Rate limit exceeded", "message": "Too many requests; slow down and retry."}
    return json_response(payload, status=429, headers=[("retry-after", retry_after)])


def not_found() -> Response:
    return json_response({"error": "404 Not Found", "message": _NOT_FOUND_MESSAGE}, status=404)


def _bad_request(message: str) -> Response:
    return json_response({"error": "Invalid query parameters error.", "message": message}, status=400)


def handle(request: Request, path: str, ctx: SimContext) -> Response:
    catalog = ctx.universe.catalog("openalex")
    stripped = path.rstrip("/")
    if request.method not in ("GET", "HEAD"):
        return json_response({"error": "Method Not Allowed", "message": "GET only"}, status=405)
    if stripped == "/works":
        return _list(request, catalog)
    if stripped == "/authors" or stripped.startswith("/authors/"):
        from aletheia.sources.simulator.openalex_authors import authors_response

        return authors_response(request, stripped, catalog)
    if stripped.startswith("/works/"):
        index = _lookup(stripped[len("/works/") :], catalog)
        if index is None:
            return not_found()
        work = render_work(catalog.works[index])
        return json_response(_select(work, request.param("select")) if request.param("select") else work)
    return not_found()


def _lookup(identifier: str, catalog: SourceCatalog) -> int | None:
    text = identifier.strip()
    # Clients send DOI URLs inside the path; a proxy may have merged "https://" into "https:/".
    text = re.sub(r"^https?:/+", "https://", text, flags=re.IGNORECASE)
    lowered = text.lower()
    if lowered.startswith("https://openalex.org/"):
        text = text.rsplit("/", 1)[-1]
        lowered = text.lower()
    if re.fullmatch(r"w\d+", lowered):
        return catalog.by_openalex.get(text.upper())
    if lowered.startswith(("doi:", "https://doi.org/", "https://dx.doi.org/", "10.")):
        return _by_doi(catalog, normalize_doi(text))
    if lowered.startswith("pmid:"):
        value = text.split(":", 1)[1].rsplit("/", 1)[-1]
        return catalog.by_pmid.get(value.lstrip("0") or "0")
    if lowered.startswith("pmcid:"):
        return catalog.by_pmcid.get(normalize_pmcid(text.split(":", 1)[1].rsplit("/", 1)[-1]))
    return None


def _list(request: Request, catalog: SourceCatalog) -> Response:
    per_page_text = request.param("per-page", request.param("per_page"))
    per_page = parse_int(per_page_text, 25, low=1, high=MAX_PER_PAGE)
    if per_page is None:
        return _bad_request(f"per-page parameter must be an integer between 1 and {MAX_PER_PAGE}")
    page = parse_int(request.param("page"), 1, low=1)
    if page is None:
        return _bad_request("page parameter must be a positive integer")

    candidates = set(range(len(catalog)))
    ranking_words: list[str] = []
    ranking_fields: list[str] = []
    for name, value in filter_pairs(request.param("filter") or ""):
        if name not in _FILTERS:
            return _bad_request(f"{name} is not a valid field. Valid fields are: {', '.join(_FILTERS)}")
        if name.endswith(".search"):
            field = _search_field(name)
            node = parse_query(value, "plain")
            if node is not None:
                candidates &= evaluate(node, _resolver(field, catalog), candidates)
                ranking_words += [w for c in positive_clauses(node) for w in tokenize(c.text)]
                ranking_fields.append(field)
            continue
        selected = _apply_filter(name, value, catalog)
        if selected is None:
            return _bad_request(f"Value for param {name} is invalid: {value}")
        candidates &= selected

    search = request.param("search")
    if search:
        node = parse_query(search, "plain")
        if node is not None:
            candidates &= evaluate(node, _resolver("text", catalog), candidates)
            ranking_words += [w for c in positive_clauses(node) for w in tokenize(c.text)]
            ranking_fields.append("text")

    relevance: dict[int, float] = {}
    if ranking_words:
        index = catalog.title if ranking_fields and set(ranking_fields) == {"title"} else catalog.text
        relevance = index.scores(ranking_words, candidates)
        matches = sorted(candidates, key=lambda d: (-relevance.get(d, 0.0), d))
    else:
        matches = sorted(candidates)
    sort = (request.param("sort") or "").split(":")
    if sort[0] in ("publication_year", "publication_date"):
        descending = len(sort) > 1 and sort[1] == "desc"
        matches.sort(key=lambda d: catalog.works[d].year or 0, reverse=descending)

    start = paging.page_start(request.param("cursor"), page, per_page)
    results = []
    for doc in matches[start : start + per_page]:
        work = render_work(catalog.works[doc])
        if ranking_words:
            work["relevance_score"] = round(relevance.get(doc, 0.0) * 10, 6)
        if request.param("select"):
            work = _select(work, request.param("select"))
        results.append(work)
    meta = paging.openalex_meta(len(matches), len(results), page, per_page, start, request.param("cursor"))
    return json_response({"meta": meta, "results": results, "group_by": []})


def _search_field(filter_name: str) -> str:
    return {
        "title.search": "title",
        "display_name.search": "title",
        "abstract.search": "abstract",
        "raw_author_name.search": "authors",
    }.get(filter_name, "text")


def _resolver(field: str, catalog: SourceCatalog) -> Callable[[Clause], set[int]]:
    index: FieldIndex = getattr(catalog, field)

    def resolve(clause: Clause) -> set[int]:
        words = tokenize(clause.text)
        if not words:
            return set(range(len(catalog)))
        return index.docs_with_phrase(words) if clause.phrase else index.docs_with_all(words)

    return resolve


_YEAR_RANGE: Final = re.compile(r"^(\d{4})?-(\d{4})?$")


def _apply_filter(name: str, value: str, catalog: SourceCatalog) -> set[int] | None:
    works = catalog.works
    values = [v for v in value.split("|") if v]
    if name == "doi":
        return {i for v in values if (i := _by_doi(catalog, normalize_doi(v))) is not None}
    if name in ("ids.openalex", "openalex"):
        return {i for v in values if (i := catalog.by_openalex.get(v.rsplit("/", 1)[-1].upper())) is not None}
    if name in ("ids.pmid", "pmid"):
        return {i for v in values if (i := catalog.by_pmid.get(v.rsplit("/", 1)[-1])) is not None}
    if name in ("ids.pmcid", "pmcid"):
        return {
            i
            for v in values
            if (i := catalog.by_pmcid.get(normalize_pmcid(v.rsplit("/", 1)[-1]))) is not None
        }
    if name == "publication_year":
        selected: set[int] = set()
        for v in values:
            years = _year_bounds(v)
            if years is None:
                return None
            low, high = years
            selected |= {i for i, w in enumerate(works) if w.year is not None and low <= w.year <= high}
        return selected
    if name in ("from_publication_date", "to_publication_date"):
        match = re.match(r"^(\d{4})", value)
        if match is None:
            return None
        return works_by_year(works, int(match.group(1)), since=name.startswith("from"))
    if name == "type":
        return {i for i, w in enumerate(works) if _TYPES.get(w.type, "other") in values}
    if name == "is_retracted":
        return {i for i, w in enumerate(works) if w.retracted == (value.lower() == "true")}
    if name == "has_doi":
        return {i for i, w in enumerate(works) if bool(w.doi) == (value.lower() == "true")}
    if name == "from_updated_date":
        return paging.updated_since(works, value)
    return None


def _year_bounds(value: str) -> tuple[int, int] | None:
    if value.isdigit():
        return int(value), int(value)
    if value.startswith(">") and value[1:].isdigit():
        return int(value[1:]) + 1, 9999
    if value.startswith("<") and value[1:].isdigit():
        return 0, int(value[1:]) - 1
    match = _YEAR_RANGE.match(value)
    if match and (match.group(1) or match.group(2)):
        return int(match.group(1) or 0), int(match.group(2) or 9999)
    return None


def _select(work: dict[str, Any], select: str | None) -> dict[str, Any]:
    names = [n.strip() for n in (select or "").split(",") if n.strip()]
    return {name: work[name] for name in names if name in work}


# --- rendering -------------------------------------------------------------------------------------


def _by_doi(catalog: Any, doi: str) -> int | None:
    """A work by DOI; an arXiv preprint also by its DataCite DOI (10.48550/arXiv.ID), which is the
    DOI OpenAlex lists arXiv preprints under (`_doi_url`)."""
    found: int | None = catalog.by_doi.get(doi)
    arxiv_prefix = f"{ARXIV_DOI_PREFIX}arxiv."
    if found is None and doi.lower().startswith(arxiv_prefix):
        found = catalog.by_arxiv.get(doi.lower().removeprefix(arxiv_prefix))
    return found


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
        locations.append(
            {
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
        )
    if work.pmid:
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
        locations.append(
            _published_location(
                work,
                f"pmid:{work.pmid}",
                is_oa=False,
                landing_page_url=pubmed,
                source=pubmed_source,
                raw_type=None,
            )
        )
    return locations


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


def render_work(work: SimWork) -> dict[str, Any]:
    """One OpenAlex work object, as `/works/{id}` and the `results` of `/works?` give it."""
    recorded = work.native.get("openalex")
    if recorded is not None:
        return dict(recorded)  # the real service's work object, verbatim
    openalex_url = f"https://openalex.org/{work.derived_openalex_id}"
    doi_url = _doi_url(work)
    month, day = month_day(work, "openalex")
    ids: dict[str, Any] = {"openalex": openalex_url}
    if doi_url:
        ids["doi"] = doi_url
    if work.pmid:
        ids["pmid"] = f"https://pubmed.ncbi.nlm.nih.gov/{work.pmid}"
    if work.pmcid:
        ids["pmcid"] = f"https://www.ncbi.nlm.nih.gov/pmc/articles/{work.pmcid[3:]}"
    locations = _locations(work)
    oa_location = next((loc for loc in locations if loc["is_oa"]), None)
    openalex_type = _TYPES.get(work.type, "other")
    title = work.display_title
    return {
        "id": openalex_url,
        "doi": doi_url,
        "title": title,
        "display_name": title,
        "publication_year": work.year,
        "publication_date": f"{work.year:04d}-{month:02d}-{day:02d}" if work.year else None,
        "ids": ids,
        "language": "en",
        "primary_location": locations[0] if locations else None,
        "type": openalex_type,
        "type_crossref": work.type,
        "indexed_in": [
            name
            for name, known in (
                ("crossref", bool(work.doi)),
                ("pubmed", bool(work.pmid)),
                ("arxiv", bool(work.arxiv_id)),
            )
            if known
        ],
        "open_access": {
            "is_oa": oa_location is not None,
            "oa_status": "green" if oa_location is not None else "closed",
            "oa_url": oa_location["pdf_url"] if oa_location is not None else None,
            "any_repository_has_fulltext": oa_location is not None,
        },
        "authorships": _authorships(work),
        "countries_distinct_count": 0,
        "institutions_distinct_count": 0,
        "corresponding_author_ids": [],
        "corresponding_institution_ids": [],
        "cited_by_count": stable_int("cited", work.key, digits=3),
        "biblio": {
            "volume": work.volume,
            "issue": work.issue,
            "first_page": work.pages.split("-")[0] if work.pages else None,
            "last_page": work.pages.split("-")[-1] if work.pages and "-" in work.pages else None,
        },
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
