"""Accepted overrides (issue 29): which later disagreements a human override already decided."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.artifact_overrides import (
    accepted_override,
    legacy_override_notes,
    override_note,
    overrides_of,
    same_value,
)
from aletheia.core.artifacts import DECISIVE_FIELDS, ArtifactFrontmatter, OverriddenConflict, Triangulation
from aletheia.core.records import SourceName

SURNAME = OverriddenConflict(
    field="first_author_surname", source=SourceName.ARXIV, recorded="Lindqvist", accepted="Tanaka"
)


@pytest.mark.parametrize(
    ("field", "first", "second", "same"),
    [
        ("title", "Trimmed Median Aggregation", "Trimmed median aggregation.", True),
        ("title", "Trimmed Median Aggregation", "Krum Aggregation Revisited", False),
        ("first_author_surname", "García-Pérez", "Garcia Perez", True),
        ("first_author_surname", "Tanaka", "Tanака", False),
        ("doi", "10.1000/ABC", "https://doi.org/10.1000/abc", True),
        ("doi", "10.1000/abc", "10.1000/abd", False),
        ("arxiv_id", "2304.01234v2", "2304.01234", True),
        ("arxiv_id", "2304.01234", "2304.01235", False),
        ("year", "2023", " 2023", True),
        ("year", "2023", "2024", False),
        ("pmid", "PMID: 123", "123", True),
        ("year", None, None, True),
        ("year", "2023", None, False),
    ],
)
def test_values_compare_as_the_gate_compares_them(
    field: str, first: str | None, second: str | None, same: bool
) -> None:
    assert same_value(field, first, second) is same


@given(st.sampled_from(DECISIVE_FIELDS), st.none() | st.text(max_size=30), st.none() | st.text(max_size=30))
def test_same_value_is_reflexive_and_symmetric(field: str, first: str | None, second: str | None) -> None:
    assert same_value(field, first, first)
    assert same_value(field, first, second) == same_value(field, second, first)


def test_only_the_accepted_disagreement_is_accepted() -> None:
    assert accepted_override("first_author_surname", "Lindqvist", "Tanaka", [SURNAME]) == SURNAME
    # Whichever source says it: the same disagreement.
    assert accepted_override("first_author_surname", "Lindqvist", "tanaka", [SURNAME]) == SURNAME
    # Another value, another field, or the artifact's own value changed: not accepted.
    assert accepted_override("first_author_surname", "Lindqvist", "Sato", [SURNAME]) is None
    assert accepted_override("year", "Lindqvist", "Tanaka", [SURNAME]) is None
    assert accepted_override("first_author_surname", "Lind", "Tanaka", [SURNAME]) is None
    assert accepted_override("first_author_surname", "Lindqvist", "Tanaka", []) is None


def _front(**update: object) -> ArtifactFrontmatter:
    return ArtifactFrontmatter(
        title="Coordinated Gradient Poisoning",
        arxiv_id="2305.00001",
        sources_consulted=[SourceName.SEMANTIC_SCHOLAR, SourceName.ARXIV],
        triangulation=Triangulation(
            primary_source=SourceName.SEMANTIC_SCHOLAR,
            secondary_source=SourceName.ARXIV,
            decisive_fields_agreed=False,
            notes=["venue_differs: x", override_note(SURNAME, SourceName.SEMANTIC_SCHOLAR)],
        ),
        verified_at=datetime(2026, 5, 23, tzinfo=UTC),
        verification_version="1.0",
        human_overridden=True,
        override_reason="arXiv's listing is authoritative",
        **update,
    )


def test_the_note_and_the_structured_record_say_the_same() -> None:
    note = override_note(SURNAME, SourceName.SEMANTIC_SCHOLAR)
    assert note == (
        "overridden_conflict: first_author_surname: semantic_scholar says Lindqvist vs arxiv says Tanaka"
    )
    assert legacy_override_notes([note, "venue_differs: x"]) == [SURNAME]
    # A value holding " vs " or " says " is still read back whole.
    odd = SURNAME.model_copy(update={"field": "title", "recorded": "A vs B", "accepted": "C says D"})
    assert legacy_override_notes([override_note(odd, SourceName.OPENALEX)]) == [odd]
    missing = SURNAME.model_copy(update={"field": "year", "recorded": None})
    assert legacy_override_notes([override_note(missing, SourceName.OPENALEX)]) == [missing]


def test_overrides_of_prefers_the_structured_record_and_reads_older_artifacts() -> None:
    other = SURNAME.model_copy(update={"field": "year", "recorded": "2023", "accepted": "2024"})
    assert overrides_of(_front(overridden_conflicts=[other])) == [other]
    assert overrides_of(_front()) == [SURNAME]  # an artifact written before the field existed
    agreed = _front().model_copy(update={"human_overridden": False, "override_reason": None})
    assert overrides_of(agreed) == []
