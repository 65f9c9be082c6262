"""NCBI E-utilities for PubMed: `esearch.fcgi`, `esummary.fcgi`, `efetch.fcgi` (GET or form POST).

- esearch: PubMed's boolean query language (`"a phrase"[ti]`, `smith j[au]`, `2019:2021[dp]`,
  `10.1/x[doi]`, AND/OR/NOT, parentheses, operators applied left to right, adjacent terms AND-ed,
  stop words ignored). XML (`eSearchResult`) by default, JSON with `retmode=json` (counts as
  strings, `idlist`, `querytranslation`, "No items found." when empty).
- esummary: JSON (`{"header", "result": {"uids": [...], "<uid>": {...}}}`, an unknown uid gets
  `{"uid", "error": "cannot get document summary"}`) or v1 XML `DocSum`s.
- efetch: `PubmedArticleSet` XML with the DOCTYPE line NCBI sends; unknown ids are left out.
Retracted works carry the "Retracted Publication" type and a `RetractionIn` link, as PubMed's do.
How esearch reads a term is `pubmed_query`; the records are `pubmed_records`.
"""

from __future__ import annotations

from typing import Any, Final

from aletheia.sources.simulator.common import SimContext, parse_int, xml_text
from aletheia.sources.simulator.config import RequestKind
from aletheia.sources.simulator.http import Request, Response, json_response, xml_response
from aletheia.sources.simulator.pubmed_query import resolve
from aletheia.sources.simulator.pubmed_records import pubmed_article, summary_json, summary_xml
from aletheia.sources.simulator.search import evaluate, parse_query, ranking_words
from aletheia.sources.simulator.universe import SourceCatalog

EUTILS: Final = "/entrez/eutils"
EFETCH_DOCTYPE: Final = (
    '<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2025//EN" '
    '"https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">'
)
ESEARCH_DOCTYPE: Final = (
    '<!DOCTYPE eSearchResult PUBLIC "-//NLM//DTD esearch 20060628//EN" '
    '"https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20060628/esearch.dtd">'
)
ESUMMARY_DOCTYPE: Final = (
    '<!DOCTYPE eSummaryResult PUBLIC "-//NLM//DTD esummary v1 20041029//EN" '
    '"https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20041029/esummary-v1.dtd">'
)
MAX_RETMAX: Final = 10000


def classify(request: Request, path: str) -> tuple[RequestKind, list[str]]:
    params = request.params()
    name = path.rstrip("/").rsplit("/", 1)[-1]
    if name == "esearch.fcgi":
        return "search", []
    ids = [i.strip() for i in (params.get("id") or "").split(",") if i.strip()]
    return ("batch" if len(ids) > 1 else "single"), ids


def has_api_key(request: Request) -> bool:
    return bool(request.params().get("api_key"))


def rate_limited(retry_after: str, limit: float | None, request: Request) -> Response:
    payload = {
        "error": "API rate limit exceeded",
        "api-key": request.params().get("api_key") or "127.0.0.1",
        "count": str(int(limit or 0) + 1),
        "limit": str(int(limit or 0)),
    }
    return json_response(payload, status=429, headers=[("retry-after", retry_after)])


def handle(request: Request, path: str, ctx: SimContext) -> Response:
    catalog = ctx.universe.catalog("pubmed")
    params = request.params()
    name = path.rstrip("/")
    if not name.startswith(f"{EUTILS}/"):
        return xml_response("<html><body>Not Found</body></html>", status=404, content_type="text/html")
    endpoint = name[len(EUTILS) + 1 :]
    db = params.get("db", "pubmed").lower()
    json_mode = params.get("retmode", "").lower() == "json"
    if endpoint == "esearch.fcgi":
        if db != "pubmed":
            return _esearch_error(f"Invalid db name specified: {db}", json_mode)
        return _esearch(params, catalog, json_mode)
    if endpoint == "esummary.fcgi":
        return _esummary(params, catalog, json_mode, db)
    if endpoint == "efetch.fcgi":
        return _efetch(params, catalog, db)
    return xml_response("<html><body>Not Found</body></html>", status=404, content_type="text/html")


# --- esearch ---------------------------------------------------------------------------------------


