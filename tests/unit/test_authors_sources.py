"""Authors as the sources write them: groups filed as people, suffixes filed as surnames,
co-authors dropped, "and others"."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from aletheia.core.author_kinds import groups_match
from aletheia.core.author_lists import compare_author_lists
from aletheia.core.authors import is_group_author, normalize_source_author, parse_author_list
from aletheia.core.records import Author

# --- normalize_source_author ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # PMLR exports Hal Daumé III as family "Iii".
        (Author(family="Iii", given="Hal Daumé"), Author(given="Hal", family="Daumé", suffix="III")),
        (Author(family="III", given="Hal Daumé"), Author(given="Hal", family="Daumé", suffix="III")),
        (
            Author(family="Jr", given="Martin Luther King"),
            Author(given="Martin Luther", family="King", suffix="Jr"),
        ),
        (
            Author(family="Jr.", given="Henry Louis Gates"),
            Author(given="Henry Louis", family="Gates", suffix="Jr."),
        ),
        (
            Author(family="Jr", given="Ludwig van Beethoven"),
            Author(given="Ludwig", family="van Beethoven", suffix="Jr"),
        ),
        (
            Author(family="Iv", given="John Smith", suffix="PhD"),
            Author(given="John", family="Smith", suffix="PhD"),
        ),
        # Crossref / PubMed consortia filed as people.
        (
            Author(family="Initiative", given="Alzheimer's Disease Neuroimaging"),
            Author(literal="Alzheimer's Disease Neuroimaging Initiative"),
        ),
        (
            Author(family="Initiative", given="for the Alzheimer's Disease Neuroimaging"),
            Author(literal="Alzheimer's Disease Neuroimaging Initiative"),
        ),
        (Author(family="Consortium", given="The GTEx"), Author(literal="The GTEx Consortium")),
        (Author(family="Team", given="Gemini"), Author(literal="Gemini Team")),
        (Author(family="Collaboration", given="ATLAS"), Author(literal="ATLAS Collaboration")),
        (Author(family="The GTEx Consortium"), Author(literal="The GTEx Consortium")),
        (Author(literal="Consortium, The GTEx"), Author(literal="The GTEx Consortium")),
        (
            Author(family="Consortium", given="The GTEx", orcid="0000-0002-1825-0097"),
            Author(literal="The GTEx Consortium", orcid="0000-0002-1825-0097"),
        ),
        # People stay people.
        (Author(family="Ii", given="Naosuke"), Author(family="Ii", given="Naosuke")),
        (Author(family="Network", given="J."), Author(family="Network", given="J.")),
        (Author(family="Smith", given="John"), Author(family="Smith", given="John")),
        (Author(family="Jr", given="John"), Author(family="Jr", given="John")),
        (Author(literal="王伟"), Author(literal="王伟")),
        (Author(), Author()),
    ],
)
def test_normalize_source_author(source: Author, expected: Author) -> None:
    assert normalize_source_author(source) == expected


_WORDS = st.sampled_from(
    [
        *("Hal", "Daumé", "Iii", "III", "Jr", "Jr.", "Sr", "II", "iv", "van", "der", "de", "The"),
        *("Initiative", "Consortium", "Team", "Collaboration", "Gemini", "ATLAS", "GTEx", "for"),
        *("Alzheimer's", "Disease", "Neuroimaging", "Smith", "J.", "Network", "Group", ","),
    ]
)
_TEXT = st.none() | st.lists(_WORDS, min_size=1, max_size=5).map(" ".join) | st.text(max_size=20)
_AUTHORS = st.builds(Author, given=_TEXT, family=_TEXT, literal=_TEXT, suffix=st.none() | _WORDS)


@settings(max_examples=400, deadline=None)
@given(_AUTHORS)
@example(Author(family="Jr", given="Gemini Team"))
@example(Author(literal="Consortium, for the GTEx"))
@example(Author(literal="for Consortium, The GTEx"))
def test_normalize_source_author_is_idempotent(author: Author) -> None:
    once = normalize_source_author(author)
    assert normalize_source_author(once) == once
    assert is_group_author(once) == is_group_author(author)


# --- is_group_author --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("author", "group"),
    [
        (Author(family="Initiative", given="Alzheimer's Disease Neuroimaging"), True),
        (Author(family="Consortium", given="The GTEx"), True),
        (Author(family="Team", given="Gemini"), True),
        (Author(literal="The ATLAS Collaboration"), True),
        (Author(literal="OpenAI"), False),
        (Author(family="Iii", given="Hal Daumé"), False),
        (Author(family="Smith", given="John"), False),
        (Author(family="Network", given="J."), False),
        (Author(), False),
    ],
)
def test_is_group_author(author: Author, group: bool) -> None:
    assert is_group_author(author) is group


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("The GTEx Consortium", "GTEx Consortium", True),
        ("ATLAS", "The ATLAS Collaboration", True),
        ("ADNI", "Alzheimer's Disease Neuroimaging Initiative", True),
        ("Initiative, Alzheimer's Disease Neuroimaging", "Alzheimer's Disease Neuroimaging Initiative", True),
        ("GTEx Consortium", "ENCODE Project Consortium", False),
        ("ATLAS Collaboration", "CMS Collaboration", False),
    ],
)
def test_groups_match(a: str, b: str, same: bool) -> None:
    assert groups_match(Author(literal=a), Author(literal=b)) is same
    assert groups_match(Author(literal=b), Author(literal=a)) is same


# --- compare_author_lists ---------------------------------------------------------------------


def _people(*names: tuple[str, str]) -> tuple[Author, ...]:
    return tuple(Author(given=given, family=family) for given, family in names)


SEVEN = _people(
    ("Clifford R.", "Jack"),
    ("Matt A.", "Bernstein"),
    ("Nick C.", "Fox"),
    ("Paul", "Thompson"),
    ("Gene", "Alexander"),
    ("Danielle", "Harvey"),
    ("Bret", "Borowski"),
)
ADNI_AS_PERSON = Author(family="Initiative", given="Alzheimer's Disease Neuroimaging")


def test_a_citation_may_omit_the_consortium_a_source_adds() -> None:
    result = compare_author_lists(SEVEN, (*SEVEN, ADNI_AS_PERSON))
    assert result.first_author_agrees is True
    assert (result.extra, result.missing) == ((), ())
    assert not result.truncated and not result.swapped
    assert result.groups_ignored == 1
    assert result.matched_count == result.cited_count == result.found_count == 7


def test_a_source_may_drop_the_consortium_a_citation_names() -> None:
    cited, truncated = parse_author_list(
        "Jack, Clifford R. and Bernstein, Matt A. and Fox, Nick C. and "
        "{Alzheimer's Disease Neuroimaging Initiative}"
    )
    result = compare_author_lists(cited, SEVEN[:3], cited_truncated=truncated)
    assert result.first_author_agrees is True
    assert (result.extra, result.missing) == ((), ())
    assert result.groups_ignored == 1


def test_a_group_first_on_both_sides_is_the_first_author() -> None:
    cited, _ = parse_author_list("{The GTEx Consortium}")
    result = compare_author_lists(cited, (Author(family="Consortium", given="The GTEx"),))
    assert result.first_author_agrees is True
    assert result.matched_count == 1
    assert result.groups_ignored == 0
    assert result.similarity == 1.0
    other = compare_author_lists(cited, (Author(literal="ENCODE Project Consortium"),))
    assert other.first_author_agrees is False
    assert other.groups_ignored == 2


def test_a_group_in_the_middle_of_the_list_is_not_a_missing_coauthor() -> None:
    found = (SEVEN[0], Author(family="Consortium", given="The GTEx"), *SEVEN[1:4])
    result = compare_author_lists(SEVEN[:4], found)
    assert (result.extra, result.missing) == ((), ())
    assert result.order_agrees and not result.swapped


def test_suffix_exported_as_surname() -> None:
    cited, _ = parse_author_list("Hal Daumé III and Daniel Marcu")
    found = (Author(family="Iii", given="Hal Daumé"), Author(family="Marcu", given="Daniel"))
    result = compare_author_lists(cited, found)
    assert result.first_author_agrees is True
    assert result.matched_count == 2
    assert (result.extra, result.missing) == ((), ())
    # A bibliography that copied the source's export still matches.
    copied, _ = parse_author_list("Iii, Hal Daumé and Marcu, Daniel")
    assert compare_author_lists(copied, found).matched_count == 2
    assert compare_author_lists(copied, cited).first_author_agrees is True


def test_a_source_that_drops_the_fifth_of_seven_coauthors() -> None:
    found = (*SEVEN[:4], *SEVEN[5:])
    result = compare_author_lists(SEVEN, found)
    assert result.first_author_agrees is True
    assert result.extra == ("Gene Alexander",)
    assert result.missing == ()
    assert result.matched_count == 6
    assert result.order_agrees and not result.swapped and not result.truncated


def test_and_others_after_three_names() -> None:
    cited, truncated = parse_author_list(
        "Jack, Clifford R. and Bernstein, Matt A. and Fox, Nick C. and others"
    )
    assert truncated and len(cited) == 3
    result = compare_author_lists(cited, SEVEN, cited_truncated=truncated)
    assert result.first_author_agrees is True
    assert (result.extra, result.missing) == ((), ())
    assert not result.truncated and result.missing_trailing == 0
    assert result.matched_count == 3


def test_people_only_lists_are_unchanged() -> None:
    result = compare_author_lists(SEVEN[:3], SEVEN[:3])
    assert result.groups_ignored == 0
    assert result.similarity == 1.0


def test_group_only_lists_decide_the_first_author_by_the_groups() -> None:
    cited = [Author(literal="The GTEx Consortium")]
    assert (
        compare_author_lists(cited, [Author(family="Consortium", given="The GTEx")]).first_author_agrees
        is True
    )
    assert (
        compare_author_lists(cited, [Author(literal="The ATLAS Collaboration")]).first_author_agrees is False
    )
    assert compare_author_lists(cited, [Author(family="Smith", given="J.")]).first_author_agrees is None
