"""Text normalisation: accent stripping, character references, the folded forms used for comparison,
and the repair of text damaged by PDF extraction.

Every function here is total: it accepts any `str` and never raises. Titles and names arrive from
BibTeX files (LaTeX escapes, case-protecting braces), from APIs (HTML/JATS inline markup, entities)
and from PDFs (ligatures, soft hyphens); the folded forms make those comparable.

LaTeX is rendered by `latex.latex_to_unicode` (bounded pylatexenc, a linear-time fallback).
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from typing import Final

from aletheia.core.latex import latex_to_unicode

__all__ = [
    "decode_character_references",
    "fold",
    "fold_name",
    "normalize_title",
    "normalize_whitespace",
    "repair_pdf_name",
    "repair_pdf_text",
    "strip_accents",
]

_WHITESPACE = re.compile(r"\s+")


# --- Unicode folding ----------------------------------------------------------------------------

# Letters that NFKD leaves whole (they are not a base letter plus a combining mark).
_UNDECOMPOSED_LETTERS: Final = str.maketrans(
    {
        "ø": "o",
        "Ø": "O",
        "ł": "l",
        "Ł": "L",
        "đ": "d",
        "Đ": "D",
        "ð": "d",
        "Ð": "D",
        "ß": "ss",
        "ẞ": "SS",
        "æ": "ae",
        "Æ": "AE",
        "œ": "oe",
        "Œ": "OE",
        "ı": "i",
        "ȷ": "j",
        "þ": "th",
        "Þ": "Th",
        "ħ": "h",
        "Ħ": "H",
        "ŧ": "t",
        "Ŧ": "T",
        "ƒ": "f",
    }
)


def _is_diacritic(char: str) -> bool:
    # Only the Latin/Greek/Cyrillic diacritic blocks: the combining marks of other scripts
    # (kana voicing marks, Indic vowel signs) change which letter it is, not just its accent.
    code = ord(char)
    return (
        0x0300 <= code <= 0x036F
        or 0x1AB0 <= code <= 0x1AFF
        or 0x1DC0 <= code <= 0x1DFF
        or 0x20D0 <= code <= 0x20FF
        or 0xFE20 <= code <= 0xFE2F
    )


def strip_accents(s: str) -> str:
    """Remove diacritics: `Hegedűs` -> `Hegedus`, `Łukasz` -> `Lukasz`, `Straße` -> `Strasse`.

    NFKD, then the Latin/Greek/Cyrillic combining marks are dropped, the letters NFKD does not
    decompose (ø, ł, đ, ß, æ, œ, ı...) are mapped to ASCII, and the result is recomposed (NFC) so that
    Hangul and kana come back whole. Case is kept.
    """
    if s.isascii():  # nothing to strip: most titles and names (and the venue lists' index build)
        return s
    decomposed = unicodedata.normalize("NFKD", s)
    stripped = "".join(char for char in decomposed if not _is_diacritic(char))
    return unicodedata.normalize("NFC", stripped.translate(_UNDECOMPOSED_LETTERS))


def normalize_whitespace(s: str) -> str:
    """Collapse every run of Unicode whitespace to one ASCII space and strip both ends."""
    return _WHITESPACE.sub(" ", s).strip()


# HTML character references left in exported metadata ("Ch&apos;ng" in HALLMARK's author fields,
# "Ry&ocirc;fu" in Crossref's; title-cased by a citation processor into "&Amp;"): the `;` of one
# splits a name list.
_CHARACTER_REFERENCE = re.compile(r"&(?:[a-z][a-z0-9]{1,30}|#\d{1,7}|#x[0-9a-f]{1,6});", re.IGNORECASE)


def _character(match: re.Match[str]) -> str:
    reference = match.group()
    for candidate in (reference, reference.lower()):
        decoded = html.unescape(candidate)
        # A reference stands for one character (two for a few); "&notit;" is no "¬it;".
        if decoded != candidate and len(decoded) <= 2:
            return decoded
    return reference


def decode_character_references(s: str) -> str:
    """The HTML character references of `s` as the characters they stand for ("&ocirc;" is "ô";
    a name pandoc title-cased, "&Amp;", is read as "&amp;"); anything else is left as it is."""
    if "&" not in s:
        return s
    return _CHARACTER_REFERENCE.sub(_character, s)


class _FoldTable(dict[int, str | None]):
    """A `str.translate` table, filled lazily: punctuation, symbols and controls become a space,
    format characters (soft hyphen, zero-width space, BOM) vanish, everything else stays."""

    _MAX_ENTRIES: Final = 1 << 16

    def __missing__(self, code: int) -> str | None:
        category = unicodedata.category(chr(code))
        result: str | None
        if category[0] in "PS" or category in ("Cc", "Co", "Zl", "Zp"):
            result = " "
        elif category in ("Cf", "Cs"):
            result = None
        else:
            result = chr(code)
        if len(self) < self._MAX_ENTRIES:  # bounded: hostile input cannot grow it without limit
            self[code] = result
        return result


_FOLD_TABLE: Final = _FoldTable()


@functools.lru_cache(maxsize=1 << 16)
def fold(s: str) -> str:
    """The comparison form of free text: no LaTeX, no accents, case-folded, punctuation as spaces.

    Memoised: the same names and venues are folded over and over (every author of every source
    record against every cited one), and the function is pure.

    Deterministic and idempotent: `fold(fold(s)) == fold(s)`.
    """
    text = strip_accents(latex_to_unicode(s)).casefold()
    # casefold can expand a letter into a base plus combining mark (U+0130 -> i + U+0307).
    text = strip_accents(text).translate(_FOLD_TABLE)
    return normalize_whitespace(text)


# Inline markup that Crossref, PubMed and publishers leave in titles: HTML/JATS styling and MathML.
_INLINE_TAG = re.compile(
    r"</?(?:[A-Za-z][\w.-]{0,20}:)?"
    r"(?:i|b|u|em|strong|sup|sub|sc|scp|small|span|italic|bold|math|m[a-z]{1,12})"
    r"(?:\s[^<>]{0,500})?/?>",
    re.IGNORECASE,
)


def normalize_title(s: str) -> str:
    """The canonical comparison form of a title (seed 000 §5.2).

    Inline HTML/JATS/MathML tags are removed and entities decoded, then `fold` (NFKD, accents
    stripped, case-folded, punctuation and symbols as spaces, whitespace collapsed). Dashes, quotes
    and a trailing period are punctuation, so every variant of them folds the same way.
    """
    return fold(html.unescape(_INLINE_TAG.sub("", s)))


_NAME_SUFFIX = re.compile(r"(?:\s+(?:jr|sr|ii|iii|iv))+$")


def index_word(word: str) -> str:
    """A word as a search index keeps it: the plural -s removed, the part of stemming every real
    index agrees on ("networks" -> "network", "studies" -> "study"). The simulator's indexes and the
    mirror's title search both read words so, so that the mirror answers as the source would."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def fold_name(s: str) -> str:
    """The comparison form of a surname: `García-Pérez`, `Garcia Perez` -> `garciaperez`.

    `fold`, then a trailing generational suffix (Jr., Sr., II–IV) is dropped and every space,
    hyphen and apostrophe removed. CJK and other non-Latin letters are kept.
    """
    folded = fold(s)
    without_suffix = _NAME_SUFFIX.sub("", folded)
    return (without_suffix or folded).replace(" ", "")


