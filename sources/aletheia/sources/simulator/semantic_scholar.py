"""Semantic Scholar Graph API (`api.semanticscholar.org/graph/v1`).

Endpoints: `GET /paper/{id}` (id: a 40-hex paperId, `DOI:`, `ARXIV:`, `PMID:`, `PMCID:`,
`CorpusId:`, `URL:`, or a bare DOI), `POST /paper/batch` (`{"ids": [...]}`, a list in request
order with `null` for unknown ids), `GET /paper/search` (ranked; `{"total", "offset", "next"?,
"data"?}`), `GET /paper/search/match` (the single best title match, or 404 "Title match not
found") and `GET /paper/search/bulk` (the documented boolean query over titles and abstracts, up
to 1,000 papers and a continuation token: `s2_bulk`). Only the requested `fields` come back,
`paperId` always; no `fields` means paperId and title; an unknown field is a 400, as with the
real API.
"""

from __future__ import annotations

import re
from typing import Any, Final

from aletheia.sources.simulator.common import SimContext, month_day, parse_int
from aletheia.sources.simulator.config import RequestKind
from aletheia.sources.simulator.http import Request, Response, json_response
from aletheia.sources.simulator.ids import normalize_doi, split_arxiv_id, stable_hex, stable_int
from aletheia.sources.simulator.s2_bulk import bulk_search
from aletheia.sources.simulator.s2_corpus import S2Corpus
from aletheia.sources.simulator.search import tokenize
from aletheia.sources.simulator.universe import SourceCatalog
from aletheia.sources.simulator.work import SimWork

GRAPH: Final = "/graph/v1/paper"
MAX_BATCH: Final = 500
MAX_SEARCH_LIMIT: Final = 100
_FIELDS: Final = frozenset(
    {
        "paperId",
        "corpusId",
        "externalIds",
        "url",
        "title",
        "abstract",
        "venue",
        "publicationVenue",
        "year",
        "referenceCount",
        "citationCount",
        "influentialCitationCount",
        "isOpenAccess",
        "openAccessPdf",
        "fieldsOfStudy",
        "s2FieldsOfStudy",
        "publicationTypes",
        "publicationDate",
        "journal",
        "citationStyles",
        "authors",
        "citations",
        "references",
        "embedding",
        "tldr",
    }
)
_NESTED: Final = frozenset({"authors", "citations", "references", "embedding"})
_ARXIV_VENUE: Final = {
    "id": "1901e811-ee72-4b20-8f7e-de08cd395a10",
    "name": "arXiv.org",
    "alternate_names": ["ArXiv"],
    "issn": "2331-8422",
    "url": "https://arxiv.org",
}
_PUBLICATION_TYPES: Final = {
    "journal-article": ["JournalArticle"],
    "proceedings-article": ["Conference"],
    "book": ["Book"],
    "monograph": ["Book"],
    "book-chapter": ["BookSection"],
    "dataset": ["Dataset"],
}
# The title-match endpoint answers only a close match: this share of the query's words must be in
# the title and this share of the title's words in the query.
MATCH_SHARE: Final = 0.6


def classify(request: Request, path: str) -> tuple[RequestKind, list[str]]:
    stripped = path.rstrip("/")
    if stripped == f"{GRAPH}/batch":
        try:
            body = request.json()
        except (ValueError, UnicodeDecodeError):
            return "batch", []
        ids = body.get("ids") if isinstance(body, dict) else None
        return "batch", [str(i) for i in ids] if isinstance(ids, list) else []
    if stripped in (f"{GRAPH}/search", f"{GRAPH}/search/match", f"{GRAPH}/search/bulk"):
        return "search", []
    if stripped.startswith(f"{GRAPH}/"):
        return "single", [stripped[len(GRAPH) + 1 :]]
    return "single", []


def _error(message: str, status: int) -> Response:
    return json_response({"error": message}, status=status)


