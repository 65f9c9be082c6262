"""BibTeX/biblatex fields to a `CitedReference` (also used for biblatex's `.bbl` records).

The fields come in as written (lower-case names, macros expanded, LaTeX untouched); the typed
attributes are decoded (LaTeX accents and braces to Unicode) and cleaned (identifiers in canonical
form, found in their own fields or in the free-text ones), and the year is one we can vouch for.
"""

from __future__ import annotations

import re

from aletheia.core.arxiv_ids import ArxivId, arxiv_id_from_doi, clean_arxiv_id
from aletheia.core.authors import parse_author_list
from aletheia.core.identifiers import clean_doi, clean_isbn, clean_pmcid, clean_pmid
from aletheia.core.identifiers_in_text import extract_identifiers
from aletheia.core.latex import latex_to_unicode
from aletheia.core.records import CitedReference

_YEAR = re.compile(r"\d{4}")
_DATE = re.compile(r"(\d{4})(?:[-/~?%].*)?")
_BRACES_QUOTES = re.compile(r"[{}\"\s]")


def parse_bibtex_year(value: str | None) -> int | None:
    """A `year` (or biblatex `date`) value as an int: `{2023}` and `2023-05-01` -> 2023;
    `2023a`, `to appear`, `forthcoming` -> None (a year we cannot vouch for is not a year)."""
    if not value:
        return None
    text = _BRACES_QUOTES.sub("", value)
    match = _YEAR.fullmatch(text) or _DATE.fullmatch(text)
    if match is None:
        return None
    year = int(match.group(1) if match.re is _DATE else match.group())
    return year if 1000 <= year <= 2999 else None


_VERBATIM_ESCAPE = re.compile(r"\\([_%&#$~{}])")
_URL_MACRO = re.compile(r"\\(?:url|href|doi|nolinkurl)\s*\{([^{}]*)\}")


def _verbatim(value: str) -> str:
    """An identifier or URL as written in BibTeX: `\\url{...}` unwrapped, `\\_` unescaped, braces gone."""
    text = _URL_MACRO.sub(r"\1", value)
    text = _VERBATIM_ESCAPE.sub(r"\1", text)
    return text.replace("{", "").replace("}", "").strip()


def _text(value: str | None) -> str | None:
    if value is None:
        return None
    decoded = latex_to_unicode(value)
    return decoded or None


def _arxiv_from_fields(fields: dict[str, str]) -> ArxivId | None:
    eprint = _verbatim(fields.get("eprint", ""))
    archive = _verbatim(fields.get("archiveprefix") or fields.get("eprinttype") or "").lower()
    if eprint and archive in ("arxiv", ""):
        primary = _verbatim(fields.get("primaryclass") or fields.get("eprintclass") or "")
        candidates = [eprint]
        if primary and re.fullmatch(r"\d{7}(?:v\d+)?", eprint):
            # Old-style ids written as `eprint = {9901001}, primaryClass = {hep-th}`.
            candidates.insert(0, f"{primary}/{eprint}")
        for candidate in candidates:
            found = clean_arxiv_id(candidate)
            if found is not None:
                return found
    venue = _verbatim(fields.get("journal") or fields.get("journaltitle") or "").lower()
    volume = _verbatim(fields.get("volume", ""))
    if venue in ("corr", "arxiv", "arxiv preprint") and volume.lower().startswith("abs/"):
        # DBLP's form: `journal = {CoRR}, volume = {abs/1810.04805}`.
        return clean_arxiv_id(volume[4:])
    return None


def _scanned_identifiers(fields: dict[str, str]) -> tuple[str | None, ArxivId | None, str | None]:
    """DOI, arXiv id and URL mentioned in the free-text fields (`howpublished`, `note`, ...)."""
    text = " ".join(
        _verbatim(fields[name])
        for name in ("url", "howpublished", "note", "journal", "journaltitle", "eprint", "annote", "addendum")
        if name in fields
    )
    if not text:
        return None, None, None
    found = extract_identifiers(text)
    return (
        found.dois[0] if found.dois else None,
        found.arxiv_ids[0] if found.arxiv_ids else None,
        found.urls[0] if found.urls else None,
    )


def _first_isbn(value: str | None) -> str | None:
    if not value:
        return None
    for candidate in re.split(r"[,;/]|\s+and\s+|\s{2,}", _verbatim(value)):
        isbn = clean_isbn(candidate.strip())
        if isbn is not None:
            return isbn
    return clean_isbn(_verbatim(value))


def _title(fields: dict[str, str]) -> str | None:
    title = _text(fields.get("title"))
    subtitle = _text(fields.get("subtitle"))
    if title and subtitle:
        return f"{title}: {subtitle}"
    return title or subtitle


def _venue(fields: dict[str, str]) -> str | None:
    for name in ("journaltitle", "journal", "booktitle", "maintitle"):
        venue = _text(fields.get(name))
        if venue:
            return venue
    return None


def reference_from_fields(
    key: str, entry_type: str | None, fields: dict[str, str], *, origin: str | None
) -> CitedReference:
    """A `CitedReference` from BibTeX/biblatex fields (lower-case names, values as written:
    LaTeX undecoded, macros expanded); also used for biblatex's `.bbl` records."""
    authors, truncated = parse_author_list(fields["author"]) if "author" in fields else ((), False)
    year = parse_bibtex_year(fields.get("date")) or parse_bibtex_year(fields.get("year"))

    doi = clean_doi(_verbatim(fields["doi"])) if "doi" in fields else None
    arxiv = _arxiv_from_fields(fields)
    if arxiv is None and doi is not None:
        arxiv = arxiv_id_from_doi(doi)
    scanned_doi, scanned_arxiv, scanned_url = _scanned_identifiers(fields)
    doi = doi or scanned_doi
    arxiv = arxiv or scanned_arxiv

    archive = _verbatim(fields.get("eprinttype") or fields.get("archiveprefix") or "").lower()
    pmid = clean_pmid(_verbatim(fields["pmid"])) if "pmid" in fields else None
    if pmid is None and archive == "pubmed":
        pmid = clean_pmid(_verbatim(fields.get("eprint", "")))
    pmcid = clean_pmcid(_verbatim(fields["pmcid"])) if "pmcid" in fields else None
    if pmcid is None and archive in ("pmc", "pubmedcentral"):
        pmcid = clean_pmcid(_verbatim(fields.get("eprint", "")))
    url = _verbatim(fields["url"]) if fields.get("url") else scanned_url

    return CitedReference(
        key=key,
        entry_type=entry_type,
        fields=dict(fields),
        title=_title(fields),
        authors=authors,
        authors_truncated=truncated,
        year=year,
        venue=_venue(fields),
        doi=doi,
        arxiv_id=arxiv.id if arxiv else None,
        arxiv_version=arxiv.version if arxiv else None,
        pmid=pmid,
        pmcid=pmcid,
        isbn=_first_isbn(fields.get("isbn")),
        url=url or None,
        origin=origin,
    )
