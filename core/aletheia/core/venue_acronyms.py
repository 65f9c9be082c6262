"""Venue acronyms derived from venue names, without a table.

`acronym_matches("SOUPS", "Symposium on Usable Privacy and Security")`: an acronym is read off the
initials of the name's words. Every content word must give at least its first letter, so that an
acronym never skips a word that names the subject ("ICML" is not an acronym of "International
Conference on Machine Learning and Applications", nor of "... on Computer Vision"). Some words
may be skipped or give their initial: small words ("on", "of", "and" — also written "&": "S&P"),
words naming the kind of event ("International", "Conference", "Symposium", "Proceedings",
"Annual"), years, ordinals, and the societies that put their name before a venue's (IEEE, ACM,
USENIX, SIAM, AAAI, CVF, SIGxxx: "ICWSM" = International AAAI Conference on Web and Social Media).
A word may give up to its first four letters ("CoRL", "COLING", "RecSys", "FAccT"), a society
token all of its own. "SIGMOD" = SIG + Management Of Data, as ACM writes the SIGMOD proceedings
without the SIG. A name that is the acronym itself ("ACM SIGKDD Conference ...", "CCS '17:
Proceedings of ...", "... (SP)") matches too.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final

from aletheia.core.text import fold

__all__ = ["ORDINAL_WORDS", "acronym_candidates", "acronym_matches", "is_acronym_like"]

_MIN_LETTERS: Final = 2
_MAX_LETTERS: Final = 8
_MAX_PREFIX: Final = 4
_MIN_WORDS: Final = 2  # an acronym stands for two words at least: "NAT" is no acronym of "Nature"

_SMALL_WORDS: Final = frozenset({"of", "on", "and", "in", "the", "for", "at", "to", "with", "a", "an", "its"})
_EVENT_WORDS: Final = frozenset(
    {
        *("international", "conference", "conf", "symposium", "symp", "proceedings", "proc", "annual"),
        *("joint", "meeting", "congress", "colloquium", "forum", "summit"),
    }
)
_SOCIETIES: Final = frozenset(
    {"ieee", "acm", "usenix", "siam", "aaai", "cvf", "rsj", "ifip", "isca", "sigsac"}
)
_PREAMBLE: Final = frozenset({"in", "proceedings", "proc", "of", "the"})
_SIG: Final = re.compile(r"^sig[a-z]{2,}$")
# Ordinal and tens words of editions ("Fortieth Annual ..."); `venues` strips them too.
ORDINAL_WORDS: Final = frozenset(
    {
        *("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"),
        *("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth"),
        *("seventeenth", "eighteenth", "nineteenth", "twentieth", "thirtieth", "fortieth", "fiftieth"),
        *("sixtieth", "seventieth", "eightieth", "ninetieth", "hundredth", "twenty", "thirty"),
        *("forty", "fifty", "sixty", "seventy", "eighty", "ninety"),
    }
)
_NUMBER: Final = re.compile(r"^(?:\d+|\d+(?:st|nd|rd|th))$")
_PARENTHESES: Final = re.compile(r"\(([^()]*)\)")
_INNER_AMPERSAND: Final = re.compile(r"(?<=[A-Za-z])&(?=[A-Za-z])")
_ACRONYM_SHAPE: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9&]*$")
_YEAR_SUFFIX: Final = re.compile(r"(?:['’]?\d{2}|\d{4})$")


def _is_society(word: str) -> bool:
    return word in _SOCIETIES or bool(_SIG.match(word))


def _is_optional(word: str) -> bool:
    return (
        word in _SMALL_WORDS
        or word in _EVENT_WORDS
        or word in ORDINAL_WORDS
        or bool(_NUMBER.match(word))
        or _is_society(word)
    )


def _words(text: str) -> list[str]:
    """Folded words, with "S&P" kept as one word ("sp") and a spaced "&" read as "and"."""
    return fold(_INNER_AMPERSAND.sub("", text).replace("&", " and ")).split()


def is_acronym_like(token: str) -> bool:
    """Whether a token has an acronym's shape: 2-8 letters (digits and "&" allowed, a trailing
    year dropped), at least two capitals ("SOUPS", "S&P", "NeurIPS", "CoRL"; not "Nature")."""
    token = token.strip()
    stripped = _YEAR_SUFFIX.sub("", token) if len(token) > 4 else token
    if not _ACRONYM_SHAPE.match(stripped):
        return False
    letters = [c for c in stripped if c.isalpha()]
    return _MIN_LETTERS <= len(letters) <= _MAX_LETTERS and sum(c.isupper() for c in letters) >= 2


def _acronym_letters(acronym: str) -> str:
    token = acronym.strip()
    if len(token) > 4:
        token = _YEAR_SUFFIX.sub("", token)
    return "".join(c for c in token.casefold() if c.isalnum() or c == "&")


def _literal_match(letters: str, name: str) -> bool:
    """The name is the acronym itself: its first word after the societies ("ACM SIGKDD ...",
    "CCS '17: Proceedings ..."), a society token SIG + acronym, or a parenthesised acronym."""
    plain = letters.replace("&", "")
    forms = {plain, f"sig{plain}"}
    for word in _words(_PARENTHESES.sub(" ", name)):
        if word in forms:
            return True
        if not (_is_society(word) or word in _PREAMBLE or word in ORDINAL_WORDS or _NUMBER.match(word)):
            break
    for inner in _PARENTHESES.findall(name):
        words = [w for w in _words(inner) if not _NUMBER.match(w)]
        if plain in words or any(f"sig{plain}" == w for w in words):
            return True
    return False


def _derives(letters: str, words: tuple[str, ...]) -> bool:
    """Whether `letters` can be read off `words` (see the module docstring)."""

    @cache
    def reach(i: int, j: int, used: int) -> bool:
        if j == len(words):
            return i == len(letters) and used >= _MIN_WORDS
        word = words[j]
        optional = _is_optional(word)
        if optional and reach(i, j + 1, used):
            return True
        if i == len(letters):
            return False
        if letters[i] == "&":
            return word == "and" and reach(i + 1, j + 1, min(used + 1, _MIN_WORDS))
        longest = len(word) if _is_society(word) else min(_MAX_PREFIX, len(word))
        for k in range(1, longest + 1):
            if i + k > len(letters) or letters[i : i + k] != word[:k]:
                break
            if reach(i + k, j + 1, min(used + 1, _MIN_WORDS)):
                return True
        return False

    return reach(0, 0, 0)


def acronym_matches(acronym: str, name: str) -> bool:
    """Whether `acronym` (a short, mostly capital token: "SOUPS", "ICDM", "S&P", "SIGMOD",
    "NeurIPS"; a trailing year is ignored) is an acronym of the venue `name`.

    Derived from the initials of the name's words (see the module docstring); never raises.
    False when `acronym` does not have an acronym's shape (`is_acronym_like`).
    """
    if not is_acronym_like(acronym):
        return False
    letters = _acronym_letters(acronym)
    if _literal_match(letters, name):
        return True
    words = tuple(_words(_PARENTHESES.sub(" ", name)))
    if len(words) > 40:
        return False  # not a venue name
    if _derives(letters, words):
        return True
    plain = letters.replace("&", "")
    return len(plain) > 4 and plain.startswith("sig") and _derives(letters[3:], words)


_LEAD_WORDS: Final = frozenset({"in", "proc", "proceedings", "of", "the", "conference", "symposium"})


def acronym_candidates(venue: str) -> tuple[str, ...]:
    """The acronyms a cited venue string stands for: the whole string when it is one acronym
    after years, "In", "Proc. of", societies and "Conference" ("CCS '17", "Proc. IEEE S&P 2019",
    "SIGMOD Conference", "USENIX SOUPS"), and any parenthesised acronym ("... (ICDM)")."""
    found: list[str] = []
    for inner in _PARENTHESES.findall(venue):
        tokens = [t for t in re.split(r"[\s,;:/\-]+", inner) if t]
        found.extend(t for t in tokens if is_acronym_like(t) and t.casefold() not in _SOCIETIES)
    outside = _PARENTHESES.sub(" ", venue)
    tokens = [t.strip(".'’") for t in re.split(r"[\s,;:/\-]+", outside) if t.strip(".'’")]
    kept = [
        t
        for t in tokens
        if not _NUMBER.match(t.strip("'’"))
        and t.casefold() not in _LEAD_WORDS
        and not (t.casefold() in _SOCIETIES and len(tokens) > 1)
    ]
    if len(kept) == 1 and is_acronym_like(kept[0]):
        found.insert(0, kept[0])
    return tuple(dict.fromkeys(found))