def handle(request: Request, path: str, ctx: SimContext) -> Response:
    catalog = ctx.universe.catalog("semantic_scholar")
    stripped = path.rstrip("/")
    fields, bad = _parse_fields(request.param("fields"))
    if bad:
        return _error(f"Unrecognized or unsupported fields: [{', '.join(bad)}]", 400)
    if stripped == f"{GRAPH}/batch":
        if request.method != "POST":
            return _error('Method not allowed; POST a JSON body {"ids": [...]}', 405)
        return _batch(request, catalog, fields)
    if stripped == f"{GRAPH}/search/match":
        return _match(request, catalog, fields)
    if stripped == f"{GRAPH}/search/bulk":
        # Many titles in one boolean query (issue 23): `s2_bulk`.
        return bulk_search(
            request,
            catalog,
            fields,
            render=lambda index: render_paper(catalog.works[index]),
            years=_year_filter(request.param("year")),
            corpus=corpus(ctx) if ctx.semantic_scholar_corpus else None,
        )
    if stripped == f"{GRAPH}/search":
        return _search(request, catalog, fields)
    if stripped.startswith(f"{GRAPH}/"):
        identifier = stripped[len(GRAPH) + 1 :]
        index = lookup(identifier, catalog)
        if index is None:
            return _error(f"Paper with id {identifier} not found", 404)
        return json_response(_project(render_paper(catalog.works[index]), fields))
    return json_response({"message": "Not Found"}, status=404)


def corpus(ctx: SimContext) -> S2Corpus:
    """The sample of the rest of S2's corpus, written in the phrases of its catalogue's titles
    (built once, kept with the catalogue)."""
    papers, seed = ctx.semantic_scholar_corpus, ctx.seed
    return ctx.universe.catalog("semantic_scholar").derived(
        f"s2_corpus:{papers}:{seed}", lambda c: S2Corpus((w.display_title for w in c.works), papers, seed)
    )


def _parse_fields(text: str | None) -> tuple[list[str], list[str]]:
    if text is None or not text.strip():
        return ["title"], []
    fields: list[str] = []
    bad: list[str] = []
    for raw in text.split(","):
        name = raw.strip()
        if not name:
            continue
        top = name.split(".", 1)[0]
        if top not in _FIELDS or ("." in name and top not in _NESTED):
            bad.append(name)
        elif top not in fields:
            fields.append(top)
    return fields, bad


def _project(paper: dict[str, Any], fields: list[str]) -> dict[str, Any]:
    projected = {"paperId": paper["paperId"]}
    for name in fields:
        projected[name] = paper.get(name)
    return projected


_HEX40: Final = re.compile(r"^[0-9a-f]{40}$", re.IGNORECASE)


def lookup(identifier: str, catalog: SourceCatalog) -> int | None:
    """The catalog index an S2 paper id names, or None."""
    text = identifier.strip()
    if _HEX40.match(text):
        return catalog.by_s2.get(text.lower())
    if text.startswith("10."):
        return catalog.by_doi.get(normalize_doi(text))
    prefix, sep, value = text.partition(":")
    if not sep:
        return None
    kind = prefix.strip().upper()
    value = value.strip()
    if kind == "DOI":
        return catalog.by_doi.get(normalize_doi(value))
    if kind == "ARXIV":
        parsed = split_arxiv_id(value)
        return catalog.by_arxiv.get(parsed[0].lower()) if parsed is not None else None
    if kind == "PMID":
        return catalog.by_pmid.get(value.lstrip("0")) if value.isdigit() else None
    if kind == "PMCID":
        digits = value.upper().removeprefix("PMC")
        return catalog.by_pmcid.get(f"PMC{digits}") if digits.isdigit() else None
    if kind == "CORPUSID":
        return catalog.by_corpus.get(int(value)) if value.isdigit() else None
    if kind == "URL":
        arxiv = re.search(r"arxiv\.org/(?:abs|pdf)/(.+?)(?:\.pdf)?$", value)
        if arxiv:
            return lookup(f"ARXIV:{arxiv.group(1)}", catalog)
        s2 = re.search(r"semanticscholar\.org/paper/(?:.*/)?([0-9a-f]{40})", value)
        if s2:
            return catalog.by_s2.get(s2.group(1))
    return None


