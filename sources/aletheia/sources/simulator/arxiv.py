"""arXiv: the export API's Atom feed (`/api/query`) and arxiv.org's `/abs`, `/html` and `/pdf`.

The feed matches recorded responses: the `opensearch` header, one `<entry>` per paper with
`<id>http://arxiv.org/abs/{id}v{n}</id>`, `published` = v1, `updated` = the version served, the
pdf link, categories, `arxiv:doi` (the published version's DOI) and `arxiv:journal_ref`. An id
without a version gets the latest version. A well-formed id arXiv does not have is left out of
the feed (an empty feed if it was the only one); a malformed id is HTTP 400 with one "Error"
entry, "incorrect id format for {id}", as the real API answers.
"""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import datetime
from typing import Final
from urllib.parse import quote

from aletheia.sources.simulator.common import SimContext, parse_int, xml_attr, xml_text
from aletheia.sources.simulator.config import RequestKind
from aletheia.sources.simulator.http import Request, Response, text_response
from aletheia.sources.simulator.ids import split_arxiv_id, stable_int
from aletheia.sources.simulator.pdf import render_pdf
from aletheia.sources.simulator.search import (
    Clause,
    FieldIndex,
    evaluate,
    parse_query,
    ranking_words,
    tokenize,
)
from aletheia.sources.simulator.universe import SourceCatalog
from aletheia.sources.simulator.work import ARXIV_DOI_PREFIX, ArxivVersion, SimWork

FEED_HEAD: Final = (
    "<?xml version='1.0' encoding='UTF-8'?>\n"
    '<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">\n'
)
ATOM_TYPE: Final = "application/atom+xml; charset=utf-8"
DEFAULT_CATEGORY: Final = "cs.DL"
MAX_RESULTS_CAP: Final = 2000


def classify_api(request: Request, path: str) -> tuple[RequestKind, list[str]]:
    params = request.params()
    ids = [i.strip() for i in (params.get("id_list") or "").split(",") if i.strip()]
    if params.get("search_query"):
        return "search", ids
    return ("batch" if len(ids) > 1 else "single"), ids


def classify_site(request: Request, path: str) -> tuple[RequestKind, list[str]]:
    match = re.match(r"^/(?:abs|pdf|html)/(.+?)/?$", path)
    return "fulltext", [match.group(1)] if match else []


# --- the export API --------------------------------------------------------------------------------


def handle_api(request: Request, path: str, ctx: SimContext) -> Response:
    if path.rstrip("/") != "/api/query":
        return text_response("Not Found", status=404)
    catalog = ctx.universe.catalog("arxiv")
    params = request.params()
    search_query = params.get("search_query", "")
    id_text = params.get("id_list", "")
    ids = [i.strip() for i in id_text.split(",") if i.strip()]
    start = parse_int(params.get("start"), 0, high=30000)
    max_results = parse_int(params.get("max_results"), 10, high=30000)
    now = ctx.now()
    if start is None:
        return _error_feed(now, "start_must_be_an_integer", "start must be an integer")
    if max_results is None:
        return _error_feed(now, "max_results_must_be_an_integer", "max_results must be an integer")
    for raw in ids:
        if split_arxiv_id(raw) is None:
            slug = re.sub(r"\W", "_", raw)
            return _error_feed(now, f"incorrect_id_format_for_{slug}", f"incorrect id format for {raw}")

    selected = _listed(ids, catalog)
    if search_query.strip():
        selected = _searched(search_query, selected, catalog, listed=bool(ids))
        selected = _sorted(selected, catalog, params.get("sortBy"), params.get("sortOrder"))

    total = len(selected)
    page = selected[start : start + min(max_results, MAX_RESULTS_CAP)]
    entries = "".join(render_entry(catalog.works[i], v, ctx) for i, v in page)
    query_text = f"search_query={search_query}&id_list={id_text}&start={start}&max_results={max_results}"
    link = (
        f"https://arxiv.org/api/query?search_query={quote(search_query, safe=':')}"
        f"&start={start}&max_results={max_results}&id_list={quote(id_text, safe=',/')}"
    )
    feed = (
        FEED_HEAD
        + f"  <id>https://arxiv.org/api/{_feed_id(query_text)}</id>\n"
        + f"  <title>arXiv Query: {xml_text(query_text)}</title>\n"
        + f"  <updated>{_iso(now)}</updated>\n"
        + f'  <link href={xml_attr(link)} type="application/atom+xml"/>\n'
        + f"  <opensearch:itemsPerPage>{max_results}</opensearch:itemsPerPage>\n"
        + f"  <opensearch:totalResults>{total}</opensearch:totalResults>\n"
        + f"  <opensearch:startIndex>{start}</opensearch:startIndex>\n"
        + entries
        + "</feed>\n"
    )
    return Response(200, feed.encode("utf-8"), ATOM_TYPE)


