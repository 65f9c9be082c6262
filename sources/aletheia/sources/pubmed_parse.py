"""PubMed E-utilities payloads as `WorkRecord`s: pure parsers for efetch XML and esearch, and
`parse_pubmed_raw` for any payload the client keeps; no I/O (the client is `pubmed.py`, whose
docstring lists the parser choices). esummary answers are read by `pubmed_esummary`; what both
record formats share by `pubmed_fields`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any, Final

from aletheia.core.identifiers import clean_doi, clean_pmcid
from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.sources.base import PermanentSourceError, SourceParseError
from aletheia.sources.orcid_text import orcid_in
from aletheia.sources.pubmed_esummary import parse_esummary_doc, parse_esummary_json
from aletheia.sources.pubmed_fields import (
    clean_issns,
    clean_title,
    distinct_names,
    element_text,
    notice_for_dois,
    notices_of,
    work_type_of,
    year_of,
)
from aletheia.sources.safe_xml import parse_untrusted_xml

__all__ = [
    "parse_efetch_xml",
    "parse_efetch_xml_with_raw",
    "parse_esearch",
    "parse_pubmed_raw",
]

SOURCE: Final = SourceName.PUBMED


# --- efetch XML -----------------------------------------------------------------------------------


def _xml_author(author: ET.Element) -> Author | None:
    collective = element_text(author.find("CollectiveName"))
    if collective:
        return Author(literal=collective)
    family = element_text(author.find("LastName"))
    given = element_text(author.find("ForeName"))
    if not given:
        # Some records give only initials ("K"), written as parse_name writes Vancouver initials.
        given = element_text(author.find("Initials"))
    orcid = None
    for identifier in author.findall("Identifier"):
        if (identifier.get("Source") or "").upper() == "ORCID":
            orcid = orcid_in(element_text(identifier))
    if not family:
        return None
    return Author(family=family, given=given, suffix=element_text(author.find("Suffix")), orcid=orcid)


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
        text = element_text(part)
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
            value = element_text(article_id)
            if id_type and value and id_type not in ids:
                ids[id_type] = value
    return ids


def _xml_links(comments: ET.Element | None) -> list[tuple[str, str | None, str | None]]:
    if comments is None:
        return []
    return [
        (cc.get("RefType") or "", element_text(cc.find("PMID")), element_text(cc.find("RefSource")))
        for cc in comments.findall("CommentsCorrections")
    ]


def _article_year(article: ET.Element, journal: ET.Element | None) -> int | None:
    """The journal issue's year (or its MedlineDate's), else the electronic article date's."""
    pub_date = journal.find("JournalIssue/PubDate") if journal is not None else None
    year = None
    if pub_date is not None:
        year = year_of(element_text(pub_date.find("Year")), element_text(pub_date.find("MedlineDate")))
    if year is None:
        year = year_of(element_text(article.find("ArticleDate/Year")))
    return year


def _article_doi(article: ET.Element, ids: dict[str, str]) -> str | None:
    """The DOI of the ArticleIdList, else of a valid `ELocationID EIdType="doi"`."""
    doi = clean_doi(ids["doi"]) if "doi" in ids else None
    if doi is None:
        for location in article.findall("ELocationID"):
            if location.get("EIdType") == "doi" and location.get("ValidYN") != "N":
                doi = clean_doi(element_text(location) or "")
                break
    return doi


def _journal_names(
    journal: ET.Element | None, citation: ET.Element
) -> tuple[str | None, list[str | None], list[str | None]]:
    """(venue, its abbreviations, ISSNs): the journal's title, ISO abbreviation and ISSN, and the
    MEDLINE abbreviation (MedlineTA) and linking ISSN."""
    venue = None
    aliases: list[str | None] = []
    issns = [element_text(journal.find("ISSN")) if journal is not None else None]
    if journal is not None:
        venue = element_text(journal.find("Title")) or element_text(journal.find("ISOAbbreviation"))
        aliases.append(element_text(journal.find("ISOAbbreviation")))
    journal_info = citation.find("MedlineJournalInfo")
    if journal_info is not None:
        aliases.append(element_text(journal_info.find("MedlineTA")))
        issns.append(element_text(journal_info.find("ISSNLinking")))
    return venue, aliases, issns


