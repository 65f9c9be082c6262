"""Author names: parsing, surname keys, placeholders, list comparison."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from aletheia.core.author_lists import compare_author_lists
from aletheia.core.author_match import authors_match, given_names_compatible, surname_key, surnames_match
from aletheia.core.authors import (
    has_placeholder_authors,
    is_organisation_name,
    is_placeholder_author,
    parse_author_list,
    parse_name,
)
from aletheia.core.records import Author

# (input, given, family, literal, suffix)
NAMES = [
    ("Zhang, Heyi", "Heyi", "Zhang", None, None),
    ("Heyi Zhang", "Heyi", "Zhang", None, None),
    ("van der Maaten, Laurens", "Laurens", "van der Maaten", None, None),
    ("Laurens van der Maaten", "Laurens", "van der Maaten", None, None),
    ("Jan-Willem van de Meent", "Jan-Willem", "van de Meent", None, None),
    ("Nicola De Cao", "Nicola", "De Cao", None, None),
    ("Quoc V. Le", "Quoc V.", "Le", None, None),
    ("Le Song", "Le", "Song", None, None),
    ("Muhammad bin Ahmad", "Muhammad", "bin Ahmad", None, None),
    ("Martin Luther King, Jr.", "Martin Luther", "King", None, "Jr."),
    ("King, Jr., Martin Luther", "Martin Luther", "King", None, "Jr."),
    ("King, Martin Luther, Jr.", "Martin Luther", "King", None, "Jr."),
    ("John Smith III", "John", "Smith", None, "III"),
    ("J. R. R. Tolkien", "J. R. R.", "Tolkien", None, None),
    ("Tolkien, J.R.R.", "J.R.R.", "Tolkien", None, None),
    ("Smith JR", "JR", "Smith", None, None),  # Vancouver initials, not "Junior"
    ("Wei Wang 0001", "Wei", "Wang", None, None),
    ("Wang 0003, Wei", "Wei", "Wang", None, None),
    ('Sch{\\"o}lkopf, Bernhard', "Bernhard", "Schölkopf", None, None),
    ("St{\\'e}phane Deny", "Stéphane", "Deny", None, None),
    ("Stanis{\\l}aw Jastrz{\\k{e}}bski", "Stanisław", "Jastrzębski", None, None),
    ("Pe\\~{n}a, Jos\\'e", "José", "Peña", None, None),
    ("Leslie O'Bray", "Leslie", "O'Bray", None, None),
    ("王伟", "伟", "王", None, None),
    ("王 伟", "伟", "王", None, None),
    ("欧阳娜娜", "娜娜", "欧阳", None, None),
    ("김민수", "민수", "김", None, None),
    ("山田太郎", None, None, "山田太郎", None),  # kanji only with kana elsewhere unknown: kept whole
    ("{The ATLAS Collaboration}", None, None, "The ATLAS Collaboration", None),
    ("Gemini Team", None, None, "Gemini Team", None),
    ("OpenAI", None, "OpenAI", None, None),
    ("{OpenAI}", None, None, "OpenAI", None),
    ("{Yann LeCun}", "Yann", "LeCun", None, None),
    ("Plato", None, "Plato", None, None),
    ("", None, None, None, None),
]


@pytest.mark.parametrize(("raw", "given_name", "family", "literal", "suffix"), NAMES)
def test_parse_name(
    raw: str, given_name: str | None, family: str | None, literal: str | None, suffix: str | None
) -> None:
    author = parse_name(raw)
    assert (author.given, author.family, author.literal, author.suffix) == (
        given_name,
        family,
        literal,
        suffix,
    )


# (input, families (or literals), truncated)
LISTS = [
    ("Zhang, Heyi and Liu, Yule and He, Xinlei", ["Zhang", "Liu", "He"], False),
    ("Heyi Zhang and Yule Liu and Xinlei He", ["Zhang", "Liu", "He"], False),
    ("A. Smith and B. Jones and others", ["Smith", "Jones"], True),
    ("A. Smith AND B. Jones", ["Smith", "Jones"], False),
    ("Smith J, Doe A, et al.", ["Smith", "Doe"], True),
    ("Vaswani A, Shazeer N, Parmar N, Gomez AN, et al", ["Vaswani", "Shazeer", "Parmar", "Gomez"], True),
    ("Yann LeCun, Yoshua Bengio, and Geoffrey Hinton", ["LeCun", "Bengio", "Hinton"], False),
    ("Yann LeCun, Yoshua Bengio and Geoffrey Hinton", ["LeCun", "Bengio", "Hinton"], False),
    ("Yann LeCun, Yoshua Bengio", ["LeCun", "Bengio"], False),
    ("Smith, J., Doe, A., & Lee, K.", ["Smith", "Doe", "Lee"], False),
    ("Smith, J.; Doe, A.; Lee, K.", ["Smith", "Doe", "Lee"], False),
    ("Smith, J.; Doe, A.; and Lee, K.", ["Smith", "Doe", "Lee"], False),
    ("Smith, J.; Doe, A. & Lee, K.", ["Smith", "Doe", "Lee"], False),
    ("{The ATLAS Collaboration} and Aad, G.", ["The ATLAS Collaboration", "Aad"], False),
    ("{Barnes and Noble} and Smith, J.", ["Barnes and Noble", "Smith"], False),
    ("Smith et al.", ["Smith"], True),
    ("Smith et~al.", ["Smith"], True),
    ("Smith, John and others", ["Smith"], True),
    ("Wei Wang 0001 and Lei Zhang 0002", ["Wang", "Zhang"], False),
    ("García Márquez, Gabriel and Smith, John", ["García Márquez", "Smith"], False),
    ("van der Maaten, L. and Hinton, G.", ["van der Maaten", "Hinton"], False),
    ("Smith, J. R., Jr. and Doe, Jane", ["Smith", "Doe"], False),
    ("LeCun, Yann", ["LeCun"], False),
    ("LeCun, Yann and Bengio, Yoshua and et al.", ["LeCun", "Bengio"], True),
    ("Yan, Xinchen and Yang, Jimei Sohn, Kihyuk and Lee, Honglak", ["Yan", "Yang", "Lee"], False),
    ("Ram{\\'o}n y {C}ajal, Santiago, and Azoulay, L.", ["Ramón y Cajal", "Azoulay"], False),
    ("Smith, J., Doe, A., and Lee, K.", ["Smith", "Doe", "Lee"], False),
    ("Smith J, Doe A, and Lee K", ["Smith", "Doe", "Lee"], False),
    ("Jure Zbontar and Li Jing and St{\\'e}phane Deny", ["Zbontar", "Jing", "Deny"], False),
    ("Johnson \\& Johnson Inc", ["Johnson & Johnson Inc"], False),
    ("et al.", [], True),
    ("", [], False),
]


def _surname_text(author: Author) -> str | None:
    return author.family or author.literal


@pytest.mark.parametrize(("raw", "families", "truncated"), LISTS)
def test_parse_author_list(raw: str, families: list[str], truncated: bool) -> None:
    authors, was_truncated = parse_author_list(raw)
    assert [_surname_text(a) for a in authors] == families
    assert was_truncated is truncated


def test_a_cut_off_bibtex_field_still_parses() -> None:
    # Real exports sometimes end mid-brace; the names before the cut survive.
    authors, _ = parse_author_list("John Jumper and Richard Evans and {\\v{Z")
    assert [a.family for a in authors[:2]] == ["Jumper", "Evans"]


@pytest.mark.parametrize(
    ("author", "key"),
    [
        (Author(family="Schölkopf"), "scholkopf"),
        (Author(family="Lacoste-Julien"), "lacostejulien"),
        (Author(family="O'Bray"), "obray"),
        (Author(family="van der Maaten"), "vandermaaten"),
        (Author(family="King Jr."), "king"),
        (Author(family="Wang 0001"), "wang"),
        (Author(family="Żbontar"), "zbontar"),
        (Author(literal="The ATLAS Collaboration"), "atlascollaboration"),
        (Author(literal="ATLAS Collaboration"), "atlascollaboration"),
        (Author(given="Madonna"), "madonna"),
        (Author(), ""),
    ],
)
def test_surname_key(author: Author, key: str) -> None:
    assert surname_key(author) == key


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (Author(family="van der Maaten"), Author(family="Maaten"), True),
        (Author(family="De Cao"), Author(family="Cao"), True),
        (Author(family="García Márquez"), Author(family="García"), True),
        (Author(family="Le Cun"), Author(family="LeCun"), True),
        (Author(family="Smith-Jones"), Author(family="Jones"), True),
        (Author(family="Smith"), Author(family="Smyth"), False),
        (Author(family="Li"), Author(family="Lin"), False),
        (Author(literal="ATLAS Collaboration"), Author(literal="CMS Collaboration"), False),
        (Author(literal="ATLAS Collaboration"), Author(family="Atlas"), False),
        (Author(), Author(), False),
    ],
)
def test_surnames_match(a: Author, b: Author, same: bool) -> None:
    assert surnames_match(a, b) is same
    assert surnames_match(b, a) is same


@pytest.mark.parametrize(
    ("a", "b", "compatible"),
    [
        ("J.", "John", True),
        ("J. R.", "John Ronald", True),
        ("JR", "John", True),
        ("John", "John Paul", True),
        ("Chaitanya K.", "Chaitanya", True),
        ("Jia-Qi", "Jiaqi", True),
        ("J.-B.", "Jean-Baptiste", True),
        ("Stéphane", "St{\\'e}phane", True),
        (None, "John", True),
        ("Rui", "Ruoxuan", False),
        ("Jane", "John", False),
        ("K.", "John", False),
    ],
)
def test_given_names_compatible(a: str | None, b: str | None, compatible: bool) -> None:
    assert given_names_compatible(a, b) is compatible
    assert given_names_compatible(b, a) is compatible


def test_romanised_names_match_in_either_order() -> None:
    assert authors_match(parse_name("Zhang Heyi"), parse_name("Heyi Zhang"))
    assert authors_match(parse_name("Zhang Heyi"), parse_name("H. Zhang"))
    assert not authors_match(parse_name("Zhang Wei"), parse_name("Wang Zhang"))


@pytest.mark.parametrize(
    "name",
    [
        "Author",
        "Anonymous",
        "Unknown",
        "John Doe",
        "Doe, Jane",
        "Doe",
        "First Author",
        "A. Author",
        "Author, A.",
        "Author 1",
        "Author2",
        "Lastname, Firstname",
        "Firstname Lastname",
        "et al.",
        "Max Mustermann",
        "Anonymous Authors",
    ],
)
def test_placeholder_authors(name: str) -> None:
    assert is_placeholder_author(parse_name(name))


@pytest.mark.parametrize(
    "name",
    [
        "John Smith",
        "Smith, J.",
        "Jane Smith",
        "Robert Doe",
        "Doe, A.",  # issue 20: Doe is a surname; with an initial it is a person, not a template
        "J. Doe",
        "Kenji Tanaka",
        "Yuki Sato",
        "Elena Garcia",
        "Authier, Marc",
        "Anon Ymous-Taylor",
        "The ATLAS Collaboration",
    ],
)
def test_real_names_are_not_placeholders(name: str) -> None:
    assert not is_placeholder_author(parse_name(name))


def test_has_placeholder_authors() -> None:
    real, _ = parse_author_list("Heyi Zhang and Yule Liu")
    templated, _ = parse_author_list("Heyi Zhang and Author, A.")
    assert not has_placeholder_authors(real)
    assert has_placeholder_authors(templated)
    assert not has_placeholder_authors(())


@pytest.mark.parametrize(
    ("name", "organisation"),
    [
        ("The ATLAS Collaboration", True),
        ("Gemini Team", True),
        ("R Core Team", True),
        ("World Health Organization", True),
        ("Yann LeCun", False),
        ("Theodore Groves", False),
    ],
)
def test_is_organisation_name(name: str, organisation: bool) -> None:
    assert is_organisation_name(name) is organisation


# --- list comparison ----------------------------------------------------------------------------


def _authors(text: str) -> tuple[Author, ...]:
    return parse_author_list(text)[0]


def test_identical_lists() -> None:
    result = compare_author_lists(_authors("Heyi Zhang and Yule Liu"), _authors("Zhang, H. and Liu, Y."))
    assert result.first_author_agrees is True
    assert (result.matched_count, result.order_agrees, result.swapped, result.truncated) == (
        2,
        True,
        False,
        False,
    )
    assert result.extra == result.missing == ()
    assert result.given_name_conflicts == ()
    assert result.similarity == 1.0


def test_the_seed_misattribution() -> None:
    result = compare_author_lists(
        _authors("Yifei Liu and others"), _authors("Heyi Zhang and Yule Liu and Xinlei He")
    )
    assert result.first_author_agrees is False
    assert result.swapped  # the cited first author is someone later in the list, by surname
    assert result.given_name_conflicts == (("Yifei Liu", "Yule Liu"),)


def test_partial_list_without_marker() -> None:
    result = compare_author_lists(
        _authors("Yining Wang and Akshay Krishnamurthy"),
        _authors("Yining Wang and Akshay Krishnamurthy and Ruosong Wang and Ruslan Salakhutdinov"),
    )
    assert result.truncated
    assert result.missing_trailing == 2
    assert result.missing == ("Ruosong Wang", "Ruslan Salakhutdinov")
    assert result.similarity == 0.5


def test_one_trailing_author_missing() -> None:
    result = compare_author_lists(_authors("Eric Price"), _authors("Eric Price and Samson Zhou"))
    assert result.truncated
    assert result.missing_trailing == 1


def test_et_al_covers_the_rest() -> None:
    cited, cited_truncated = parse_author_list("Yining Wang et al.")
    result = compare_author_lists(
        cited, _authors("Yining Wang and Akshay Krishnamurthy"), cited_truncated=cited_truncated
    )
    assert not result.truncated
    assert result.missing == ()
    assert result.similarity == 1.0


def test_a_truncated_source_list_does_not_make_cited_names_extra() -> None:
    cited = _authors("A. Alpha and B. Beta and C. Gamma and D. Delta")
    found = _authors("Alan Alpha and Bea Beta")
    assert compare_author_lists(cited, found, found_truncated=True).extra == ()
    assert compare_author_lists(cited, found).extra == ("C. Gamma", "D. Delta")


def test_order_beyond_the_first() -> None:
    result = compare_author_lists(
        _authors("Heyi Zhang and Xinlei He and Yule Liu"), _authors("Heyi Zhang and Yule Liu and Xinlei He")
    )
    assert result.first_author_agrees is True
    assert not result.order_agrees
    assert result.swapped


def test_middle_author_omitted() -> None:
    result = compare_author_lists(
        _authors("V. P. Dwivedi and C. K. Joshi and T. Laurent"),
        _authors("Vijay Prakash Dwivedi and Chaitanya K. Joshi and Anh Tuan Luu and Thomas Laurent"),
    )
    assert not result.truncated
    assert result.order_agrees
    assert result.missing == ("Anh Tuan Luu",)


def test_given_names_choose_between_namesakes() -> None:
    result = compare_author_lists(_authors("Y. Wang and R. Wang"), _authors("Ruosong Wang and Yining Wang"))
    assert result.first_author_agrees is True  # surname only: decisive rule
    assert not result.order_agrees  # but the initials show the two were swapped


def test_empty_lists() -> None:
    result = compare_author_lists((), _authors("A. Smith"))
    assert result.first_author_agrees is None
    assert result.missing == ("A. Smith",)
    assert compare_author_lists((), ()).similarity == 0.0


# --- properties -------------------------------------------------------------------------------

_GIVEN = st.sampled_from(["John", "J.", "Jan-Willem", "Stéphane", "Heyi", "A. B.", "Ruoxuan", "Łukasz"])
_FAMILY = st.sampled_from(
    [
        "Smith",
        "van der Maaten",
        "De Cao",
        "Schölkopf",
        "Lacoste-Julien",
        "O'Bray",
        "Zhang",
        "García Márquez",
        "Le",
    ]
)
_AUTHOR = st.builds(Author, given=st.none() | _GIVEN, family=_FAMILY, suffix=st.none() | st.just("Jr."))


@settings(max_examples=200, deadline=None)
@given(_AUTHOR)
@example(Author(given="Quoc V.", family="Le"))
@example(Author(given="Wei", family="Wang", suffix="Jr."))
def test_surname_key_survives_a_display_round_trip(author: Author) -> None:
    reparsed = parse_name(author.display)
    # "García Márquez" comes back as given "García", family "Márquez", and a lone "De Cao" as
    # given "De": the display string does not say where a compound surname starts, so only the
    # match (not the key) survives those.
    assert authors_match(reparsed, author)
    if author.given and author.family != "García Márquez":
        assert surname_key(reparsed) == surname_key(author)
    # From the first round trip on, the key is stable.
    assert surname_key(parse_name(reparsed.display)) == surname_key(reparsed)


@settings(max_examples=200, deadline=None)
@given(_AUTHOR, _AUTHOR)
def test_authors_match_is_symmetric(a: Author, b: Author) -> None:
    assert authors_match(a, b) == authors_match(b, a)


@settings(max_examples=200, deadline=None)
@given(st.lists(_AUTHOR, max_size=6))
def test_a_list_agrees_with_itself(authors: list[Author]) -> None:
    result = compare_author_lists(authors, authors)
    assert result.matched_count == len(authors)
    assert result.extra == result.missing == ()
    assert result.order_agrees and not result.swapped and not result.truncated
    assert result.first_author_agrees is (True if authors else None)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
@example("{{{{ and }")
@example("and and and")
@example(", , ;; &")
def test_parse_author_list_accepts_anything(text: str) -> None:
    authors, truncated = parse_author_list(text)
    assert isinstance(truncated, bool)
    assert all(a.family or a.given or a.literal for a in authors)


# --- real data (skipped without ../shared) --------------------------------------------------------


def _hallmark(shared_data: Path) -> list[dict[str, object]]:
    path = shared_data / "benchmarks" / "hallmark-dev" / "dev_public.jsonl"
    if not path.is_file():
        pytest.skip("hallmark-dev is absent")
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


@pytest.mark.shared
def test_no_valid_hallmark_author_is_a_placeholder(shared_data: Path) -> None:
    rows = _hallmark(shared_data)
    valid = [row for row in rows if row["label"] == "VALID"]
    assert valid
    for row in valid:
        fields = row["fields"]
        assert isinstance(fields, dict)
        authors, _ = parse_author_list(str(fields.get("author", "")))
        assert authors, fields.get("author")
        assert not has_placeholder_authors(authors), fields.get("author")


@pytest.mark.parametrize(
    ("name", "given", "family"),
    [
        ("D. E. Swanson", "D. E.", "Swanson"),  # "E." is an initial, not the particle "e"
        ("A. Y. Ng", "A. Y.", "Ng"),  # "Y." is an initial, not the particle "y"
    ],
)
def test_initials_are_never_particles(name: str, given: str, family: str) -> None:
    author = parse_name(name)
    assert (author.given, author.family) == (given, family)


@pytest.mark.parametrize(
    ("text", "families"),
    [
        (
            "Kimitaka Asatani, Junichiro Mori, Masanao Ochi, and Ichiro Sakata",
            ["Asatani", "Mori", "Ochi", "Sakata"],
        ),
        ("D. E. Swanson, C. Reich", ["Swanson", "Reich"]),
        ("A. Smith, B. Jones, and C. Lee", ["Smith", "Jones", "Lee"]),
    ],
)
def test_written_lists_of_whole_names(text: str, families: list[str]) -> None:
    authors, truncated = parse_author_list(text)
    assert [a.family for a in authors] == families
    assert not truncated
