"""The ACL Anthology id as an identifier (`QueryKind.ACL`, `case._ID_KINDS`), through the generic
identifier rows of `decide`: resolved, not found (the anthology is the registry of its own ids, so
as for a DOI that resolves nowhere), points elsewhere, failed.

Imported into test_decide_rules.py with the other tier cases; the records are made up in the shape
of the anthology's BibTeX export (`acl_anthology_parse`): source id the anthology id, ACL's DOI.
"""

from __future__ import annotations

from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import FLAGGED_STATUSES, Reason, Severity, Verdict, VerdictStatus

__all__ = [
    "test_acl_id_another_anthology_id_asked_says_nothing_of_the_cited_one",
    "test_acl_id_failed_lookup_accuses_nothing",
    "test_acl_id_not_found_with_nothing_anywhere_is_fabricated",
    "test_acl_id_not_found_with_the_paper_found_by_search_is_a_major_error",
    "test_acl_id_pointing_at_another_paper_is_a_conflict",
    "test_acl_id_resolving_to_the_cited_paper_verifies_it",
]

YEAR = 2026
ACL, OA, CR, S2, DBLP = (
    SourceName.ACL_ANTHOLOGY,
    SourceName.OPENALEX,
    SourceName.CROSSREF,
    SourceName.SEMANTIC_SCHOLAR,
    SourceName.DBLP,
)
SEARCHED = (OA, CR, S2, SourceName.ARXIV, SourceName.PUBMED, DBLP)
ACL_ID = "2023.acl-long.123"
TITLE = "Morphological probes for low-resource dependency parsing"
AUTHORS = (Author(given="Aigerim", family="Bekova"), Author(given="Rui", family="Santos"))
VENUE = "Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics"


def cited(url: str = f"https://aclanthology.org/{ACL_ID}/", **kw: object) -> CitedReference:
    base: dict[str, object] = {
        "key": "bekova2023",
        "entry_type": "inproceedings",
        "title": TITLE,
        "authors": AUTHORS,
        "year": 2023,
        "venue": "ACL",
        "url": url,
    }
    base.update(kw)
    return CitedReference(**base)  # type: ignore[arg-type]


def paper(source: SourceName, **kw: object) -> WorkRecord:
    base: dict[str, object] = {
        "title": TITLE,
        "authors": AUTHORS,
        "year": 2023,
        "venue": VENUE,
        "work_type": "proceedings-article",
        "doi": f"10.18653/v1/{ACL_ID}",
    }
    if source is ACL:
        base["source_id"] = ACL_ID
    base.update(kw)
    return WorkRecord(source=source, **base)  # type: ignore[arg-type]


OTHER = {
    "title": "Retrieval-augmented sarcasm detection in code-switched tweets",
    "authors": (Author(given="Lena", family="Okoro"),),
    "doi": "10.18653/v1/2023.acl-long.124",
    "source_id": "2023.acl-long.124",
}


def acl(*records: WorkRecord, query: str = ACL_ID, failed: bool = False) -> SourceAnswer:
    outcome = Outcome.FAILED if failed else Outcome.FOUND if records else Outcome.NOT_FOUND
    return SourceAnswer(source=ACL, kind=QueryKind.ACL, query=query, outcome=outcome, records=records)


def searched(*records: WorkRecord) -> list[SourceAnswer]:
    hits = [
        SourceAnswer(source=r.source, kind=QueryKind.SEARCH, query="q", outcome=Outcome.FOUND, records=(r,))
        for r in records
    ]
    answered = {r.source for r in records}
    return hits + [
        SourceAnswer(source=s, kind=QueryKind.SEARCH, query="q", outcome=Outcome.NOT_FOUND)
        for s in SEARCHED
        if s not in answered
    ]


def run(c: CitedReference, *answers: SourceAnswer) -> Verdict:
    return decide(c, Evidence(answers=answers), current_year=YEAR)


