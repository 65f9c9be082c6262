"""Europe PMC's REST API: `search` (JSON, identifier queries) and `{PMCID}/fullTextXML` (JATS).

- search: `EXT_ID:<pmid> AND SRC:MED`, `DOI:"<doi>"` or `PMCID:<pmcid>` (the identifier queries
  the client sends; any other query finds nothing). The answer is
  `{"version", "hitCount", "request", "resultList": {"result": [...]}}` with Europe PMC's `lite`
  fields; `isOpenAccess`/`inEPMC`/`inPMC` are "Y" for a work with a PMCID and a `pmc_body`.
- fullTextXML: the JATS `<article>` of such a work (front matter from the work, the body from its
  `pmc_body` sections, a reference list), after the DOCTYPE line PMC's JATS carries; 404 for any
  other PMCID, as Europe PMC answers for texts outside the open-access subset.

Europe PMC holds all of PubMed plus PMC, so the works it knows are the PubMed catalog's.
"""

from __future__ import annotations

import re
from typing import Any, Final

from aletheia.sources.simulator.common import SimContext, month_day, xml_attr, xml_text
from aletheia.sources.simulator.config import RequestKind
from aletheia.sources.simulator.http import Request, Response, json_response, text_response, xml_response
from aletheia.sources.simulator.ids import normalize_pmcid
from aletheia.sources.simulator.universe import SourceCatalog
from aletheia.sources.simulator.work import SimWork

REST: Final = "/europepmc/webservices/rest"
JATS_DOCTYPE: Final = (
    '<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange DTD'
    ' v1.2 20190208//EN" "JATS-archivearticle1-mathml3.dtd">'
)
_EXT_ID: Final = re.compile(r"^EXT_ID:\s*(\d+)\s+AND\s+SRC:\s*MED$", re.IGNORECASE)
_DOI: Final = re.compile(r'^DOI:\s*"?([^"]+?)"?$', re.IGNORECASE)
_PMCID: Final = re.compile(r"^PMCID:\s*(PMC\d+)$", re.IGNORECASE)
_FULL_TEXT: Final = re.compile(r"^/(PMC\d+)/fullTextXML$", re.IGNORECASE)


def classify(request: Request, path: str) -> tuple[RequestKind, list[str]]:
    tail = path.removeprefix(REST)
    if (match := _FULL_TEXT.match(tail)) is not None:
        return "fulltext", [match.group(1).upper()]
    return "single", []


def handle(request: Request, path: str, ctx: SimContext) -> Response:
    catalog = ctx.universe.catalog("pubmed")
    if not path.startswith(REST + "/"):
        return text_response("Not Found", status=404)
    tail = path.removeprefix(REST)
    if tail == "/search":
        return _search(request.params(), catalog)
    if (match := _FULL_TEXT.match(tail)) is not None:
        work = catalog.pmcid(match.group(1))
        if work is None or not _open_access(work):
            return text_response("", status=404)
        return xml_response(_jats(work), content_type="application/xml")
    return text_response("Not Found", status=404)


def _open_access(work: SimWork) -> bool:
    return bool(work.pmcid and work.pmc_body)


def _find(query: str, catalog: SourceCatalog) -> SimWork | None:
    text = query.strip()
    if (match := _EXT_ID.match(text)) is not None:
        return catalog.pmid(match.group(1))
    if (match := _DOI.match(text)) is not None:
        return catalog.doi(match.group(1))
    if (match := _PMCID.match(text)) is not None:
        return catalog.pmcid(normalize_pmcid(match.group(1)))
    return None


