"""NCBI E-utilities for PubMed: `esearch.fcgi`, `esummary.fcgi`, `efetch.fcgi` (GET or form POST).

- esearch: PubMed's boolean query language (`"a phrase"[ti]`, `smith j[au]`, `2019:2021[dp]`,
  `10.1/x[doi]`, AND/OR/NOT, parentheses, operators applied left to right, adjacent terms AND-ed,
  stop words ignored). XML (`eSearchResult`) by default, JSON with `retmode=json` (counts as
  strings, `idlist`, `querytranslation`, "No items found." when empty).
- esummary: JSON (`{"header", "result": {"uids": [...], "<uid>": {...}}}`, an unknown uid gets
  `{"uid", "error": "cannot get document summary"}`) or v1 XML `DocSum`s.
- efetch: `PubmedArticleSet` XML with the DOCTYPE line NCBI sends; unknown ids are left out.
Retracted works carry the "Retracted Publication" type and a `RetractionIn` link, as PubMed's do.
"""

from __future__ import annotations

import re
from typing import Any, Final

from aletheia.sources.simulator.common import SimContext, month_day, parse_int, xml_text
from aletheia.sources.simulator.config import RequestKind
from aletheia.sources.simulator.http import Request, Response, json_response, xml_response
from aletheia.sources.simulator.ids import normalize_doi, stable_int
from aletheia.sources.simulator.search import Clause, evaluate, fold, parse_query, positive_clauses, tokenize
from aletheia.sources.simulator.universe import SourceCatalog
from aletheia.sources.simulator.work import SimAuthor, SimWork

EUTILS: Final = "/entrez/eutils"
MONTHS: Final = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
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

_AUTHOR_TAGS: Final = frozenset(
    {"au", "author", "fau", "full author name", "1au", "author - first", "lastau"}
)
_DATE_TAGS: Final = frozenset({"dp", "pdat", "publication date", "ppdat", "epdat", "edat", "crdt"})
_DOI_TAGS: Final = frozenset({"doi", "aid", "lid", "location id", "article identifier"})


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
        evaluate(node, lambda c: _resolve(c, catalog, default_field), everything)
        if node is not None
        else set()
    )
    if params.get("sort", "").lower() == "relevance":
        words = [w for c in positive_clauses(node) for w in tokenize(c.text)]
        scores = catalog.all.scores(words, matched)
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


def _resolve(clause: Clause, catalog: SourceCatalog, default_field: str | None) -> set[int]:
    tag = clause.field or (default_field.lower() if default_field else None)
    works = catalog.works
    text = clause.text.strip()
    if tag in _DOI_TAGS:
        doi = normalize_doi(text.replace(" ", ""))
        index = catalog.by_doi.get(doi)
        return {index} if index is not None else set()
    if tag in ("pmid", "uid"):
        index = catalog.by_pmid.get(text.lstrip("0")) if text.isdigit() else None
        return {index} if index is not None else set()
    if tag in _DATE_TAGS:
        years = re.findall(r"\d{4}", text)
        if not years:
            return set()
        low = int(years[0])
        high = int(years[-1]) if ":" in text else low
        return {i for i, w in enumerate(works) if w.year is not None and low <= w.year <= high}
    if tag in _AUTHOR_TAGS:
        return _authors_matching(
            text, works, first_only=tag in ("1au", "author - first"), last_only=tag == "lastau"
        )
    if tag in ("pt", "publication type"):
        wanted = fold(text)
        if wanted == "retracted publication":
            return {i for i, w in enumerate(works) if w.retracted}
        if wanted == "preprint":
            return {i for i, w in enumerate(works) if w.type == "posted-content"}
        if wanted == "journal article":
            return {i for i, w in enumerate(works) if w.type != "posted-content"}
        return set()
    words = tokenize(text)
    if not words:
        return set(range(len(works)))
    if tag in ("ti", "title"):
        fields = [catalog.title]
    elif tag in ("ab", "abstract"):
        fields = [catalog.abstract]
    elif tag in ("tiab", "title/abstract"):
        fields = [catalog.title, catalog.abstract]
    elif tag in ("ta", "journal", "jour"):
        fields = [catalog.venue]
    elif tag in (None, "all", "all fields", "mh", "mesh", "mesh terms", "tw", "text word"):
        fields = [catalog.all, catalog.venue]
    else:
        return set()  # a field PubMed does not know finds nothing
    if clause.phrase:
        return set().union(*(f.docs_with_phrase(words) for f in fields))
    result: set[int] | None = None
    for word in words:
        found: set[int] = set().union(*(f.docs_with(word) for f in fields))
        if tag in (None, "all", "all fields") and re.fullmatch(r"\d{4}", word):
            found |= {i for i, w in enumerate(works) if w.year == int(word)}
        result = found if result is None else result & found
        if not result:
            return set()
    return result or set()


