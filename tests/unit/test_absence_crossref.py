"""Issue 32: Crossref stays in the absence proof, even when OpenAlex (which holds every Crossref
DOI) answered.

OpenAlex's title search asks for every word of the title (and the cited first author); Crossref's
`query.bibliographic` ranks any words. A real work cited under a variant spelling of one word
("Maxpooling" for "Max-pooling", "co-expression" for "coexpression": two of the ICLR 2026 real
records, `aletheia bench realrecords`) is missed by every other index and found by Crossref
alone. Taking Crossref out of the proof when OpenAlex answered would call such a work absent: on
the real records, 5 of the 190 VALID references would become `not_found` (docs/benchmarks.md,
section 8, "Absence proof").
"""

from __future__ import annotations

from aletheia.core.authors import parse_name
from aletheia.core.coverage import search_coverage
from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import Reason, VerdictStatus

CITED = CitedReference(
    key="nagi2011",
    entry_type="inproceedings",
    title="Maxpooling convolutional neural networks for vision-based hand gesture recognition",
    authors=(parse_name("Jawad Nagi"), parse_name("Frederick Ducatelle"), parse_name("Gianni A. Di Caro")),
    year=2011,
    venue="IEEE International Conference on Signal and Image Processing Applications",
)
CROSSREF_RECORD = WorkRecord(
    source=SourceName.CROSSREF,
    title="Max-pooling convolutional neural networks for vision-based hand gesture recognition",
    authors=CITED.authors,
    year=2011,
    venue="2011 IEEE International Conference on Signal and Image Processing Applications (ICSIPA)",
    doi="10.1109/icsipa.2011.6144164",
)


def _empty(source: SourceName) -> SourceAnswer:
    return SourceAnswer(
        source=source, kind=QueryKind.SEARCH, query=CITED.title or "", outcome=Outcome.NOT_FOUND
    )


def _others_answered_empty() -> list[SourceAnswer]:
    coverage = search_coverage(CITED)
    assert SourceName.OPENALEX in coverage and SourceName.CROSSREF in coverage
    return [_empty(s) for s in coverage if s is not SourceName.CROSSREF]


def test_a_work_only_crossrefs_search_finds_is_found() -> None:
    crossref = SourceAnswer(
        source=SourceName.CROSSREF,
        kind=QueryKind.SEARCH,
        query=CITED.title or "",
        outcome=Outcome.FOUND,
        records=(CROSSREF_RECORD,),
    )
    verdict = decide(CITED, Evidence(answers=(*_others_answered_empty(), crossref)), current_year=2026)
    assert verdict.status is not VerdictStatus.NOT_FOUND and not verdict.flagged
    assert verdict.match is not None and verdict.match.doi == CROSSREF_RECORD.doi


def test_absence_is_not_said_before_crossref_answered_though_openalex_did() -> None:
    verdict = decide(CITED, Evidence(answers=tuple(_others_answered_empty())), current_year=2026)
    assert verdict.status is VerdictStatus.UNVERIFIABLE and not verdict.flagged
    assert Reason.SEARCH_INCOMPLETE in verdict.reasons
    assert "not searched: crossref" in verdict.notes
