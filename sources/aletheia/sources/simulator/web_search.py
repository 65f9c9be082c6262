"""Web search engines (Tier 4): Tavily `POST /tavily/search` and Brave `GET /brave/res/v1/web/search`.

Both search the whole universe (every work any source holds, through the general catalogs) by the
words of the query and answer with the works' landing pages as a web search would:
`https://doi.org/<doi>` for a work with a DOI, `https://arxiv.org/abs/<id>` for a preprint,
`https://pubmed.ncbi.nlm.nih.gov/<pmid>/` otherwise, plus one unrelated page (a search engine's
results are not all candidates). A request without the key header answers 401, as the services
do. Shapes: Tavily `{"query", "results": [{"title", "url", "content", "score"}], "response_time"}`;
Brave `{"type": "search", "query": {"original"}, "web": {"type": "search", "results": [{"title",
"url", "description"}]}}`.
"""

from __future__ import annotations

import zlib
from typing import Any, Final

from aletheia.sources.simulator.common import SimContext, parse_int
from aletheia.sources.simulator.config import RequestKind
from aletheia.sources.simulator.http import Request, Response, json_response, text_response
from aletheia.sources.simulator.search import tokenize
from aletheia.sources.simulator.work import SimWork

TAVILY_PREFIX: Final = "/tavily"
BRAVE_PREFIX: Final = "/brave"
_MIN_SHARE: Final = 0.6
# The catalogs searched: together they hold every work of the universe.
_CATALOGS: Final = ("openalex", "crossref", "arxiv", "pubmed", "semantic_scholar")
_UNRELATED: Final = {"title": "Search results - Encyclopedia", "url": "https://encyclopedia.example/search"}


def classify(request: Request, path: str) -> tuple[RequestKind, list[str]]:
    return "search", []


# The page a search hit links to, by the scheme of the work's first identifier.
_PAGES: Final = {
    "doi": "https://doi.org/{}",
    "arxiv": "https://arxiv.org/abs/{}",
    "pmid": "https://pubmed.ncbi.nlm.nih.gov/{}/",
}


def _url(work: SimWork) -> str:
    first = work.first_id
    if first is None:
        return f"https://papers.example/{zlib.crc32(work.title.encode())}"
    scheme, value = first
    return _PAGES[scheme].format(value)


def _hits(ctx: SimContext, query: str, limit: int) -> list[dict[str, Any]]:
    tokens = tokenize(query)
    scored: dict[str, tuple[float, SimWork]] = {}
    for name in _CATALOGS:
        catalog = ctx.universe.catalog(name)
        for index, score in catalog.all.ranked(tokens, min_share=_MIN_SHARE)[:limit]:
            work = catalog.works[index]
            key = _url(work)
            if key not in scored or scored[key][0] < score:
                scored[key] = (score, work)
    best = sorted(scored.items(), key=lambda item: (-item[1][0], item[0]))[: max(0, limit - 1)]
    hits = [
        {"title": work.display_title, "url": url, "content": work.abstract or "", "score": round(score, 3)}
        for url, (score, work) in best
    ]
    return [*hits, {**_UNRELATED, "content": "", "score": 0.01}]


def handle_tavily(request: Request, path: str, ctx: SimContext) -> Response:
    if path != "/search" or request.method != "POST":
        return text_response("Not Found", status=404)
    if not request.headers.get("authorization", "").startswith("Bearer "):
        return json_response({"detail": {"error": "Unauthorized: missing or invalid API key."}}, status=401)
    try:
        body = request.json()
    except (ValueError, UnicodeDecodeError):
        return json_response({"detail": {"error": "invalid JSON"}}, status=400)
    query = body.get("query") if isinstance(body, dict) else None
    if not isinstance(query, str) or not query.strip():
        return json_response({"detail": {"error": "query is required"}}, status=400)
    limit = body.get("max_results", 5)
    limit = limit if isinstance(limit, int) and 0 < limit <= 20 else 5
    return json_response({"query": query, "results": _hits(ctx, query, limit), "response_time": 0.5})


def handle_brave(request: Request, path: str, ctx: SimContext) -> Response:
    if path != "/res/v1/web/search":
        return text_response("Not Found", status=404)
    if not request.headers.get("x-subscription-token"):
        return json_response(
            {"type": "ErrorResponse", "error": {"status": 401, "code": "SUBSCRIPTION_TOKEN_INVALID"}},
            status=401,
        )
    params = request.params()
    query = params.get("q", "")
    if not query.strip():
        return json_response(
            {"type": "ErrorResponse", "error": {"status": 422, "code": "VALIDATION"}}, status=422
        )
    limit = parse_int(params.get("count"), 20, low=1, high=20) or 20
    results = [
        {"title": h["title"], "url": h["url"], "description": h["content"]} for h in _hits(ctx, query, limit)
    ]
    return json_response(
        {"type": "search", "query": {"original": query}, "web": {"type": "search", "results": results}}
    )
