"""`decide()`: a table of citations and what the sources said, with the verdict each must get."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import (
    Author,
    CitedReference,
    RetractionKind,
    RetractionNotice,
    SourceName,
    WorkRecord,
)
from aletheia.core.verdicts import Reason, Severity, VerdictStatus

YEAR = 2026
C, O, A, S = SourceName.CROSSREF, SourceName.OPENALEX, SourceName.ARXIV, SourceName.SEMANTIC_SCHOLAR  # noqa: E741
D = SourceName.DBLP

RESNET_AUTHORS = (
    Author(given="Kaiming", family="He"),
    Author(given="Xiangyu", family="Zhang"),
    Author(given="Shaoqing", family="Ren"),
    Author(given="Jian", family="Sun"),
)


def work(source: SourceName, **kw: object) -> WorkRecord:
    base: dict[str, object] = {
        "title": "Deep Residual Learning for Image Recognition",
        "authors": RESNET_AUTHORS,
        "year": 2016,
        "venue": "IEEE Conference on Computer Vision and Pattern Recognition (CVPR)",
        "doi": "10.1109/cvpr.2016.90",
    }
    base.update(kw)
    return WorkRecord(source=source, **base)  # type: ignore[arg-type]


def cite(**kw: object) -> CitedReference:
    base: dict[str, object] = {
        "key": "he2016",
        "title": "Deep Residual Learning for Image Recognition",
        "authors": RESNET_AUTHORS,
        "year": 2016,
        "venue": "CVPR",
        "doi": "10.1109/cvpr.2016.90",
    }
    base.update(kw)
    return CitedReference(**base)  # type: ignore[arg-type]


def found(source: SourceName, kind: QueryKind, *records: WorkRecord, query: str = "q") -> SourceAnswer:
    return SourceAnswer(source=source, kind=kind, query=query, outcome=Outcome.FOUND, records=records)


def missing(source: SourceName, kind: QueryKind, query: str = "q") -> SourceAnswer:
    return SourceAnswer(source=source, kind=kind, query=query, outcome=Outcome.NOT_FOUND)


def failed(source: SourceName, kind: QueryKind, query: str = "q") -> SourceAnswer:
    return SourceAnswer(source=source, kind=kind, query=query, outcome=Outcome.FAILED, error="HTTP 503")


def run(cited: CitedReference, *answers: SourceAnswer, notices: tuple[RetractionNotice, ...] = ()) -> object:
    return decide(cited, Evidence(answers=answers, retraction_notices=notices), current_year=YEAR)


def test_doi_confirmed_by_two_sources_is_verified() -> None:
    v = run(cite(), found(C, QueryKind.DOI, work(C)), found(O, QueryKind.DOI, work(O)))
    assert v.status is VerdictStatus.VERIFIED
    assert Reason.TRIANGULATED in v.reasons
    assert v.fields["title"].agrees and v.fields["first_author"].agrees
    assert not v.flagged


def test_single_source_is_verified_but_says_so() -> None:
    v = run(cite(), found(C, QueryKind.DOI, work(C)), missing(O, QueryKind.DOI))
    assert v.status is VerdictStatus.VERIFIED
    assert Reason.SINGLE_SOURCE in v.reasons
    assert "no_secondary_source_available" in v.notes


def test_wrong_first_author_is_a_major_metadata_error() -> None:
    cited = cite(authors=(Author(given="Yifei", family="Liu"), *RESNET_AUTHORS[1:]))
    v = run(cited, found(C, QueryKind.DOI, work(C)), found(O, QueryKind.DOI, work(O)))
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MAJOR
    assert Reason.FIRST_AUTHOR_MISMATCH in v.reasons
    assert v.fields["first_author"].agrees is False
    assert v.corrected["authors"][0] == "Kaiming He"
    assert v.flagged


def test_swapped_authors_are_major() -> None:
    swapped = (RESNET_AUTHORS[1], RESNET_AUTHORS[0], *RESNET_AUTHORS[2:])
    v = run(cite(authors=swapped), found(C, QueryKind.DOI, work(C)), found(O, QueryKind.DOI, work(O)))
    assert v.status is VerdictStatus.METADATA_ERROR and Reason.AUTHORS_SWAPPED in v.reasons


def test_wrong_year_is_major_and_off_by_one_for_versions_is_minor() -> None:
    v = run(cite(year=2019), found(C, QueryKind.DOI, work(C)), found(O, QueryKind.DOI, work(O)))
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MAJOR
    assert Reason.YEAR_MISMATCH in v.reasons and v.corrected["year"] == 2016
    preprint = work(A, doi=None, arxiv_id="1512.03385", year=2015, is_preprint=True, venue=None)
    cited = cite(year=2017, doi=None, arxiv_id=None)
    # A year one off that a source's other date carries (Crossref's print date): minor.
    printed = work(C, other_years=(2017,))
    v = run(cited, found(C, QueryKind.SEARCH, printed), found(A, QueryKind.SEARCH, preprint))
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MINOR
    assert Reason.YEAR_OFF_BY_ONE_VERSIONS in v.reasons
    assert not v.flagged
    # Issue 21: both versions in view (2015, 2016), no date of 2017: wrong, no tolerance.
    v = run(cited, found(C, QueryKind.SEARCH, work(C)), found(A, QueryKind.SEARCH, preprint))
    assert Reason.YEAR_MISMATCH in v.reasons and v.flagged


def test_doi_of_another_work_is_an_identifier_conflict() -> None:
    other = work(
        C,
        title="Mastering the game of Go with deep neural networks and tree search",
        authors=(Author(given="David", family="Silver"),),
        doi="10.1109/cvpr.2016.90",
    )
    v = run(cite(), found(C, QueryKind.DOI, other), missing(C, QueryKind.SEARCH))
    assert v.status is VerdictStatus.IDENTIFIER_CONFLICT
    assert Reason.DOI_POINTS_ELSEWHERE in v.reasons


def test_identifier_elsewhere_but_title_found_names_the_right_doi() -> None:
    other = work(
        C,
        title="Mastering the game of Go",
        authors=(Author(given="David", family="Silver"),),
        doi="10.1038/nature16961",
    )
    cited = cite(doi="10.1038/nature16961")
    v = run(cited, found(C, QueryKind.DOI, other), found(C, QueryKind.SEARCH, work(C)))
    assert v.status is VerdictStatus.IDENTIFIER_CONFLICT
    assert v.corrected["doi"] == "10.1109/cvpr.2016.90"


def test_doi_resolving_nowhere_with_no_title_match_is_fabricated() -> None:
    cited = cite(doi="10.88880/bpr.633067", title="Boost then Convolve Something Unreal")
    v = run(
        cited,
        missing(C, QueryKind.DOI),
        missing(O, QueryKind.DOI),
        missing(C, QueryKind.SEARCH),
        missing(O, QueryKind.SEARCH),
        missing(S, QueryKind.SEARCH),  # logic 2.0: every general index searched
        missing(D, QueryKind.SEARCH),  # logic 2.2: and DBLP, for a computer-science venue (CVPR)
    )
    assert v.status is VerdictStatus.FABRICATED
    assert Reason.IDENTIFIER_RESOLVES_NOWHERE in v.reasons


def test_invented_doi_on_a_real_title_is_a_major_error_with_the_real_doi() -> None:
    cited = cite(doi="10.47281/bed.57189")
    v = run(cited, missing(C, QueryKind.DOI), missing(O, QueryKind.DOI), found(C, QueryKind.SEARCH, work(C)))
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MAJOR
    assert v.corrected["doi"] == "10.1109/cvpr.2016.90"


def test_failed_sources_give_unverifiable_never_not_found() -> None:
    v = run(cite(), failed(C, QueryKind.DOI), failed(O, QueryKind.DOI), failed(C, QueryKind.SEARCH))
    assert v.status is VerdictStatus.UNVERIFIABLE
    assert Reason.SOURCE_UNAVAILABLE in v.reasons
    assert set(v.sources_unavailable) == {C, O}


def test_every_source_answering_no_is_not_found() -> None:
    cited = cite(doi=None, title="A Study of Things That Were Never Written")
    everywhere = (missing(C, QueryKind.SEARCH), missing(O, QueryKind.SEARCH), missing(S, QueryKind.SEARCH))
    v = run(cited, *everywhere, missing(D, QueryKind.SEARCH))
    assert v.status is VerdictStatus.NOT_FOUND and v.flagged
    # Logic 2.2: a computer-science venue (CVPR) is DBLP's too: without its answer, no accusation.
    assert run(cited, *everywhere).status is VerdictStatus.UNVERIFIABLE
    # Logic 2.0: without Semantic Scholar's answer the absence is not yet evidence.
    v = run(cited, missing(C, QueryKind.SEARCH), missing(O, QueryKind.SEARCH))
    assert v.status is VerdictStatus.UNVERIFIABLE and not v.flagged


def test_search_results_that_do_not_match_are_not_a_verification() -> None:
    unrelated = work(
        C,
        title="Squeeze-and-Excitation Networks",
        authors=(Author(given="Jie", family="Hu"),),
        doi="10.1109/cvpr.2018.00745",
    )
    cited = cite(doi=None, title="Residual Squeeze Networks for Everything")
    v = run(
        cited,
        found(C, QueryKind.SEARCH, unrelated),
        missing(O, QueryKind.SEARCH),
        missing(S, QueryKind.SEARCH),
        missing(D, QueryKind.SEARCH),
    )
    assert v.status is VerdictStatus.NOT_FOUND


def test_retracted_work() -> None:
    notice = RetractionNotice(
        kind=RetractionKind.RETRACTED,
        source=SourceName.RETRACTION_WATCH,
        notice_doi="10.1016/s0140-6736(10)60175-4",
    )
    v = run(cite(), found(C, QueryKind.DOI, work(C)), found(O, QueryKind.DOI, work(O)), notices=(notice,))
    assert v.status is VerdictStatus.RETRACTED and v.flagged
    assert v.retraction["kind"] == "retracted"


def test_two_different_works_fitting_equally_is_ambiguous() -> None:
    a = work(C, doi="10.1/a", venue="Journal A")
    b = work(O, doi="10.1/b", venue="Journal B")
    v = run(
        cite(doi=None, year=None, venue=None), found(C, QueryKind.SEARCH, a), found(O, QueryKind.SEARCH, b)
    )
    assert v.status is VerdictStatus.AMBIGUOUS
    assert Reason.SEVERAL_CANDIDATES in v.reasons


def test_future_year_and_placeholder_authors_are_fabricated() -> None:
    v = run(cite(doi=None, year=2033), missing(C, QueryKind.SEARCH))
    assert v.status is VerdictStatus.FABRICATED and Reason.FUTURE_YEAR in v.reasons
    v = run(cite(doi=None, authors=(Author(given="John", family="Doe"),)), missing(C, QueryKind.SEARCH))
    assert v.status is VerdictStatus.FABRICATED and Reason.PLACEHOLDER_AUTHORS in v.reasons


def test_preprint_cited_as_published_is_unconfirmed_and_citing_the_arxiv_version_is_fine() -> None:
    # Logic 2.0: only the preprint visible is absence of evidence of publication: minor, not flagged.
    preprint = work(A, doi=None, arxiv_id="2301.00001", venue=None, is_preprint=True)
    cited = cite(doi=None, arxiv_id="2301.00001", venue="CVPR")
    v = run(
        cited,
        found(A, QueryKind.ARXIV, preprint),
        found(S, QueryKind.ARXIV, preprint.model_copy(update={"source": S})),
    )
    assert v.status is VerdictStatus.METADATA_ERROR and Reason.PUBLISHED_VERSION_UNCONFIRMED in v.reasons
    assert not v.flagged
    published = work(C, arxiv_id=None, related_arxiv_ids=("2301.00001",))
    v = run(cited, found(A, QueryKind.ARXIV, preprint), found(C, QueryKind.SEARCH, published))
    assert v.status is VerdictStatus.VERIFIED


def test_wrong_venue_is_major() -> None:
    v = run(cite(venue="ICML"), found(C, QueryKind.DOI, work(C)), found(O, QueryKind.DOI, work(O)))
    assert v.status is VerdictStatus.METADATA_ERROR and Reason.VENUE_MISMATCH in v.reasons


def test_near_miss_title_is_caught_even_above_the_fuzzy_threshold() -> None:
    real = "BiasAdv: Bias-Adversarial Augmentation for Model Debiasing"
    cited = cite(
        doi="10.1109/cvpr52729.2023.00373",
        title="BiasAdv: Bias-Adversarial Augmentation towards Model Debiasing",
    )
    rec = work(C, title=real, doi="10.1109/cvpr52729.2023.00373")
    v = run(
        cited, found(C, QueryKind.DOI, rec), found(O, QueryKind.DOI, rec.model_copy(update={"source": O}))
    )
    assert v.status is VerdictStatus.METADATA_ERROR
    assert v.fields["title"].agrees is False


def test_latex_and_case_noise_in_titles_still_verify() -> None:
    cited = cite(title="Deep {R}esidual {L}earning for {I}mage {R}ecognition")
    v = run(cited, found(C, QueryKind.DOI, work(C)), found(O, QueryKind.DOI, work(O)))
    assert v.status is VerdictStatus.VERIFIED


def test_software_is_out_of_scope() -> None:
    v = run(cite(entry_type="software", doi=None))
    assert v.status is VerdictStatus.OUT_OF_SCOPE and not v.flagged


@pytest.mark.parametrize("outcome", [Outcome.NOT_FOUND, Outcome.FAILED])
def test_nothing_answered_is_never_verified(outcome: Outcome) -> None:
    answers = [SourceAnswer(source=s, kind=QueryKind.DOI, query="q", outcome=outcome) for s in (C, O)]
    assert run(cite(), *answers).status is not VerdictStatus.VERIFIED


@settings(max_examples=60, deadline=None)
@given(
    statuses=st.lists(st.sampled_from([Outcome.NOT_FOUND, Outcome.FAILED]), min_size=0, max_size=4),
    title=st.text(min_size=0, max_size=60),
)
def test_default_deny_no_match_no_verified(statuses: list[Outcome], title: str) -> None:
    """Whatever the citation says, without a source that answered with a record it is never verified."""
    answers = [
        SourceAnswer(source=C, kind=QueryKind.SEARCH, query=str(i), outcome=o) for i, o in enumerate(statuses)
    ]
    v = decide(cite(title=title or None, doi=None), Evidence(answers=tuple(answers)), current_year=YEAR)
    assert v.status is not VerdictStatus.VERIFIED
    if any(o is Outcome.FAILED for o in statuses) and v.status not in (VerdictStatus.FABRICATED,):
        assert v.status is VerdictStatus.UNVERIFIABLE


def test_a_web_page_without_authors_is_out_of_scope_not_missing() -> None:
    page = CitedReference(
        key="ffmpeg",
        entry_type="misc",
        fields={"title": "FFmpeg", "howpublished": r"\url{https://ffmpeg.org}"},
        title="FFmpeg",
    )
    v = run(page, missing(C, QueryKind.SEARCH), missing(O, QueryKind.SEARCH))
    assert v.status is VerdictStatus.OUT_OF_SCOPE and not v.flagged
    # Logic 2.0: with authors but still only a web URL and no venue it is a web page too.
    by_person = page.model_copy(update={"authors": (Author(given="Fabrice", family="Bellard"),)})
    assert run(by_person).status is VerdictStatus.OUT_OF_SCOPE
    # With authors and a venue it is a citation like any other, and judged.
    authored = by_person.model_copy(update={"venue": "Proceedings of the Video Codec Symposium"})
    searched = (missing(C, QueryKind.SEARCH), missing(O, QueryKind.SEARCH), missing(S, QueryKind.SEARCH))
    assert run(authored, *searched, missing(A, QueryKind.SEARCH)).status is VerdictStatus.NOT_FOUND
    # An @misc arXiv preprint is not a web page.
    preprint = page.model_copy(update={"arxiv_id": "2301.00001"})
    assert run(preprint).status is not VerdictStatus.OUT_OF_SCOPE
