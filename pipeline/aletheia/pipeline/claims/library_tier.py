"""Tier 0 for claims (issue 29, seed 004): the verified library is asked before the APIs.

`library_candidates` gives the seed's 3-5 candidates (`LIBRARY_CANDIDATES`) from the works
verified before: the paper a hint names by identifier, one whose title the hint gives, then the
works whose title and abstract best match the claim's words (full text: FTS5's BM25 on SQLite,
PostgreSQL's `ts_rank_cd` on the service; `storage/library_search.py`). The reasoner then decides,
as for any candidate, whether each addresses the claim (the seed's relevance check: the lexical
reasoner's share of the claim's terms, or Claude's ranking) — a library work is never cited for
being in the library. What the library supplies is identity (reused metadata); the text is read
and quoted afresh, and the identity is triangulated against a live source, as for a search hit.

`remember_cited` adds a work a claim cited (its record and the second source's that agreed) to
the library, so the next claim about it starts from Tier 0.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final

from aletheia.core.records import CitedReference
from aletheia.pipeline.claims.identity_gate import IdentityCheck
from aletheia.pipeline.claims.model import Candidate, ExtractedClaim, Ranking
from aletheia.pipeline.claims.reasoner import ClaimReasoner
from aletheia.sources.base import SourceRecord

__all__ = ["LIBRARY_CANDIDATES", "library_candidates", "rank_library", "remember_cited"]

LIBRARY_CANDIDATES: Final = 5  # seed 004: "returns 3-5 candidate sources from library"
_MIN_TITLE_WORDS: Final = 3  # a hint this long (not an identifier) may be the paper's title


async def library_candidates(gateway: Any, extracted: ExtractedClaim, hint: str | None) -> list[Candidate]:
    """At most `LIBRARY_CANDIDATES` works of the verified library for the claim, best first; none
    when the gateway has no library (the weekly audit asks the sources afresh)."""
    library = getattr(gateway, "library", None)
    if library is None:
        return []
    records: list[SourceRecord] = []
    if extracted.doi or extracted.arxiv_id:
        cited = CitedReference(key="hint", doi=extracted.doi, arxiv_id=extracted.arxiv_id)
        records.extend(await library.lookup(cited))
    title = hint if hint and len(hint.split()) >= _MIN_TITLE_WORDS and not records else None
    words = [word for query in extracted.queries for word in query.split()]
    if words or title:
        records.extend(await library.search(words, title=title, limit=LIBRARY_CANDIDATES))
    found: dict[str, Candidate] = {}
    for hit in records:
        record = hit.record
        if record.notice_for or not record.title:
            continue  # a retraction notice is never the work itself
        candidate = Candidate.of(record)
        kept = found.get(candidate.key)
        if kept is None:
            if len(found) < LIBRARY_CANDIDATES:
                found[candidate.key] = candidate
        elif not kept.record.abstract and record.abstract:
            found[candidate.key] = candidate  # the same work: the record a reader can judge
    return list(found.values())


async def remember_cited(gateway: Any, check: IdentityCheck, now: datetime | None = None) -> None:
    """Add a cited work to the library: its record and the agreeing second source's. A work let
    through by a human override is not added (its sources disagree)."""
    library = getattr(gateway, "library", None)
    if library is None or not check.agreed:
        return
    fetched = now or datetime.now(UTC)
    records = [SourceRecord(check.primary, None, fetched)]
    if check.secondary is not None:
        records.append(check.secondary)
    await library.remember(records)


async def _no_search(query: str, year_hint: int | None) -> list[Candidate]:
    return []  # Tier 0 asks no API: a ranker that wants to search finds nothing here


async def rank_library(
    gateway: Any, reasoner: ClaimReasoner, extracted: ExtractedClaim, hint: str | None
) -> Ranking | None:
    """The library's candidates the reasoner finds fit for the claim (`tier: library`), or None
    when there are none: then the APIs are searched."""
    found = await library_candidates(gateway, extracted, hint)
    if not found:
        return None
    ranking = await reasoner.rank_candidates(extracted, found, _no_search)
    if not ranking.ranked:
        return None
    return ranking.model_copy(update={"tier": "library"})