def _esearch(params: dict[str, str], catalog: SourceCatalog, json_mode: bool) -> Response:
    term = params.get("term", "")
    retmax = parse_int(params.get("retmax"), 20, high=MAX_RETMAX)
    retstart = parse_int(params.get("retstart"), 0)
    if retmax is None or retstart is None:
        return _esearch_error("retmax and retstart must be non-negative integers", json_mode)
    if not term.strip():
        return _esearch_error("Empty term and query_key - nothing todo", json_mode)
    default_field = params.get("field")
    node = parse_query(term, "pubmed")
    everything = set(range(len(catalog)))
    matched = (
        evaluate(node, lambda c: resolve(c, catalog, default_field), everything)
        if node is not None
        else set()
    )
    if params.get("sort", "").lower() == "relevance":
        scores = catalog.all.scores(ranking_words(node), matched)
        ordered = sorted(matched, key=lambda d: (-scores.get(d, 0.0), d))
    else:
        # E-utilities' default order: most recent first.
        ordered = sorted(
            matched, key=lambda d: (-(catalog.works[d].year or 0), -int(catalog.works[d].pmid or 0))
        )
    ids = [catalog.works[d].pmid or "" for d in ordered[retstart : retstart + retmax]]
    if json_mode:
        result: dict[str, Any] = {
            "count": str(len(ordered)),
            "retmax": str(len(ids)),
            "retstart": str(retstart),
            "idlist": ids,
            "translationset": [],
            "querytranslation": term,
        }
        if not ordered:
            result["warninglist"] = {
                "phrasesignored": [],
                "quotedphrasesnotfound": [],
                "outputmessages": ["No items found."],
            }
        return json_response({"header": {"type": "esearch", "version": "0.3"}, "esearchresult": result})
    id_xml = "".join(f"<Id>{i}</Id>\n" for i in ids)
    body = (
        '<?xml version="1.0" encoding="UTF-8" ?>\n'
        f"{ESEARCH_DOCTYPE}\n"
        f"<eSearchResult><Count>{len(ordered)}</Count><RetMax>{len(ids)}</RetMax><RetStart>{retstart}</RetStart>"
        f"<IdList>\n{id_xml}</IdList><TranslationSet/><QueryTranslation>{xml_text(term)}</QueryTranslation>"
        "</eSearchResult>\n"
    )
    return xml_response(body)


def _esearch_error(message: str, json_mode: bool) -> Response:
    if json_mode:
        return json_response(
            {"header": {"type": "esearch", "version": "0.3"}, "esearchresult": {"ERROR": message}}
        )
    body = (
        '<?xml version="1.0" encoding="UTF-8" ?>\n'
        f"{ESEARCH_DOCTYPE}\n<eSearchResult><ERROR>{xml_text(message)}</ERROR></eSearchResult>\n"
    )
    return xml_response(body)


# --- esummary --------------------------------------------------------------------------------------


def _ids(params: dict[str, str]) -> list[str]:
    return [i.strip() for i in (params.get("id") or "").split(",") if i.strip()]


def _esummary(params: dict[str, str], catalog: SourceCatalog, json_mode: bool, db: str) -> Response:
    ids = _ids(params)
    header = {"type": "esummary", "version": "0.3"}
    if db != "pubmed":
        return (
            json_response({"header": header, "error": f"Invalid db name specified: {db}"})
            if json_mode
            else (
                xml_response(
                    '<?xml version="1.0" ?>\n<eSummaryResult>'
                    f"<ERROR>Invalid db name specified: {xml_text(db)}</ERROR></eSummaryResult>\n"
                )
            )
        )
    bad = [(n, i) for n, i in enumerate(ids) if not i.isdigit()]
    if not ids or bad:
        message = (
            "Empty id list - nothing todo" if not ids else f"Invalid uid {bad[0][1]} at position={bad[0][0]}"
        )
        if json_mode:
            return json_response({"header": header, "esummaryresult": [message]})
        body = (
            f'<?xml version="1.0" ?>\n{ESUMMARY_DOCTYPE}\n'
            f"<eSummaryResult><ERROR>{xml_text(message)}</ERROR></eSummaryResult>\n"
        )
        return xml_response(body)
    if json_mode:
        result: dict[str, Any] = {"uids": ids}
        for uid in ids:
            work = catalog.pmid(uid)
            result[uid] = (
                summary_json(work)
                if work is not None
                else {"uid": uid, "error": "cannot get document summary"}
            )
        return json_response({"header": header, "result": result})
    docs = []
    for uid in ids:
        work = catalog.pmid(uid)
        docs.append(
            summary_xml(work)
            if work is not None
            else f"<ERROR>UID={xml_text(uid)}: cannot get document summary</ERROR>\n"
        )
    body = (
        f'<?xml version="1.0" encoding="UTF-8" ?>\n{ESUMMARY_DOCTYPE}\n'
        f"<eSummaryResult>\n{''.join(docs)}</eSummaryResult>\n"
    )
    return xml_response(body)


# --- efetch ----------------------------------------------------------------------------------------


def _efetch(params: dict[str, str], catalog: SourceCatalog, db: str) -> Response:
    ids = _ids(params)
    if db != "pubmed" or not ids:
        message = "Empty id list - nothing todo" if not ids else f"Invalid db name specified: {db}"
        body = (
            '<?xml version="1.0" encoding="UTF-8" ?>\n'
            f"<eFetchResult>\n\t<ERROR>{xml_text(message)}</ERROR>\n</eFetchResult>\n"
        )
        return xml_response(body, status=400)
    articles = []
    for uid in ids:
        work = catalog.pmid(uid) if uid.isdigit() else None
        if work is not None:
            articles.append(pubmed_article(work))
    body = (
        f'<?xml version="1.0" ?>\n{EFETCH_DOCTYPE}\n'
        f"<PubmedArticleSet>\n{''.join(articles)}</PubmedArticleSet>\n"
    )
    return xml_response(body)
