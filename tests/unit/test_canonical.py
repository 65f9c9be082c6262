"""aletheia.core.canonical: parsing canonical references, the table of works, the passage check."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.canonical import (
    canonical_reference,
    canonical_works,
    ccel_path,
    cts_passage_urn,
    parse_canonical,
    resolve,
    roman_to_int,
)
from aletheia.core.records import Author, CitedReference


@pytest.mark.parametrize(
    ("text", "author", "work", "locus", "end"),
    [
        ("Augustine, Confessions 10.27", "Augustine", "Confessions", ("10", "27"), None),
        ("Homer, Iliad 1.1", "Homer", "Iliad", ("1", "1"), None),
        ("Plato, Republic 514a", "Plato", "Republic", ("514a",), None),
        ("John 3:16", None, "John", ("3", "16"), None),
        ("1 Corinthians 13:4", None, "1 Corinthians", ("13", "4"), None),
        ("Augustine, Confessions X.xxvii", "Augustine", "Confessions", ("10", "27"), None),
        ("Homer, Iliad 1.1-1.7", "Homer", "Iliad", ("1", "1"), ("1", "7")),
        ("Matthew 5:3\u201312", None, "Matthew", ("5", "3"), ("12",)),
        ("Virgil, Aeneid 2.268.", "Virgil", "Aeneid", ("2", "268"), None),
    ],
)
def test_parse(
    text: str, author: str | None, work: str, locus: tuple[str, ...], end: tuple[str, ...] | None
) -> None:
    ref = parse_canonical(text)
    assert ref is not None
    assert (ref.author, ref.work, ref.locus, ref.end) == (author, work, locus, end)


@pytest.mark.parametrize(
    "text",
    [
        "Attention is all you need",
        "Smith, J. (2020). Deep nets. Journal of Things 10(27), 1-20.",
        "",
        None,
        "Iliad",
        "x" * 400,
    ],
)
def test_not_canonical(text: str | None) -> None:
    assert parse_canonical(text) is None


def test_roman_numerals() -> None:
    assert [roman_to_int(x) for x in ("i", "IV", "x", "xxvii", "XLII", "mcm", "")] == [
        1,
        4,
        10,
        27,
        42,
        None,
        None,
    ]


def test_the_table_is_versioned_and_self_consistent() -> None:
    table = canonical_works()
    assert table.version
    for work in table.works:
        assert work.service in ("perseus", "ccel")
        assert (work.urn is not None) == (work.service == "perseus")
        if work.second:
            assert work.top == len(work.second), work.id
    iliad = next(w for w in table.works if w.id == "homer.iliad")
    assert iliad.urn == "urn:cts:greekLit:tlg0012.tlg001.perseus-grc2"


@pytest.mark.parametrize(
    ("text", "known", "in_range"),
    [
        ("Homer, Iliad 1.1", True, True),
        ("Homer, Iliad 24.804", True, True),
        ("Homer, Iliad 24.806", True, None),  # just past the table's 804: editions differ, the text decides
        ("Homer, Iliad 24.900", True, False),  # clearly beyond book 24
        ("Homer, Iliad 25.1", True, False),  # 24 books
        ("Homer, Iliad 1.1-1.700", True, False),  # the range ends beyond book 1
        ("Plato, Republic 514a", True, True),
        ("Plato, Republic 621d", True, True),
        ("Plato, Republic 622a", True, False),
        ("Plato, Republic 326e", True, False),
        ("John 3:16", True, True),
        ("John 22:1", True, False),  # 21 chapters
        ("John 3:37", True, None),  # one past John 3's 36 verses: left to the text
        ("John 3:50", True, False),
        ("Augustine, Confessions 10.27", True, True),
        ("Augustine, Confessions 14.1", True, False),
        ("Augustine, City of God 19", True, True),  # books only: chapters not in the table
        ("Plato, Timaeus 30a", False, None),
    ],
)
def test_resolve(text: str, known: bool, in_range: bool | None) -> None:
    ref = parse_canonical(text)
    assert ref is not None
    resolution = resolve(ref)
    assert (resolution.work is not None, resolution.in_range) == (known, in_range)


def test_an_author_that_contradicts_the_work_is_not_the_work() -> None:
    ref = parse_canonical("Virgil, Iliad 1.1")
    assert ref is not None and resolve(ref).work is None


def test_passage_locators() -> None:
    table = {w.id: w for w in canonical_works().works}
    iliad = parse_canonical("Homer, Iliad 1.1")
    matthew = parse_canonical("Matthew 5:3-12")
    confessions = parse_canonical("Augustine, Confessions 10.27")
    assert iliad and matthew and confessions
    assert cts_passage_urn(table["homer.iliad"], iliad) == "urn:cts:greekLit:tlg0012.tlg001.perseus-grc2:1.1"
    assert (
        cts_passage_urn(table["nt.matthew"], matthew)
        == "urn:cts:greekLit:tlg0031.tlg001.perseus-grc2:5.3-5.12"
    )
    assert ccel_path(table["augustine.confessions"], confessions) == "/ccel/augustine/confess.x.xxvii.html"
    only_book = parse_canonical("Augustine, Confessions 10")
    assert only_book and ccel_path(table["augustine.confessions"], only_book) is None  # no chapter to fill


def test_canonical_reference_reads_bibtex_shapes() -> None:
    homer = (Author(literal="Homer"),)
    assert canonical_reference(CitedReference(key="a", title="Iliad 1.1", authors=homer)) is not None
    split = CitedReference(
        key="b", title="Confessions", authors=(Author(literal="Augustine"),), fields={"pages": "10.27"}
    )
    resolution = canonical_reference(split)
    assert resolution is not None and resolution.work is not None and resolution.ref.locus == ("10", "27")
    raw = CitedReference(key="c", raw="Plato, Republic 514a")
    assert canonical_reference(raw) is not None
    # An ordinary paper is never canonical, nor anything with a scholarly identifier.
    paper = CitedReference(key="d", title="Journal of Things 10.27", authors=(Author(family="Smith"),))
    assert canonical_reference(paper) is None
    assert (
        canonical_reference(CitedReference(key="e", title="Iliad 1.1", authors=homer, doi="10.1/x")) is None
    )


@given(st.sampled_from([w for w in canonical_works().works if w.second]), st.data())
def test_every_passage_inside_the_structure_resolves_in_range(work, data) -> None:  # type: ignore[no-untyped-def]
    top = data.draw(st.integers(1, work.top))
    second = data.draw(st.integers(1, work.second[top - 1]))
    sep = ":" if work.scheme == "chapter:verse" else "."
    ref = parse_canonical(f"{work.title} {top}{sep}{second}")
    assert ref is not None
    resolution = resolve(ref)
    assert resolution.work == work and resolution.in_range is True
    limit = work.second[top - 1]
    beyond = parse_canonical(
        f"{work.title} {top}{sep}{limit + max(5, limit // 10) + data.draw(st.integers(1, 50))}"
    )
    assert beyond is not None and resolve(beyond).in_range is False


@given(st.text(max_size=200))
def test_parse_canonical_never_raises(text: str) -> None:
    ref = parse_canonical(text)
    if ref is not None:
        assert ref.locus and ref.work
        resolve(ref)  # nor does resolving whatever parsed
