"""The venue registries' routes (issue 21), in the real services' shapes, over `venue_directory`.

- OpenAlex `/sources?search=...` (also `filter=issn:...`, `display_name.search:`, `type:`) and
  `/sources/{S...|issn:...}`: Source objects in the `{"meta", "results", "group_by"}` envelope,
  `relevance_score` on a search; `select` honoured. An unknown parameter, filter or select field,
  or a bad `per-page`, is a 400 `{"error": "Invalid query parameters error.", "message": ...}`;
  an unknown source a 404 `{"error": "404 Not Found", ...}`.
- DBLP `/search/venue/api?q=...&format=json&h=N`: the search envelope of the publication search,
  hits `{"@score", "@id", "info": {"venue", "acronym", "type", "url"}, "url"}`, `hit` left out
  when nothing matched; `venue` prints the acronym after the name, as DBLP does. A missing `q` is
  an empty query (no hit), as in the publication route; a bad `h` or a format other than json is
  a 400.
- Crossref `/journals?query=...&rows=N` (`journal-list`), `/journals/{issn}` (`journal`; a
  journal it does not have: 404 "Resource not found.") and `/journals/{issn}/works`. A filter or
  sort on `/journals` is a 400 `validation-failure` ("This route does not support filter"), as
  in habanero's recorded sessions; so are a bad `rows` and a field query on `/journals/{issn}`.

`route` is the one hook the request pipeline (`app.py`) calls; it answers None for any other path.
"""

from __future__ import annotations

from typing import Any, Final

from aletheia.sources.simulator.common import SimContext, parse_int, timestamp_ms
from aletheia.sources.simulator.crossref import envelope, validation_failure
from aletheia.sources.simulator.crossref_work import render_work
from aletheia.sources.simulator.dblp import search_request, search_response
from aletheia.sources.simulator.http import Request, Response, json_response, text_response
from aletheia.sources.simulator.venue_directory import SimVenue, VenueDirectory, venue_directory

OPENALEX_SOURCES: Final = "/sources"
DBLP_VENUES: Final = "/search/venue/api"
CROSSREF_JOURNALS: Final = "/journals"
OPENALEX_MAX_PER_PAGE: Final = 200
CROSSREF_MAX_ROWS: Final = 1000
CROSSREF_NOT_FOUND: Final = "Resource not found."
_OPENALEX_PARAMS: Final = frozenset(
    {"search", "filter", "per-page", "per_page", "page", "select", "sort", "api_key", "mailto", "cursor"}
)
_OPENALEX_FILTERS: Final = (
    "issn",
    "issn_l",
    "type",
    "openalex",
    "ids.openalex",
    "display_name.search",
    "default.search",
)
_CROSSREF_PARAMS: Final = frozenset({"query", "rows", "offset", "mailto", "cursor"})
_DBLP_TYPES: Final = {
    "journal": "Journal",
    "conference": "Conference or Workshop",
    "book series": "Series",
    "repository": "Repository",
}


def route(source: str, request: Request, path: str, ctx: SimContext) -> Response | None:
    """The answer of a venue registry route of `source`, or None when `path` is not one."""
    stripped = path.rstrip("/")
    if source == "openalex" and (stripped == OPENALEX_SOURCES or stripped.startswith(OPENALEX_SOURCES + "/")):
        return _openalex(request, stripped, venue_directory(ctx.universe))
    if source == "dblp" and stripped == DBLP_VENUES:
        return _dblp(request, venue_directory(ctx.universe))
    if source == "crossref" and (
        stripped == CROSSREF_JOURNALS or stripped.startswith(CROSSREF_JOURNALS + "/")
    ):
        return _crossref(request, stripped, ctx)
    return None


# --- OpenAlex --------------------------------------------------------------------------------------


def _openalex_error(message: str, status: int = 400) -> Response:
    error = "Invalid query parameters error." if status == 400 else "404 Not Found"
    return json_response({"error": error, "message": message}, status=status)


def render_source(venue: SimVenue) -> dict[str, Any]:
    """One OpenAlex Source object."""
    openalex = f"https://openalex.org/{venue.openalex_id}"
    issn_l = venue.issn[0] if venue.issn else None
    return {
        "id": openalex,
        "issn_l": issn_l,
        "issn": list(venue.issn) or None,
        "display_name": venue.name,
        "host_organization": None,
        "host_organization_name": venue.publisher,
        "host_organization_lineage": [],
        "works_count": venue.works,
        "cited_by_count": 10 * venue.works,
        "is_oa": venue.kind == "repository",
        "is_in_doaj": False,
        "is_core": venue.kind in ("journal", "conference"),
        "ids": {"openalex": openalex, "issn_l": issn_l, "issn": list(venue.issn) or None},
        "homepage_url": None,
        "apc_prices": [],
        "apc_usd": None,
        "country_code": None,
        "societies": [],
        "alternate_titles": [n for n in venue.alternates if n != venue.iso_abbreviation],
        "abbreviated_title": venue.iso_abbreviation,
        "type": venue.kind,
        "counts_by_year": [],
        "works_api_url": f"https://api.openalex.org/works?filter=primary_location.source.id:{venue.openalex_id}",
        "updated_date": "2025-01-01T00:00:00.000000",
        "created_date": "2016-06-24",
    }


