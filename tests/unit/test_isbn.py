"""aletheia.core.isbn: check digits, ISBN-10 <-> 13, normalisation, and ISBNs in fields and text."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from aletheia.core.bibliography import parse_text
from aletheia.core.identifiers import clean_isbn
from aletheia.core.isbn import (
    compact_isbn,
    is_valid_isbn10,
    is_valid_isbn13,
    isbn10_check_digit,
    isbn10_to_13,
    isbn13_check_digit,
    isbn13_to_10,
    isbns_in_field,
    isbns_in_text,
    normalise_isbn,
    same_isbn,
)
from aletheia.core.records import CitedReference

DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=1)
STEM9 = st.text(alphabet="0123456789", min_size=9, max_size=9)
STEM12 = st.builds(
    lambda p, rest: p + rest, st.sampled_from(["978", "979"]), st.text("0123456789", min_size=9, max_size=9)
)


def isbn10(stem: str) -> str:
    return stem + isbn10_check_digit(stem)


def isbn13(stem: str) -> str:
    return stem + isbn13_check_digit(stem)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("0-262-03561-8", "9780262035613"),  # Goodfellow et al., Deep Learning
        ("978-0-262-03561-3", "9780262035613"),
        ("ISBN 0-387-31073-8", "9780387310732"),  # Bishop, PRML
        ("ISBN-13: 978-0-387-31073-2", "9780387310732"),
        ("080442957X", "9780804429573"),  # check character X
        ("080442957x", "9780804429573"),
        ("979-10-90636-07-1", "9791090636071"),  # a 979 ISBN (no ISBN-10)
        ("0-262-03561-9", None),  # wrong check digit
        ("978-0-262-03561-4", None),
        ("977-0-262-03561-3", None),  # not a Bookland prefix
        ("12345", None),
        ("", None),
        (None, None),
    ],
)
def test_normalise(raw: str | None, expected: str | None) -> None:
    assert normalise_isbn(raw) == expected
    assert clean_isbn(raw) == expected  # the identifiers module (python-stdnum) agrees


def test_conversions() -> None:
    assert isbn10_to_13("0262035618") == "9780262035613"
    assert isbn13_to_10("9780262035613") == "0262035618"
    assert isbn13_to_10("9791090636071") is None  # 979: no ISBN-10
    assert compact_isbn("ISBN-10: 0 262 03561 8") == "0262035618"
    with pytest.raises(ValueError):
        isbn10_to_13("0262035619")
    with pytest.raises(ValueError):
        isbn13_to_10("9780262035614")
    with pytest.raises(ValueError):
        isbn10_check_digit("12345")
    assert same_isbn("0-262-03561-8", "9780262035613")
    assert not same_isbn("0262035618", "9780387310732")
    assert not same_isbn(None, None)


def test_isbns_in_a_bibtex_field() -> None:
    assert isbns_in_field("978-0-262-03561-3 (hardcover), 0-387-31073-8 (pbk.)") == (
        "9780262035613",
        "9780387310732",
    )
    assert isbns_in_field("9780262035613; 9780262035613") == ("9780262035613",)
    assert isbns_in_field("not an isbn") == ()
    assert isbns_in_field(None) == ()


def test_isbns_in_reference_text() -> None:
    text = "C. Bishop. Pattern Recognition and Machine Learning. Springer, 2006. ISBN 978-0-387-31073-2."
    assert isbns_in_text(text) == ("9780387310732",)
    assert isbns_in_text("Deep Learning. MIT Press, 2016. ISBN: 0262035618") == ("9780262035613",)
    assert isbns_in_text("Page 978-0-387-31073-2 is not labelled") == ()


def test_bibliography_parsers_fill_the_cited_isbn() -> None:
    bib = "@book{gb, title={Deep Learning}, author={Goodfellow, Ian}, year={2016}, isbn={0-262-03561-8}}"
    (ref,) = [r for r in parse_text(bib, origin="refs.bib") if isinstance(r, CitedReference)]
    assert ref.isbn == "9780262035613"
    plain = (
        "[1] C. Bishop. Pattern Recognition and Machine Learning. Springer, 2006. ISBN 978-0-387-31073-2.\n"
    )
    (ref,) = [r for r in parse_text(plain, origin="refs.txt") if isinstance(r, CitedReference)]
    assert ref.isbn == "9780387310732"


# --- properties ------------------------------------------------------------------------------------


@given(STEM9)
def test_isbn10_round_trip(stem: str) -> None:
    ten = isbn10(stem)
    assert is_valid_isbn10(ten)
    thirteen = isbn10_to_13(ten)
    assert is_valid_isbn13(thirteen) and thirteen.startswith("978")
    assert isbn13_to_10(thirteen) == ten
    assert normalise_isbn(ten) == normalise_isbn(thirteen) == thirteen


@given(STEM12)
def test_isbn13_is_valid_and_normalises_to_itself(stem: str) -> None:
    thirteen = isbn13(stem)
    assert is_valid_isbn13(thirteen)
    assert normalise_isbn(thirteen) == thirteen
    assert normalise_isbn(f"ISBN {thirteen[:3]}-{thirteen[3:]}") == thirteen  # labels and hyphens
    assert normalise_isbn(normalise_isbn(thirteen)) == thirteen  # idempotent


@given(STEM9, st.integers(0, 9), DIGITS)
def test_a_single_digit_change_is_always_caught_isbn10(stem: str, position: int, digit: str) -> None:
    ten = isbn10(stem)
    changed = ten[:position] + digit + ten[position + 1 :]
    if changed != ten:
        assert not is_valid_isbn10(changed)


@given(STEM12, st.integers(0, 12), DIGITS)
@example("978026203561", 12, "4")
def test_a_single_digit_change_is_always_caught_isbn13(stem: str, position: int, digit: str) -> None:
    thirteen = isbn13(stem)
    changed = thirteen[:position] + digit + thirteen[position + 1 :]
    if changed != thirteen:
        assert not is_valid_isbn13(changed)


def _by_the_arithmetic(raw: str) -> str | None:
    """What this module's own check digits say of `raw` (the account `clean_isbn` must match)."""
    if len(raw) > 64:
        return None
    text = compact_isbn(raw.strip())
    if is_valid_isbn13(text):
        return text
    return isbn10_to_13(text) if is_valid_isbn10(text) else None


@given(st.text(alphabet="0123456789Xx- \u2013ISBN:", max_size=24))
def test_normalise_agrees_with_clean_isbn(raw: str) -> None:
    # normalise_isbn is clean_isbn (python-stdnum); both must agree with the arithmetic written out.
    assert normalise_isbn(raw) == clean_isbn(raw)
    assert clean_isbn(raw) == _by_the_arithmetic(raw)
