"""The venue rows with positive evidence (issue 21): the registries' answers about the cited
venue and the preprint-only answers of the sources that record publications, each row pinned by
a test here (imported into test_decide_rules.py, where every row must name its test).

The records are made up in the documented shapes: OpenAlex `/sources` (display_name,
alternate_titles, abbreviated_title, issn), DBLP `/search/venue/api` (venue, acronym), Crossref
`/journals` (title, ISSN).
"""

from __future__ import annotations

from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer, VenueRecord
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import Reason, Verdict

__all__ = [
    "test_preprint_only_at_two_sources_is_cited_as_published",
    "test_venue_no_registry_holds_is_nonexistent",
    "test_venue_registered_elsewhere_is_wrong_venue",
]

YEAR = 2026
OA, DB, CR, S2, AX = (
    SourceName.OPENALEX,
    SourceName.DBLP,
    SourceName.CROSSREF,
    SourceName.SEMANTIC_SCHOLAR,
    SourceName.ARXIV,
)
TITLE = "Robust Deep Reinforcement Learning through Bootstrapped Opportunistic Curriculum"
AUTHORS = (Author(given="Junlin", family="Wu"), Author(given="Yevgeniy", family="Vorobeychik"))


def _cite(venue: str, **kw: object) -> CitedReference:
    base: dict[str, object] = {
        "key": "wu2022",
        "entry_type": "inproceedings",
        "title": TITLE,
        "authors": AUTHORS,
        "year": 2022,
        "venue": venue,
    }
    base.update(kw)
    return CitedReference(**base)  # type: ignore[arg-type]


def _work(source: SourceName, **kw: object) -> WorkRecord:
    base: dict[str, object] = {
        "title": TITLE,
        "authors": AUTHORS,
        "year": 2022,
        "venue": "International Conference on Machine Learning",
    }
    base.update(kw)
    return WorkRecord(source=source, **base)  # type: ignore[arg-type]


def _found(*records: WorkRecord) -> list[SourceAnswer]:
    answers = [
        SourceAnswer(source=r.source, kind=QueryKind.SEARCH, query="q", outcome=Outcome.FOUND, records=(r,))
        for r in records
    ]
    seen = {r.source for r in records}
    others = (OA, CR, S2, AX, SourceName.PUBMED, DB)
    answers += [
        SourceAnswer(source=s, kind=QueryKind.SEARCH, query="q", outcome=Outcome.NOT_FOUND)
        for s in others
        if s not in seen
    ]
    return answers


def _registry(query: str, outcome: Outcome, source: SourceName, *venues: VenueRecord) -> SourceAnswer:
    return SourceAnswer(source=source, kind=QueryKind.VENUE, query=query, outcome=outcome, venues=venues)


def _run(cited: CitedReference, *answers: SourceAnswer) -> Verdict:
    return decide(cited, Evidence(answers=answers), current_year=YEAR)


def test_venue_no_registry_holds_is_nonexistent() -> None:
    venue = "Symposium on Neural Scaling Laws"
    works = _found(_work(OA), _work(S2))
    # Each registry's fuzzy search returns look-alikes; none is the cited venue under any name.
    lookalike = VenueRecord(source=OA, name="Neural Networks", alternate_names=("Neural Netw.",))
    symposium = VenueRecord(source=DB, name="Symposium on Theory of Computing", abbreviation="STOC")
    registries = [
        _registry(venue, Outcome.FOUND, OA, lookalike),
        _registry(venue, Outcome.FOUND, DB, symposium),
        _registry(venue, Outcome.NOT_FOUND, CR),
    ]
    v = _run(_cite(venue), *works, *registries)
    assert Reason.NONEXISTENT_VENUE in v.reasons and v.flagged, v.reasons
    # Without the registries, the same reference is only `venue_unresolved` (minor): no evidence.
    before = _run(_cite(venue), *works)
    assert Reason.VENUE_UNRESOLVED in before.reasons and not before.flagged
    # A registry that failed leaves it unsettled: no accusation from a silence we did not hear.
    failed = _registry(venue, Outcome.FAILED, CR)
    half = _run(_cite(venue), *works, *registries[:2], failed)
    assert Reason.NONEXISTENT_VENUE not in half.reasons and not half.flagged
    # One registry alone is not enough.
    alone = _run(_cite(venue), *works, registries[0])
    assert Reason.NONEXISTENT_VENUE not in alone.reasons
    # A registry that holds it under an alternate title: it exists; only the minor note stays.
    real = VenueRecord(source=OA, name="Some Proceedings", alternate_names=(venue,))
    known = _run(_cite(venue), *works, _registry(venue, Outcome.FOUND, OA, real), *registries[1:])
    assert Reason.NONEXISTENT_VENUE not in known.reasons