def _select(source: dict[str, Any], fields: list[str]) -> dict[str, Any]:
    return {name: source[name] for name in fields if name in source}


def _openalex(request: Request, path: str, directory: VenueDirectory) -> Response:
    if request.method not in ("GET", "HEAD"):
        return json_response({"error": "Method Not Allowed", "message": "GET only"}, status=405)
    for name in request.query:
        if name not in _OPENALEX_PARAMS:
            valid = ", ".join(sorted(_OPENALEX_PARAMS))
            return _openalex_error(f"{name} is not a valid parameter. Valid parameters are {valid}.")
    select = [f.strip() for f in (request.param("select") or "").split(",") if f.strip()]
    known = set(render_source(directory.venues[0])) if directory.venues else set()
    bad = [f for f in select if known and f not in known]
    if bad:
        return _openalex_error(f"{bad[0]} is not a valid select field.")
    if path != OPENALEX_SOURCES:
        index = _openalex_single(path[len(OPENALEX_SOURCES) + 1 :], directory)
        if index is None:
            return _openalex_error(
                "The requested URL was not found on the server. If you entered the URL manually "
                "please check your spelling and try again.",
                status=404,
            )
        single = render_source(directory.venues[index])
        return json_response(_select(single, select) if select else single)
    return _openalex_list(request, directory, select)


def _openalex_list(request: Request, directory: VenueDirectory, select: list[str]) -> Response:
    """`/sources?`: the venues the filters and the search select, best first, one page."""
    per_page_text = request.param("per-page", request.param("per_page"))
    per_page = parse_int(per_page_text, 25, low=1, high=OPENALEX_MAX_PER_PAGE)
    page = parse_int(request.param("page"), 1, low=1)
    if per_page is None or page is None:
        return _openalex_error(f"per-page parameter must be an integer between 1 and {OPENALEX_MAX_PER_PAGE}")
    matched = _openalex_matches(request, directory)
    if isinstance(matched, Response):
        return matched
    candidates, query = matched
    if query:
        order = [d for d in directory.search_any_word(query, candidates) if d in candidates]
        order += sorted(candidates - set(order))
    else:
        order = sorted(candidates)
    start = (page - 1) * per_page
    results = []
    for doc in order[start : start + per_page]:
        source = render_source(directory.venues[doc])
        if query:
            source["relevance_score"] = round(directory.score(query, doc) * 10, 6)
        results.append(_select(source, select) if select else source)
    meta = {
        "count": len(order),
        "db_response_time_ms": 2 + len(results),
        "page": page,
        "per_page": per_page,
        "groups_count": None,
    }
    return json_response({"meta": meta, "results": results, "group_by": []})


def _openalex_matches(request: Request, directory: VenueDirectory) -> tuple[set[int], str] | Response:
    """The venues `filter` and `search` select, and the words they searched (which rank them);
    or the 400 for a filter OpenAlex does not have."""
    candidates = set(range(len(directory.venues)))
    ranking: list[str] = []
    for part in (request.param("filter") or "").split(","):
        if not part.strip():
            continue
        name, _, value = (s.strip() for s in part.partition(":"))
        if name not in _OPENALEX_FILTERS:
            valid = ", ".join(_OPENALEX_FILTERS)
            return _openalex_error(f"{name} is not a valid field. Valid fields are: {valid}")
        if name.endswith(".search"):
            candidates &= set(directory.search_all_words(value))
            ranking.append(value)
            continue
        candidates &= _openalex_filter(name, value, directory)
    search = request.param("search")
    if search and search.strip():
        candidates &= set(directory.search_all_words(search))
        ranking.append(search)
    return candidates, " ".join(ranking)


def _openalex_single(identifier: str, directory: VenueDirectory) -> int | None:
    text = identifier.strip().rsplit("/", 1)[-1]
    if text.lower().startswith("issn:"):
        return directory.by_issn.get(text.split(":", 1)[1].strip().upper())
    return directory.by_openalex.get(text.upper())


def _openalex_filter(name: str, value: str, directory: VenueDirectory) -> set[int]:
    values = [v.strip() for v in value.split("|") if v.strip()]
    venues = directory.venues
    if name in ("issn", "issn_l"):
        wanted = {v.upper() for v in values}
        return {v.index for v in venues if wanted & set(v.issn if name == "issn" else v.issn[:1])}
    if name == "type":
        return {v.index for v in venues if v.kind in values}
    ids = {v.rsplit("/", 1)[-1].upper() for v in values}
    return {v.index for v in venues if v.openalex_id in ids}


# --- DBLP ------------------------------------------------------------------------------------------


