"""`core.venue_registry`: what the registries' answers say about a cited venue (issue 21).

Properties: silence is evidence only when every registry answered; a look-alike name a fuzzy
search returns never makes a venue known; the shipped table's venues and side events of a known
conference are never asked."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.evidence import Outcome, QueryKind, SourceAnswer, VenueRecord
from aletheia.core.venue_registry import (
    VENUE_REGISTRIES,
    VenueStanding,
    registry_query,
    venue_standing,
)

CITED = "Symposium on Neural Scaling Laws"


def _answer(source: object, outcome: Outcome, *venues: VenueRecord, query: str = CITED) -> SourceAnswer:
    return SourceAnswer(source=source, kind=QueryKind.VENUE, query=query, outcome=outcome, venues=venues)  # type: ignore[arg-type]


@given(
    st.lists(
        st.sampled_from([Outcome.FOUND, Outcome.NOT_FOUND, Outcome.FAILED, None]), min_size=3, max_size=3
    )
)
def test_silence_is_evidence_only_when_every_registry_answered(outcomes: list[Outcome | None]) -> None:
    lookalike = VenueRecord(source=VENUE_REGISTRIES[0], name="Neural Networks")
    answers = [
        _answer(source, outcome, *((lookalike,) if outcome is Outcome.FOUND else ()))
        for source, outcome in zip(VENUE_REGISTRIES, outcomes, strict=True)
        if outcome is not None
    ]
    finding = venue_standing(CITED, answers)
    everyone = all(o in (Outcome.FOUND, Outcome.NOT_FOUND) for o in outcomes)
    assert (finding.standing is VenueStanding.UNKNOWN) == everyone
    assert finding.standing is not VenueStanding.KNOWN


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=3, max_size=40))
def test_a_registry_name_that_is_not_the_cited_one_never_makes_it_known(name: str) -> None:
    entry = VenueRecord(source=VENUE_REGISTRIES[0], name=f"Journal of {name} Letters")
    answers = [
        _answer(s, Outcome.FOUND if i == 0 else Outcome.NOT_FOUND, *((entry,) if i == 0 else ()))
        for i, s in enumerate(VENUE_REGISTRIES)
    ]
    assert venue_standing(CITED, answers).standing is VenueStanding.UNKNOWN


def test_a_registry_holding_the_venue_under_an_abbreviation_or_issn_knows_it() -> None:
    by_acronym = VenueRecord(
        source=VENUE_REGISTRIES[1], name="Symposium on Neural Scaling Laws", abbreviation="SNSL"
    )
    assert venue_standing(
        "SNSL", [_answer(VENUE_REGISTRIES[1], Outcome.FOUND, by_acronym, query="SNSL")]
    ).standing in (
        VenueStanding.KNOWN,
        VenueStanding.UNSETTLED,  # "SNSL" alone: a registry query of an acronym the table lacks
    )
    # The registry was asked for the acronym itself and holds it as the abbreviation: known.
    assert venue_standing(
        "SNSL", [_answer(VENUE_REGISTRIES[1], Outcome.FOUND, by_acronym, query="SNSL")]
    ).standing is (VenueStanding.KNOWN)
    by_issn = VenueRecord(source=VENUE_REGISTRIES[2], name="J. Odd. Names", issn=("0028-0836",))
    finding = venue_standing(
        "Journal of Unusual Names",
        [_answer(VENUE_REGISTRIES[2], Outcome.FOUND, by_issn, query="Journal of Unusual Names")],
        cited_issns=("0028-0836",),
    )
    assert finding.standing is VenueStanding.KNOWN and finding.entries == (by_issn,)


def test_what_is_never_asked() -> None:
    assert registry_query("ICML") is None  # the shipped table knows it
    assert registry_query("NeurIPS 2023 Workshop on Robustness") is None  # a known host's side event
    assert registry_query("arXiv preprint arXiv:2101.00001") is None
    assert registry_query("Springer") is None
    assert registry_query("Proceedings of the 3rd Symposium on Neural Scaling Laws, 2022") == CITED
    assert (
        registry_query("Workshop on Scientific Machine Learning") == "Workshop on Scientific Machine Learning"
    )
