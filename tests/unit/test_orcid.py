"""ORCID iDs across sources: the check character, one person by iD, conflicts by position."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.evidence import Outcome, QueryKind, SourceAnswer
from aletheia.core.orcid import clean_orcid, orcid_conflicts, same_person
from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.core.works import group_works

VALID = "0000-0002-1825-0097"
OTHER = "0000-0001-5109-3700"


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (f"https://orcid.org/{VALID}", VALID),
        ("0000-0002-1694-233x", "0000-0002-1694-233X"),
        ("0000000218250097", VALID),
        ("0000-0002-1825-0098", None),  # wrong check character
        ("not an id", None),
        (None, None),
    ],
)
def test_clean_orcid(raw: str | None, clean: str | None) -> None:
    assert clean_orcid(raw) == clean


@given(st.text(max_size=40))
def test_clean_orcid_is_idempotent(text: str) -> None:
    once = clean_orcid(text)
    assert once is None or clean_orcid(once) == once


def test_same_person_needs_both_ids() -> None:
    a = Author(given="Wei", family="Wang", orcid=VALID)
    assert same_person(a, Author(given="W.", family="Wang", orcid=f"https://orcid.org/{VALID}")) is True
    assert same_person(a, Author(given="Wei", family="Wang", orcid=OTHER)) is False
    assert same_person(a, Author(given="Wei", family="Wang")) is None


def test_an_orcid_match_joins_records_whose_name_forms_differ() -> None:
    # One source writes the family name first: the surnames differ, the iD says one person.
    crossref = WorkRecord(
        source=SourceName.CROSSREF,
        title="Graph sparsification by effective resistances",
        authors=(Author(given="Wei", family="Wang", orcid=VALID),),
    )
    openalex = crossref.model_copy(
        update={"source": SourceName.OPENALEX, "authors": (Author(given="Wang", family="Wei", orcid=VALID),)}
    )
    answers = [
        SourceAnswer(source=r.source, kind=QueryKind.SEARCH, query="q", outcome=Outcome.FOUND, records=(r,))
        for r in (crossref, openalex)
    ]
    assert len(group_works(answers)) == 1
    without = openalex.model_copy(update={"authors": (Author(given="Wang", family="Wei"),)})
    answers[1] = answers[1].model_copy(update={"records": (without,)})
    assert len(group_works(answers)) == 2  # no iD: the surname comparison alone decides


def test_conflicts_are_by_position_and_surname() -> None:
    base = WorkRecord(
        source=SourceName.CROSSREF, title="T", authors=(Author(given="J", family="Smith", orcid=VALID),)
    )
    other = base.model_copy(
        update={"source": SourceName.OPENALEX, "authors": (Author(given="Jo", family="Smith", orcid=OTHER),)}
    )
    (conflict,) = orcid_conflicts([base, other])
    assert conflict.position == 0 and conflict.orcids == (VALID, OTHER)
    assert conflict.sources == (SourceName.CROSSREF, SourceName.OPENALEX)
    renamed = other.model_copy(update={"authors": (Author(given="Jo", family="Jones", orcid=OTHER),)})
    assert orcid_conflicts([base, renamed]) == []  # another person listed there, not a conflict
    assert orcid_conflicts([base, base.model_copy()]) == []  # one source is no conflict
