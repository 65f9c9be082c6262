"""Whether two cited author names are one person's (names are parsed in `authors`).

Comparison is by surname (seed 000 §5.2: the first-author surname is decisive): `surname_key` folds
accents, case, hyphens, apostrophes and spaces. Two surnames also match when, particles aside,
one's words are a subset of the other's, because sources disagree on compound and particle
surnames ("van der Maaten" / "Maaten", "De Cao" / "Cao", "García Márquez" / "Márquez"). Given
names are never decisive: an initial matches any name with that initial ("J. Smith" ~ "John
Smith"); two full first names that differ ("Rui" / "Ruoxuan") are reported as evidence only.
Romanised East Asian names are written in either order, so "Zhang Heyi" and "Heyi Zhang" match.
"""

from __future__ import annotations

import re
from typing import Final

from aletheia.core.author_kinds import PARTICLES
from aletheia.core.authors import VANCOUVER_INITIALS
from aletheia.core.latex import latex_to_unicode
from aletheia.core.records import Author
from aletheia.core.text import fold, fold_name

__all__ = [
    "MIN_SURNAME_FOR_ONE_LETTER",
    "authors_match",
    "given_names_compatible",
    "one_letter_slip",
    "surname_key",
    "surnames_match",
]

_TRAILING_HOMONYM = re.compile(r"(?<=\S)\s+\d{4}$")


def surname_key(author: Author) -> str:
    """The comparison key of an author's surname (of the whole name for an organisation):
    accents, case, hyphens, apostrophes, spaces and a generational suffix do not count.
    A leading "The" of an organisation does not count either.
    """
    if author.family:
        return fold_name(_TRAILING_HOMONYM.sub("", author.family))
    if author.literal:
        words = fold(author.literal).split()
        if len(words) > 1 and words[0] == "the":
            words = words[1:]
        return fold_name(" ".join(words))
    if author.given:
        return fold_name(author.given)
    return ""


def _core_surname_words(family: str) -> frozenset[str]:
    words = [fold_name(word) for word in re.split(r"[\s\-‐‑–]+", latex_to_unicode(family))]
    words = [word for word in words if word]
    core = [word for word in words if word not in PARTICLES]
    return frozenset(core or words)


def surnames_match(a: Author, b: Author) -> bool:
    """Whether two authors have the same surname: equal `surname_key`, or (for people) the
    particle-free words of one surname are a subset of the other's ("van der Maaten" ~ "Maaten",
    "García Márquez" ~ "Márquez", "Lacoste-Julien" ~ "Julien").
    """
    key_a, key_b = surname_key(a), surname_key(b)
    if not key_a or not key_b:
        return False
    if key_a == key_b:
        return True
    if not (a.family and b.family):
        return False
    words_a, words_b = _core_surname_words(a.family), _core_surname_words(b.family)
    if not words_a or not words_b or any(len(word) < 2 for word in words_a | words_b):
        return False
    return words_a <= words_b or words_b <= words_a


def _first_given_word(given: str | None) -> str:
    if not given:
        return ""
    text = latex_to_unicode(given)
    if VANCOUVER_INITIALS.match(text.strip()):
        return fold(text.strip()[0])
    words = [w for w in re.split(r"[\s.]+", text) if w.strip("-‐‑")]
    return fold_name(words[0]) if words else ""


def given_names_compatible(a: str | None, b: str | None) -> bool:
    """Whether two given names can be the same person's: an initial matches any name with that
    initial; two full first names must be equal (accent-, case- and hyphen-insensitive).
    A missing given name is compatible with anything.
    """
    first_a, first_b = _first_given_word(a), _first_given_word(b)
    if not first_a or not first_b:
        return True
    if len(first_a) == 1 or len(first_b) == 1:
        return first_a[0] == first_b[0]
    return first_a == first_b


def _order_swapped_match(a: Author, b: Author) -> bool:
    """ "Zhang Heyi" (parsed as given Zhang, family Heyi) against "Heyi Zhang" or "H. Zhang"."""
    if not (a.given and a.family and b.family):
        return False
    return fold_name(a.given) == surname_key(b) and given_names_compatible(a.family, b.given)


def authors_match(a: Author, b: Author) -> bool:
    """Whether two authors are the same person by the decisive rule: the surnames match, or one
    name is the other written in the opposite order (romanised East Asian names)."""
    return (
        surnames_match(a, b)
        or _order_swapped_match(a, b)
        or _order_swapped_match(b, a)
        or _compound_surname_match(a, b)
        or _compound_surname_match(b, a)
    )


# Surnames at least this long may differ by one letter and still be one person's, given the same
# full first name, in a list whose other names match (issue 28: OpenAlex's "Xingrui Wong" for
# Xingrui Wang, a PDF's "Kristof T. Schüttl" for Schütt, "Weichen Zhan" for Weichen Zhang). Never
# alone: "John Smith" and "John Smyth" are two people (`author_lists` asks for the rest of the list).
MIN_SURNAME_FOR_ONE_LETTER: Final = 4


def one_letter_slip(a: Author, b: Author) -> bool:
    if not (a.family and b.family and a.given and b.given):
        return False
    first_a, first_b = _first_given_word(a.given), _first_given_word(b.given)
    if len(first_a) < 2 or first_a != first_b:
        return False
    key_a, key_b = fold_name(a.family), fold_name(b.family)
    if not (key_a.isalpha() and key_b.isalpha()):
        return False  # a digit is no slip of the pen: "Okafor9" and "Okafor0" are two names
    if key_a == key_b or min(len(key_a), len(key_b)) < MIN_SURNAME_FOR_ONE_LETTER - 1:
        return False
    if max(len(key_a), len(key_b)) < MIN_SURNAME_FOR_ONE_LETTER:
        return False
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(key_a, key_b) == 1


def _compound_surname_match(a: Author, b: Author) -> bool:
    """Spanish and Portuguese double surnames read as given + family: "Huziel Enoc Sauceda Felix"
    (family "Felix") is "Huziel E. Sauceda" when `b`'s surname is one of `a`'s later given words
    and the first given names agree."""
    if not (a.given and a.family and b.given and b.family):
        return False
    given_words = [fold_name(w) for w in a.given.split()]
    if len(given_words) < 2 or fold_name(b.family) not in given_words[1:]:
        return False
    return given_names_compatible(a.given, b.given)
