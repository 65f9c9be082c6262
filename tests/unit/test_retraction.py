"""combine_retraction_status and split_title_marker (aletheia.core.retraction): pure."""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from aletheia.core.records import RetractionKind, RetractionNotice, SourceName
from aletheia.core.retraction import SEVERITY, combine_retraction_status, split_title_marker

CR, OA, RW = SourceName.CROSSREF, SourceName.OPENALEX, SourceName.RETRACTION_WATCH


def notice(
    kind: RetractionKind, source: SourceName, doi: str | None = None, date: str | None = None
) -> RetractionNotice:
    return RetractionNotice(kind=kind, source=source, notice_doi=doi, date=date)


def test_no_evidence_is_no_standing() -> None:
    status = combine_retraction_status([], consulted=[CR, OA])
    assert status.kind is RetractionKind.NONE
    assert status.evidence == ()
    assert status.not_reporting == (CR, OA)
    assert not status.flagged
    assert status.notice is None


def test_the_most_severe_standing_wins_and_the_sources_that_agree_are_named() -> None:
    status = combine_retraction_status(
        [
            notice(RetractionKind.CORRECTED, CR, "10.1/corr"),
            notice(RetractionKind.RETRACTED, OA),
            notice(RetractionKind.EXPRESSION_OF_CONCERN, RW, "10.1/eoc"),
            notice(RetractionKind.RETRACTED, RW, "10.1/retr", "2021-06-03"),
        ],
        consulted=[CR, OA, RW],
    )
    assert status.kind is RetractionKind.RETRACTED
    assert status.flagged
    assert status.sources == (OA, RW)
    assert status.not_reporting == (CR,)
    assert [n.kind for n in status.evidence] == [
        RetractionKind.RETRACTED,
        RetractionKind.RETRACTED,
        RetractionKind.EXPRESSION_OF_CONCERN,
        RetractionKind.CORRECTED,
    ]
    assert status.notice is not None and status.notice.notice_doi == "10.1/retr"  # the one with a DOI


@pytest.mark.parametrize(
    ("kinds", "expected"),
    [
        ([RetractionKind.WITHDRAWN, RetractionKind.EXPRESSION_OF_CONCERN], RetractionKind.WITHDRAWN),
        (
            [RetractionKind.CORRECTED, RetractionKind.EXPRESSION_OF_CONCERN],
            RetractionKind.EXPRESSION_OF_CONCERN,
        ),
        ([RetractionKind.CORRECTED], RetractionKind.CORRECTED),
        ([RetractionKind.NONE], RetractionKind.NONE),
    ],
)
def test_precedence(kinds: list[RetractionKind], expected: RetractionKind) -> None:
    assert combine_retraction_status(notice(k, CR, f"10.1/{i}") for i, k in enumerate(kinds)).kind is expected


def test_the_same_notice_from_two_routes_counts_once() -> None:
    status = combine_retraction_status(
        [
            notice(RetractionKind.RETRACTED, CR, "10.1/Notice"),
            notice(RetractionKind.RETRACTED, CR, "10.1/notice", "2020-01-01"),
        ]
    )
    assert len(status.evidence) == 1


def test_a_later_dated_reinstatement_lifts_the_retraction() -> None:
    status = combine_retraction_status(
        [
            notice(RetractionKind.RETRACTED, RW, "10.1/r", "2019-05-01"),
            notice(RetractionKind.CORRECTED, CR, "10.1/c", "2018-01-01"),
            notice(RetractionKind.REINSTATED, RW, "10.1/back", "2020-02-02"),
        ]
    )
    assert status.kind is RetractionKind.CORRECTED
    assert status.reinstated
    assert [n.notice_doi for n in status.lifted] == ["10.1/r"]
    assert len(status.evidence) == 3  # the lifted retraction stays in the evidence


@pytest.mark.parametrize(
    ("retracted", "reinstated"),
    [(None, "2020-02-02"), ("2019-05-01", None), ("2020", "2020-02-02"), ("2021-01-01", "2020-02-02")],
)
def test_a_reinstatement_that_cannot_be_placed_after_the_retraction_lifts_nothing(
    retracted: str | None, reinstated: str | None
) -> None:
    status = combine_retraction_status(
        [
            notice(RetractionKind.RETRACTED, RW, "10.1/r", retracted),
            notice(RetractionKind.REINSTATED, RW, "10.1/b", reinstated),
        ]
    )
    assert status.kind is RetractionKind.RETRACTED
    assert status.reinstated
    assert status.lifted == ()


KINDS = st.sampled_from(list(RetractionKind))
SOURCES = st.sampled_from(list(SourceName))
DATES = st.none() | st.dates().map(lambda d: d.isoformat())
NOTICES = st.builds(
    RetractionNotice,
    kind=KINDS,
    source=SOURCES,
    notice_doi=st.none() | st.sampled_from(["10.1/a", "10.1/b", "10.1/c"]),
    date=DATES,
)


@given(st.lists(NOTICES, max_size=8), st.randoms())
# Found by this property: one notice DOI arriving dated and undated decided whether a reinstatement
# lifted it, depending on which copy came first.
@example(
    [
        RetractionNotice(kind=RetractionKind.RETRACTED, source=RW, notice_doi="10.1/a"),
        RetractionNotice(kind=RetractionKind.RETRACTED, source=RW, notice_doi="10.1/a", date="2019-01-01"),
        RetractionNotice(kind=RetractionKind.REINSTATED, source=RW, notice_doi="10.1/b", date="2020-01-01"),
    ],
    random.Random(1),
)
def test_the_status_does_not_depend_on_the_order_of_the_evidence(
    notices: list[RetractionNotice], rnd: random.Random
) -> None:
    shuffled = list(notices)
    rnd.shuffle(shuffled)
    assert combine_retraction_status(notices) == combine_retraction_status(shuffled)
    assert combine_retraction_status(notices) == combine_retraction_status(reversed(notices))


@given(st.lists(NOTICES.filter(lambda n: n.kind is not RetractionKind.REINSTATED), max_size=8))
def test_without_reinstatements_the_status_is_the_most_severe_notice(notices: list[RetractionNotice]) -> None:
    status = combine_retraction_status(notices)
    expected = max((SEVERITY[n.kind] for n in notices), default=0)
    assert SEVERITY[status.kind] == expected
    assert set(status.sources) == {n.source for n in notices if n.kind is status.kind}


@pytest.mark.parametrize(
    ("title", "rest", "kind"),
    [
        ("RETRACTED: Eels navigate by starlight", "Eels navigate by starlight", RetractionKind.RETRACTED),
        ("RETRACTED ARTICLE: Eels", "Eels", RetractionKind.RETRACTED),
        ("[RETRACTED] Eels", "[RETRACTED] Eels", None),  # no separator: not the publishers' form
        ("WITHDRAWN: Eels", "Eels", RetractionKind.WITHDRAWN),
        # A notice's title names the article it retracts; it is not the retracted article.
        ("Retracted: Eels navigate by starlight", "Retracted: Eels navigate by starlight", None),
        ("Retraction: Eels", "Retraction: Eels", None),
        ("RETRACTED", "RETRACTED", None),
    ],
)
def test_split_title_marker(title: str, rest: str, kind: RetractionKind | None) -> None:
    assert split_title_marker(title) == (rest, kind)
