"""The simulated OpenAlex `/authors` endpoint: `filter=openalex_id:A1|A2` (up to 100 OR-ed
values) and `/authors/A...`, with `works_count` counted over the simulated catalogue (an author is
their display name, as the works' `authorships[].author.id` are made from it), `select` honoured.
"""

from __future__ import annotations

import re
from typing import Any, Final

from aletheia.sources.simulator.http import Request, Response, json_response
from aletheia.sources.simulator.ids import stable_int
from aletheia.sources.simulator.universe import SourceCatalog

__all__ = ["author_id", "authors_response"]

MAX_OR_VALUES: Final = 100  # OpenAlex refuses more OR-ed values in one filter
_ID: Final = re.compile(r"(?:https?://(?:api\.)?openalex\.org/(?:authors/)?)?([Aa]\d+)")


def author_id(name: str) -> str:
    """The id the simulated works give an author of this name (`openalex_work._authorships`)."""
    return f"A{5_000_000_000 + stable_int('author', name)}"


def _index(catalog: SourceCatalog) -> dict[str, tuple[str, int]]:
    """Author id -> (display name, works in the catalogue), built once per catalogue."""

    def build(catalog: SourceCatalog) -> dict[str, tuple[str, int]]:
        found: dict[str, tuple[str, int]] = {}
        for work in catalog.works:
            for author in work.authors:
                key = author_id(author.display)
                name, count = found.get(key, (author.display, 0))
                found[key] = (name, count + 1)
        return found

    return catalog.derived("openalex_authors", build)


def _render(key: str, name: str, count: int) -> dict[str, Any]:
    return {
        "id": f"https://openalex.org/{key}",
        "orcid": None,
        "display_name": name,
        "display_name_alternatives": [name],
        "works_count": count,
        "cited_by_count": 0,
        "ids": {"openalex": f"https://openalex.org/{key}"},
        "works_api_url": f"https://api.openalex.org/works?filter=author.id:{key}",
    }


def _select(obj: dict[str, Any], select: str | None) -> dict[str, Any]:
    if not select:
        return obj
    wanted = [f.strip() for f in select.split(",") if f.strip()]
    return {f: obj[f] for f in wanted if f in obj}


def authors_response(request: Request, path: str, catalog: SourceCatalog) -> Response:
    index = _index(catalog)
    select = request.param("select")
    if path.startswith("/authors/"):
        m = _ID.fullmatch(path[len("/authors/") :])
        entry = index.get(m.group(1).upper()) if m else None
        if m is None or entry is None:
            return json_response({"error": "404 Not Found", "message": "no such author"}, status=404)
        return json_response(_select(_render(m.group(1).upper(), *entry), select))
    text = request.param("filter") or ""
    name, _, values = text.partition(":")
    if name not in ("openalex_id", "openalex", "ids.openalex"):
        return json_response(
            {"error": "Invalid query parameters error.", "message": "unsupported filter"}, status=400
        )
    asked = [v for v in values.split("|") if v]
    if len(asked) > MAX_OR_VALUES:
        message = (
            f"Maximum number of values exceeded for {name}. Decrease values to {MAX_OR_VALUES} or below."
        )
        return json_response({"error": "Invalid query parameters error.", "message": message}, status=400)
    results = []
    for value in asked:
        m = _ID.fullmatch(value.strip())
        entry = index.get(m.group(1).upper()) if m else None
        if m is not None and entry is not None:
            results.append(_select(_render(m.group(1).upper(), *entry), select))
    meta = {"count": len(results), "db_response_time_ms": 3, "page": 1, "per_page": 100, "groups_count": None}
    return json_response({"meta": meta, "results": results, "group_by": []})
