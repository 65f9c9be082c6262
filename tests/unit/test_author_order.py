"""Which author lists are in publication order (`core/author_order.py`), and "et al." left inside a
name (`author_kinds.without_truncation_marker`): issue 21, item 4.

The lists copy real answers (`../shared/data/benchmarks/iclr2026-real-bibliographies/api_cache`):
MACE at Crossref (Curran's NeurIPS 2022 deposit, sorted) and at DBLP (the byline); Conitzer, Rognlie
and Xia, whose byline is alphabetical at every source.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.author_kinds import has_placeholder_authors, without_truncation_marker
from aletheia.core.author_order import alphabetical_records, is_sorted_by_family, same_people_reordered
from aletheia.core.authors import parse_name
from aletheia.core.records import Author, SourceName, WorkRecord


def _names(*names: str) -> tuple[Author, ...]:
    return tuple(parse_name(n) for n in names)


def _rec(source: SourceName, authors: tuple[Author, ...]) -> WorkRecord:
    return WorkRecord(source=source, title="T", authors=authors)


MACE_CROSSREF = _names(
    "Batatia, Ilyes", "Csanyi, Gabor", "Kovacs, David P", "Ortner, Christoph", "Simm, Gregor"
)
MACE_DBLP = _names(
    "Ilyes Batatia", "Dávid Péter Kovács", "Gregor N. C. Simm", "Christoph Ortner", "Gábor Csányi"
)


def test_a_sorted_list_against_another_order_is_alphabetical() -> None:
    crossref, dblp = _rec(SourceName.CROSSREF, MACE_CROSSREF), _rec(SourceName.DBLP, MACE_DBLP)
    assert alphabetical_records([crossref, dblp]) == (crossref,)
    # Alone, a sorted list is read as the byline: nothing says otherwise.
    assert alphabetical_records([crossref]) == ()
    # Sorted at every source (a byline in alphabetical order): left alone.
    theory = _names("Vincent Conitzer", "Matthew Rognlie", "Lirong Xia")
    assert alphabetical_records([_rec(SourceName.OPENALEX, theory), _rec(SourceName.DBLP, theory)]) == ()
    # Two names: only the same two reversed.
    two = _names("Ann Adams", "Bob Brown")
    assert alphabetical_records([_rec(SourceName.OPENALEX, two), _rec(SourceName.DBLP, two[::-1])])
    assert not alphabetical_records(
        [_rec(SourceName.OPENALEX, two), _rec(SourceName.DBLP, (two[1], parse_name("Cy Cole")))]
    )
    # Another list that shares the order of the shared people does not make a sorted one suspect.
    longer = (*theory, *_names("Zed Zhang", "Al Abe"))
    assert alphabetical_records([_rec(SourceName.OPENALEX, theory), _rec(SourceName.DBLP, longer)]) == ()


def test_same_people_reordered() -> None:
    assert same_people_reordered(MACE_CROSSREF, MACE_DBLP)
    assert not same_people_reordered(MACE_DBLP, MACE_DBLP)
    assert not same_people_reordered(MACE_CROSSREF[:2], MACE_DBLP[:2][::-1])  # under three names
    assert not same_people_reordered(MACE_CROSSREF, MACE_DBLP[:4])


@given(st.lists(st.sampled_from(["adams", "brown", "cole", "diaz", "evans"]), max_size=6))
def test_sorted_is_sorted(keys: list[str]) -> None:
    assert is_sorted_by_family(sorted(keys)) == (len(keys) >= 2)


def test_et_al_inside_a_name() -> None:
    cases = {
        "Greg Landrum et al": ("Greg", "Landrum"),
        "Landrum, Greg et al.": ("Greg", "Landrum"),
        "Tom B. Brown et. al.": ("Tom B.", "Brown"),
    }
    for text, (given_name, family) in cases.items():
        author, cut = without_truncation_marker(parse_name(text))
        assert cut and author is not None, text
        assert (author.given, author.family) == (given_name, family), text
    assert without_truncation_marker(Author(literal="et al.")) == (None, True)
    assert without_truncation_marker(Author(literal="Anjia Cao et al."))[0] == Author(
        given="Anjia", family="Cao"
    )
    assert without_truncation_marker(Author(literal="The Gemma Team et al."))[0] == Author(
        literal="The Gemma Team"
    )
    plain = parse_name("Alice Altman")
    assert without_truncation_marker(plain) == (plain, False)
    # "et al." after named authors is no placeholder; alone it is one.
    assert not has_placeholder_authors((parse_name("Tom Brown"), Author(literal="et al.")))
    assert has_placeholder_authors((Author(literal="et al."),))


def test_ai_in_capitals_names_an_organisation() -> None:
    from aletheia.core.author_kinds import is_organisation_name

    assert is_organisation_name("DeepSeek-AI") and is_organisation_name("AI@Meta")
    assert parse_name("DeepSeek-AI") == Author(literal="DeepSeek-AI")
    assert not is_organisation_name("Ai Kato") and parse_name("Ai Kato").family == "Kato"
    # Vancouver style: a surname and the initials A. I.
    assert parse_name("Jones AI") == Author(given="AI", family="Jones")
