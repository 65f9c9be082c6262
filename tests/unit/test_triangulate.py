"""The triangulation gate (seed 000 §5): decisive fields, notes, symmetry."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.core.triangulate import (
    DECISIVE_FIELDS,
    FieldConflict,
    TriangulationResult,
    full_title,
    triangulate,
)

S2 = SourceName.SEMANTIC_SCHOLAR
OPENALEX = SourceName.OPENALEX
CROSSREF = SourceName.CROSSREF
ARXIV = SourceName.ARXIV

FLPOISON_AUTHORS = (
    Author(given="Heyi", family="Zhang"),
    Author(given="Yule", family="Liu"),
    Author(given="Xinlei", family="He"),
)


def _record(source: SourceName = S2, **fields: Any) -> WorkRecord:
    base: dict[str, Any] = {
        "title": "SoK: Benchmarking Poisoning Attacks and Defenses in Federated Learning",
        "authors": FLPOISON_AUTHORS,
        "year": 2025,
        "arxiv_id": "2502.03801",
    }
    base.update(fields)
    return WorkRecord(source=source, **base)


def _both_ways(a: WorkRecord, b: WorkRecord) -> tuple[TriangulationResult, TriangulationResult]:
    forward, backward = triangulate(a, b), triangulate(b, a)
    _assert_mirrored(forward, backward)
    return forward, backward


def _assert_mirrored(forward: TriangulationResult, backward: TriangulationResult) -> None:
    assert forward.verified == backward.verified
    assert forward.agreed == backward.agreed
    assert forward.notes == backward.notes
    assert forward.decisive_fields_checked == backward.decisive_fields_checked
    assert [(c.field, c.primary_value, c.secondary_value, c.similarity) for c in forward.conflicts] == [
        (c.field, c.secondary_value, c.primary_value, c.similarity) for c in backward.conflicts
    ]
    assert (forward.primary_source, forward.secondary_source) == (
        backward.secondary_source,
        backward.primary_source,
    )


def test_agreeing_records_are_verified() -> None:
    result, _ = _both_ways(
        _record(S2),
        _record(ARXIV, title="SoK: benchmarking poisoning attacks and defenses in federated learning"),
    )
    assert result.verified
    assert result.agreed == ("arxiv_id", "title", "first_author_surname", "year")
    assert result.conflicts == ()
    assert result.decisive_fields_checked == result.agreed
    assert result.notes == ()
    assert (result.primary_source, result.secondary_source) == (S2, ARXIV)


def test_the_seed_misattribution_is_rejected() -> None:
    cited_like = _record(S2, authors=(Author(given="Yifei", family="Liu"), *FLPOISON_AUTHORS[1:]))
    result, _ = _both_ways(cited_like, _record(OPENALEX))
    assert not result.verified
    assert result.conflicts == (
        FieldConflict(field="first_author_surname", primary_value="Liu", secondary_value="Zhang"),
    )
    assert "first_author_surname" not in result.agreed


def test_doi_spellings_agree() -> None:
    result, _ = _both_ways(
        _record(CROSSREF, doi="https://doi.org/10.1109/TSP.2022.3153135", arxiv_id=None),
        _record(OPENALEX, doi="doi:10.1109/tsp.2022.3153135", arxiv_id=None),
    )
    assert "doi" in result.agreed
    assert result.verified


def test_different_dois_conflict() -> None:
    result, _ = _both_ways(
        _record(CROSSREF, doi="10.1109/TSP.2022.3153135"),
        _record(OPENALEX, doi="10.1109/TSP.2022.3153136"),
    )
    assert not result.verified
    assert result.conflict_fields == ("doi",)


def test_a_listed_version_doi_is_a_note() -> None:
    published = _record(CROSSREF, doi="10.1109/TIFS.2025.0001", related_dois=("10.48550/arXiv.2502.03801",))
    preprint = _record(ARXIV, doi="10.48550/arXiv.2502.03801", is_preprint=True)
    result, _ = _both_ways(published, preprint)
    assert result.verified
    assert "doi" not in result.agreed
    assert result.conflicts == ()
    assert any(note.startswith("doi_versions_differ:") for note in result.notes)


def test_arxiv_datacite_doi_versus_journal_doi_with_the_same_arxiv_id() -> None:
    published = _record(CROSSREF, doi="10.1109/TIFS.2025.0001")
    preprint = _record(ARXIV, doi="10.48550/arXiv.2502.03801", arxiv_id=None, is_preprint=True)
    result, _ = _both_ways(published, preprint)
    assert result.verified
    assert "arxiv_id" in result.agreed  # derived from arXiv's DOI
    assert any(note.startswith("doi_versions_differ:") for note in result.notes)


def test_arxiv_versions_are_stripped() -> None:
    result, _ = _both_ways(
        _record(S2, arxiv_id="2502.03801v2"), _record(ARXIV, arxiv_id="arXiv:2502.03801v1")
    )
    assert "arxiv_id" in result.agreed


def test_different_arxiv_ids_conflict() -> None:
    result, _ = _both_ways(_record(S2, arxiv_id="2502.03801"), _record(ARXIV, arxiv_id="2502.03810"))
    assert result.conflict_fields == ("arxiv_id",)
    assert not result.verified


def test_unparseable_identifiers_are_noted_not_compared() -> None:
    result, _ = _both_ways(_record(S2, doi="not a doi"), _record(CROSSREF, doi="10.1000/xyz"))
    assert "doi" not in result.decisive_fields_checked
    assert "doi_unparseable: semantic_scholar" in result.notes
    assert "doi_only_in: crossref" in result.notes


def test_subtitle_stored_apart_still_matches() -> None:
    crossref = _record(
        CROSSREF, title="SoK", subtitle="Benchmarking Poisoning Attacks and Defenses in Federated Learning"
    )
    result, _ = _both_ways(crossref, _record(S2))
    assert "title" in result.agreed
    assert full_title(crossref) == "SoK: Benchmarking Poisoning Attacks and Defenses in Federated Learning"


def test_subtitle_missing_on_one_side_matches() -> None:
    result, _ = _both_ways(
        _record(S2, title="Benchmarking Poisoning Attacks and Defenses in Federated Learning"),
        _record(OPENALEX),
    )
    assert "title" in result.agreed
    assert any(note.startswith("title_forms_differ:") for note in result.notes)


def test_a_near_miss_title_conflicts_with_its_similarity() -> None:
    result, _ = _both_ways(
        _record(S2, title="Learning to Summarize with Human Feedback"),
        _record(OPENALEX, title="Learning to Summarize from Human Feedback"),
    )
    (conflict,) = result.conflicts
    assert conflict.field == "title"
    assert conflict.similarity is not None and 0.85 < conflict.similarity < 0.92


def test_latex_in_titles_and_names() -> None:
    bibtex_like = _record(
        CROSSREF,
        title='Sch{\\"o}lkopf kernels and {G}aussian processes',
        authors=(Author(given="Bernhard", family='Sch{\\"o}lkopf'),),
    )
    api_like = _record(
        OPENALEX,
        title="Schölkopf Kernels and Gaussian Processes",
        authors=(Author(given="B.", family="Scholkopf"),),
    )
    result, _ = _both_ways(bibtex_like, api_like)
    assert {"title", "first_author_surname"} <= set(result.agreed)


def test_dblp_homonym_numbers_do_not_matter() -> None:
    dblp = _record(SourceName.LIBRARY, authors=(Author(given="Heyi", family="Zhang 0001"),))
    result, _ = _both_ways(dblp, _record(S2))
    assert "first_author_surname" in result.agreed


def test_romanised_name_order() -> None:
    family_first = _record(OPENALEX, authors=(Author(given="Zhang", family="Heyi"), *FLPOISON_AUTHORS[1:]))
    result, _ = _both_ways(family_first, _record(S2))
    assert "first_author_surname" in result.agreed


def test_year_one_apart_between_preprint_and_published_is_a_note() -> None:
    preprint = _record(ARXIV, year=2024, is_preprint=True)
    published = _record(CROSSREF, year=2025)
    result, _ = _both_ways(preprint, published)
    assert result.verified
    assert "year" not in result.agreed
    assert "year" in result.decisive_fields_checked
    assert 'year_versions_differ: "arxiv says 2024" vs "crossref says 2025"' in result.notes


@pytest.mark.parametrize(
    ("year_a", "preprint_a", "year_b", "preprint_b"),
    [
        (2024, False, 2025, False),  # both published: a real disagreement
        (2024, True, 2025, True),  # both preprints
        (2023, True, 2025, False),  # two years apart
    ],
)
def test_other_year_differences_conflict(
    year_a: int, preprint_a: bool, year_b: int, preprint_b: bool
) -> None:
    result, _ = _both_ways(
        _record(S2, year=year_a, is_preprint=preprint_a),
        _record(OPENALEX, year=year_b, is_preprint=preprint_b),
    )
    assert result.conflict_fields == ("year",)
    assert not result.verified


def test_missing_fields_are_notes_only() -> None:
    sparse = WorkRecord(
        source=CROSSREF, title="SoK: Benchmarking Poisoning Attacks and Defenses in Federated Learning"
    )
    result, _ = _both_ways(sparse, _record(S2))
    assert result.verified
    assert result.agreed == ("title",)
    assert result.decisive_fields_checked == ("title",)
    assert {"arxiv_id_only_in: semantic_scholar", "first_author_surname_only_in: semantic_scholar"} <= set(
        result.notes
    )
    assert "year_only_in: semantic_scholar" in result.notes


def test_no_identity_field_means_not_verified() -> None:
    result, _ = _both_ways(
        WorkRecord(source=S2, authors=FLPOISON_AUTHORS, year=2025),
        WorkRecord(source=OPENALEX, authors=FLPOISON_AUTHORS, year=2025),
    )
    assert not result.verified
    assert result.conflicts == ()
    assert "no_identity_field_agreed" in result.notes


def test_venue_aliases_are_noted() -> None:
    result, _ = _both_ways(
        _record(S2, venue="Neural Information Processing Systems"),
        _record(OPENALEX, venue="Advances in Neural Information Processing Systems 36"),
    )
    assert result.verified
    assert (
        'venue_aliases: "openalex says Advances in Neural Information Processing Systems 36" vs '
        '"semantic_scholar says Neural Information Processing Systems"'
    ) in result.notes


def test_venue_differences_never_reject() -> None:
    result, _ = _both_ways(_record(S2, venue="ICML"), _record(OPENALEX, venue="NeurIPS"))
    assert result.verified
    assert any(note.startswith("venue_differs:") for note in result.notes)
    preprint, _ = _both_ways(_record(S2, venue="arXiv.org"), _record(OPENALEX, venue="NeurIPS"))
    assert any(note.startswith("venue_not_comparable:") for note in preprint.notes)


def test_author_list_differences_are_notes() -> None:
    truncated_source = _record(S2, authors=FLPOISON_AUTHORS[:2], authors_truncated=True)
    result, _ = _both_ways(truncated_source, _record(OPENALEX))
    assert result.verified
    assert "author_list_truncated_by_source: semantic_scholar" in result.notes
    assert not any(note.startswith("author_count_differs") for note in result.notes)

    reordered = _record(S2, authors=(FLPOISON_AUTHORS[0], FLPOISON_AUTHORS[2], FLPOISON_AUTHORS[1]))
    result, _ = _both_ways(reordered, _record(OPENALEX))
    assert result.verified
    assert "author_order_differs" in result.notes

    shorter = _record(S2, authors=FLPOISON_AUTHORS[:2])
    result, _ = _both_ways(shorter, _record(OPENALEX))
    assert 'author_count_differs: "openalex says 3" vs "semantic_scholar says 2"' in result.notes
    assert "author_names_only_in: openalex: Xinlei He" in result.notes


def test_given_name_differences_are_notes() -> None:
    other_given = _record(
        S2, authors=(FLPOISON_AUTHORS[0], Author(given="Yifei", family="Liu"), FLPOISON_AUTHORS[2])
    )
    result, _ = _both_ways(other_given, _record(OPENALEX))
    assert result.verified
    assert "author_given_names_differ: Yifei Liu / Yule Liu" in result.notes


# --- symmetry, generated ------------------------------------------------------------------------

_TITLES = st.sampled_from(
    [
        "SoK: Benchmarking Poisoning Attacks and Defenses in Federated Learning",
        "Benchmarking Poisoning Attacks and Defenses in Federated Learning",
        "Learning to Summarize from Human Feedback",
        "Learning to Summarize with Human Feedback",
        'Sch{\\"o}lkopf kernels',
        "???",
    ]
)
_AUTHOR = st.sampled_from(
    [
        Author(given="Heyi", family="Zhang"),
        Author(given="Zhang", family="Heyi"),
        Author(given="H.", family="Zhang"),
        Author(given="Yule", family="Liu"),
        Author(given="Yifei", family="Liu"),
        Author(given="Laurens", family="van der Maaten"),
        Author(given="L.", family="Maaten"),
        Author(literal="The ATLAS Collaboration"),
    ]
)
_RECORDS = st.builds(
    WorkRecord,
    source=st.sampled_from(list(SourceName)),
    title=st.none() | _TITLES,
    subtitle=st.none() | st.just("An Empirical Study"),
    authors=st.lists(_AUTHOR, max_size=4).map(tuple),
    authors_truncated=st.booleans(),
    year=st.none() | st.integers(2019, 2022),
    venue=st.none()
    | st.sampled_from(["ICML", "PMLR", "arXiv", "NeurIPS 2021", "Nature", "Nature Communications"]),
    doi=st.none()
    | st.sampled_from(
        ["10.1000/ABC", "https://doi.org/10.1000/abc", "10.1000/xyz", "10.48550/arXiv.2502.03801", "junk"]
    ),
    arxiv_id=st.none() | st.sampled_from(["2502.03801", "2502.03801v3", "1706.03762", "nonsense"]),
    related_dois=st.lists(st.sampled_from(["10.1000/abc", "10.1000/xyz"]), max_size=1).map(tuple),
    related_arxiv_ids=st.lists(st.sampled_from(["2502.03801", "1706.03762"]), max_size=1).map(tuple),
    is_preprint=st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(_RECORDS, _RECORDS)
def test_triangulate_is_symmetric(a: WorkRecord, b: WorkRecord) -> None:
    forward, backward = triangulate(a, b), triangulate(b, a)
    _assert_mirrored(forward, backward)
    # Structural invariants.
    assert set(forward.agreed).isdisjoint(forward.conflict_fields)
    assert set(forward.agreed) | set(forward.conflict_fields) <= set(forward.decisive_fields_checked)
    assert set(forward.decisive_fields_checked) <= set(DECISIVE_FIELDS)
    assert forward.verified == (
        not forward.conflicts and bool({"doi", "arxiv_id", "title"} & set(forward.agreed))
    )


@settings(max_examples=150, deadline=None)
@given(_RECORDS)
def test_a_record_agrees_with_itself(record: WorkRecord) -> None:
    result = triangulate(record, record)
    assert result.conflicts == ()
    assert result.agreed == result.decisive_fields_checked
