"""DBLP (`dblp.org`): the publication search and records by key.

Endpoints: `GET /search/publ/api?q=...&format=json&h=N` (every query word must occur, as a word
prefix, in the title, the authors, the venue or the year, as DBLP matches; `a|b` is either
word; the documented envelope
`{"result": {"query", "status", "hits": {"@total", "@sent", "@first", "hit": [...]}}}`, `hit`
absent when nothing matches) and `GET /rec/{key}.xml` (`<dblp><inproceedings key=...>`, or
`<article>` for journals and CoRR; 404 for an unknown key). DBLP answers excess traffic with an
empty 429 carrying `Retry-After`.

A work is at DBLP when it has a `dblp_key` (or lists "dblp" in `sources`; its key is then derived:
`journals/corr/abs-YYMM-NNNNN` for an arXiv preprint, `conf/sim/<hash>` otherwise). Titles end with
DBLP's period, authors carry a homonym number when the work's view says so (`dblp_homonym` in
`meta`: "Wei Wang 0001"), venues are the short names DBLP prints.
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import unquote

from aletheia.sources.simulator.common import SimContext, parse_int, xml_attr, xml_text
from aletheia.sources.simulator.config import RequestKind
from aletheia.sources.simulator.http import Request, Response, json_response, text_response, xml_response
from aletheia.sources.simulator.ids import stable_hex
from aletheia.sources.simulator.search import tokenize
from aletheia.sources.simulator.universe import SourceCatalog
from aletheia.sources.simulator.work import ARXIV_DOI_PREFIX, SimWork

SEARCH: Final = "/search/publ/api"
REC: Final = "/rec/"
MAX_HITS: Final = 1000  # DBLP caps `h` at 1000
_TYPES: Final = {
    "proceedings-article": ("Conference and Workshop Papers", "inproceedings"),
    "journal-article": ("Journal Articles", "article"),
    "posted-content": ("Informal and Other Publications", "article"),
    "book": ("Books and Theses", "book"),
    "monograph": ("Books and Theses", "book"),
    "book-chapter": ("Parts in Books or Collections", "incollection"),
    "dissertation": ("Books and Theses", "phdthesis"),
}


def dblp_key(work: SimWork) -> str:
    """The work's DBLP key: its own, else one derived from its arXiv id or its key."""
    if work.dblp_key:
        return work.dblp_key
    if work.arxiv_id and work.type == "posted-content" and "." in work.arxiv_id:
        return "journals/corr/abs-" + work.arxiv_id.replace(".", "-")
    return f"conf/sim/{stable_hex('dblp', work.key)[:12]}"


def _is_corr(work: SimWork, key: str) -> bool:
    return key.startswith("journals/corr/") or work.type == "posted-content"


def _venue(work: SimWork, key: str) -> str | None:
    if _is_corr(work, key):
        return "CoRR"
    short = [a for a in work.venue_aliases if a and len(a) <= 12]
    return short[0] if short else work.venue


def _names(work: SimWork) -> list[str]:
    homonyms = work.meta.get("dblp_homonym") if isinstance(work.meta.get("dblp_homonym"), dict) else {}
    out = []
    for author in work.authors:
        name = author.display
        number = homonyms.get(name) if isinstance(homonyms, dict) else None
        out.append(f"{name} {number}" if number else name)
    return out


def _title(work: SimWork) -> str:
    title = work.display_title
    return title if title.endswith(("?", "!", ".")) else title + "."


def _links(work: SimWork, key: str) -> tuple[str | None, list[str]]:
    """(the `doi` field, the `ee` links) as DBLP prints them."""
    if _is_corr(work, key) and work.arxiv_id:
        return f"10.48550/ARXIV.{work.arxiv_id}".upper(), [f"https://doi.org/10.48550/arXiv.{work.arxiv_id}"]
    if work.doi and not work.doi.startswith(ARXIV_DOI_PREFIX):
        return work.doi.upper(), [f"https://doi.org/{work.doi}"]
    return None, [f"https://example.org/sim/{stable_hex('ee', work.key)[:10]}"]


def render_hit(work: SimWork, index: int) -> dict[str, Any]:
    key = dblp_key(work)
    kind = _TYPES.get(work.type, ("Informal and Other Publications", "article"))[0]
    if _is_corr(work, key):
        kind = "Informal and Other Publications"
    doi, links = _links(work, key)
    names = _names(work)
    authors: Any = [{"@pid": stable_hex("pid", n)[:6], "text": n} for n in names]
    info: dict[str, Any] = {"title": _title(work), "type": kind, "access": "open", "key": key}
    if authors:
        # DBLP gives one author as an object, several as a list.
        info["authors"] = {"author": authors[0] if len(authors) == 1 else authors}
    venue = _venue(work, key)
    if venue:
        info["venue"] = venue
    if work.year:
        info["year"] = str(work.year)
    if doi:
        info["doi"] = doi
    info["ee"] = links[0] if len(links) == 1 else links
    info["url"] = f"https://dblp.org/rec/{key}"
    return {"@score": "10", "@id": str(index), "info": info, "url": f"URL#{index}"}