def _batch(request: Request, catalog: SourceCatalog, fields: list[str]) -> Response:
    try:
        body = request.json()
    except (ValueError, UnicodeDecodeError):
        return _error("Unacceptable JSON body", 400)
    ids = body.get("ids") if isinstance(body, dict) else None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        return _error('Body must be {"ids": [<paper id>, ...]}', 400)
    if len(ids) > MAX_BATCH:
        return _error(f"Cannot process more than {MAX_BATCH} ids", 400)
    results: list[dict[str, Any] | None] = []
    for identifier in ids:
        index = lookup(identifier, catalog)
        results.append(_project(render_paper(catalog.works[index]), fields) if index is not None else None)
    return json_response(results)


def _year_filter(text: str | None) -> tuple[int, int] | None:
    if not text:
        return (0, 9999)
    match = re.fullmatch(r"(\d{4})?(-)?(\d{4})?", text.strip())
    if match is None or not (match.group(1) or match.group(3)):
        return None
    low = int(match.group(1)) if match.group(1) else 0
    # "2019" is one year, "2016-2020" a range, "2010-" and "-2015" open-ended ranges.
    high = (int(match.group(3)) if match.group(3) else 9999) if match.group(2) else low
    return low, high


def _search(request: Request, catalog: SourceCatalog, fields: list[str]) -> Response:
    query = request.param("query")
    if not query or not query.strip():
        return _error("Missing required parameter: 'query'", 400)
    offset = parse_int(request.param("offset"), 0)
    limit = parse_int(request.param("limit"), 100, low=1, high=MAX_SEARCH_LIMIT)
    years = _year_filter(request.param("year"))
    if offset is None or limit is None or years is None:
        return _error("Invalid offset, limit or year parameter", 400)
    low, high = years
    candidates = None
    if request.param("year"):
        candidates = [i for i, w in enumerate(catalog.works) if w.year is not None and low <= w.year <= high]
    ranked = catalog.text.ranked(tokenize(query), candidates=candidates, min_share=0.5)
    total = len(ranked)
    payload: dict[str, Any] = {"total": total, "offset": offset}
    if offset + limit < total:
        payload["next"] = offset + limit
    if total:
        payload["data"] = [
            _project(render_paper(catalog.works[doc]), fields) for doc, _ in ranked[offset : offset + limit]
        ]
    return json_response(payload)


def _match(request: Request, catalog: SourceCatalog, fields: list[str]) -> Response:
    query = request.param("query")
    if not query or not query.strip():
        return _error("Missing required parameter: 'query'", 400)
    words = tokenize(query)
    ranked = catalog.title.ranked(words)
    wanted = set(words)
    for doc, score in ranked[:5]:
        title_words = set(catalog.title.docs[doc])
        shared = len(wanted & title_words)
        if (
            wanted
            and title_words
            and shared / len(wanted) >= MATCH_SHARE
            and shared / len(title_words) >= MATCH_SHARE
        ):
            paper = _project(render_paper(catalog.works[doc]), fields)
            paper["matchScore"] = round(score * 10, 5)
            return json_response({"data": [paper]})
    return _error("Title match not found", 404)


# --- rendering -------------------------------------------------------------------------------------


def _bibtex(work: SimWork, key: str) -> str:
    entry = (
        "Article"
        if work.type == "journal-article"
        else "Inproceedings"
        if work.type == "proceedings-article"
        else "Misc"
    )
    lines = [f"@{entry}{{{key},"]
    if work.authors:
        lines.append(f" author = {{{' and '.join(a.display for a in work.authors)}}},")
    if work.venue:
        lines.append(f" {'journal' if entry == 'Article' else 'booktitle'} = {{{work.venue}}},")
    lines.append(f" title = {{{work.display_title}}},")
    if work.year:
        lines.append(f" year = {{{work.year}}}")
    return "\n".join(lines) + "\n}\n"