# --- text damaged by PDF extraction ---------------------------------------------------------------
# Bibliographies extracted from PDFs (and reference lists copied out of them) carry the marks of
# the PDF's glyph layout: ligature glyphs ("ﬁ"), accents set as separate spacing glyphs before
# their letter ("Br ¨uschweiler", "No ´e", "Akvil ˙e"), and kerning read as a space after a capital
# ("V alentin", "Y ang"). The sources never have this damage, so comparing the damaged name with a
# clean one accuses a genuine reference. `repair_pdf_text` undoes the first two everywhere;
# `repair_pdf_name` also rejoins split capitals, which only names can be trusted to need.

_SPACING_ACCENTS: Final = {
    "\u00a8": "\u0308",  # ¨ diaeresis
    "\u00b4": "\u0301",  # ´ acute
    "`": "\u0300",  # grave
    "\u02c6": "\u0302",  # ˆ circumflex
    "\u02dc": "\u0303",  # ˜ tilde
    "\u00b8": "\u0327",  # ¸ cedilla
    "\u02c7": "\u030c",  # ˇ caron
    "\u02d8": "\u0306",  # ˘ breve
    "\u02d9": "\u0307",  # ˙ dot above
    "\u02da": "\u030a",  # ˚ ring above
    "\u02dd": "\u030b",  # ˝ double acute
    "\u00af": "\u0304",  # ¯ macron
}
_LIGATURES: Final = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",
    "\ufb06": "st",
}
_ACCENT_CLASS: Final = "[" + "".join(re.escape(c) for c in _SPACING_ACCENTS) + "]"
# A spacing accent glued to the letter it belongs to, with the space the PDF put before it when
# the letter continues a word ("Br ¨uschweiler": lower-case after the accent).
_ACCENT_IN_WORD = re.compile(r"(?<=[^\W\d_]) (" + _ACCENT_CLASS + r")\s?(?=[a-zà-ÿ])")
_ACCENT_BEFORE_LETTER = re.compile("(" + _ACCENT_CLASS + r")\s?([^\W\d_])")
# Not before a lower-case particle or conjunction: "J van der Berg", "Smith J and Doe A".
_SPLIT_CAPITAL = re.compile(
    r"(?<![\w.])([A-Z]) (?!(?:van|von|vom|der|den|de|del|della|dei|di|da|das|dos|do|du|des|la|le|les|"
    r"lo|ten|ter|te|zu|zum|zur|af|av|bin|binti|ibn|al|el|ben|abu|and|et|others|und)\b)(?=[a-zà-ÿ]{2,})"
)


def repair_pdf_text(s: str) -> str:
    """Ligatures expanded and detached accents put back on their letters (NFC)."""
    if not s or not any(c in s for c in (*_LIGATURES, *_SPACING_ACCENTS)):
        return s
    for glyph, letters in _LIGATURES.items():
        s = s.replace(glyph, letters)
    s = _ACCENT_IN_WORD.sub(r"\1", s)
    s = _ACCENT_BEFORE_LETTER.sub(lambda m: m.group(2) + _SPACING_ACCENTS[m.group(1)], s)
    return unicodedata.normalize("NFC", s)


def repair_pdf_name(s: str) -> str:
    """`repair_pdf_text`, and a capital split from the rest of its word ("V alentin" -> "Valentin")."""
    return _SPLIT_CAPITAL.sub(r"\1", repair_pdf_text(s))
