"""PubMed through NCBI's E-utilities: pure parsers for efetch XML, esummary JSON/XML and esearch,
and a polite client.

Endpoints (`{ALETHEIA_PUBMED_URL}/entrez/eutils/...`): `esearch.fcgi` finds PMIDs for a query,
`efetch.fcgi?db=pubmed&retmode=xml` returns full PubmedArticle records (full given names, the
abstract, publication types and the retraction/erratum links), `esummary.fcgi?retmode=json`
returns lighter summaries (names as "Smith JA"). Every request carries `tool` and `email`, as NCBI
asks, and `api_key` when NCBI_API_KEY is set (which raises the allowed rate from 3 to 10 requests
per second: `Settings.limits_for("pubmed")` picks the bucket).

Parser choices:

- MEDLINE ends every title with a period; it is dropped (`"Social fear."` -> `"Social fear"`).
  A translated title stays in the brackets MEDLINE puts around it.
- `AuthorList CompleteYN="N"` is the record saying its author list is incomplete:
  `authors_truncated`. Authors marked `ValidYN="N"` (misspellings kept for indexing) are skipped.
- The year is the journal issue's `PubDate/Year`, else the first year of a `MedlineDate`
  ("1998 Dec-1999 Jan" -> 1998), else the electronic `ArticleDate`.
- Standing: a "Retracted Publication" type or a `RetractionIn` link makes a RETRACTED notice, an
  `ExpressionOfConcernIn` link an EXPRESSION_OF_CONCERN notice, an `ErratumIn` link a CORRECTED
  notice (one per linked notice: its PMID and citation in `detail`, the DOI the citation ends
  with in `notice_doi`). A record that *is* a notice ("Retraction of Publication", "Expression of
  Concern", "Published Erratum") is `work_type="notice"` (as Crossref's parser has it), with the
  DOIs of the works it is about (its RetractionOf/ErratumFor/... links) in `notice_for`; it is not
  itself retracted, so it carries no RETRACTED notice for being one.
- XML is refused if it declares entities or an internal DTD subset; NCBI's plain DOCTYPE line is
  allowed (`safe_xml`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from aletheia.core.authors import parse_name
from aletheia.core.identifiers import clean_doi, clean_pmcid, clean_pmid
from aletheia.core.records import Author, RetractionKind, RetractionNotice, SourceName, WorkRecord
from aletheia.core.text import normalize_whitespace
from aletheia.sources.base import (
    PermanentSourceError,
    RawCache,
    SourceParseError,
    SourceRecord,
    Transport,
)
from aletheia.sources.batching import Coalescer
from aletheia.sources.cache import cache_key, lookup_many
from aletheia.sources.safe_xml import parse_untrusted_xml

if TYPE_CHECKING:
    import httpx

    from aletheia.config.settings import Settings
    from aletheia.sources.breaker import CircuitBreaker
    from aletheia.sources.ratelimit import RateLimiter
    from aletheia.sources.transport import PoliteTransport

__all__ = [
    "MAX_IDS_PER_REQUEST",
    "PubMedClient",
    "esummary_docs",
    "parse_efetch_xml",
    "parse_efetch_xml_with_raw",
    "parse_esearch",
    "parse_esummary_doc",
    "parse_esummary_json",
    "parse_esummary_xml",
    "parse_pubmed_raw",
    "pubmed_transport",
]

SOURCE = SourceName.PUBMED

_YEAR = re.compile(r"\b(1[5-9]\d\d|2\d\d\d)\b")
_CITED_DOI = re.compile(r"\bdoi:\s*(10\.\S+)", re.IGNORECASE)
_ORCID = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])", re.IGNORECASE)
# Publication types by which a record is itself a notice about another work (work_type "notice",
# as Crossref's parser calls such records).
_NOTICE_TYPES = frozenset({"retraction of publication", "expression of concern", "published erratum"})
# Links (folded) from a notice to the work it is about.
_NOTICE_FOR_LINKS = frozenset({"retractionof", "expressionofconcernfor", "erratumfor"})
# Links (CommentsCorrections RefType / esummary reftype, folded) to a notice about *this* work.
_NOTICE_LINKS = {
    "retractionin": RetractionKind.RETRACTED,
    "expressionofconcernin": RetractionKind.EXPRESSION_OF_CONCERN,
    "erratumin": RetractionKind.CORRECTED,
}


def _fold_link_type(value: str) -> str:
    return re.sub(r"[^a-z]", "", value.lower())


def _clean_title(title: str | None) -> str | None:
    if not title:
        return None
    title = normalize_whitespace(title)
    if title.endswith(".") and not title.endswith(".."):
        title = title[:-1].rstrip()
    return title or None


def _year_of(*candidates: str | None) -> int | None:
    for candidate in candidates:
        if candidate and (match := _YEAR.search(candidate)):
            return int(match.group(1))
    return None


def _notices(
    publication_types: Sequence[str], links: Sequence[tuple[str, str | None, str | None]]
) -> tuple[RetractionNotice, ...]:
    """Notices from publication types and (link type, notice PMID, notice citation) links."""
    notices: list[RetractionNotice] = []
    for link_type, pmid, citation in links:
        kind = _NOTICE_LINKS.get(_fold_link_type(link_type))
        if kind is None:
            continue
        detail = "; ".join(part for part in (f"PMID {pmid}" if pmid else None, citation) if part)
        # MEDLINE citations of notices end with the notice's DOI: "... 2022;39(13):111044. doi: 10.1016/..."
        doi_match = _CITED_DOI.search(citation or "")
        notices.append(
            RetractionNotice(
                kind=kind,
                source=SOURCE,
                notice_doi=clean_doi(doi_match.group(1)) if doi_match else None,
                detail=f"{link_type}: {detail}",
            )
        )
    has_retraction_link = any(n.kind is RetractionKind.RETRACTED for n in notices)
    if not has_retraction_link and any(t.lower() == "retracted publication" for t in publication_types):
        notices.append(
            RetractionNotice(
                kind=RetractionKind.RETRACTED, source=SOURCE, detail="publication type: Retracted Publication"
            )
        )
    return tuple(notices)


def _notice_for(links: Sequence[tuple[str, str | None, str | None]]) -> tuple[str, ...]:
    """The DOIs of the works a notice is about, from its RetractionOf/ErratumFor/... citations."""
    dois: list[str] = []
    for link_type, _, citation in links:
        if _fold_link_type(link_type) in _NOTICE_FOR_LINKS and (match := _CITED_DOI.search(citation or "")):
            doi = clean_doi(match.group(1))
            if doi is not None and doi not in dois:
                dois.append(doi)
    return tuple(dois)


def _work_type(publication_types: Sequence[str], *, container: str = "journal-article") -> str:
    """ "notice" for a notice; else "preprint" when PubMed says so; else the container's type."""
    if any(t.lower() in _NOTICE_TYPES for t in publication_types):
        return "notice"
    if any(t.lower() == "preprint" for t in publication_types):
        return "preprint"
    return container


