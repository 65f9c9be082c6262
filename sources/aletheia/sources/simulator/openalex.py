"""OpenAlex (`api.openalex.org`): `/works/{id}` and `/works?filter=...&search=...`.

Ids a single-work path accepts: `W123`, `https://openalex.org/W123`, `doi:10.x/y`,
`https://doi.org/10.x/y`, a bare DOI, `pmid:123`, `pmcid:PMC123`. Lists come in the
`{"meta": {...}, "results": [...], "group_by": []}` envelope. Search is OpenAlex's: stop words
dropped, plurals stemmed, words not joined by an operator must all match (AND); `search` looks in
the title and abstract, `filter=title.search:` in the title only. Filters are split on commas and
OR-ed with `|` inside one filter, as the real API does. The work objects are `openalex_work`'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from aletheia.sources.simulator import common as paging
from aletheia.sources.simulator.common import SimContext, filter_pairs, parse_int, works_by_year
from aletheia.sources.simulator.config import RequestKind
from aletheia.sources.simulator.http import Request, Response, json_response
from aletheia.sources.simulator.ids import normalize_doi, normalize_pmcid
from aletheia.sources.simulator.openalex_work import WORK_TYPES, render_work
from aletheia.sources.simulator.search import (
    Clause,
    FieldIndex,
    evaluate,
    parse_query,
    ranking_words,
    tokenize,
)
from aletheia.sources.simulator.universe import SourceCatalog
from aletheia.sources.simulator.work import ARXIV_DOI_PREFIX

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


def classify(request: Request, path: str) -> tuple[RequestKind, list[str]]:
    stripped = path.rstrip("/")
    if stripped.startswith("/works/"):
        return "single", [stripped[len("/works/") :]]
    ids: list[str] = []
    for name, value in filter_pairs(request.param("filter") or ""):
        if name in ("doi", "ids.openalex", "openalex", "ids.pmid", "pmid", "ids.pmcid", "pmcid"):
            ids.extend(v for v in value.split("|") if v)
    return ("batch" if ids and not request.param("search") else "search"), ids


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
    words: list[str] = []
    ranking_fields: list[str] = []
    for name, value in filter_pairs(request.param("filter") or ""):
        if name not in _FILTERS:
            return _bad_request(f"{name} is not a valid field. Valid fields are: {', '.join(_FILTERS)}")
        if name.endswith(".search"):
            field = _search_field(name)
            node = parse_query(value, "plain")
            if node is not None:
                candidates &= evaluate(node, _resolver(field, catalog), candidates)
                words += ranking_words(node)
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
            words += ranking_words(node)
            ranking_fields.append("text")

    relevance: dict[int, float] = {}
    if words:
        index = catalog.title if ranking_fields and set(ranking_fields) == {"title"} else catalog.text
        relevance = index.scores(words, candidates)
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
        if words:
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
        return index.docs_matching(words, phrase=clause.phrase)

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
        return {i for i, w in enumerate(works) if WORK_TYPES.get(w.type, "other") in values}
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


def _by_doi(catalog: Any, doi: str) -> int | None:
    """A work by DOI; an arXiv preprint also by its DataCite DOI (10.48550/arXiv.ID), which is the
    DOI OpenAlex lists arXiv preprints under (`openalex_work._doi_url`)."""
    found: int | None = catalog.by_doi.get(doi)
    arxiv_prefix = f"{ARXIV_DOI_PREFIX}arxiv."
    if found is None and doi.lower().startswith(arxiv_prefix):
        found = catalog.by_arxiv.get(doi.lower().removeprefix(arxiv_prefix))
    return found
