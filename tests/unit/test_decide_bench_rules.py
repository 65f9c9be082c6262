"""Rules added while measuring against HALLMARK and real bibliographies (logic 1.2): each is a
general rule about citations, tested here on hand-made records."""

from __future__ import annotations

from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import Reason, Severity, Verdict, VerdictStatus

YEAR = 2026
C, O, A, S = SourceName.CROSSREF, SourceName.OPENALEX, SourceName.ARXIV, SourceName.SEMANTIC_SCHOLAR  # noqa: E741

AUTHORS = (
    Author(given="Ingrid", family="Solberg"),
    Author(given="Tomás", family="Quintero"),
    Author(given="Mei", family="Hayashi"),
    Author(given="Olu", family="Adeyemi"),
    Author(given="Rhys", family="Penhallow"),
)
TITLE = "Sparse Kernel Estimators for Tidal Sediment Transport"


def record(source: SourceName, **kw: object) -> WorkRecord:
    base: dict[str, object] = {
        "title": TITLE,
        "authors": AUTHORS,
        "year": 2021,
        "venue": "Journal of Coastal Dynamics",
        "doi": "10.5555/jcd.2021.0417",
    }
    base.update(kw)
    return WorkRecord(source=source, **base)  # type: ignore[arg-type]


def cite(**kw: object) -> CitedReference:
    base: dict[str, object] = {
        "key": "solberg2021",
        "title": TITLE,
        "authors": AUTHORS,
        "year": 2021,
        "venue": "Journal of Coastal Dynamics",
        "doi": "10.5555/jcd.2021.0417",
    }
    base.update(kw)
    return CitedReference(**base)  # type: ignore[arg-type]


def answer(source: SourceName, kind: QueryKind, query: str, *records: WorkRecord) -> SourceAnswer:
    outcome = Outcome.FOUND if records else Outcome.NOT_FOUND
    return SourceAnswer(source=source, kind=kind, query=query, outcome=outcome, records=records)


def run(cited: CitedReference, *answers: SourceAnswer) -> Verdict:
    return decide(cited, Evidence(answers=answers), current_year=YEAR)


# --- co-authors left out of the middle of the list --------------------------------------------------


def test_co_authors_dropped_from_the_middle_are_a_major_author_list_error() -> None:
    cited = cite(authors=(AUTHORS[0], AUTHORS[4]))
    v = run(
        cited,
        answer(C, QueryKind.DOI, "10.5555/jcd.2021.0417", record(C)),
        answer(O, QueryKind.DOI, "10.5555/jcd.2021.0417", record(O)),
    )
    assert v.status is VerdictStatus.METADATA_ERROR
    assert v.severity is Severity.MAJOR
    assert Reason.AUTHOR_LIST_DIFFERS in v.reasons
    assert v.fields["authors"].agrees is False


def test_one_co_author_dropped_from_a_long_list_is_minor() -> None:
    cited = cite(authors=(AUTHORS[0], AUTHORS[1], AUTHORS[3], AUTHORS[4]))
    # One source lists the co-author the citation leaves out: minor (a source may hold a wrong
    # extra name).
    v = run(cited, answer(C, QueryKind.DOI, "10.5555/jcd.2021.0417", record(C)))
    assert v.status is VerdictStatus.METADATA_ERROR
    assert v.severity is Severity.MINOR
    assert Reason.AUTHOR_LIST_DIFFERS in v.reasons
    # Both list them (issue 21): the omission is confirmed by two sources, major.
    v = run(
        cited,
        answer(C, QueryKind.DOI, "10.5555/jcd.2021.0417", record(C)),
        answer(O, QueryKind.DOI, "10.5555/jcd.2021.0417", record(O)),
    )
    assert v.severity is Severity.MAJOR and Reason.AUTHOR_LIST_DIFFERS in v.reasons


def test_a_list_marked_et_al_may_leave_authors_out() -> None:
    cited = cite(authors=(AUTHORS[0], AUTHORS[1]), authors_truncated=True)
    v = run(
        cited,
        answer(C, QueryKind.DOI, "10.5555/jcd.2021.0417", record(C)),
        answer(O, QueryKind.DOI, "10.5555/jcd.2021.0417", record(O)),
    )
    assert v.status is VerdictStatus.VERIFIED


# --- identifier answers count only for the identifier they asked about ------------------------------


def test_a_second_source_lookup_of_the_real_doi_does_not_resolve_an_invented_one() -> None:
    invented = "10.99999/made.up.4242"
    cited = cite(doi=invented)
    v = run(
        cited,
        answer(C, QueryKind.DOI, invented),
        answer(O, QueryKind.DOI, invented),
        answer(O, QueryKind.SEARCH, TITLE, record(O)),
        answer(C, QueryKind.DOI, "10.5555/jcd.2021.0417", record(C)),  # the triangulation lookup
    )
    assert Reason.DOI_RESOLVED not in v.reasons
    assert Reason.IDENTIFIER_RESOLVES_NOWHERE in v.reasons
    assert v.status is VerdictStatus.METADATA_ERROR
    assert v.corrected.get("doi") == "10.5555/jcd.2021.0417"


def test_a_reference_cited_without_a_doi_is_not_judged_on_the_second_sources_doi_lookup() -> None:
    cited = cite(doi=None)
    v = run(
        cited,
        answer(O, QueryKind.SEARCH, TITLE, record(O)),
        answer(C, QueryKind.DOI, "10.5555/jcd.2021.0417"),  # Crossref lacks it: says nothing of the citation
    )
    assert Reason.DOI_NOT_FOUND not in v.reasons
    assert Reason.IDENTIFIER_RESOLVES_NOWHERE not in v.reasons
    assert v.status is VerdictStatus.VERIFIED


# --- a preprint server as the only venue is no evidence of publication -----------------------------


def test_venue_claimed_for_a_paper_only_on_arxiv_is_an_unconfirmed_publication() -> None:
    # Logic 2.0 (issue 10): S2's "arXiv.org" is the published record not being visible, not
    # positive evidence that the paper is preprint-only: reported (minor), not flagged.
    arxiv_id = "2602.04242"
    preprint = record(A, doi=None, venue=None, arxiv_id=arxiv_id, is_preprint=True, work_type="preprint")
    s2 = record(S, doi=None, venue="arXiv.org", arxiv_id=arxiv_id)  # S2 gives no preprint type
    cited = cite(doi=None, arxiv_id=arxiv_id, venue="International Conference on Machine Learning")
    v = run(cited, answer(A, QueryKind.ARXIV, arxiv_id, preprint), answer(S, QueryKind.ARXIV, arxiv_id, s2))
    assert v.status is VerdictStatus.METADATA_ERROR and not v.flagged
    assert Reason.PUBLISHED_VERSION_UNCONFIRMED in v.reasons


def test_citing_the_arxiv_preprint_as_arxiv_is_fine() -> None:
    arxiv_id = "2602.04242"
    preprint = record(A, doi=None, venue=None, arxiv_id=arxiv_id, is_preprint=True, work_type="preprint")
    s2 = record(S, doi=None, venue="arXiv.org", arxiv_id=arxiv_id)
    cited = cite(doi=None, arxiv_id=arxiv_id, venue=f"arXiv preprint arXiv:{arxiv_id}")
    v = run(cited, answer(A, QueryKind.ARXIV, arxiv_id, preprint), answer(S, QueryKind.ARXIV, arxiv_id, s2))
    assert v.status is VerdictStatus.VERIFIED