def _authors_matching(text: str, works: list[SimWork], *, first_only: bool, last_only: bool) -> set[int]:
    """PubMed author search: "Smith J", "Smith JA", "Smith", or "Smith, John" (full name)."""
    parts = text.replace(",", " ").split()
    if not parts:
        return set()
    initials = ""
    if len(parts) > 1 and re.fullmatch(r"[A-Z]{1,3}", parts[-1]):
        initials, parts = parts[-1], parts[:-1]
        family = fold(" ".join(parts))
    elif "," in text:
        family = fold(text.split(",", 1)[0].strip())
        initials = "".join(p[0].upper() for p in text.split(",", 1)[1].split() if p)
    else:
        family = fold(" ".join(parts))

    def matches(author: SimAuthor) -> bool:
        if author.literal:
            return family in fold(author.literal)
        return fold(author.family or "") == family and author.initials.startswith(initials)

    found = set()
    for index, work in enumerate(works):
        authors = list(work.authors)
        if first_only:
            authors = authors[:1]
        elif last_only:
            authors = authors[-1:]
        if any(matches(a) for a in authors):
            found.add(index)
    return found


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


def medline_name(author: SimAuthor) -> str:
    """ "De Neve JE": family name, then initials."""
    if author.literal:
        return author.literal
    return f"{author.family} {author.initials}".strip()


def _pubdate(work: SimWork) -> str:
    if work.year is None:
        return ""
    month, _ = month_day(work, "pubmed")
    return f"{work.year} {MONTHS[month - 1]}"


def medline_title(title: str) -> str:
    """MEDLINE ends every title with a period."""
    return title if title.endswith((".", "?", "!")) else f"{title}."


def _publication_types(work: SimWork) -> list[tuple[str, str]]:
    types = (
        [("D000076942", "Preprint")] if work.type == "posted-content" else [("D016428", "Journal Article")]
    )
    if work.retracted:
        types.append(("D016441", "Retracted Publication"))
    if isinstance(work.meta.get("retraction_of"), str):
        types.append(("D016440", "Retraction of Publication"))
    return types


def _retraction_source(work: SimWork) -> str:
    year = work.retraction_year or ((work.year + 1) if work.year else None)
    return f"{work.venue or 'Journal'}. {year}" if year else work.venue or "Journal"


