"""The records of the work a verdict matched, and what they give of its text: what the integrity
signals and the evidence's authorship question read (pure).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from aletheia.core.evidence import Evidence, SourceAnswer
from aletheia.core.paper_mill import WorkText
from aletheia.core.records import WorkRecord
from aletheia.core.verdicts import Verdict


class Outcome(Protocol):
    """What is read of a reference's outcome (`pipeline.evidence.gather.ReferenceOutcome`)."""

    @property
    def verdict(self) -> Verdict: ...

    @property
    def evidence(self) -> Evidence: ...


def same_work(a: WorkRecord, b: WorkRecord) -> bool:
    """Two records of one work: the same DOI, arXiv id or PMID."""
    return bool(
        (a.doi and a.doi == b.doi)
        or (a.arxiv_id and a.arxiv_id == b.arxiv_id)
        or (a.pmid and a.pmid == b.pmid)
    )


def matched_records(outcome: Outcome) -> list[WorkRecord]:
    """The records of the work the verdict matched: the match and every answer's record of it."""
    return records_of_match(outcome.verdict.match, outcome.evidence.answers)


def records_of_match(match: WorkRecord | None, answers: Sequence[SourceAnswer]) -> list[WorkRecord]:
    """`match` and every answer's record of the same work (same DOI, arXiv id or PMID)."""
    if match is None:
        return []
    records = [match]
    for answer in answers:
        records.extend(r for r in answer.records if r != match and same_work(r, match))
    return records


def work_text(records: Sequence[WorkRecord]) -> WorkText:
    """What the sources give of the matched work's text: its title and the first abstract. (No
    full text of a cited work is fetched for signals, so no methods-section indicator here.)"""
    parts: dict[str, str] = {}
    title = next((r.title for r in records if r.title), None)
    abstract = next((r.abstract for r in records if r.abstract), None)
    if title:
        parts["title"] = title
    if abstract:
        parts["abstract"] = abstract
    return WorkText(parts=parts)