def test_acl_id_resolving_to_the_cited_paper_verifies_it() -> None:
    v = run(cited(), acl(paper(ACL)))
    assert v.status is VerdictStatus.VERIFIED and Reason.ACL_ID_RESOLVED in v.reasons, v
    assert v.match is not None and v.match.source is ACL
    # The old id form in an old aclweb.org PDF link is the same identifier.
    old = paper(ACL, source_id="P19-1001", doi="10.18653/v1/P19-1001")
    v = run(cited(url="https://www.aclweb.org/anthology/P19-1001.pdf"), acl(old, query="P19-1001"))
    assert v.status is VerdictStatus.VERIFIED and Reason.ACL_ID_RESOLVED in v.reasons, v
    # With a second source of the same paper (ACL's DOI at Crossref), it is triangulated.
    doi = f"10.18653/v1/{ACL_ID}"
    crossref = SourceAnswer(
        source=CR, kind=QueryKind.DOI, query=doi, outcome=Outcome.FOUND, records=(paper(CR),)
    )
    v = run(cited(), acl(paper(ACL)), crossref)
    assert v.status is VerdictStatus.VERIFIED and Reason.TRIANGULATED in v.reasons, v


def test_acl_id_not_found_with_the_paper_found_by_search_is_a_major_error() -> None:
    """The anthology is the registry of its ids: a well-formed id it has no paper under is an
    invented identifier on a real paper, as for a DOI registered nowhere."""
    v = run(cited(), acl(), *searched(paper(OA)))
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MAJOR, v
    assert Reason.ACL_ID_NOT_FOUND in v.reasons and Reason.IDENTIFIER_RESOLVES_NOWHERE in v.reasons


def test_acl_id_not_found_with_nothing_anywhere_is_fabricated() -> None:
    v = run(cited(), acl(), *searched())
    assert v.status is VerdictStatus.FABRICATED and Reason.IDENTIFIER_RESOLVES_NOWHERE in v.reasons, v
    # ...but only once every source that could hold the paper answered: a failed search accuses nobody.
    answers = [a for a in searched() if a.source is not DBLP]
    answers.append(SourceAnswer(source=DBLP, kind=QueryKind.SEARCH, query="q", outcome=Outcome.FAILED))
    v = run(cited(), acl(), *answers)
    assert v.status is VerdictStatus.UNVERIFIABLE, v


def test_acl_id_failed_lookup_accuses_nothing() -> None:
    v = run(cited(), acl(failed=True), *searched())
    assert v.status is VerdictStatus.UNVERIFIABLE and v.status not in FLAGGED_STATUSES, v
    assert Reason.IDENTIFIER_RESOLVES_NOWHERE not in v.reasons
    assert Reason.ACL_ID_NOT_FOUND not in v.reasons


def test_acl_id_pointing_at_another_paper_is_a_conflict() -> None:
    other = paper(ACL, **OTHER)  # type: ignore[arg-type]
    v = run(cited(), acl(other), *searched())
    assert v.status is VerdictStatus.IDENTIFIER_CONFLICT and Reason.ACL_ID_POINTS_ELSEWHERE in v.reasons, v
    # The cited paper found by search under the wrong id: still a conflict, named for the anthology
    # id (not for a DOI the citation does not give).
    right = paper(OA, doi=None)
    v = run(cited(), acl(other), *searched(right))
    assert v.status is VerdictStatus.IDENTIFIER_CONFLICT, v
    assert Reason.ACL_ID_POINTS_ELSEWHERE in v.reasons and Reason.DOI_POINTS_ELSEWHERE not in v.reasons


def test_acl_id_another_anthology_id_asked_says_nothing_of_the_cited_one() -> None:
    """A lookup of another anthology id (not the cited one) neither resolves nor refutes it."""
    v = run(cited(), acl(query="2023.acl-long.124"), *searched(paper(OA)))
    assert Reason.ACL_ID_NOT_FOUND not in v.reasons and Reason.IDENTIFIER_RESOLVES_NOWHERE not in v.reasons
    assert v.status is VerdictStatus.VERIFIED, v