def summary_json(work: SimWork) -> dict[str, Any]:
    assert work.pmid is not None
    month, day = month_day(work, "pubmed")
    article_ids: list[dict[str, Any]] = [{"idtype": "pubmed", "idtypen": 1, "value": work.pmid}]
    if work.doi:
        article_ids.append({"idtype": "doi", "idtypen": 3, "value": work.doi})
    if work.pmcid:
        article_ids.append({"idtype": "pmc", "idtypen": 8, "value": work.pmcid})
    article_ids += [
        {"idtype": "rid", "idtypen": 8, "value": work.pmid},
        {"idtype": "eid", "idtypen": 8, "value": work.pmid},
    ]
    if work.pmcid:
        article_ids.append({"idtype": "pmcid", "idtypen": 5, "value": f"pmc-id: {work.pmcid};"})
    authors = [
        {"name": medline_name(a), "authtype": "CollectiveName" if a.literal else "Author", "clusterid": ""}
        for a in work.authors
    ]
    references = []
    if work.retracted:
        references.append(
            {"refsource": _retraction_source(work), "reftype": "Retraction in", "pmid": "", "note": ""}
        )
    title = medline_title(work.display_title)
    year = work.year
    return {
        "uid": work.pmid,
        "pubdate": _pubdate(work),
        "epubdate": "",
        "source": work.venue or "",
        "authors": authors,
        "lastauthor": medline_name(work.authors[-1]) if work.authors else "",
        "title": title,
        "sorttitle": fold(title).rstrip("."),
        "volume": work.volume or "",
        "issue": work.issue or "",
        "pages": work.pages or "",
        "lang": ["eng"],
        "nlmuniqueid": str(stable_int("nlm", work.venue or "", digits=7)),
        "issn": "",
        "essn": "",
        "pubtype": [name for _, name in _publication_types(work)],
        "recordstatus": "PubMed - indexed for MEDLINE",
        "pubstatus": "4",
        "articleids": article_ids,
        "history": [{"pubstatus": "pubmed", "date": f"{year}/{month:02d}/{day:02d} 00:00"}] if year else [],
        "references": references,
        "attributes": ["Has Abstract"] if work.abstract else [],
        "pmcrefcount": "",
        "fulljournalname": work.venue or "",
        "elocationid": f"doi: {work.doi}" if work.doi else "",
        "doctype": "citation",
        "srccontriblist": [],
        "booktitle": "",
        "medium": "",
        "edition": "",
        "publisherlocation": "",
        "publishername": "",
        "srcdate": "",
        "reportnumber": "",
        "availablefromurl": "",
        "locationlabel": "",
        "doccontriblist": [],
        "docdate": "",
        "bookname": "",
        "chapter": "",
        "sortpubdate": f"{year}/{month:02d}/01 00:00" if year else "",
        "sortfirstauthor": medline_name(work.authors[0]) if work.authors else "",
        "vernaculartitle": "",
    }


def summary_xml(work: SimWork) -> str:
    doc = summary_json(work)

    def item(name: str, value: str, kind: str = "String") -> str:
        return f'\t<Item Name="{name}" Type="{kind}">{xml_text(value)}</Item>\n'

    authors = "".join(
        f'\t\t<Item Name="Author" Type="String">{xml_text(a["name"])}</Item>\n' for a in doc["authors"]
    )
    ids = "".join(
        f'\t\t<Item Name="{xml_text(i["idtype"])}" Type="String">{xml_text(str(i["value"]))}</Item>\n'
        for i in doc["articleids"]
    )
    types = "".join(f'\t\t<Item Name="PubType" Type="String">{xml_text(t)}</Item>\n' for t in doc["pubtype"])
    return (
        "<DocSum>\n"
        f"\t<Id>{doc['uid']}</Id>\n"
        + item("PubDate", doc["pubdate"], "Date")
        + item("EPubDate", "", "Date")
        + item("Source", doc["source"])
        + f'\t<Item Name="AuthorList" Type="List">\n{authors}\t</Item>\n'
        + item("LastAuthor", doc["lastauthor"])
        + item("Title", doc["title"])
        + item("Volume", doc["volume"])
        + item("Issue", doc["issue"])
        + item("Pages", doc["pages"])
        + f'\t<Item Name="PubTypeList" Type="List">\n{types}\t</Item>\n'
        + item("RecordStatus", doc["recordstatus"])
        + item("PubStatus", "ppublish")
        + f'\t<Item Name="ArticleIds" Type="List">\n{ids}\t</Item>\n'
        + item("HasAbstract", "1" if work.abstract else "0", "Integer")
        + item("FullJournalName", doc["fulljournalname"])
        + item("ELocationID", doc["elocationid"])
        + "</DocSum>\n\n"
    )


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


def _xml_author(author: SimAuthor) -> str:
    if author.literal:
        return f'<Author ValidYN="Y"><CollectiveName>{xml_text(author.literal)}</CollectiveName></Author>'
    parts = [f"<LastName>{xml_text(author.family or '')}</LastName>"]
    if author.given:
        parts.append(f"<ForeName>{xml_text(author.given)}</ForeName>")
        parts.append(f"<Initials>{xml_text(author.initials)}</Initials>")
    if author.orcid:
        parts.append(f'<Identifier Source="ORCID">{xml_text(author.orcid)}</Identifier>')
    return f'<Author ValidYN="Y">{"".join(parts)}</Author>'


