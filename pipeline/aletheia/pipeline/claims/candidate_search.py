"""The candidates of a claim: the papers the sources' searches return for its queries, the paper
a hint names by identifier, and the one paper `--paper` names (`parse_paper_id`). A search that
fails is recorded, never read as "no paper"."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from aletheia.core.arxiv_ids import arxiv_id_from_doi, clean_arxiv_id
from aletheia.core.identifiers import clean_doi, clean_pmid
from aletheia.core.records import SourceName
from aletheia.pipeline.claims.model import Candidate, ExtractedClaim
from aletheia.sources.base import SourceError

SEARCH_LIMIT: Final = 10


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
