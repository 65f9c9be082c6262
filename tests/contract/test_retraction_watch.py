"""The real Retraction Watch data (../shared/data/retractions/retractionwatch_dois.csv, the compact
`doi,retractionwatch` form, snapshot 2025-08-22) loads into the index."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from aletheia.core.records import RetractionKind
from aletheia.core.retraction import combine_retraction_status
from aletheia.sources.retraction_watch import RetractionIndex, nature_kind

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def index(shared_data: Path) -> RetractionIndex:
    return RetractionIndex.load(shared_data / "retractions" / "retractionwatch_dois.csv")


def test_every_row_with_a_doi_is_indexed(index: RetractionIndex) -> None:
    # 57,553 data rows, of which two have no DOI ("Unavailable" and blank).
    assert len(index) == 57_551
    assert index.dois >= 57_500


def test_every_nature_maps_to_a_kind(index: RetractionIndex) -> None:
    natures = collections.Counter(nature for row in index for nature in row.natures)
    assert set(natures) == {"Retraction", "Expression of concern", "Correction", "Reinstatement"}
    assert all(nature_kind(nature) is not None for nature in natures)
    kinds = collections.Counter(notice.kind for row in index for notice in row.notices())
    assert kinds[RetractionKind.RETRACTED] > 50_000
    assert kinds[RetractionKind.EXPRESSION_OF_CONCERN] > 1_000
    assert kinds[RetractionKind.CORRECTED] > 1_000
    assert kinds[RetractionKind.REINSTATED] > 100


def test_lookup_of_known_dois(index: RetractionIndex) -> None:
    notices = index.lookup(doi="https://doi.org/10.1155/2022/5313654")
    assert [notice.kind for notice in notices] == [RetractionKind.RETRACTED]
    # Case does not matter: DOIs are case-insensitive, the file keeps publishers' case.
    mixed = next(row for row in index if row.original_doi and any(c.isalpha() for c in row.original_doi))
    assert mixed.original_doi is not None
    assert index.lookup(doi=mixed.original_doi.upper())
    assert index.lookup(doi="10.5555/certainly.not.retracted") == []


def test_several_natures_combine_into_the_most_severe(index: RetractionIndex) -> None:
    row = next(row for row in index if row.natures == ("Correction", "Retraction"))
    status = combine_retraction_status(index.lookup(doi=row.original_doi))
    assert status.kind is RetractionKind.RETRACTED
    assert status.flagged