def pubmed_article(work: SimWork) -> str:
    assert work.pmid is not None
    month, day = month_day(work, "pubmed")
    venue = work.venue or "Journal"
    pub_date = (
        f"<Year>{work.year}</Year><Month>{MONTHS[month - 1]}</Month>"
        if work.year
        else "<MedlineDate>unknown</MedlineDate>"
    )
    issue = (f"<Volume>{xml_text(work.volume)}</Volume>" if work.volume else "") + (
        f"<Issue>{xml_text(work.issue)}</Issue>" if work.issue else ""
    )
    article = [
        '<Article PubModel="Print">',
        f'<Journal><JournalIssue CitedMedium="Print">{issue}<PubDate>{pub_date}</PubDate></JournalIssue>',
        f"<Title>{xml_text(venue)}</Title><ISOAbbreviation>{xml_text(venue)}</ISOAbbreviation></Journal>",
        f"<ArticleTitle>{xml_text(medline_title(work.display_title))}</ArticleTitle>",
    ]
    if work.pages:
        article.append(
            f"<Pagination><StartPage>{xml_text(work.pages.split('-')[0])}</StartPage><MedlinePgn>{xml_text(work.pages)}</MedlinePgn></Pagination>"
        )
    if work.doi:
        article.append(f'<ELocationID EIdType="doi" ValidYN="Y">{xml_text(work.doi)}</ELocationID>')
    if work.abstract:
        article.append(f"<Abstract><AbstractText>{xml_text(work.abstract)}</AbstractText></Abstract>")
    if work.authors:
        article.append(
            f'<AuthorList CompleteYN="Y">{"".join(_xml_author(a) for a in work.authors)}</AuthorList>'
        )
    article.append("<Language>eng</Language>")
    types = "".join(
        f'<PublicationType UI="{ui}">{name}</PublicationType>' for ui, name in _publication_types(work)
    )
    article.append(f"<PublicationTypeList>{types}</PublicationTypeList>")
    if work.year:
        article.append(
            f'<ArticleDate DateType="Electronic"><Year>{work.year}</Year>'
            f"<Month>{month:02d}</Month><Day>{day:02d}</Day></ArticleDate>"
        )
    article.append("</Article>")
    journal_info = (
        f"<MedlineJournalInfo><Country>United States</Country><MedlineTA>{xml_text(venue)}</MedlineTA>"
        f"<NlmUniqueID>{stable_int('nlm', work.venue or '', digits=7)}</NlmUniqueID></MedlineJournalInfo>"
    )
    comments = ""
    if work.retracted:
        comments = (
            '<CommentsCorrectionsList><CommentsCorrections RefType="RetractionIn">'
            f"<RefSource>{xml_text(_retraction_source(work))}</RefSource></CommentsCorrections></CommentsCorrectionsList>"
        )
    ids = [f'<ArticleId IdType="pubmed">{work.pmid}</ArticleId>']
    if work.pmcid:
        ids.append(f'<ArticleId IdType="pmc">{xml_text(work.pmcid)}</ArticleId>')
    if work.doi:
        ids.append(f'<ArticleId IdType="doi">{xml_text(work.doi)}</ArticleId>')
    history = ""
    if work.year:
        history = (
            f'<History><PubMedPubDate PubStatus="pubmed"><Year>{work.year}</Year><Month>{month}</Month>'
            f"<Day>{day}</Day></PubMedPubDate></History>"
        )
    return (
        '<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM">'
        f'<PMID Version="1">{work.pmid}</PMID>'
        + "".join(article)
        + journal_info
        + comments
        + "</MedlineCitation><PubmedData>"
        + history
        + "<PublicationStatus>ppublish</PublicationStatus>"
        + f"<ArticleIdList>{''.join(ids)}</ArticleIdList>"
        + "</PubmedData></PubmedArticle>\n"
    )
