"""PubMed E-utilities payloads as `WorkRecord`s: pure parsers for efetch XML, esummary JSON/XML
and esearch, no I/O (the client is `pubmed.py`, whose docstring lists the parser choices).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any, Final

from aletheia.core.authors import parse_name
from aletheia.core.identifiers import clean_doi, clean_issn, clean_pmcid
from aletheia.core.records import Author, RetractionKind, RetractionNotice, SourceName, WorkRecord
from aletheia.core.text import normalize_whitespace
from aletheia.sources.base import PermanentSourceError, SourceParseError
from aletheia.sources.safe_xml import parse_untrusted_xml

__all__ = [
    "esummary_docs",
    "parse_efetch_xml",
    "parse_efetch_xml_with_raw",
    "parse_esearch",
    "parse_esummary_doc",
    "parse_esummary_json",
    "parse_esummary_xml",
    "parse_pubmed_raw",
]

SOURCE: Final = SourceName.PUBMED


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


def _distinct(names: Sequence[str | None], *, exclude: str | None) -> tuple[str, ...]:
    """The names, each once (case-insensitive), without `exclude` (the venue they are aliases of)."""
    seen = {exclude.casefold()} if exclude else set()
    kept: list[str] = []
    for name in names:
        if name and name.casefold() not in seen:
            seen.add(name.casefold())
            kept.append(name)
    return tuple(kept)


def _issns(values: Sequence[str | None]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(issn for value in values if (issn := clean_issn(value))))


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
    aliases: list[str | None] = []
    issns = [_text(journal.find("ISSN")) if journal is not None else None]
    if journal is not None:
        venue = _text(journal.find("Title")) or _text(journal.find("ISOAbbreviation"))
        aliases.append(_text(journal.find("ISOAbbreviation")))
    journal_info = citation.find("MedlineJournalInfo")
    if journal_info is not None:
        aliases.append(_text(journal_info.find("MedlineTA")))
        issns.append(_text(journal_info.find("ISSNLinking")))
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
        venue_aliases=_distinct(aliases, exclude=venue),
        issn=_issns(issns),
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
    venue = _doc_str(doc, "fulljournalname") or _doc_str(doc, "source") or _doc_str(doc, "bookname")
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
        venue=venue,
        work_type=_work_type(publication_types, container=container or "journal-article"),
        doi=doi,
        pmid=uid,
        pmcid=pmcid,
        urls=urls,
        retraction_notices=_notices(publication_types, links),
        notice_for=_notice_for(links),
        is_preprint=any(t.lower() == "preprint" for t in publication_types),
        # `source` is the journal's MEDLINE abbreviation ("Nature", "J Biol Chem").
        venue_aliases=_distinct([_doc_str(doc, "source")], exclude=venue),
        issn=_issns([_doc_str(doc, "issn"), _doc_str(doc, "essn")]),
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
