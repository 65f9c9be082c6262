"""Crossref REST API (`api.crossref.org`): `/works/{doi}`, `/works/{doi}/agency` and `/works?...`.

Shapes follow recorded responses: a `work` or `work-list` envelope (`status`, `message-type`,
`message-version`, `message`), list-valued `title`/`container-title`/`subtitle`, `date-parts`
dates, organisations as `{"name"}` authors, abstracts in JATS, `score` on every item (1.0 when
nothing was searched). A DOI Crossref does not have is a 404 with the plain-text body
"Resource not found."; bad parameters are a 400 `validation-failure` listing what is wrong.
Retracted works carry `updated-by`; their notices carry `update-to` and are found with
`filter=updates:{doi}`. The work items are `crossref_work`'s.
"""

from __future__ import annotations

import math
import re
from typing import Any, Final

from aletheia.sources.simulator.common import (
    SimContext,
    filter_pairs,
    page_start,
    parse_int,
    updated_since,
    works_by_year,
)
from aletheia.sources.simulator.config import RequestKind
from aletheia.sources.simulator.crossref_work import render_work
from aletheia.sources.simulator.http import Request, Response, json_response, text_response
from aletheia.sources.simulator.ids import normalize_doi
from aletheia.sources.simulator.search import tokenize
from aletheia.sources.simulator.universe import SourceCatalog

NOT_FOUND: Final = "Resource not found."
MAX_ROWS: Final = 1000
# Crossref ranks over ~170M records, where a title word is far rarer than in a test universe, so
# its scores run higher: an exact title-and-author match scores roughly 40-150. BM25 over a small
# universe is scaled by this factor to land in that range.
SCORE_SCALE: Final = 5.0
MAX_OFFSET: Final = 10000

_LIST_PARAMS: Final = frozenset(
    {
        "query",
        "query.bibliographic",
        "query.author",
        "query.container-title",
        "query.affiliation",
        "query.editor",
        "query.publisher-name",
        "rows",
        "offset",
        "filter",
        "select",
        "sort",
        "order",
        "mailto",
        "facet",
        "cursor",
    }
)
_FILTERS: Final = (
    "from-pub-date",
    "until-pub-date",
    "from-issued-date",
    "until-issued-date",
    "updates",
    "doi",
    "type",
    "is-update",
    "update-type",
    "prefix",
    "has-abstract",
    "from-update-date",
)
_SORTS: Final = frozenset({"score", "relevance", "published", "issued", "is-referenced-by-count"})


def classify(request: Request, path: str) -> tuple[RequestKind, list[str]]:
    """Single-DOI lookups and list queries (search, filter) have separate buckets at Crossref."""
    doi = _doi_from_path(path)
    if doi is not None:
        return "single", [doi]
    ids: list[str] = []
    for name, value in filter_pairs(request.param("filter") or ""):
        if name in ("doi", "updates"):
            ids.append(normalize_doi(value))
    return "search", ids


def rate_limited(retry_after: str, limit: float | None) -> Response:
    response = text_response("Too many requests. Please slow down.", status=429)
    response.headers.append(("retry-after", retry_after))
    response.headers.extend(_rate_headers(limit))
    return response


def _rate_headers(limit: float | None) -> list[tuple[str, str]]:
    if limit is None:
        return []
    return [("x-rate-limit-limit", str(max(1, math.floor(limit)))), ("x-rate-limit-interval", "1s")]


def handle(request: Request, path: str, ctx: SimContext, rate: float | None = None) -> Response:
    catalog = ctx.universe.catalog("crossref")
    if request.method not in ("GET", "HEAD"):
        return text_response("Method not allowed.", status=405)
    response = _route(request, path, catalog, ctx)
    response.headers.extend(_rate_headers(rate))
    return response


