"""Issue 20: a reference given as a string is searched as the whole string (Crossref's
`query.bibliographic` is built for reference strings), not as the parser's guesses."""

from __future__ import annotations

from aletheia.core.bibliography.plain import reference_from_string
from aletheia.core.records import Author, CitedReference
from aletheia.pipeline.evidence.gateway import bibliographic_query

CHICAGO = (
    "Lin, Zhiyuan Jerry, Raul Astudillo, Peter Frazier, and Eytan Bakshy. 2024. “Preference Learning for "
    "Real-World Multi-Objective Decision Making.” In Proceedings of the 41st International Conference on "
    "Machine Learning."
)


def test_a_reference_string_is_searched_whole() -> None:
    cited = reference_from_string(CHICAGO, key="1", origin="refs.txt:1")
    assert bibliographic_query(cited) == CHICAGO


def test_a_structured_reference_is_searched_by_its_fields() -> None:
    cited = CitedReference(
        key="lin2024",
        title="Preference Learning for Real-World Multi-Objective Decision Making",
        authors=(Author(given="Zhiyuan Jerry", family="Lin"),),
        year=2024,
    )
    assert bibliographic_query(cited) == (
        "Preference Learning for Real-World Multi-Objective Decision Making Lin 2024"
    )
