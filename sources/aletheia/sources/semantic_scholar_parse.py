"""Semantic Scholar's paper objects as `WorkRecord`s: a pure parser, no I/O (the client is
`semantic_scholar.py`, which asks for `PAPER_FIELDS`).

Parser choices, all visible in `parse_s2_paper`:

- `venue` is S2's `venue` string, else `publicationVenue.name`, else `journal.name`. The names S2
  publishes besides it are kept: `publicationVenue.alternate_names` (and `publicationVenue.name`
  when `venue` is another form of it) in `venue_aliases`, a different `journal.name` in
  `other_venues`, `publicationVenue.issn`/`alternate_issns` in `issn`, `externalIds.DBLP` in
  `dblp_key`. The first of `publicationVenue.name`, `journal.name`, `venue` that is not a preprint
  server is `published_venue`: S2 merges a preprint and its published version, so a paper known by
  an arXiv id is a published record as soon as S2 names a venue (it is never marked a preprint).
- `externalIds` fill `doi`, `arxiv_id`, `pmid`, `pmcid`; S2 merges a preprint and its published
  version into one paper, so one record may carry both a DOI and an arXiv id.
- S2 has no flag for a cut author list; the list counts as truncated only when the payload itself
  ends it with an "et al." / "others" entry. Its length is never taken as a sign.
- `publicationTypes` map to a `work_type` only for the container types (JournalArticle,
  Conference, Book, BookSection, Dataset); genre tags (Review, CaseReport, ...) say nothing of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from aletheia.core.arxiv_ids import ArxivId, clean_arxiv_id
from aletheia.core.authors import parse_name
from aletheia.core.identifiers import clean_doi, clean_pmcid, clean_pmid
from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.core.text import normalize_whitespace
from aletheia.core.venues import is_no_venue_claim
from aletheia.sources.base import SourceParseError

__all__ = ["parse_s2_paper"]

SOURCE: Final = SourceName.SEMANTIC_SCHOLAR

_WORK_TYPES = {
    "Conference": "proceedings-article",
    "JournalArticle": "journal-article",
    "BookSection": "book-chapter",
    "Book": "book",
    "Dataset": "dataset",
}
_TRUNCATION_MARKERS = frozenset({"et al", "et al.", "others", "and others", "et. al.", "..."})


def _str(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise SourceParseError(SOURCE, f"{what} is not a string: {type(value).__name__}")
    text = normalize_whitespace(value)
    return text or None


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SourceParseError(SOURCE, f"{what} is not an object: {type(value).__name__}")
    return value


def _authors(value: Any) -> tuple[tuple[Author, ...], bool]:
    if value is None:
        return (), False
    if not isinstance(value, list):
        raise SourceParseError(SOURCE, f"authors is not a list: {type(value).__name__}")
    names = [_str(_mapping(a, "author").get("name"), "author name") for a in value]
    truncated = False
    if names and names[-1] is not None and names[-1].lower() in _TRUNCATION_MARKERS:
        truncated = True
        names = names[:-1]
    parsed = (parse_name(name) for name in names if name)
    # A name that is only punctuation parses to nothing: it is no author.
    return tuple(a for a in parsed if a.family or a.given or a.literal), truncated


def _year(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise SourceParseError(SOURCE, f"year is not an integer: {value!r}")
    return value


def _str_list(value: Any, what: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise SourceParseError(SOURCE, f"{what} is not a list: {type(value).__name__}")
    return [text for item in value if (text := _str(item, what))]


def _distinct(
    names: Sequence[str | None], *, exclude: Sequence[str | None] = (), claims_only: bool = False
) -> tuple[str, ...]:
    """The names, each once (case-insensitive), without the excluded ones (and, with `claims_only`,
    without preprint-server names such as "ArXiv")."""
    seen = {name.casefold() for name in exclude if name}
    kept: list[str] = []
    for name in names:
        if not name or name.casefold() in seen or (claims_only and is_no_venue_claim(name)):
            continue
        seen.add(name.casefold())
        kept.append(name)
    return tuple(kept)


def _venue_aliases(
    publication_venue: Mapping[str, Any], venue: str | None, pv_name: str | None
) -> tuple[str, ...]:
    alternates = _str_list(publication_venue.get("alternate_names"), "publicationVenue.alternate_names")
    return _distinct([pv_name, *alternates], exclude=(venue,))


def _issns(publication_venue: Mapping[str, Any]) -> tuple[str, ...]:
    values = [
        *_str_list(publication_venue.get("issn"), "publicationVenue.issn"),
        *_str_list(publication_venue.get("alternate_issns"), "publicationVenue.alternate_issns"),
    ]
    return _distinct([value.upper() for value in values])


@dataclass(frozen=True)
class _Venues:
    """The venue names a paper object gives: `venue`, `publicationVenue` (and its name), `journal.name`."""

    publication_venue: Mapping[str, Any]
    venue_field: str | None
    pv_name: str | None
    journal_name: str | None

    @property
    def venue(self) -> str | None:
        return self.venue_field or self.pv_name or self.journal_name

    @property
    def published_venue(self) -> str | None:
        """The first name that is not a preprint server's."""
        names = (self.pv_name, self.journal_name, self.venue_field)
        return next((v for v in names if not is_no_venue_claim(v)), None)


