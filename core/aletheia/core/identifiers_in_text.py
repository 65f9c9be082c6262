"""Identifiers found in free text (a reference string, a page): DOIs, arXiv ids, PMIDs, PMCIDs,
ISBNs and URLs, each cleaned by its `clean_*` (pure; every scan is linear-time).

`url_kind` tells what a URL resolves (a DOI, an arXiv id, a PubMed or PMC record).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

from aletheia.core.arxiv_ids import ArxivId, arxiv_id_from_doi, clean_arxiv_id
from aletheia.core.identifiers import (
    clean_doi,
    clean_isbn,
    clean_pmcid,
    clean_pmid,
    trim_trailing_punctuation,
)

__all__ = ["MAX_EXTRACT_CHARS", "ExtractedIdentifiers", "extract_identifiers", "url_kind"]


# extract_identifiers looks at no more than this many characters of its input.
MAX_EXTRACT_CHARS: Final = 1_000_000


def url_kind(url: str) -> str | None:
    """What a URL identifies: "doi", "arxiv", "pubmed" or "pmc" when it resolves an id of that kind."""
    if not url:
        return None
    if clean_doi(url) is not None and re.search(r"doi\.org/", url, re.IGNORECASE):
        return "arxiv" if arxiv_id_from_doi(url) is not None else "doi"
    lowered = url.lower()
    if "arxiv.org/" in lowered and clean_arxiv_id(url) is not None:
        return "arxiv"
    if "pmc" in lowered and clean_pmcid(url) is not None:
        return "pmc"
    if "pubmed" in lowered or "/med/" in lowered:
        return "pubmed" if clean_pmid(url) is not None else None
    return None


_T = TypeVar("_T")


@dataclass(frozen=True)
class ExtractedIdentifiers:
    """Every identifier found in a text, each kind in order of first appearance, without repeats."""

    dois: tuple[str, ...] = ()
    arxiv_ids: tuple[ArxivId, ...] = ()
    pmids: tuple[str, ...] = ()
    pmcids: tuple[str, ...] = ()
    isbns: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()


# Each pattern is a literal anchor followed by bounded or possessive-in-effect runs (a greedy
# character class with nothing after it), so a scan is linear in the input length.
_URL_IN_TEXT = re.compile(r"\bhttps?://[^\s<>\"]+", re.IGNORECASE)
_DOI_IN_TEXT = re.compile(r"(?<![0-9])10\.\d{4,9}/[^\s\"]+")
# A publisher's page path after the DOI in its article URL (Frontiers' `.../10.3389/x.911679/full`,
# Wiley's `/epdf`, `/abstract`): the view of the article, not part of its DOI (issue 28).
_PUBLISHER_VIEW = re.compile(
    r"/(?:full|abstract|pdf|epdf|fulltext|full\.pdf|html|summary|references|figures|meta)/?$", re.IGNORECASE
)
_ARXIV_IN_TEXT = re.compile(
    r"\barxiv(?:\s*[:.]\s*|\s+|\.org/(?:abs|pdf|html|format)/)"
    r"(?P<id>(?:\d{4}\.\d{4,5}|[a-z]{2,8}(?:-[a-z]{2,4})?(?:\.[a-z]{2,9}(?:-[a-z]{2,4})?)?/\d{7})"
    r"(?:v\d{1,4})?)",
    re.IGNORECASE,
)
# `\s*(?::\s*)?`, not `\s*:?\s*`: two adjacent `\s*` would backtrack quadratically over a run of spaces.
_PMID_IN_TEXT = re.compile(r"\b(?:pmid|pubmed\s+id)\s*(?::\s*)?(?P<digits>\d{1,9})\b", re.IGNORECASE)
_PMCID_IN_TEXT = re.compile(r"\b(?:pmcid\s*(?::\s*)?(?:pmc\s?)?|pmc)(?P<digits>\d{1,9})\b", re.IGNORECASE)
_ISBN_IN_TEXT = re.compile(
    r"\bisbn(?:-?1[03])?\s*(?:[:=]\s*)?[{\"]?(?P<number>[0-9][0-9 -]{8,20}[0-9Xx]?)", re.IGNORECASE
)


def _first_isbn(candidate: str) -> str | None:
    """The ISBN at the start of `candidate`, which may run on into other digits (`978-... 978-...`)."""
    digits = ""
    found: str | None = None
    for char in candidate:
        if char in " -":
            continue
        digits += char
        if len(digits) == 10 and not digits.startswith(("978", "979")):
            found = clean_isbn(digits)
            if found is not None:
                return found
        if len(digits) == 13:
            return clean_isbn(digits) or found
    if len(digits) >= 10 and found is None:
        return clean_isbn(digits[:10])
    return found


class _Found(Generic[_T]):
    """Identifiers of one kind, each at the first position it was seen (scans run kind by kind)."""

    def __init__(self) -> None:
        self._first_seen: dict[_T, int] = {}

    def add(self, position: int, value: _T | None) -> None:
        if value is not None and position < self._first_seen.get(value, MAX_EXTRACT_CHARS + 1):
            self._first_seen[value] = position

    def ordered(self) -> tuple[_T, ...]:
        return tuple(sorted(self._first_seen, key=self._first_seen.__getitem__))


def extract_identifiers(text: str) -> ExtractedIdentifiers:
    """Find every DOI, arXiv id, PMID, PMCID, ISBN and URL in free text (a reference, a page).

    DOIs are found bare, after `doi:` and in doi.org URLs; an arXiv DataCite DOI also yields its
    arXiv id. Only the first `MAX_EXTRACT_CHARS` characters are read; every scan is linear-time.
    """
    text = text[:MAX_EXTRACT_CHARS]
    dois, pmids, pmcids, isbns, urls = (_Found[str]() for _ in range(5))
    arxiv_ids = _Found[ArxivId]()

    for match in _URL_IN_TEXT.finditer(text):
        url = trim_trailing_punctuation(match.group())
        urls.add(match.start(), url)
        kind = url_kind(url)
        if kind in ("doi", "arxiv") and "doi.org/" in url.lower():
            dois.add(match.start(), clean_doi(url))
        if kind == "arxiv":
            arxiv_ids.add(match.start(), clean_arxiv_id(url))
        elif kind == "pubmed":
            pmids.add(match.start(), clean_pmid(url))
        elif kind == "pmc":
            pmcids.add(match.start(), clean_pmcid(url))

    for match in _DOI_IN_TEXT.finditer(text):
        doi = clean_doi(_PUBLISHER_VIEW.sub("", match.group()))
        dois.add(match.start(), doi)
        if doi is not None:
            arxiv_ids.add(match.start(), arxiv_id_from_doi(doi))

    for match in _ARXIV_IN_TEXT.finditer(text):
        arxiv_ids.add(match.start(), clean_arxiv_id(match.group("id")))

    for match in _PMID_IN_TEXT.finditer(text):
        pmids.add(match.start(), clean_pmid(match.group("digits")))

    for match in _PMCID_IN_TEXT.finditer(text):
        pmcids.add(match.start(), clean_pmcid(f"PMC{match.group('digits')}"))

    for match in _ISBN_IN_TEXT.finditer(text):
        isbns.add(match.start(), _first_isbn(match.group("number")))

    return ExtractedIdentifiers(
        dois=dois.ordered(),
        arxiv_ids=arxiv_ids.ordered(),
        pmids=pmids.ordered(),
        pmcids=pmcids.ordered(),
        isbns=isbns.ordered(),
        urls=urls.ordered(),
    )