def render_xml(work: SimWork) -> str:
    key = dblp_key(work)
    tag = "article" if _is_corr(work, key) else _TYPES.get(work.type, ("", "article"))[1]
    venue_tag = "journal" if tag == "article" else "booktitle"
    lines = [f'<{tag} key={xml_attr(key)} mdate="2024-01-01">']
    lines += [f"<author>{xml_text(n)}</author>" for n in _names(work)]
    lines.append(f"<title>{xml_text(_title(work))}</title>")
    if work.year:
        lines.append(f"<year>{work.year}</year>")
    venue = _venue(work, key)
    if venue:
        lines.append(f"<{venue_tag}>{xml_text(venue)}</{venue_tag}>")
    lines += [f"<ee>{xml_text(link)}</ee>" for link in _links(work, key)[1]]
    lines.append(f"<url>db/{xml_text(key.rsplit('/', 1)[0])}.html</url>")
    lines.append(f"</{tag}>")
    return '<?xml version="1.0" encoding="US-ASCII"?>\n<dblp>\n' + "\n".join(lines) + "\n</dblp>\n"


def classify(request: Request, path: str) -> tuple[RequestKind, list[str]]:
    if path.rstrip("/") == SEARCH:
        return "search", []
    if path.startswith(REC):
        return "single", [unquote(path[len(REC) :]).removesuffix(".xml")]
    return "single", []


def handle(request: Request, path: str, ctx: SimContext) -> Response:
    catalog = ctx.universe.catalog("dblp")
    if path.rstrip("/") == SEARCH:
        return _search(request, catalog)
    if path.startswith(REC) and path.endswith(".xml"):
        key = unquote(path[len(REC) : -len(".xml")])
        keys = catalog.derived("dblp_keys", lambda c: {dblp_key(w): i for i, w in enumerate(c.works)})
        index = keys.get(key)
        if index is None:
            return text_response("Not Found", status=404)
        return xml_response(render_xml(catalog.works[index]))
    return text_response("Not Found", status=404)


def _matching(query: str, catalog: SourceCatalog) -> set[int]:
    """DBLP's boolean words: a space is AND, `|` between words OR ("graph|network"); there is no
    grouping (issue 23: `dblp_titles` asks several titles as an AND of `|` clauses)."""
    matched: set[int] | None = None
    for clause in query.split():
        alternatives = [tokenize(word) for word in clause.split("|")]
        # A stop word alone (or a lone `|`) constrains nothing, as it is not indexed.
        if any(not tokens for tokens in alternatives):
            continue
        docs = set().union(*(catalog.bibliographic.docs_with_all(tokens) for tokens in alternatives))
        matched = docs if matched is None else matched & docs
    return matched if matched is not None else set()


def search_request(request: Request) -> tuple[str, int, int] | Response:
    """A search's `q`, `h` and `f` (publications or venues), or DBLP's answer to a bad request."""
    query = request.param("q") or ""
    hits = parse_int(request.param("h"), 30, low=0, high=MAX_HITS)
    first = parse_int(request.param("f"), 0, low=0)
    if hits is None or first is None:
        return text_response("Bad Request", status=400)
    if (request.param("format") or "xml") != "json":
        return text_response("only format=json is simulated", status=400)
    return query, hits, first


def search_response(query: str, total: int, first: int, hits: list[dict[str, Any]]) -> Response:
    """DBLP's search envelope around one page of `hits` (`hit` absent when the page is empty)."""
    result: dict[str, Any] = {
        "query": query,
        "status": {"@code": "200", "text": "OK"},
        "time": {"@unit": "msecs", "text": "1.00"},
        "completions": {"@total": "0", "@computed": "0", "@sent": "0"},
        "hits": {
            "@total": str(total),
            "@computed": str(total),
            "@sent": str(len(hits)),
            "@first": str(first),
        },
    }
    if hits:
        result["hits"]["hit"] = hits
    return json_response({"result": result})


def _search(request: Request, catalog: SourceCatalog) -> Response:
    asked = search_request(request)
    if isinstance(asked, Response):
        return asked
    query, hits, first = asked
    words = tokenize(query)
    matched = _matching(query, catalog) if words else set()
    ranked = [doc for doc, _ in catalog.title.ranked(words, candidates=matched)] if matched else []
    # A work whose title holds no query word (all words in its authors or venue) still matches.
    ranked += sorted(matched - set(ranked))
    page = ranked[first : first + hits]
    return search_response(query, len(ranked), first, [render_hit(catalog.works[doc], doc) for doc in page])