def _venues(p: Mapping[str, Any]) -> _Venues:
    publication_venue = _mapping(p.get("publicationVenue"), "publicationVenue")
    return _Venues(
        publication_venue=publication_venue,
        venue_field=_str(p.get("venue"), "venue"),
        pv_name=_str(publication_venue.get("name"), "publicationVenue.name"),
        journal_name=_str(_mapping(p.get("journal"), "journal").get("name"), "journal.name"),
    )


def _work_type(p: Mapping[str, Any]) -> str | None:
    types = p.get("publicationTypes") or []
    if not isinstance(types, list):
        raise SourceParseError(SOURCE, "publicationTypes is not a list")
    return next((_WORK_TYPES[t] for t in _WORK_TYPES if t in types), None)


def _ids(external: Mapping[str, Any]) -> tuple[str | None, ArxivId | None, str | None, str | None]:
    """(DOI, arXiv id, PMID, PMCID) from `externalIds`."""
    doi = clean_doi(str(external["DOI"])) if external.get("DOI") else None
    arxiv = clean_arxiv_id(str(external["ArXiv"])) if external.get("ArXiv") else None
    pmid = clean_pmid(str(external["PubMed"])) if external.get("PubMed") else None
    # S2 gives a PMCID as bare digits ("6543210"); alone, clean_pmcid rightly takes those for a PMID.
    pmc_value = str(external.get("PubMedCentral") or "")
    pmcid = clean_pmcid(pmc_value if pmc_value.upper().startswith("PMC") else f"PMC{pmc_value}")
    return doi, arxiv, pmid, pmcid


def _urls(p: Mapping[str, Any], external: Mapping[str, Any]) -> dict[str, str]:
    urls: dict[str, str] = {}
    if url := _str(p.get("url"), "url"):
        urls["s2"] = url
    if pdf := _str(_mapping(p.get("openAccessPdf"), "openAccessPdf").get("url"), "openAccessPdf.url"):
        urls["pdf"] = pdf
        # The same link under the key the full-text chain reads for every source (`oa_fulltext`).
        urls["oa_pdf"] = pdf
    if external.get("DBLP"):
        urls["dblp"] = f"https://dblp.org/rec/{external['DBLP']}"
    if external.get("CorpusId") is not None:
        urls["corpus"] = f"https://api.semanticscholar.org/CorpusId:{external['CorpusId']}"
    return urls


def _score(p: Mapping[str, Any]) -> float | None:
    score = p.get("matchScore")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise SourceParseError(SOURCE, f"matchScore is not a number: {score!r}")
    return float(score) if score is not None else None


def parse_s2_paper(p: Mapping[str, Any]) -> WorkRecord:
    """One S2 paper object (any subset of `PAPER_FIELDS`, plus `paperId`) as a `WorkRecord`.

    Fields are read in a fixed order, so a payload with several malformed fields always names the
    same one in its SourceParseError."""
    if not isinstance(p, Mapping):
        raise SourceParseError(SOURCE, f"paper is not an object: {type(p).__name__}")
    paper_id = _str(p.get("paperId"), "paperId")
    external = _mapping(p.get("externalIds"), "externalIds")
    authors, truncated = _authors(p.get("authors"))
    venues = _venues(p)
    venue = venues.venue
    work_type = _work_type(p)
    doi, arxiv, pmid, pmcid = _ids(external)
    urls = _urls(p, external)
    dblp = _str(external.get("DBLP"), "externalIds.DBLP") if external.get("DBLP") else None
    score = _score(p)
    return WorkRecord(
        source=SOURCE,
        source_id=paper_id,
        title=_str(p.get("title"), "title"),
        authors=authors,
        authors_truncated=truncated,
        year=_year(p.get("year")),
        venue=venue,
        work_type=work_type,
        doi=doi,
        arxiv_id=arxiv.id if arxiv else None,
        pmid=pmid,
        pmcid=pmcid,
        abstract=_str(p.get("abstract"), "abstract"),
        urls=urls,
        score=score,
        venue_aliases=_venue_aliases(venues.publication_venue, venue, venues.pv_name),
        other_venues=_distinct((venues.journal_name,), exclude=(venue,), claims_only=True),
        issn=_issns(venues.publication_venue),
        dblp_key=dblp,
        published_venue=venues.published_venue,
    )