# --- efetch XML -----------------------------------------------------------------------------------


def _text(element: ET.Element | None) -> str | None:
    if element is None:
        return None
    text = normalize_whitespace("".join(element.itertext()))
    return text or None


def _xml_author(author: ET.Element) -> Author | None:
    collective = _text(author.find("CollectiveName"))
    if collective:
        return Author(literal=collective)
    family = _text(author.find("LastName"))
    given = _text(author.find("ForeName"))
    if not given:
        # Some records give only initials ("K"), written as parse_name writes Vancouver initials.
        given = _text(author.find("Initials"))
    orcid = None
    for identifier in author.findall("Identifier"):
        if (identifier.get("Source") or "").upper() == "ORCID":
            match = _ORCID.search(_text(identifier) or "")
            orcid = match.group(1).upper() if match else None
    if not family:
        return None
    return Author(family=family, given=given, suffix=_text(author.find("Suffix")), orcid=orcid)


def _xml_authors(author_list: ET.Element | None) -> tuple[tuple[Author, ...], bool]:
    if author_list is None:
        return (), False
    authors = []
    for element in author_list.findall("Author"):
        if element.get("ValidYN") == "N":
            continue
        author = _xml_author(element)
        if author is not None:
            authors.append(author)
    return tuple(authors), author_list.get("CompleteYN") == "N"