def test_venue_registered_elsewhere_is_wrong_venue() -> None:
    venue = "Journal of Statistical Machine Learning Theory"
    works = _found(_work(OA), _work(S2))
    jsmlt = VenueRecord(source=OA, name=venue, issn=("1234-5679",), kind="journal")
    registries = [
        _registry(venue, Outcome.FOUND, OA, jsmlt),
        _registry(venue, Outcome.NOT_FOUND, DB),
        _registry(venue, Outcome.NOT_FOUND, CR),
    ]
    v = _run(_cite(venue), *works, *registries)
    assert Reason.VENUE_MISMATCH in v.reasons and v.flagged, v.reasons
    assert Reason.NONEXISTENT_VENUE not in v.reasons
    # A preprint-only work: no published venue to contradict the cited one with this row.
    preprint = _found(_work(AX, venue=None, is_preprint=True, arxiv_id="2201.00001"))
    p = _run(_cite(venue), *preprint, *registries)
    assert Reason.VENUE_MISMATCH not in p.reasons


def test_preprint_only_at_two_sources_is_cited_as_published() -> None:
    arxiv_id = "2201.00001"
    ax = _work(AX, venue=None, is_preprint=True, arxiv_id=arxiv_id)
    s2 = _work(S2, venue="arXiv.org", arxiv_id=arxiv_id)
    corr = _work(
        DB,
        venue="CoRR",
        arxiv_id=arxiv_id,
        doi=f"10.48550/arxiv.{arxiv_id}",
        dblp_key="journals/corr/abs-2201-00001",
    )
    oa = _work(OA, venue="arXiv (Cornell University)", is_preprint=True, doi=f"10.48550/arxiv.{arxiv_id}")

    def by(kind: QueryKind, *records: WorkRecord) -> list[SourceAnswer]:
        return [
            SourceAnswer(source=r.source, kind=kind, query="q", outcome=Outcome.FOUND, records=(r,))
            for r in records
        ]

    # Semantic Scholar's merged record and DBLP's title search both show the preprint only, for a
    # computing venue: "published" is contradicted.
    v = _run(_cite("ICML"), *by(QueryKind.ARXIV, ax, s2), *by(QueryKind.SEARCH, corr))
    assert Reason.PREPRINT_CITED_AS_PUBLISHED in v.reasons and v.flagged, v.reasons
    # Semantic Scholar alone: unconfirmed, minor.
    one = _run(_cite("ICML"), *by(QueryKind.ARXIV, ax, s2))
    assert Reason.PUBLISHED_VERSION_UNCONFIRMED in one.reasons and not one.flagged
    # OpenAlex's record of the arXiv copy, looked up by its DataCite DOI, is no witness: OpenAlex
    # keeps a work per version, so the proceedings paper may be another work of its own.
    by_doi = _run(_cite("ICML"), *by(QueryKind.ARXIV, ax, s2), *by(QueryKind.DOI, oa))
    assert Reason.PREPRINT_CITED_AS_PUBLISHED not in by_doi.reasons and not by_doi.flagged
    # For a computing venue, a title search of OpenAlex is not enough: DBLP is the index of record.
    oa_search = _run(_cite("ICML"), *by(QueryKind.ARXIV, ax, s2), *by(QueryKind.SEARCH, oa))
    assert Reason.PREPRINT_CITED_AS_PUBLISHED not in oa_search.reasons
    # Outside computing, OpenAlex's title search finding the preprint only is the second witness.
    chem = _run(_cite("Journal of Chemical Physics"), *by(QueryKind.ARXIV, ax, s2), *by(QueryKind.SEARCH, oa))
    assert Reason.PREPRINT_CITED_AS_PUBLISHED in chem.reasons and chem.flagged, chem.reasons
    # A DBLP conference key at one source places it: published, no accusation.
    placed = s2.model_copy(update={"dblp_key": "conf/icml/WuV22"})
    ok = _run(_cite("ICML"), *by(QueryKind.ARXIV, ax, placed), *by(QueryKind.SEARCH, corr))
    assert Reason.PREPRINT_CITED_AS_PUBLISHED not in ok.reasons