def _listed(ids: list[str], catalog: SourceCatalog) -> list[tuple[int, int]]:
    """(catalog index, version) of each id of `id_list` the catalogue has (its latest version when
    the id names none); an unknown id or version is left out."""
    selected: list[tuple[int, int]] = []
    for raw in ids:
        parsed = split_arxiv_id(raw)
        assert parsed is not None
        index = catalog.by_arxiv.get(parsed[0].lower())
        if index is None or catalog.works[index].arxiv_id is None:
            continue
        versions = catalog.works[index].versions
        version = parsed[1] or versions[-1].version
        if version <= len(versions):
            selected.append((index, version))
    return selected


def _searched(
    search_query: str, selected: list[tuple[int, int]], catalog: SourceCatalog, *, listed: bool
) -> list[tuple[int, int]]:
    """`search_query` applied: with an `id_list`, the listed works it matches; without, every
    match (latest version), best first."""
    node = parse_query(search_query, "arxiv")
    everything = set(range(len(catalog)))
    matched = evaluate(node, lambda c: _resolve(c, catalog), everything) if node is not None else set()
    scores = catalog.all.scores(ranking_words(node), matched)
    if listed:
        return [(i, v) for i, v in selected if i in matched]
    ranked = sorted(matched, key=lambda d: (-scores.get(d, 0.0), d))
    return [(i, catalog.works[i].versions[-1].version) for i in ranked if catalog.works[i].arxiv_id]


def _sorted(
    selected: list[tuple[int, int]], catalog: SourceCatalog, sort_by: str | None, order: str | None
) -> list[tuple[int, int]]:
    if sort_by not in ("lastUpdatedDate", "submittedDate"):
        return selected
    position = -1 if sort_by == "lastUpdatedDate" else 0

    def when(item: tuple[int, int]) -> datetime:
        work = catalog.works[item[0]]
        return version_time(work, work.versions[position])

    return sorted(selected, key=when, reverse=order != "ascending")


def _resolve(clause: Clause, catalog: SourceCatalog) -> set[int]:
    field = clause.field or "all"
    words = tokenize(clause.text)
    if field == "id":
        parsed = split_arxiv_id(clause.text)
        found = catalog.by_arxiv.get(parsed[0].lower()) if parsed else None
        return {found} if found is not None else set()
    if field == "cat":
        return {
            i
            for i, w in enumerate(catalog.works)
            if clause.text in (w.arxiv_categories or (DEFAULT_CATEGORY,))
        }
    fields: dict[str, FieldIndex] = {
        "ti": catalog.title,
        "au": catalog.authors,
        "abs": catalog.abstract,
        "jr": catalog.venue,
        "all": catalog.all,
    }
    index = fields.get(field)
    if index is None or not words:
        return set()
    return index.docs_matching(words, phrase=clause.phrase)


def _error_feed(now: datetime, anchor: str, message: str) -> Response:
    stamp = _iso(now)
    feed = (
        FEED_HEAD
        + "  <id>https://arxiv.org/</id>\n"
        + "  <title>arXiv Search Results</title>\n"
        + f"  <updated>{stamp}</updated>\n"
        + "  <opensearch:itemsPerPage>1</opensearch:itemsPerPage>\n"
        + "  <opensearch:totalResults>1</opensearch:totalResults>\n"
        + "  <opensearch:startIndex>0</opensearch:startIndex>\n"
        + "  <entry>\n"
        + f"    <id>https://arxiv.org/api/errors#{xml_text(anchor)}</id>\n"
        + "    <title>Error</title>\n"
        + f"    <updated>{stamp}</updated>\n"
        + f"    <link href={xml_attr('https://arxiv.org/api/errors#' + anchor)}"
        + ' rel="alternate" type="text/html"/>\n'
        + f"    <summary>{xml_text(message)}</summary>\n"
        + "    <author>\n      <name>arXiv api core</name>\n    </author>\n"
        + "  </entry>\n"
        + "</feed>\n"
    )
    return Response(400, feed.encode("utf-8"), ATOM_TYPE)


