"""PubMed esummary answers as `WorkRecord`s: JSON (`retmode=json`, one document per uid) and v1
XML DocSums, pure parsers with no I/O (the client is `pubmed.py`). A DocSum is turned into the
JSON document shape and read by the same `parse_esummary_doc`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any, Final

from aletheia.core.authors import parse_name
from aletheia.core.identifiers import clean_doi, clean_pmcid
from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.core.text import normalize_whitespace
from aletheia.sources.base import SourceParseError
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

__all__ = ["esummary_docs", "parse_esummary_doc", "parse_esummary_json", "parse_esummary_xml"]

SOURCE: Final = SourceName.PUBMED


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


def _doc_authors(doc: Mapping[str, Any]) -> tuple[Author, ...]:
    """The document's authors and groups; other `authtype`s (editors, investigators) are left out."""
    authors = []
    for author in _doc_objects(doc, "authors"):
        auth_type = _doc_str(author, "authtype") or "Author"
        name = _doc_str(author, "name")
        if name and auth_type.lower() in {"author", "collectivename"}:
            # CollectiveName is a group; an Author is in MEDLINE display form ("Hambrick GW Jr").
            authors.append(
                Author(literal=name) if auth_type.lower() == "collectivename" else parse_name(name)
            )
    return tuple(authors)


def parse_esummary_doc(doc: Mapping[str, Any]) -> WorkRecord | None:
    """One esummary document (`result[<uid>]`); None for NCBI's per-id error stubs."""
    if not isinstance(doc, Mapping):
        raise SourceParseError(SOURCE, "esummary document is not an object")
    if doc.get("error"):
        return None
    uid = _doc_str(doc, "uid")
    if uid is None or not uid.isdigit():
        raise SourceParseError(SOURCE, f"esummary document without a numeric uid: {uid!r}")

    authors = _doc_authors(doc)
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
        title=clean_title(_doc_str(doc, "title") or _doc_str(doc, "booktitle")),
        authors=authors,
        year=year_of(_doc_str(doc, "pubdate"), _doc_str(doc, "sortpubdate"), _doc_str(doc, "epubdate")),
        venue=venue,
        work_type=work_type_of(publication_types, container=container or "journal-article"),
        doi=doi,
        pmid=uid,
        pmcid=pmcid,
        urls=urls,
        retraction_notices=notices_of(publication_types, links),
        notice_for=notice_for_dois(links),
        is_preprint=any(t.lower() == "preprint" for t in publication_types),
        # `source` is the journal's MEDLINE abbreviation ("Nature", "J Biol Chem").
        venue_aliases=distinct_names([_doc_str(doc, "source")], exclude=venue),
        issn=clean_issns([_doc_str(doc, "issn"), _doc_str(doc, "essn")]),
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
    return element_text(item) or ""


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
            "uid": element_text(docsum.find("Id")),
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