def _route(request: Request, path: str, catalog: SourceCatalog, ctx: SimContext) -> Response:
    stripped = path.rstrip("/")
    if stripped == "/works":
        return _works_list(request, catalog, ctx)
    if stripped.startswith("/works/") and stripped.endswith("/agency"):
        doi = normalize_doi(stripped[len("/works/") : -len("/agency")])
        work = catalog.doi(doi)
        if work is None:
            return text_response(NOT_FOUND, status=404)
        agency = {"DOI": work.doi, "agency": {"id": "crossref", "label": "Crossref"}}
        return json_response(envelope("work-agency", agency))
    single = _doi_from_path(stripped)
    if single is None:
        return text_response(NOT_FOUND, status=404)
    field_queries = [name for name in request.query if name.startswith("query")]
    if field_queries:
        return validation_failure(
            "parameter-not-allowed", "query.*", "This route does not support field query parameters"
        )
    work = catalog.doi(single)
    if work is None:
        return text_response(NOT_FOUND, status=404)
    return json_response(envelope("work", render_work(work, catalog, ctx, score=1.0)))


def _doi_from_path(path: str) -> str | None:
    if not path.startswith("/works/"):
        return None
    rest = path[len("/works/") :].strip("/")
    if not rest or rest.endswith("/agency"):
        return None
    return normalize_doi(rest)


def envelope(message_type: str, message: Any) -> dict[str, Any]:
    return {"status": "ok", "message-type": message_type, "message-version": "1.0.0", "message": message}


def validation_failure(kind: str, value: str, message: str) -> Response:
    payload = {
        "status": "failed",
        "message-type": "validation-failure",
        "message": [{"type": kind, "value": value, "message": message}],
    }
    return json_response(payload, status=400)


_DATE: Final = re.compile(r"^(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?$")


def _works_list(request: Request, catalog: SourceCatalog, ctx: SimContext) -> Response:
    paging = _list_parameters(request)
    if isinstance(paging, Response):
        return paging
    rows, offset, sort = paging
    candidates = _filtered(request, catalog)
    if isinstance(candidates, Response):
        return candidates
    matches, scores, searched = _ranked(request, catalog, candidates, sort)

    query = request.param("query")
    cursor = request.param("cursor")  # deep paging: `cursor=*`, then each answer's `next-cursor`
    offset = offset if cursor is None else page_start(cursor, 1, rows)
    page = matches[offset : offset + rows]
    select = [s.strip() for s in (request.param("select") or "").split(",") if s.strip()]
    items = []
    for doc in page:
        item = render_work(catalog.works[doc], catalog, ctx, score=round(scores[doc], 6) if searched else 1.0)
        if select:
            item = {name: item[name] for name in select if name in item}
        items.append(item)
    message = {
        "facets": {},
        "total-results": len(matches),
        "items": items,
        "items-per-page": rows,
        "query": {"start-index": offset, "search-terms": query},
    }
    if cursor is not None:
        message["next-cursor"] = f"sim:{offset + rows}"  # Crossref gives one until a page is empty
    return json_response(envelope("work-list", message))


def _list_parameters(request: Request) -> tuple[int, int, str | None] | Response:
    """`rows`, `offset` and `sort` of a list query, or the 400 for a parameter Crossref refuses."""
    for name in request.query:
        if name == "query.title":
            # Crossref retired query.title in favour of query.bibliographic.
            return validation_failure(
                "parameter-not-allowed", name, "This route does not support field query parameter query.title"
            )
        if name not in _LIST_PARAMS:
            return validation_failure(
                "unknown-parameter", name, f"Parameter {name} specified but there is no such parameter"
            )
    rows = _count_param(request, "rows", 20, MAX_ROWS)
    if isinstance(rows, Response):
        return rows
    offset = _count_param(request, "offset", 0, MAX_OFFSET)
    if isinstance(offset, Response):
        return offset
    sort = request.param("sort")
    if sort is not None and sort not in _SORTS:
        return validation_failure(
            "sort-field-not-valid", sort, f"Sort field specified as {sort} is not valid"
        )
    return rows, offset, sort