def _feed_id(query_text: str) -> str:
    digest = hashlib.sha1(query_text.encode("utf-8"), usedforsecurity=False).digest()
    return base64.b64encode(digest).decode("ascii").rstrip("=")


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def version_time(work: SimWork, version: ArxivVersion) -> datetime:
    """When `version` was submitted: its year, its month (for v1 of a new-style id, the id's
    YYMM), a stable day and time."""
    assert work.arxiv_id is not None
    month = version.month
    id_match = re.match(r"^(\d{2})(\d{2})\.", work.arxiv_id)
    if month is None and version.version == 1 and id_match and 2000 + int(id_match.group(1)) == version.year:
        month = int(id_match.group(2))
    number = stable_int("arxiv-time", work.arxiv_id, str(version.version), digits=8)
    if month is None or not 1 <= month <= 12:
        month = 1 + number % 12
    day = 1 + (number // 12) % 28
    seconds = number % 86400
    return datetime(version.year, month, day, seconds // 3600, (seconds // 60) % 60, seconds % 60)


def _published_doi(work: SimWork) -> str | None:
    if work.doi and not work.doi.startswith(ARXIV_DOI_PREFIX):
        return work.doi
    return work.related.published_doi if work.related else None


def _journal_ref(work: SimWork, ctx: SimContext) -> str | None:
    if (
        work.doi
        and not work.doi.startswith(ARXIV_DOI_PREFIX)
        and work.venue
        and work.type != "posted-content"
    ):
        return f"{work.venue} ({work.year})" if work.year else work.venue
    published = work.related.published_doi if work.related else None
    if published:
        target = ctx.universe.by_doi.get(published)
        if target is not None and target.venue:
            return f"{target.venue} ({target.year})" if target.year else target.venue
    return None


def render_entry(work: SimWork, version: int, ctx: SimContext) -> str:
    assert work.arxiv_id is not None
    versions = work.versions
    served = versions[version - 1]
    vid = f"{work.arxiv_id}v{version}"
    categories = work.arxiv_categories or (DEFAULT_CATEGORY,)
    lines = [
        "  <entry>",
        f"    <id>http://arxiv.org/abs/{xml_text(vid)}</id>",
        f"    <title>{xml_text(work.display_title)}</title>",
        f"    <updated>{_iso(version_time(work, served))}</updated>",
        f'    <link href="https://arxiv.org/abs/{xml_text(vid)}" rel="alternate" type="text/html"/>',
        f'    <link href="https://arxiv.org/pdf/{xml_text(vid)}" rel="related"'
        ' type="application/pdf" title="pdf"/>',
        f"    <summary>{xml_text(work.abstract or '')}</summary>",
        *(f'    <category term={xml_attr(c)} scheme="http://arxiv.org/schemas/atom"/>' for c in categories),
        f"    <published>{_iso(version_time(work, versions[0]))}</published>",
        f"    <arxiv:primary_category term={xml_attr(categories[0])}/>",
    ]
    journal_ref = _journal_ref(work, ctx)
    if journal_ref:
        lines.append(f"    <arxiv:journal_ref>{xml_text(journal_ref)}</arxiv:journal_ref>")
    for author in work.authors:
        lines += ["    <author>", f"      <name>{xml_text(author.display)}</name>", "    </author>"]
    doi = _published_doi(work)
    if doi:
        lines.append(f"    <arxiv:doi>{xml_text(doi)}</arxiv:doi>")
        lines.append(f'    <link rel="related" href={xml_attr("https://doi.org/" + doi)} title="doi"/>')
    lines.append("  </entry>")
    return "\n".join(lines) + "\n"


# --- arxiv.org: abs, html, pdf ---------------------------------------------------------------------


def handle_site(request: Request, path: str, ctx: SimContext) -> Response:
    catalog = ctx.universe.catalog("arxiv")
    match = re.match(r"^/(abs|pdf|html)/(.+?)/?$", path)
    if match is None:
        return _html_not_found(path)
    kind, raw = match.group(1), match.group(2)
    parsed = split_arxiv_id(raw)
    index = catalog.by_arxiv.get(parsed[0].lower()) if parsed else None
    if parsed is None or index is None or catalog.works[index].arxiv_id is None:
        return _html_not_found(raw)
    work = catalog.works[index]
    version = parsed[1] or work.versions[-1].version
    if version > len(work.versions):
        return _html_not_found(raw)
    vid = f"{work.arxiv_id}v{version}"
    if kind == "abs":
        return Response(200, _abs_page(work, vid, version).encode("utf-8"), "text/html; charset=utf-8")
    if kind == "html":
        html = work.fulltext_html or _latexml_page(work, vid)
        return Response(200, html.encode("utf-8"), "text/html; charset=utf-8")
    if work.fulltext_pdf_path:
        file = ctx.universe.resolve_path(work.fulltext_pdf_path)
        try:
            return Response(200, file.read_bytes(), "application/pdf")
        except OSError:
            return _html_not_found(raw)
    body = [("Abstract", work.abstract)] if work.abstract else []
    pdf = render_pdf(work.display_title, [a.display for a in work.authors], f"arXiv:{vid}", body)
    return Response(200, pdf, "application/pdf")


def _html_not_found(identifier: str) -> Response:
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><title>arXiv.org Error</title></head>'
        f"<body><h1>Article identifier '{xml_text(identifier)}' not recognized</h1></body></html>\n"
    )
    return Response(404, page.encode("utf-8"), "text/html; charset=utf-8")


def _abs_page(work: SimWork, vid: str, version: int) -> str:
    assert work.arxiv_id is not None
    stamp = version_time(work, work.versions[version - 1])
    metas = [
        ("citation_title", work.display_title),
        *(("citation_author", _citation_name(a.family, a.given, a.literal)) for a in work.authors),
        ("citation_date", stamp.strftime("%Y/%m/%d")),
        ("citation_online_date", stamp.strftime("%Y/%m/%d")),
        ("citation_pdf_url", f"https://arxiv.org/pdf/{vid}"),
        ("citation_arxiv_id", work.arxiv_id),
    ]
    doi = _published_doi(work)
    if doi:
        metas.append(("citation_doi", doi))
    if work.abstract:
        metas.append(("citation_abstract", work.abstract))
    meta_html = "\n".join(f"<meta name={xml_attr(n)} content={xml_attr(v)} />" for n, v in metas)
    authors = ", ".join(xml_text(a.display) for a in work.authors)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n'
        f"<title>[{xml_text(vid)}] {xml_text(work.display_title)}</title>\n{meta_html}\n</head>\n<body>\n"
        '<h1 class="title mathjax"><span class="descriptor">Title:</span>'
        f"{xml_text(work.display_title)}</h1>\n"
        f'<div class="authors"><span class="descriptor">Authors:</span>{authors}</div>\n'
        f'<blockquote class="abstract mathjax"><span class="descriptor">Abstract:</span>'
        f"{xml_text(work.abstract or '')}</blockquote>\n</body>\n</html>\n"
    )


def _citation_name(family: str | None, given: str | None, literal: str | None) -> str:
    if literal:
        return literal
    return f"{family}, {given}" if given else family or ""


def _latexml_page(work: SimWork, vid: str) -> str:
    """arXiv's HTML rendering (LaTeXML) of a paper the universe gives no full text for."""
    authors = "".join(
        '<span class="ltx_creator ltx_role_author"><span class="ltx_personname">'
        f"{xml_text(a.display)}</span></span>"
        for a in work.authors
    )
    abstract = (
        f'<div class="ltx_abstract"><h6 class="ltx_title ltx_title_abstract">Abstract</h6>'
        f'<p class="ltx_p">{xml_text(work.abstract)}</p></div>'
        if work.abstract
        else ""
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{xml_text(work.display_title)}</title>\n</head>\n<body>\n"
        f'<div class="ltx_page_main"><article class="ltx_document ltx_authors_1line" id="{xml_text(vid)}">\n'
        f'<h1 class="ltx_title ltx_title_document">{xml_text(work.display_title)}</h1>\n'
        f'<div class="ltx_authors">{authors}</div>\n{abstract}\n'
        "</article></div>\n</body>\n</html>\n"
    )
