"""What PubMed's efetch XML and esummary records share, read the same way for both: titles (the
MEDLINE closing period dropped), years, work types, standing notices from links and publication
types, venue names and ISSNs, and an element's text.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Final

from aletheia.core.identifiers import clean_doi, clean_issn
from aletheia.core.records import RetractionKind, RetractionNotice, SourceName
from aletheia.core.text import normalize_whitespace

__all__ = [
    "clean_issns",
    "clean_title",
    "distinct_names",
    "element_text",
    "notice_for_dois",
    "notices_of",
    "work_type_of",
    "year_of",
]

SOURCE: Final = SourceName.PUBMED

_YEAR = re.compile(r"\b(1[5-9]\d\d|2\d\d\d)\b")
_CITED_DOI = re.compile(r"\bdoi:\s*(10\.\S+)", re.IGNORECASE)
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


def clean_title(title: str | None) -> str | None:
    if not title:
        return None
    title = normalize_whitespace(title)
    if title.endswith(".") and not title.endswith(".."):
        title = title[:-1].rstrip()
    return title or None


def year_of(*candidates: str | None) -> int | None:
    for candidate in candidates:
        if candidate and (match := _YEAR.search(candidate)):
            return int(match.group(1))
    return None


def notices_of(
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


def notice_for_dois(links: Sequence[tuple[str, str | None, str | None]]) -> tuple[str, ...]:
    """The DOIs of the works a notice is about, from its RetractionOf/ErratumFor/... citations."""
    dois: list[str] = []
    for link_type, _, citation in links:
        if _fold_link_type(link_type) in _NOTICE_FOR_LINKS and (match := _CITED_DOI.search(citation or "")):
            doi = clean_doi(match.group(1))
            if doi is not None and doi not in dois:
                dois.append(doi)
    return tuple(dois)


def work_type_of(publication_types: Sequence[str], *, container: str = "journal-article") -> str:
    """ "notice" for a notice; else "preprint" when PubMed says so; else the container's type."""
    if any(t.lower() in _NOTICE_TYPES for t in publication_types):
        return "notice"
    if any(t.lower() == "preprint" for t in publication_types):
        return "preprint"
    return container


def distinct_names(names: Sequence[str | None], *, exclude: str | None) -> tuple[str, ...]:
    """The names, each once (case-insensitive), without `exclude` (the venue they are aliases of)."""
    seen = {exclude.casefold()} if exclude else set()
    kept: list[str] = []
    for name in names:
        if name and name.casefold() not in seen:
            seen.add(name.casefold())
            kept.append(name)
    return tuple(kept)


def clean_issns(values: Sequence[str | None]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(issn for value in values if (issn := clean_issn(value))))


def element_text(element: ET.Element | None) -> str | None:
    if element is None:
        return None
    text = normalize_whitespace("".join(element.itertext()))
    return text or None