def _search(params: dict[str, str], catalog: SourceCatalog) -> Response:
    query = params.get("query", "")
    if not query.strip():
        return json_response({"errCode": 400, "errMsg": "query is required"}, status=400)
    work = _find(query, catalog)
    results = [_result(work)] if work is not None else []
    return json_response(
        {
            "version": "6.9",
            "hitCount": len(results),
            "nextCursorMark": "*",
            "request": {
                "queryString": query,
                "resultType": params.get("resultType", "lite"),
                "cursorMark": "*",
                "pageSize": int(params.get("pageSize", "25") or 25),
                "sort": "",
                "synonym": False,
            },
            "resultList": {"result": results},
        }
    )


def _flag(value: bool) -> str:
    return "Y" if value else "N"


def _result(work: SimWork) -> dict[str, Any]:
    view = work.view("pubmed")
    open_access = _open_access(view)
    authors = ", ".join(f"{a.family} {a.initials}".strip() if a.family else a.display for a in view.authors)
    result: dict[str, Any] = {
        "id": view.pmid or view.pmcid,
        "source": "MED" if view.pmid else "PMC",
        "pmid": view.pmid,
        "pmcid": view.pmcid,
        "doi": view.doi,
        "title": view.display_title if view.display_title.endswith(".") else f"{view.display_title}.",
        "authorString": f"{authors}." if authors else None,
        "journalTitle": view.venue,
        "pubYear": str(view.year) if view.year else None,
        "pubType": "research-article; journal article",
        "isOpenAccess": _flag(open_access),
        "inEPMC": _flag(open_access),
        "inPMC": _flag(view.pmcid is not None),
        "hasPDF": _flag(open_access),
        "citedByCount": 0,
    }
    if view.pmcid:
        result["fullTextIdList"] = {"fullTextId": [view.pmcid]}
    return {name: value for name, value in result.items() if value is not None}


def _jats(work: SimWork) -> str:
    view = work.view("pubmed")
    month, day = month_day(view, "epmc")
    ids = [f'<article-id pub-id-type="pmcid">{xml_text(view.pmcid or "")}</article-id>']
    if view.pmid:
        ids.append(f'<article-id pub-id-type="pmid">{view.pmid}</article-id>')
    if view.doi:
        ids.append(f'<article-id pub-id-type="doi">{xml_text(view.doi)}</article-id>')
    contribs = "".join(
        '<contrib contrib-type="author"><name>'
        f"<surname>{xml_text(a.family or a.display)}</surname>"
        + (f"<given-names>{xml_text(a.given)}</given-names>" if a.given else "")
        + "</name></contrib>"
        for a in view.authors
    )
    abstract = f"<abstract><p>{xml_text(view.abstract)}</p></abstract>" if view.abstract else ""
    sections = "".join(
        f'<sec id="sec{n}"><label>{n}</label><title>{xml_text(section.title)}</title>'
        + "".join(f"<p>{xml_text(p)}</p>" for p in section.paragraphs)
        + "</sec>"
        for n, section in enumerate(view.pmc_body, start=1)
    )
    year = f"<year>{view.year}</year>" if view.year else ""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"{JATS_DOCTYPE}\n"
        '<article xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:mml="http://www.w3.org/1998/Math/MathML"'
        ' article-type="research-article" xml:lang="en">'
        "<front><journal-meta>"
        f"<journal-title-group><journal-title>{xml_text(view.venue or '')}</journal-title>"
        "</journal-title-group></journal-meta><article-meta>"
        + "".join(ids)
        + f"<title-group><article-title>{xml_text(view.display_title)}</article-title></title-group>"
        f'<contrib-group>{contribs}</contrib-group><pub-date pub-type="epub"><day>{day}</day>'
        f"<month>{month}</month>{year}</pub-date>"
        f"<permissions><license license-type={xml_attr('open-access')}><license-p>CC BY</license-p>"
        f"</license></permissions>{abstract}</article-meta></front>"
        f"<body>{sections}</body>"
        '<back><ref-list><title>References</title><ref id="R1"><mixed-citation>A cited work in the'
        " reference list, which is no part of the text.</mixed-citation></ref></ref-list></back>"
        "</article>\n"
    )