def render_dblp_hit(venue: SimVenue, position: int, score: float) -> dict[str, Any]:
    stream = "journals" if venue.kind == "journal" else "series" if venue.kind == "book series" else "conf"
    shown = f"{venue.name} ({venue.acronym})" if venue.acronym else venue.name
    info: dict[str, Any] = {"venue": shown}
    if venue.acronym:
        info["acronym"] = venue.acronym
    info["type"] = _DBLP_TYPES[venue.kind]
    info["url"] = f"https://dblp.org/db/{stream}/{venue.slug}/"
    return {"@score": str(max(1, round(score))), "@id": str(position), "info": info, "url": f"URL#{position}"}


def _dblp(request: Request, directory: VenueDirectory) -> Response:
    asked = search_request(request)
    if isinstance(asked, Response):
        return asked
    query, hits, first = asked
    # DBLP's venue index holds no repository of preprints other than CoRR, which it files as a journal.
    held = [v.index for v in directory.venues if v.kind != "repository"]
    ranked = directory.search_prefixes(query, held)
    page = ranked[first : first + hits]
    rendered = [
        render_dblp_hit(directory.venues[doc], first + i, directory.score(query, doc))
        for i, doc in enumerate(page)
    ]
    return search_response(query, len(ranked), first, rendered)


# --- Crossref --------------------------------------------------------------------------------------


def render_journal(venue: SimVenue, ctx: SimContext) -> dict[str, Any]:
    """One Crossref journal item."""
    issns = list(venue.issn) or [venue.crossref_issn]
    kinds = ("print", "electronic")
    return {
        "last-status-check-time": timestamp_ms(ctx.now()),
        "counts": {"current-dois": venue.works, "backfile-dois": 0, "total-dois": venue.works},
        "breakdowns": {"dois-by-issued-year": []},
        "publisher": venue.publisher or "Simulated Publisher",
        "coverage": {},
        "title": venue.name,
        "subjects": [],
        "coverage-type": {"all": {}, "current": {}, "backfile": {}},
        "flags": {},
        "ISSN": issns,
        "issn-type": [{"type": kinds[min(i, 1)], "value": issn} for i, issn in enumerate(issns)],
    }


def _crossref_journals(directory: VenueDirectory) -> list[int]:
    """Crossref's journals: the universe's journals and book series, and any venue with an ISSN."""
    return [v.index for v in directory.venues if v.kind in ("journal", "book series") or v.issn]


def _crossref(request: Request, path: str, ctx: SimContext) -> Response:
    if request.method not in ("GET", "HEAD"):
        return text_response("Method not allowed.", status=405)
    directory = venue_directory(ctx.universe)
    if path == CROSSREF_JOURNALS:
        return _crossref_list(request, directory, ctx)
    issn, _, rest = path[len(CROSSREF_JOURNALS) + 1 :].partition("/")
    index = directory.by_crossref_issn.get(issn.strip().upper())
    held = set(_crossref_journals(directory))
    if index is None or index not in held or rest not in ("", "works"):
        return text_response(CROSSREF_NOT_FOUND, status=404)
    venue = directory.venues[index]
    if rest == "works":
        catalog = ctx.universe.catalog("crossref")
        issns = {*venue.issn, venue.crossref_issn}
        items = [
            render_work(w, catalog, ctx, score=1.0)
            for w in catalog.works
            if w.doi and (issns & set(w.issn) or (w.venue and w.venue == venue.name))
        ]
        message = {
            "items-per-page": 20,
            "query": {"start-index": 0, "search-terms": None},
            "total-results": len(items),
            "items": items[:20],
        }
        return json_response(envelope("work-list", message))
    if any(name.startswith("query") for name in request.query):
        return validation_failure(
            "parameter-not-allowed", "query.*", "This route does not support field query parameters"
        )
    return json_response(envelope("journal", render_journal(venue, ctx)))


def _crossref_list(request: Request, directory: VenueDirectory, ctx: SimContext) -> Response:
    for name in request.query:
        if name in ("filter", "sort", "order", "facet", "select"):
            return validation_failure("parameter-not-allowed", name, f"This route does not support {name}")
        if name not in _CROSSREF_PARAMS:
            return validation_failure(
                "unknown-parameter", name, f"Parameter {name} specified but there is no such parameter"
            )
    rows = parse_int(request.param("rows"), 20, high=CROSSREF_MAX_ROWS)
    offset = parse_int(request.param("offset"), 0)
    if rows is None or offset is None:
        value = request.param("rows") if rows is None else request.param("offset")
        return validation_failure(
            "integer-not-valid",
            value or "",
            f"Integer specified as {value} but must be a positive integer less than or equal to "
            f"{CROSSREF_MAX_ROWS}. ",
        )
    query = request.param("query")
    held = _crossref_journals(directory)
    ranked = directory.search_any_word(query, held) if query and query.strip() else held
    items = [render_journal(directory.venues[doc], ctx) for doc in ranked[offset : offset + rows]]
    message = {
        "items-per-page": rows,
        "query": {"start-index": offset, "search-terms": query},
        "total-results": len(ranked),
        "items": items,
    }
    return json_response(envelope("journal-list", message))
