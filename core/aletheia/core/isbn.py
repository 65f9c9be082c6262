"""ISBNs: check digits, ISBN-10 <-> ISBN-13, and every ISBN a citation gives.

An ISBN names one edition of one book (one binding, even): a book cited by ISBN is looked up by
it, and two ISBNs of the same book are different numbers. The canonical form is the 13 digits of
the ISBN-13, as `identifiers.clean_isbn` (python-stdnum) gives it: `normalise_isbn` is that
function. The arithmetic below is the readable account of what it checks, property-tested to give
the same answers:

- ISBN-10: digits d1..d10 (d10 may be X = 10) with sum(i * d_i for i = 10..1) = 0 mod 11;
- ISBN-13: digits with alternating weights 1, 3 and sum = 0 mod 10; prefix 978 or 979.

An ISBN-10 is the 978 ISBN-13 without its prefix and with its own check digit; 979 ISBN-13s have
no ISBN-10. Both check digits catch every single-digit error.
"""

from __future__ import annotations

import re
from typing import Final

from aletheia.core.identifiers import clean_isbn
from aletheia.core.identifiers_in_text import extract_identifiers

__all__ = [
    "compact_isbn",
    "is_valid_isbn10",
    "is_valid_isbn13",
    "isbn10_check_digit",
    "isbn10_to_13",
    "isbn13_check_digit",
    "isbn13_to_10",
    "isbns_in_field",
    "isbns_in_text",
    "normalise_isbn",
    "same_isbn",
]

_LABEL: Final = re.compile(r"^\s*isbn(?:-?1[03])?\s*(?::\s*)?", re.IGNORECASE)
_SEPARATORS: Final = re.compile(r"[\s\-\u2010-\u2015]")
_ISBN10: Final = re.compile(r"^\d{9}[\dX]$")
_ISBN13: Final = re.compile(r"^97[89]\d{10}$")
# Several ISBNs in one BibTeX `isbn` field: "978-... (hbk), 978-... (pbk)", "a; b", "a / b".
_FIELD_SPLIT: Final = re.compile(r"[,;/]|\s+and\s+|\s{2,}|\(|\)")


def compact_isbn(raw: str) -> str:
    """Without the `ISBN`/`ISBN-13:` label, spaces and hyphens; a lower-case check x upper-cased."""
    return _SEPARATORS.sub("", _LABEL.sub("", raw)).upper()


def isbn10_check_digit(first9: str) -> str:
    """The check character of an ISBN-10 whose first nine digits are `first9` ("0".."9" or "X")."""
    if len(first9) != 9 or not first9.isdigit():
        raise ValueError(f"nine digits expected, got {first9!r}")
    total = sum((10 - i) * int(d) for i, d in enumerate(first9))
    check = (11 - total % 11) % 11
    return "X" if check == 10 else str(check)


def isbn13_check_digit(first12: str) -> str:
    """The check digit of an ISBN-13 (an EAN-13) whose first twelve digits are `first12`."""
    if len(first12) != 12 or not first12.isdigit():
        raise ValueError(f"twelve digits expected, got {first12!r}")
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(first12))
    return str((10 - total % 10) % 10)


def is_valid_isbn10(raw: str) -> bool:
    text = compact_isbn(raw)
    return bool(_ISBN10.match(text)) and isbn10_check_digit(text[:9]) == text[9]


def is_valid_isbn13(raw: str) -> bool:
    text = compact_isbn(raw)
    return bool(_ISBN13.match(text)) and isbn13_check_digit(text[:12]) == text[12]


def isbn10_to_13(raw: str) -> str:
    """The ISBN-13 of a valid ISBN-10 (978 prefix, new check digit)."""
    text = compact_isbn(raw)
    if not is_valid_isbn10(text):
        raise ValueError(f"not a valid ISBN-10: {raw!r}")
    stem = "978" + text[:9]
    return stem + isbn13_check_digit(stem)


def isbn13_to_10(raw: str) -> str | None:
    """The ISBN-10 of a valid 978 ISBN-13; None for a 979 ISBN-13 (it has none)."""
    text = compact_isbn(raw)
    if not is_valid_isbn13(text):
        raise ValueError(f"not a valid ISBN-13: {raw!r}")
    if not text.startswith("978"):
        return None
    return text[3:12] + isbn10_check_digit(text[3:12])


def normalise_isbn(raw: str | None) -> str | None:
    """The 13 digits of a valid ISBN-10 or ISBN-13, else None: `identifiers.clean_isbn`, the one
    normaliser (this module's arithmetic is the readable account of it, property-tested equal)."""
    return clean_isbn(raw)


def same_isbn(a: str | None, b: str | None) -> bool:
    """Both are valid ISBNs of the same number (an ISBN-10 and its ISBN-13 are one)."""
    na, nb = normalise_isbn(a), normalise_isbn(b)
    return na is not None and na == nb


def isbns_in_field(value: str | None) -> tuple[str, ...]:
    """Every valid ISBN of a BibTeX/CSL `isbn` field, in order, each once (13-digit form)."""
    if not value:
        return ()
    found: list[str] = []
    for part in _FIELD_SPLIT.split(value):
        for word in (part, *part.split()):
            isbn = normalise_isbn(word.strip().strip("{}\"'."))
            if isbn is not None and isbn not in found:
                found.append(isbn)
    whole = clean_isbn(value.strip())
    if whole is not None and whole not in found:
        found.append(whole)
    return tuple(found)


def isbns_in_text(text: str) -> tuple[str, ...]:
    """Every ISBN a plain reference string labels as one (`ISBN 978-...`), 13-digit form."""
    return extract_identifiers(text).isbns