def render_paper(work: SimWork) -> dict[str, Any]:
    """Every field of one paper; `_project` keeps the requested ones."""
    recorded = work.native.get("semantic_scholar")
    if recorded is not None:
        # The real service's paper, verbatim: a field it did not record is answered as null.
        return {**recorded, "paperId": recorded.get("paperId") or work.derived_s2_id}
    arxiv_id = work.arxiv_id or (work.related.preprint_arxiv_id if work.related else None)
    arxiv_only = bool(work.arxiv_id) and not work.doi and work.type == "posted-content"
    # `s2_publication_venue`: S2 knows where the work appeared though the others see a preprint.
    known_venue = work.s2_publication_venue or work.venue
    venue = known_venue or ("arXiv.org" if arxiv_only else "")
    month, day = month_day(work, "s2")
    paper_id = work.derived_s2_id
    first = (work.authors[0].family or work.authors[0].literal or "") if work.authors else ""
    key = re.sub(r"\W", "", f"{first}{work.year or ''}{''.join(w[:1] for w in work.title.split()[:3])}")
    return {
        "paperId": paper_id,
        "externalIds": _external_ids(work, arxiv_id),
        "corpusId": work.derived_corpus_id,
        "publicationVenue": _publication_venue(work, known_venue, arxiv_only),
        "url": f"https://www.semanticscholar.org/paper/{paper_id}",
        "title": work.display_title,
        "abstract": work.abstract,
        "venue": venue,
        "year": work.year,
        "referenceCount": stable_int("refs", work.key, digits=2),
        "citationCount": stable_int("cited", work.key, digits=3),
        "influentialCitationCount": stable_int("influential", work.key, digits=1),
        "isOpenAccess": arxiv_id is not None,
        "openAccessPdf": {
            "url": f"https://arxiv.org/pdf/{arxiv_id}",
            "status": "GREEN",
            "license": None,
            "disclaimer": f"Notice: Paper or abstract available at https://arxiv.org/abs/{arxiv_id}.",
        }
        if arxiv_id
        else None,
        "fieldsOfStudy": ["Computer Science"]
        if any(c.startswith("cs.") for c in work.arxiv_categories)
        else None,
        "s2FieldsOfStudy": [],
        "publicationTypes": _PUBLICATION_TYPES.get(work.type),
        "publicationDate": f"{work.year:04d}-{month:02d}-{day:02d}" if work.year else None,
        "journal": _journal(work, arxiv_only),
        "citationStyles": {"bibtex": _bibtex(work, key or paper_id[:10])},
        "authors": [
            {"authorId": str(stable_int("s2author", a.display)), "name": a.display} for a in work.authors
        ],
        "citations": [],
        "references": [],
        "embedding": None,
        "tldr": None,
    }


def _external_ids(work: SimWork, arxiv_id: str | None) -> dict[str, Any]:
    """`externalIds`: the work's identifiers at other services, and its CorpusId."""
    external: dict[str, Any] = {}
    if arxiv_id:
        external["ArXiv"] = arxiv_id
    if work.doi:
        external["DOI"] = work.doi
    if work.pmid:
        external["PubMed"] = work.pmid
    if work.pmcid:
        external["PubMedCentral"] = work.pmcid.removeprefix("PMC")
    if work.dblp_key:
        external["DBLP"] = work.dblp_key
    external["CorpusId"] = work.derived_corpus_id
    return external


def _publication_venue(work: SimWork, known_venue: str | None, arxiv_only: bool) -> dict[str, Any] | None:
    """`publicationVenue`: the venue S2 knows, arXiv for a preprint only there, else null."""
    if known_venue:
        named: dict[str, Any] = {
            "id": _uuid(stable_hex("venue", known_venue)),
            "name": known_venue,
            "type": "conference"
            if work.type == "proceedings-article" or work.s2_publication_venue
            else "journal",
            "alternate_names": list(work.venue_aliases),
        }
        if work.issn:
            named["issn"] = work.issn[0]
            if len(work.issn) > 1:
                named["alternate_issns"] = list(work.issn[1:])
        return named
    if arxiv_only:
        return dict(_ARXIV_VENUE)
    return None


def _journal(work: SimWork, arxiv_only: bool) -> dict[str, Any] | None:
    """`journal`: ArXiv with the abs id for a preprint only there, else the venue with its pages."""
    if arxiv_only:
        return {"name": "ArXiv", "volume": f"abs/{work.arxiv_id}"}
    if work.venue:
        journal: dict[str, Any] = {"name": work.venue}
        if work.pages:
            journal["pages"] = work.pages
        if work.volume:
            journal["volume"] = work.volume
        return journal
    return None


def _uuid(hex_digest: str) -> str:
    h = hex_digest
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
