"""The retrieval and evidence steps of `verify_and_cite` (aletheia.pipeline.claims.cite): searching the
sources for candidate papers, matching proposed quotes against a paper's text, and the
triangulation gate (a second source agrees on the work's identity). Re-exported by `claims`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from aletheia.core.excerpts import ExcerptMatch, PaperText, locate_excerpt
from aletheia.core.identifiers import arxiv_id_from_doi, clean_arxiv_id, clean_doi, clean_pmid
from aletheia.core.records import CitedReference, RetractionKind, SourceName, WorkRecord
from aletheia.core.retraction import combine_retraction_status
from aletheia.core.triangulate import TriangulationResult, triangulate
from aletheia.pipeline.claims.model import (
    Candidate,
    ExtractedClaim,
    FieldDisagreement,
)
from aletheia.pipeline.claims.reasoner import ClaimReasoner
from aletheia.sources.base import SourceError, SourceRecord

SEARCH_LIMIT: Final = 10


class SourcesFailed(Exception):
    """Every source a step needed failed after its retries."""

    def __init__(self, source: str, error: str) -> None:
        super().__init__(source, error)
        self.source = source
        self.error = error


# --- search -----------------------------------------------------------------------------------------


@dataclass
class SearchOutcome:
    candidates: list[Candidate]
    failures: list[str] = field(default_factory=list)  # "source: error" for each search that failed
    answered: int = 0  # searches that answered (with results or none)


async def _guarded(source: str, call: Awaitable[Any], failures: list[str]) -> Any:
    try:
        return await call
    except SourceError as exc:
        failures.append(f"{source}: {exc}")
        return None


async def search_papers(gateway: Any, query: str, year_hint: int | None = None) -> SearchOutcome:
    """Semantic Scholar's relevance search (the seed's retriever) and OpenAlex's, merged: S2's hits
    first, a work both return kept once (as S2 returned it). A failed search is recorded, not raised."""
    failures: list[str] = []
    s2_call = gateway.semantic_scholar.search(query, year=year_hint, limit=SEARCH_LIMIT)
    openalex_call = gateway.openalex.search(query=query, year=year_hint, per_page=SEARCH_LIMIT)
    s2_hits, openalex_hits = await asyncio.gather(
        _guarded(SourceName.SEMANTIC_SCHOLAR.value, s2_call, failures),
        _guarded(SourceName.OPENALEX.value, openalex_call, failures),
    )
    merged: dict[str, Candidate] = {}
    answered = 0
    for hits in (s2_hits, openalex_hits):
        if hits is None:
            continue
        answered += 1
        for hit in hits:
            record = hit.record
            if record.notice_for or not record.title:
                continue  # a retraction notice is never the work itself
            candidate = Candidate.of(record)
            merged.setdefault(candidate.key, candidate)
    return SearchOutcome(candidates=list(merged.values()), failures=failures, answered=answered)


async def _direct_candidates(gateway: Any, claim: ExtractedClaim, failures: list[str]) -> list[Candidate]:
    """The paper a hint names by identifier, straight from Semantic Scholar."""
    ids = [f"DOI:{claim.doi}"] if claim.doi else []
    if claim.arxiv_id:
        ids.append(f"ARXIV:{claim.arxiv_id}")
    found: list[Candidate] = []
    for paper_id in ids:
        hit = await _guarded(
            SourceName.SEMANTIC_SCHOLAR.value, gateway.semantic_scholar.paper(paper_id), failures
        )
        if hit is not None:
            found.append(Candidate.of(hit.record))
    return found


def parse_paper_id(text: str) -> tuple[str, str] | None:
    """`("doi", ...)`, `("arxiv", ...)` or `("pmid", ...)` for what `--paper` names, or None.

    A DOI (bare, `doi:`, doi.org URL; an arXiv DataCite DOI is the arXiv id), an arXiv id (`arXiv:`
    label or arxiv.org URL), or a PMID (`PMID:` label, PubMed URL, or digits alone)."""
    text = text.strip()
    if not text:
        return None
    arxiv = clean_arxiv_id(text)
    if arxiv is not None:
        return "arxiv", arxiv.id
    doi = clean_doi(text)
    if doi is not None and doi.startswith("10."):
        parsed = arxiv_id_from_doi(doi)
        return ("arxiv", parsed.id) if parsed is not None else ("doi", doi)
    pmid = clean_pmid(text)
    if pmid is not None:
        return "pmid", pmid
    return None


async def named_paper(gateway: Any, paper: str, failures: list[str]) -> tuple[Candidate | None, list[str]]:
    """The paper `--paper` names, from the first source that knows it: Semantic Scholar (which also
    gives its abstract and open-access copy), then the identifier's own registry. `(None, asked)`
    when none knows it; a source that failed is in `failures`, never read as "not found"."""
    parsed = parse_paper_id(paper)
    if parsed is None:
        raise ValueError(f"{paper!r} is not a DOI, an arXiv id or a PMID")
    kind, value = parsed
    s2_prefix = {"doi": "DOI", "arxiv": "ARXIV", "pmid": "PMID"}[kind]
    lookups: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
        (SourceName.SEMANTIC_SCHOLAR.value, lambda: gateway.semantic_scholar.paper(f"{s2_prefix}:{value}"))
    ]
    if kind == "doi":
        lookups.append((SourceName.OPENALEX.value, lambda: gateway.openalex.work_by_doi(value)))
        lookups.append((SourceName.CROSSREF.value, lambda: gateway.crossref.work_by_doi(value)))
    elif kind == "arxiv":
        lookups.append((SourceName.ARXIV.value, lambda: gateway.arxiv.by_id(value)))
    else:
        lookups.append((SourceName.PUBMED.value, lambda: gateway.pubmed.by_pmid(value)))
    asked: list[str] = []
    for source, lookup in lookups:
        asked.append(source)
        hit = await _guarded(source, lookup(), failures)
        if hit is not None and hit.record.title and not hit.record.notice_for:
            return Candidate.of(hit.record, relevance=1.0), asked
    return None, asked


# --- evidence ---------------------------------------------------------------------------------------


@dataclass
class EvidenceResult:
    """The quotes that were proposed, and the ones found verbatim in the text (with locations)."""

    matches: list[ExcerptMatch]
    rejected: list[str]

    @property
    def supported(self) -> bool:
        return bool(self.matches)


async def match_evidence(
    claim: str, paper: PaperText, reasoner: ClaimReasoner, *, limit: int = 3
) -> EvidenceResult:
    """Quotes proposed by the reasoner, each kept only if it is in the text (tolerant rule of
    `core.excerpts`); a failing quote is dropped, never repaired. Duplicates are kept once."""
    proposals = await reasoner.propose_excerpts(claim, paper, limit=limit)
    matches: list[ExcerptMatch] = []
    rejected: list[str] = []
    seen: set[str] = set()
    for proposal in proposals:
        found = locate_excerpt(proposal, paper)
        if found is None:
            rejected.append(proposal)
        elif found.text not in seen:
            seen.add(found.text)
            matches.append(found)
    return EvidenceResult(matches=matches[:limit], rejected=rejected)


# --- the triangulation gate -------------------------------------------------------------------------


@dataclass
class IdentityCheck:
    """The gate's outcome for one candidate: the second source's record and the comparison, or
    neither (single-source) with the reason in `notes`."""

    primary: WorkRecord
    secondary: SourceRecord | None
    result: TriangulationResult | None
    notes: list[str]
    consulted: list[SourceName]

    @property
    def conflicts(self) -> list[FieldDisagreement]:
        if self.result is None or self.secondary is None:
            return []
        return [
            FieldDisagreement(
                field=conflict.field,
                primary_source=self.primary.source,
                primary_value=conflict.primary_value,
                secondary_source=self.secondary.record.source,
                secondary_value=conflict.secondary_value,
                similarity=conflict.similarity,
            )
            for conflict in self.result.conflicts
        ]

    @property
    def agreed(self) -> bool:
        return self.result is None or self.result.verified


def _secondary_lookups(
    gateway: Any, record: WorkRecord
) -> list[tuple[SourceName, str, Callable[[], Awaitable[Any]]]]:
    """Seed §5.1's order: OpenAlex by DOI (Crossref after it), else arXiv by id, else PubMed."""
    lookups: list[tuple[SourceName, str, Callable[[], Awaitable[Any]]]] = []
    doi = record.doi if record.doi and arxiv_id_from_doi(record.doi) is None else None
    if doi:
        lookups.append((SourceName.OPENALEX, f"doi:{doi}", lambda: gateway.openalex.work_by_doi(doi)))
        lookups.append((SourceName.CROSSREF, f"doi:{doi}", lambda: gateway.crossref.work_by_doi(doi)))
    arxiv = record.arxiv_id or (
        parsed.id if record.doi and (parsed := arxiv_id_from_doi(record.doi)) else None
    )
    if arxiv:
        lookups.append((SourceName.ARXIV, f"arxiv:{arxiv}", lambda: gateway.arxiv.by_id(arxiv)))
        lookups.append(
            (
                SourceName.SEMANTIC_SCHOLAR,
                f"arxiv:{arxiv}",
                lambda: gateway.semantic_scholar.paper(f"ARXIV:{arxiv}"),
            )
        )
    if record.pmid:
        pmid = record.pmid
        lookups.append((SourceName.PUBMED, f"pmid:{pmid}", lambda: gateway.pubmed.by_pmid(pmid)))
    return [lookup for lookup in lookups if lookup[0] != record.source]