def _parse_pubmed_article(article_xml: ET.Element) -> WorkRecord:
    citation = article_xml.find("MedlineCitation")
    article = citation.find("Article") if citation is not None else None
    pmid = element_text(citation.find("PMID")) if citation is not None else None
    if citation is None or article is None or pmid is None:
        raise SourceParseError(SOURCE, "PubmedArticle without MedlineCitation/PMID/Article")

    journal = article.find("Journal")
    authors, truncated = _xml_authors(article.find("AuthorList"))
    links = _xml_links(citation.find("CommentsCorrectionsList"))
    publication_types = [
        t for el in article.findall("PublicationTypeList/PublicationType") if (t := element_text(el))
    ]
    ids = _article_ids(article_xml.find("PubmedData/ArticleIdList"))
    venue, aliases, issns = _journal_names(journal, citation)
    urls = {"pubmed": f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"}
    pmcid = clean_pmcid(ids.get("pmc"))
    if pmcid:
        urls["pmc"] = f"https://www.ncbi.nlm.nih.gov/pmc/articles/{pmcid}/"
    return WorkRecord(
        source=SOURCE,
        source_id=pmid,
        title=clean_title(element_text(article.find("ArticleTitle"))),
        authors=authors,
        authors_truncated=truncated,
        year=_article_year(article, journal),
        venue=venue,
        work_type=work_type_of(publication_types),
        doi=_article_doi(article, ids),
        pmid=pmid,
        pmcid=pmcid,
        abstract=_xml_abstract(article.find("Abstract")),
        urls=urls,
        retraction_notices=notices_of(publication_types, links),
        notice_for=notice_for_dois(links),
        is_preprint=any(t.lower() == "preprint" for t in publication_types),
        venue_aliases=distinct_names(aliases, exclude=venue),
        issn=clean_issns(issns),
    )


def _parse_pubmed_book_article(book_article: ET.Element) -> WorkRecord:
    document = book_article.find("BookDocument")
    pmid = element_text(document.find("PMID")) if document is not None else None
    if document is None or pmid is None:
        raise SourceParseError(SOURCE, "PubmedBookArticle without BookDocument/PMID")
    book = document.find("Book")
    author_list = None
    for candidate in document.findall("AuthorList"):
        if candidate.get("Type", "authors") == "authors":
            author_list = candidate
            break
    authors, truncated = _xml_authors(author_list)
    publication_types = [t for el in document.findall("PublicationType") if (t := element_text(el))]
    ids = _article_ids(book_article.find("PubmedBookData/ArticleIdList"))
    book_title = element_text(book.find("BookTitle")) if book is not None else None
    year = None
    if book is not None:
        year = year_of(
            element_text(book.find("PubDate/Year")), element_text(book.find("PubDate/MedlineDate"))
        )
    # A book document with an ArticleTitle is a chapter (a GeneReviews entry) of the book it names.
    chapter_title = element_text(document.find("ArticleTitle"))
    return WorkRecord(
        source=SOURCE,
        source_id=pmid,
        title=clean_title(chapter_title or book_title),
        authors=authors,
        authors_truncated=truncated,
        year=year,
        venue=book_title if chapter_title else None,
        work_type=work_type_of(publication_types, container="book-chapter" if chapter_title else "book"),
        doi=clean_doi(ids["doi"]) if "doi" in ids else None,
        pmid=pmid,
        pmcid=clean_pmcid(ids.get("pmc")),
        abstract=_xml_abstract(document.find("Abstract")),
        urls={"pubmed": f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"},
        retraction_notices=notices_of(publication_types, []),
    )


def _efetch_elements(xml_text: str | bytes) -> list[ET.Element]:
    root = parse_untrusted_xml(xml_text, source=SOURCE, allow_doctype=True)
    if root.tag in {"PubmedArticle", "PubmedBookArticle"}:
        return [root]
    if root.tag == "eFetchResult":
        error = element_text(root.find("ERROR"))
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
        error = element_text(root.find("ERROR"))
        if error:
            raise PermanentSourceError(SOURCE, f"esearch refused the query: {error}")
        ids = [t for el in root.findall("IdList/Id") if (t := element_text(el))]
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