def _xml_abstract(abstract: ET.Element | None) -> str | None:
    if abstract is None:
        return None
    sections = []
    for part in abstract.findall("AbstractText"):
        text = _text(part)
        if not text:
            continue
        label = part.get("Label")
        sections.append(f"{label}: {text}" if label and label.upper() != "UNLABELLED" else text)
    return "\n".join(sections) or None


def _article_ids(id_list: ET.Element | None) -> dict[str, str]:
    ids: dict[str, str] = {}
    if id_list is not None:
        for article_id in id_list.findall("ArticleId"):
            id_type = (article_id.get("IdType") or "").lower()
            value = _text(article_id)
            if id_type and value and id_type not in ids:
                ids[id_type] = value
    return ids


def _xml_links(comments: ET.Element | None) -> list[tuple[str, str | None, str | None]]:
    if comments is None:
        return []
    return [
        (cc.get("RefType") or "", _text(cc.find("PMID")), _text(cc.find("RefSource")))
        for cc in comments.findall("CommentsCorrections")
    ]


def _parse_pubmed_article(article_xml: ET.Element) -> WorkRecord:
    citation = article_xml.find("MedlineCitation")
    article = citation.find("Article") if citation is not None else None
    pmid = _text(citation.find("PMID")) if citation is not None else None
    if citation is None or article is None or pmid is None:
        raise SourceParseError(SOURCE, "PubmedArticle without MedlineCitation/PMID/Article")

    journal = article.find("Journal")
    pub_date = journal.find("JournalIssue/PubDate") if journal is not None else None
    year = None
    if pub_date is not None:
        year = _year_of(_text(pub_date.find("Year")), _text(pub_date.find("MedlineDate")))
    if year is None:
        year = _year_of(_text(article.find("ArticleDate/Year")))

    authors, truncated = _xml_authors(article.find("AuthorList"))
    links = _xml_links(citation.find("CommentsCorrectionsList"))
    publication_types = [
        t for el in article.findall("PublicationTypeList/PublicationType") if (t := _text(el))
    ]
    ids = _article_ids(article_xml.find("PubmedData/ArticleIdList"))
    doi = clean_doi(ids["doi"]) if "doi" in ids else None
    if doi is None:
        for location in article.findall("ELocationID"):
            if location.get("EIdType") == "doi" and location.get("ValidYN") != "N":
                doi = clean_doi(_text(location) or "")
                break

    venue = None
    if journal is not None:
        venue = _text(journal.find("Title")) or _text(journal.find("ISOAbbreviation"))
    urls = {"pubmed": f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"}
    pmcid = clean_pmcid(ids.get("pmc"))
    if pmcid:
        urls["pmc"] = f"https://www.ncbi.nlm.nih.gov/pmc/articles/{pmcid}/"
    return WorkRecord(
        source=SOURCE,
        source_id=pmid,
        title=_clean_title(_text(article.find("ArticleTitle"))),
        authors=authors,
        authors_truncated=truncated,
        year=year,
        venue=venue,
        work_type=_work_type(publication_types),
        doi=doi,
        pmid=pmid,
        pmcid=pmcid,
        abstract=_xml_abstract(article.find("Abstract")),
        urls=urls,
        retraction_notices=_notices(publication_types, links),
        notice_for=_notice_for(links),
        is_preprint=any(t.lower() == "preprint" for t in publication_types),
    )


def _parse_pubmed_book_article(book_article: ET.Element) -> WorkRecord:
    document = book_article.find("BookDocument")
    pmid = _text(document.find("PMID")) if document is not None else None
    if document is None or pmid is None:
        raise SourceParseError(SOURCE, "PubmedBookArticle without BookDocument/PMID")
    book = document.find("Book")
    author_list = None
    for candidate in document.findall("AuthorList"):
        if candidate.get("Type", "authors") == "authors":
            author_list = candidate
            break
    authors, truncated = _xml_authors(author_list)
    publication_types = [t for el in document.findall("PublicationType") if (t := _text(el))]
    ids = _article_ids(book_article.find("PubmedBookData/ArticleIdList"))
    book_title = _text(book.find("BookTitle")) if book is not None else None
    year = None
    if book is not None:
        year = _year_of(_text(book.find("PubDate/Year")), _text(book.find("PubDate/MedlineDate")))
    # A book document with an ArticleTitle is a chapter (a GeneReviews entry) of the book it names.
    chapter_title = _text(document.find("ArticleTitle"))
    return WorkRecord(
        source=SOURCE,
        source_id=pmid,
        title=_clean_title(chapter_title or book_title),
        authors=authors,
        authors_truncated=truncated,
        year=year,
        venue=book_title if chapter_title else None,
        work_type=_work_type(publication_types, container="book-chapter" if chapter_title else "book"),
        doi=clean_doi(ids["doi"]) if "doi" in ids else None,
        pmid=pmid,
        pmcid=clean_pmcid(ids.get("pmc")),
        abstract=_xml_abstract(document.find("Abstract")),
        urls={"pubmed": f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"},
        retraction_notices=_notices(publication_types, []),
    )


def _efetch_elements(xml_text: str | bytes) -> list[ET.Element]:
    root = parse_untrusted_xml(xml_text, source=SOURCE, allow_doctype=True)
    if root.tag in {"PubmedArticle", "PubmedBookArticle"}:
        return [root]
    if root.tag == "eFetchResult":
        error = _text(root.find("ERROR"))
        raise PermanentSourceError(SOURCE, f"efetch refused the request: {error or 'no detail'}")
    if root.tag != "PubmedArticleSet":
        raise SourceParseError(SOURCE, f"not a PubMed efetch response: root element {root.tag!r}")
    return [child for child in root if child.tag in {"PubmedArticle", "PubmedBookArticle"}]


def parse_efetch_xml(xml_text: str | bytes) -> list[WorkRecord]:
    """Records of an efetch (`db=pubmed&retmode=xml`) response, in response order.

    Also accepts a single `PubmedArticle`/`PubmedBookArticle` element (what the raw cache keeps).
    """
    return [record for record, _ in parse_efetch_xml_with_raw(xml_text)]


def parse_efetch_xml_with_raw(xml_text: str | bytes) -> list[tuple[WorkRecord, str]]:
    """Like `parse_efetch_xml`, each record with its own article element serialised."""
    results = []
    for element in _efetch_elements(xml_text):
        if element.tag == "PubmedArticle":
            record = _parse_pubmed_article(element)
        else:
            record = _parse_pubmed_book_article(element)
        results.append((record, ET.tostring(element, encoding="unicode")))
    return results


# --- esummary -------------------------------------------------------------------------------------


def _doc_str(doc: Mapping[str, Any], key: str) -> str | None:
    value = doc.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise SourceParseError(SOURCE, f"esummary {key!r} is not a string: {type(value).__name__}")
    return normalize_whitespace(str(value)) or None


def _doc_list(doc: Mapping[str, Any], key: str) -> list[Any]:
    value = doc.get(key)
    if value is None or value == "":
        return []
    if not isinstance(value, list):
        raise SourceParseError(SOURCE, f"esummary {key!r} is not a list: {type(value).__name__}")
    return value


def _doc_objects(doc: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    items = _doc_list(doc, key)
    if not all(isinstance(item, Mapping) for item in items):
        raise SourceParseError(SOURCE, f"esummary {key!r} holds something other than objects")
    return items


def parse_esummary_doc(doc: Mapping[str, Any]) -> WorkRecord | None:
    """One esummary document (`result[<uid>]`); None for NCBI's per-id error stubs."""
    if not isinstance(doc, Mapping):
        raise SourceParseError(SOURCE, "esummary document is not an object")
    if doc.get("error"):
        return None
    uid = _doc_str(doc, "uid")
    if uid is None or not uid.isdigit():
        raise SourceParseError(SOURCE, f"esummary document without a numeric uid: {uid!r}")

    authors = []
    for author in _doc_objects(doc, "authors"):
        auth_type = _doc_str(author, "authtype") or "Author"
        name = _doc_str(author, "name")
        if name and auth_type.lower() in {"author", "collectivename"}:
            # CollectiveName is a group; an Author is in MEDLINE display form ("Hambrick GW Jr").
            authors.append(
                Author(literal=name) if auth_type.lower() == "collectivename" else parse_name(name)
            )

    ids: dict[str, str] = {}
    for article_id in _doc_objects(doc, "articleids"):
        id_type, value = _doc_str(article_id, "idtype"), _doc_str(article_id, "value")
        if id_type and value:
            ids.setdefault(id_type.lower(), value)
    doi = clean_doi(ids["doi"]) if "doi" in ids else None
    location = _doc_str(doc, "elocationid") or ""
    if doi is None and "doi:" in location:
        doi = clean_doi(location.split("doi:", 1)[1].strip())

    publication_types = [str(t) for t in _doc_list(doc, "pubtype") if isinstance(t, str) and t]
    links = [
        (_doc_str(ref, "reftype") or "", _doc_str(ref, "pmid"), _doc_str(ref, "refsource"))
        for ref in _doc_objects(doc, "references")
    ]
    container = {"book": "book", "chapter": "book-chapter"}.get((_doc_str(doc, "doctype") or "").lower())
    pmcid = clean_pmcid(ids.get("pmc"))
    urls = {"pubmed": f"https://pubmed.ncbi.nlm.nih.gov/{uid}/"}
    if pmcid:
        urls["pmc"] = f"https://www.ncbi.nlm.nih.gov/pmc/articles/{pmcid}/"
    return WorkRecord(
        source=SOURCE,
        source_id=uid,
        title=_clean_title(_doc_str(doc, "title") or _doc_str(doc, "booktitle")),
        authors=tuple(authors),
        year=_year_of(_doc_str(doc, "pubdate"), _doc_str(doc, "sortpubdate"), _doc_str(doc, "epubdate")),
        venue=_doc_str(doc, "fulljournalname") or _doc_str(doc, "source") or _doc_str(doc, "bookname"),
        work_type=_work_type(publication_types, container=container or "journal-article"),
        doi=doi,
        pmid=uid,
        pmcid=pmcid,
        urls=urls,
        retraction_notices=_notices(publication_types, links),
        notice_for=_notice_for(links),
        is_preprint=any(t.lower() == "preprint" for t in publication_types),
    )


def esummary_docs(payload: Any) -> dict[str, Mapping[str, Any] | None]:
    """The documents of an esummary JSON response by uid (None for ids NCBI could not summarise)."""
    if not isinstance(payload, Mapping):
        raise SourceParseError(SOURCE, "esummary response is not an object")
    result = payload.get("result")
    if result is None:
        if "error" in payload or "esummaryresult" in payload:
            return {}
        raise SourceParseError(SOURCE, "esummary response has no 'result'")
    if not isinstance(result, Mapping) or not isinstance(result.get("uids", []), list):
        raise SourceParseError(SOURCE, "esummary 'result' is not the documented shape")
    docs: dict[str, Mapping[str, Any] | None] = {}
    for uid in result.get("uids", []):
        doc = result.get(str(uid))
        docs[str(uid)] = doc if isinstance(doc, Mapping) and not doc.get("error") else None
    return docs


def parse_esummary_json(payload: Any) -> list[WorkRecord]:
    """Records of an esummary (`retmode=json`) response, in uid order; unknown ids are left out."""
    records = []
    for doc in esummary_docs(payload).values():
        if doc is not None and (record := parse_esummary_doc(doc)) is not None:
            records.append(record)
    return records


def _docsum_item(item: ET.Element) -> Any:
    """A DocSum `Item`: its text, or for `Type="List"` its children as (Name, value) pairs."""
    if item.get("Type") == "List":
        return [(child.get("Name") or "", _docsum_item(child)) for child in item.findall("Item")]
    return _text(item) or ""


def _pairs(value: Any) -> list[tuple[str, Any]]:
    return value if isinstance(value, list) else []


def parse_esummary_xml(xml_text: str | bytes) -> list[WorkRecord]:
    """Records of an esummary v1 XML response; DocSums of other databases are left out.

    A PubMed DocSum is recognised by its `PubDate`, `Source` and `AuthorList` items (a protein or
    taxonomy DocSum has none of them).
    """
    root = parse_untrusted_xml(xml_text, source=SOURCE, allow_doctype=True)
    if root.tag != "eSummaryResult":
        raise SourceParseError(SOURCE, f"not an esummary response: root element {root.tag!r}")
    records = []
    for docsum in root.findall("DocSum"):
        items = {item.get("Name") or "": _docsum_item(item) for item in docsum.findall("Item")}
        if not {"PubDate", "Source", "AuthorList"} <= items.keys():
            continue
        doc: dict[str, Any] = {
            "uid": _text(docsum.find("Id")),
            "title": items.get("Title"),
            "pubdate": items.get("PubDate"),
            "epubdate": items.get("EPubDate"),
            "source": items.get("Source"),
            "fulljournalname": items.get("FullJournalName"),
            "elocationid": items.get("ELocationID"),
            "authors": [{"name": name, "authtype": "Author"} for _, name in _pairs(items["AuthorList"])],
            "articleids": [
                {"idtype": kind, "value": value} for kind, value in _pairs(items.get("ArticleIds"))
            ],
            "pubtype": [value for _, value in _pairs(items.get("PubTypeList"))],
        }
        record = parse_esummary_doc(doc)
        if record is not None:
            records.append(record)
    return records


def parse_pubmed_raw(raw: Any) -> list[WorkRecord]:
    """Records from any raw payload this module keeps: efetch XML (a whole response or one
    article), an esummary JSON response, or one esummary document (what `summaries()` stores)."""
    if isinstance(raw, str | bytes):
        return parse_efetch_xml(raw)
    if isinstance(raw, Mapping) and ("result" in raw or "header" in raw):
        return parse_esummary_json(raw)
    if isinstance(raw, Mapping):
        record = parse_esummary_doc(raw)
        return [record] if record is not None else []
    raise SourceParseError(SOURCE, f"not a PubMed payload: {type(raw).__name__}")


# --- esearch --------------------------------------------------------------------------------------


def parse_esearch(payload: Any) -> list[str]:
    """The PMIDs of an esearch response, JSON (`retmode=json`, already decoded) or XML text.

    A query NCBI could not run (a top-level ERROR) is a `PermanentSourceError`; a phrase it did not
    find is just an empty result.
    """
    if isinstance(payload, str | bytes):
        root = parse_untrusted_xml(payload, source=SOURCE, allow_doctype=True)
        if root.tag != "eSearchResult":
            raise SourceParseError(SOURCE, f"not an esearch response: root element {root.tag!r}")
        error = _text(root.find("ERROR"))
        if error:
            raise PermanentSourceError(SOURCE, f"esearch refused the query: {error}")
        ids = [t for el in root.findall("IdList/Id") if (t := _text(el))]
    elif isinstance(payload, Mapping):
        result = payload.get("esearchresult")
        if not isinstance(result, Mapping):
            raise SourceParseError(SOURCE, "esearch response has no 'esearchresult'")
        if result.get("ERROR") and not result.get("idlist"):
            raise PermanentSourceError(SOURCE, f"esearch refused the query: {result['ERROR']}")
        raw_ids = result.get("idlist") or []
        if not isinstance(raw_ids, list):
            raise SourceParseError(SOURCE, "esearch 'idlist' is not a list")
        ids = [str(i) for i in raw_ids]
    else:
        raise SourceParseError(SOURCE, f"esearch response of unexpected type {type(payload).__name__}")
    for pmid in ids:
        if not pmid.isdigit():
            raise SourceParseError(SOURCE, f"esearch returned a non-numeric id: {pmid!r}")
    return ids


# --- the client -----------------------------------------------------------------------------------

EUTILS_PATH = "/entrez/eutils"
# NCBI asks for POST above about 200 ids; GET with at most 200 keeps every URL short.
MAX_IDS_PER_REQUEST = 200
TOOL_NAME = "aletheia"


def _utcnow() -> datetime:
    return datetime.now(UTC)


# Boolean operators (PubMed reads `AND`/`OR`/`NOT` as syntax) and words almost every title has.
_TITLE_STOPWORDS = frozenset(
    {"and", "or", "not", "the", "for", "with", "from", "into", "its", "are", "was", "via"}
)


def _title_term(title: str) -> str:
    # Each title word as its own [ti] term: an exact phrase only matches when PubMed's phrase index
    # holds it, and cited titles differ in punctuation and small words.
    words = [
        word
        for word in re.sub(r"[^\w\s]", " ", title).split()
        if len(word) >= 3 and word.lower() not in _TITLE_STOPWORDS
    ]
    return " AND ".join(f"{word}[ti]" for word in words[:12])


class PubMedClient:
    """PubMed records by PMID (efetch, batched and coalesced), summaries, and PMID searches.

    Answers, negative ones included, are cached by PMID. `api_key` and `email` are needed only on
    a transport built without them (`pubmed_transport` sets both from settings).
    """

    source: Final = SOURCE

    def __init__(
        self,
        transport: Transport,
        *,
        cache: RawCache | None = None,
        api_key: str | None = None,
        email: str | None = None,
        coalesce_window: float = 0.02,
    ) -> None:
        self.transport = transport
        self.cache = cache
        self._identity = {"tool": TOOL_NAME, "email": email, "api_key": api_key}
        self._coalescer: Coalescer[str, SourceRecord] = Coalescer(
            self._efetch, max_batch=MAX_IDS_PER_REQUEST, window=coalesce_window
        )

    def _params(self, **params: Any) -> dict[str, Any]:
        merged = {**self._identity, **params}
        return {name: value for name, value in merged.items() if value is not None}

    def _url(self, endpoint: str, pmid: str) -> str:
        return f"{self.transport.base_url.rstrip('/')}{EUTILS_PATH}/{endpoint}?db=pubmed&id={pmid}"

    @staticmethod
    def _canonical(pmid: str | int) -> str:
        canonical = clean_pmid(pmid)
        if canonical is None:
            raise ValueError(f"not a PMID: {pmid!r}")
        return canonical

    async def by_pmid(self, pmid: str | int) -> SourceRecord | None:
        """The full PubMed record (efetch XML) of `pmid`, or None when PubMed has no such PMID."""
        key = self._canonical(pmid)
        hit, record = await self._cached("pmid", key)
        if hit:
            return record
        return await self._coalescer.get(key)

    async def by_pmids(self, pmids: Sequence[str | int]) -> dict[str, SourceRecord | None]:
        """Each PMID (as given, as a string) -> its full record or None; 200 per efetch."""
        return await self._many("pmid", pmids, self._efetch)

    async def summaries(self, pmids: Sequence[str | int]) -> dict[str, SourceRecord | None]:
        """Each PMID -> its esummary record (lighter: initials only, no abstract) or None."""
        return await self._many("pmid-summary", pmids, self._esummary)

    async def search(
        self,
        title: str | None = None,
        author: str | None = None,
        year: int | None = None,
        retmax: int = 5,
    ) -> list[str]:
        """PMIDs matching every given field, best match first (esearch's relevance order)."""
        terms = []
        if title and (title_term := _title_term(title)):
            terms.append(title_term)
        if author and (name := normalize_whitespace(re.sub(r"[^\w\s'-]", " ", author))):
            terms.append(f"{name}[au]")
        if year is not None:
            terms.append(f"{year}[dp]")
        if not terms:
            raise ValueError("a PubMed search needs a title, an author or a year")
        return await self._esearch(" AND ".join(terms), retmax=retmax)

    async def pmid_for_doi(self, doi: str) -> str | None:
        """The PMID of the article with this DOI; None when PubMed has none (or, ambiguously, several)."""
        canonical = clean_doi(doi)
        if canonical is None:
            raise ValueError(f"not a DOI: {doi!r}")
        pmids = await self._esearch(f'"{canonical}"[doi]', retmax=2)
        return pmids[0] if len(pmids) == 1 else None

    # --- requests ----------------------------------------------------------------------------------

    async def _esearch(self, term: str, *, retmax: int) -> list[str]:
        params = self._params(db="pubmed", term=term, retmode="json", retmax=retmax, sort="relevance")
        payload = await self.transport.get_json(f"{EUTILS_PATH}/esearch.fcgi", params=params, kind="search")
        return [] if payload is None else parse_esearch(payload)

    async def _efetch(self, pmids: list[str]) -> dict[str, SourceRecord | None]:
        params = self._params(db="pubmed", id=",".join(pmids), retmode="xml")
        body = await self.transport.get_text(
            f"{EUTILS_PATH}/efetch.fcgi", params=params, kind="single" if len(pmids) == 1 else "batch"
        )
        parsed = parse_efetch_xml_with_raw(body) if body else []
        fetched_at = _utcnow()
        by_pmid = {record.pmid: (record, raw) for record, raw in parsed}
        results: dict[str, SourceRecord | None] = {}
        for pmid in pmids:
            url = self._url("efetch.fcgi", pmid)
            found = by_pmid.get(pmid)
            results[pmid] = SourceRecord(found[0], found[1], fetched_at, url) if found else None
            await self._store("pmid", pmid, found[1] if found else None, url)
        return results

    async def _esummary(self, pmids: list[str]) -> dict[str, SourceRecord | None]:
        params = self._params(db="pubmed", id=",".join(pmids), retmode="json")
        payload = await self.transport.get_json(
            f"{EUTILS_PATH}/esummary.fcgi", params=params, kind="single" if len(pmids) == 1 else "batch"
        )
        docs = esummary_docs(payload) if payload is not None else {}
        fetched_at = _utcnow()
        results: dict[str, SourceRecord | None] = {}
        for pmid in pmids:
            url = self._url("esummary.fcgi", pmid)
            doc = docs.get(pmid)
            record = parse_esummary_doc(doc) if doc is not None else None
            results[pmid] = SourceRecord(record, doc, fetched_at, url) if record is not None else None
            await self._store("pmid-summary", pmid, doc if record is not None else None, url)
        return results

    # --- cache -------------------------------------------------------------------------------------

    async def _many(
        self,
        kind: str,
        pmids: Sequence[str | int],
        fetch: Callable[[list[str]], Awaitable[dict[str, SourceRecord | None]]],
    ) -> dict[str, SourceRecord | None]:
        key_of = {str(pmid): self._canonical(pmid) for pmid in pmids}
        return await lookup_many(
            key_of, lambda key: self._cached(kind, key), fetch, batch=MAX_IDS_PER_REQUEST
        )

    async def _cached(self, kind: str, pmid: str) -> tuple[bool, SourceRecord | None]:
        if self.cache is None:
            return False, None
        cached = await self.cache.get(SOURCE, cache_key(kind, pmid))
        if cached is None:
            return False, None
        self.transport.stats.cache_hits += 1
        if not cached.found:
            return True, None
        if kind == "pmid":
            records = parse_efetch_xml(cached.raw)
            record = records[0] if len(records) == 1 else None
        else:
            record = parse_esummary_doc(cached.raw)
        if record is None:
            raise SourceParseError(SOURCE, f"cached {kind} entry for {pmid} holds no single record")
        return True, SourceRecord(record, cached.raw, cached.fetched_at, cached.url, from_cache=True)

    async def _store(self, kind: str, pmid: str, raw: Any, url: str) -> None:
        if self.cache is not None:
            await self.cache.put(SOURCE, cache_key(kind, pmid), raw, found=raw is not None, url=url)


def pubmed_transport(
    http: httpx.AsyncClient,
    settings: Settings,
    limiter: RateLimiter,
    breaker: CircuitBreaker | None = None,
) -> PoliteTransport:
    """The polite transport to the E-utilities, from settings: base URL, limits, identity, on/off.

    NCBI allows 3 requests per second per client, 10 with an API key; that is enforced here, by the
    transport's bucket `pubmed:single`, sized by `settings.limits_for("pubmed")`, which picks
    `pubmed_limits_with_key` when NCBI_API_KEY is set. `tool`, `email` and `api_key` go on every
    request as NCBI asks.
    """
    from aletheia.sources.breaker import CircuitBreaker
    from aletheia.sources.transport import PoliteTransport

    identity = {"tool": TOOL_NAME}
    if settings.mailto:
        identity["email"] = settings.mailto
    if settings.ncbi_api_key is not None:
        identity["api_key"] = settings.ncbi_api_key.get_secret_value()
    return PoliteTransport(
        SOURCE,
        http,
        base_url=settings.pubmed_url,
        limits=settings.limits_for(SOURCE.value),
        limiter=limiter,
        breaker=breaker if breaker is not None else CircuitBreaker.from_settings(SOURCE.value, settings),
        default_params=identity,
        attempts=settings.http_attempts,
        timeout=settings.http_timeout,
        enabled=not settings.offline and SOURCE.value not in settings.disabled,
    )