def _count_param(request: Request, name: str, default: int, high: int) -> int | Response:
    """The whole-number parameter `name` (`default` when absent), or Crossref's 400 for it."""
    count = parse_int(request.param(name), default, high=high)
    if count is not None:
        return count
    value = request.param(name) or ""
    return validation_failure(
        "integer-not-valid",
        value,
        f"Integer specified as {value} but must be a positive integer less than or equal to {high}. ",
    )


def _filtered(request: Request, catalog: SourceCatalog) -> set[int] | Response:
    """The works the `filter` parameter selects, or the 400 for a filter Crossref refuses."""
    candidates = set(range(len(catalog)))
    # Crossref: different filters are ANDed, repeated values of one filter are ORed
    # (`filter=doi:a,doi:b` lists both works).
    by_name: dict[str, set[int]] = {}
    for name, value in filter_pairs(request.param("filter") or ""):
        if name not in _FILTERS:
            return validation_failure(
                "filter-not-available",
                name,
                f"Filter '{name}' specified but there is no such filter for this route. "
                f"Valid filters for this route are: {', '.join(_FILTERS)}",
            )
        selected = _apply_filter(name, value, catalog)
        if selected is None:
            return validation_failure(
                "filter-value-not-valid", f"{name}:{value}", f"Filter {name} value is not valid"
            )
        by_name[name] = by_name.get(name, set()) | selected
    for selected in by_name.values():
        candidates &= selected
    return candidates


def _ranked(
    request: Request, catalog: SourceCatalog, candidates: set[int], sort: str | None
) -> tuple[list[int], dict[int, float], bool]:
    """The matching works in answer order, their scores, and whether anything was searched (else
    every candidate matches, in catalogue order)."""
    query = request.param("query")
    bibliographic = " ".join(p for p in (query, request.param("query.bibliographic")) if p)
    author = request.param("query.author")
    container = request.param("query.container-title")
    searched = bool(bibliographic or author or container)
    scores: dict[int, float] = {}
    if searched:
        for index, text in (
            (catalog.bibliographic, bibliographic),
            (catalog.authors, author),
            (catalog.venue, container),
        ):
            if not text:
                continue
            for doc, score in index.scores(tokenize(text), candidates).items():
                scores[doc] = scores.get(doc, 0.0) + score * SCORE_SCALE
        matches = list(scores)
    else:
        matches = sorted(candidates)

    if sort in ("published", "issued"):
        descending = request.param("order", "desc") != "asc"
        matches.sort(key=lambda d: (catalog.works[d].year or 0, -d), reverse=descending)
    elif searched:
        matches.sort(key=lambda d: (-scores[d], d))
    return matches, scores, searched


def _apply_filter(name: str, value: str, catalog: SourceCatalog) -> set[int] | None:
    works = catalog.works
    if name in ("from-pub-date", "until-pub-date", "from-issued-date", "until-issued-date"):
        match = _DATE.match(value)
        if match is None:
            return None
        return works_by_year(works, int(match.group(1)), since=name.startswith("from"))
    if name == "updates":
        return set(catalog.notices_for.get(normalize_doi(value), []))
    if name == "doi":
        index = catalog.by_doi.get(normalize_doi(value))
        return {index} if index is not None else set()
    if name == "type":
        return {i for i, w in enumerate(works) if w.type == value}
    if name == "is-update":
        notices = {i for ids in catalog.notices_for.values() for i in ids}
        return notices if value == "true" else set(range(len(works))) - notices
    if name == "update-type":
        notices = {i for ids in catalog.notices_for.values() for i in ids}
        return notices if value == "retraction" else set()
    if name == "prefix":
        return {i for i, w in enumerate(works) if w.doi and w.doi.split("/", 1)[0] == value.lower()}
    if name == "has-abstract":
        return {i for i, w in enumerate(works) if bool(w.abstract) == (value == "true")}
    if name == "from-update-date":
        return updated_since(works, value)
    return None