async def identity_check(gateway: Any, record: WorkRecord) -> IdentityCheck:
    """Triangulate `record` against the first second source that knows it (seed 000 §5).

    No identifier to look up: single-source, noted `no_secondary_source_available` (§5.1). Every
    second source answered "not found": single-source too, noted `secondary_not_found: ...`.
    Raises `SourcesFailed` when a second source could not be asked and none answered.
    """
    consulted = [record.source]
    notes: list[str] = []
    failures: list[str] = []
    lookups = _secondary_lookups(gateway, record)
    if not lookups:
        return IdentityCheck(record, None, None, ["no_secondary_source_available"], consulted)
    for source, query, lookup in lookups:
        try:
            found = await lookup()
        except SourceError as exc:
            failures.append(f"{source.value}: {exc}")
            continue
        if source not in consulted:
            consulted.append(source)
        if found is None:
            notes.append(f"secondary_not_found: {source.value} {query}")
            continue
        result = triangulate(record, found.record)
        notes.extend(f"secondary_unavailable: {failure}" for failure in failures)
        return IdentityCheck(record, found, result, notes, consulted)
    if failures:
        raise SourcesFailed(failures[0].partition(": ")[0], "; ".join(failures))
    return IdentityCheck(record, None, None, notes, consulted)


def _retraction(gateway: Any, check: IdentityCheck) -> tuple[RetractionKind, str | None]:
    records = [check.primary] + ([check.secondary.record] if check.secondary else [])
    notices = [notice for record in records for notice in record.retraction_notices]
    lookup = getattr(gateway, "retraction_notices", None)
    if lookup is not None:
        cited = CitedReference(key="claim", doi=check.primary.doi, pmid=check.primary.pmid)
        notices.extend(lookup(cited, records))
    status = combine_retraction_status(notices, consulted=check.consulted)
    notice = status.notice
    return status.kind, notice.notice_doi if notice else None
