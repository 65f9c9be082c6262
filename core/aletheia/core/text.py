"""Text normalisation: LaTeX to Unicode, accent stripping, and the folded forms used for comparison.

Every function here is total: it accepts any `str` and never raises. Titles and names arrive from
BibTeX files (LaTeX escapes, case-protecting braces), from APIs (HTML/JATS inline markup, entities)
and from PDFs (ligatures, soft hyphens); the folded forms make those comparable.

`latex_to_unicode` uses pylatexenc's `LatexNodes2Text`, which knows far more macros than any table
we would write, but pylatexenc is a recursive parser: deeply nested braces exhaust the stack and its
cost grows with the input. So it only sees inputs that are short and shallow enough, and any error
it raises sends the text to `_latex_fallback`, a table-and-regex cleanup whose every pattern is
linear-time.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from typing import Final

from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

__all__ = [
    "decode_character_references",
    "fold",
    "fold_name",
    "latex_to_unicode",
    "normalize_title",
    "normalize_whitespace",
    "strip_accents",
]

# pylatexenc recurses about four frames per brace level; these bounds keep it far from the
# recursion limit and under a few milliseconds. Bibliography titles are a few hundred characters.
_PYLATEXENC_MAX_CHARS: Final = 4000
_PYLATEXENC_MAX_DEPTH: Final = 24
_PYLATEXENC_MAX_ENVIRONMENTS: Final = 8

# Anything that could make the text LaTeX rather than plain Unicode.
_LATEX_HINT = re.compile(r"[\\{}$~]|--|``|''")

# `%`, `&` and `#` are LaTeX specials, but titles from APIs use them literally ("100% accurate",
# "C#"): unescaped, `%` would swallow the rest of the title as a comment.
_BARE_SPECIAL = re.compile(r"(?<!\\)([%&#])")

_WHITESPACE = re.compile(r"\s+")

# Inline math, and the sub/superscript operators in it: `H$_2$O` reads "H2O", `$\ell_1$` "ℓ1".
_MATH_SPAN = re.compile(r"\$[^$]{1,300}\$")
_SCRIPT_OPERATOR = re.compile(r"(?<!\\)[_^]")


@functools.cache
def _latex_converter() -> LatexNodes2Text:
    """Built on first use: pylatexenc's macro tables take longer to build than the rest of the import."""
    context = get_default_latex_context_db()
    # Macros pylatexenc's parser knows to take an argument but whose text rendering it lacks (it then
    # drops the argument), plus common BibTeX-only wrappers: keep their argument's text.
    keep_argument = [
        "mbox",
        "hbox",
        "texttt",
        "textsuperscript",
        "textsubscript",
        "textnormal",
        "textup",
        "textsl",
        "textmd",
        "boldsymbol",
        "NoCaseChange",
        "MakeUppercase",
        "MakeLowercase",
        "uppercase",
        "lowercase",
    ]
    context.add_context_category(
        "aletheia-bibtex",
        macros=[MacroTextSpec(name, simplify_repl="%s") for name in keep_argument]
        + [MacroTextSpec(name, simplify_repl="") for name in ("protect", "relax", "nobreak")]
        # What `bibtex_value.bibtex_escape` writes for a brace without a partner and for a caret.
        + [
            MacroTextSpec(name, simplify_repl=text)
            for name, text in (("textbraceleft", "{"), ("textbraceright", "}"), ("textasciicircum", "^"))
        ],
        prepend=True,
    )
    return LatexNodes2Text(latex_context=context, math_mode="text", strict_latex_spaces=False)


def _max_brace_depth(s: str) -> int:
    depth = deepest = 0
    for char in s:
        if char == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif char == "}" and depth:
            depth -= 1
    return deepest


def _fits_pylatexenc(s: str) -> bool:
    return (
        len(s) <= _PYLATEXENC_MAX_CHARS
        and s.count("\\begin") <= _PYLATEXENC_MAX_ENVIRONMENTS
        and _max_brace_depth(s) <= _PYLATEXENC_MAX_DEPTH
    )


# --- the linear-time fallback -------------------------------------------------------------------

_COMBINING_ACCENT: Final = {
    '"': "\u0308",
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
    "d": "\u0323",
    "b": "\u0331",
    "r": "\u030a",
    "t": "\u0361",
}
# Symbol accents may touch their letter (`\"o`); letter accents need a brace or a space (`\H u`).
_SYMBOL_ACCENT = re.compile(
    r"""\\(["'`^~=.])\s*(?:\{\s*(\\[ij]|[A-Za-z])\s*\}|(\\[ij](?![A-Za-z])|[A-Za-z]))"""
)
_LETTER_ACCENT = re.compile(
    r"\\([uvHckdbrt])(?:\s*\{\s*(\\[ij]|[A-Za-z])\s*\}|\s+(\\[ij](?![A-Za-z])|[A-Za-z]))"
)

_NAMED_LETTER: Final = {
    "ss": "ß",
    "o": "ø",
    "O": "Ø",
    "l": "ł",
    "L": "Ł",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "aa": "å",
    "AA": "Å",
    "i": "ı",
    "j": "ȷ",
    "dh": "ð",
    "DH": "Ð",
    "th": "þ",
    "TH": "Þ",
    "ng": "ŋ",
    "NG": "Ŋ",
    "dj": "đ",
    "DJ": "Đ",
    "textendash": "–",
    "textemdash": "—",
    "textquoteright": "’",
    "textquoteleft": "‘",
    "dag": "†",
    "S": "§",
    "P": "¶",
    "copyright": "©",
    "ldots": "…",
    "dots": "…",
    "LaTeX": "LaTeX",
    "TeX": "TeX",
}


def _greek(name: str) -> str:
    # Unicode spells lambda "LAMDA".
    letter = name.upper().replace("LAMBDA", "LAMDA")
    case = "CAPITAL" if name[0].isupper() else "SMALL"
    return unicodedata.lookup(f"GREEK {case} LETTER {letter}")


_GREEK: Final = {
    name: _greek(name)
    for name in (
        *("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"),
        *("lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi"),
        *("chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma"),
        *("Upsilon", "Phi", "Psi", "Omega"),
    )
} | {"varepsilon": "ε", "vartheta": "ϑ", "varphi": "φ", "varrho": "ϱ", "varsigma": "ς"}

_MATH_SYMBOL: Final = {
    "ell": "ℓ",
    "infty": "∞",
    "pm": "±",
    "times": "×",
    "cdot": "·",
    "leq": "≤",
    "le": "≤",
    "geq": "≥",
    "ge": "≥",
    "neq": "≠",
    "approx": "≈",
    "sim": "∼",
    "to": "→",
    "rightarrow": "→",
    "partial": "∂",
    "nabla": "∇",
    "sum": "∑",
}
# Operators written as words: the space LaTeX puts after them must survive (`\log n` -> "log n").
_MATH_WORDS: Final = {name: f"{name} " for name in ("log", "exp", "sin", "cos", "min", "max", "arg")}
_WORD_MACROS: Final = _NAMED_LETTER | _GREEK | _MATH_SYMBOL | _MATH_WORDS
_WORD_MACRO = re.compile(r"\\([A-Za-z]+)(?![A-Za-z])\s*(?:\{\})?")
_ESCAPED_CHAR: Final = {
    "&": "&",
    "%": "%",
    "$": "$",
    "#": "#",
    "_": "_",
    "{": "\ue000",  # placeholders survive the brace removal below, then become braces again
    "}": "\ue001",
    "\\": " ",  # `\\` is a line break
    ",": " ",
    ";": " ",
    ":": " ",
    "!": "",
    " ": " ",
    "/": "",
    "-": "",  # `\-` is a discretionary hyphen
}
_ESCAPE = re.compile(r"\\([&%$#_{}\\,;:! /\-])")
_DROPPED_BRACE_OR_MATH = re.compile(r"[{}$]")


def _accent(match: re.Match[str]) -> str:
    base = match.group(2) or match.group(3) or ""
    base = {"\\i": "i", "\\j": "j"}.get(base, base)
    return unicodedata.normalize("NFC", base + _COMBINING_ACCENT[match.group(1)])


def _word_macro(match: re.Match[str]) -> str:
    name = match.group(1)
    replacement = _WORD_MACROS.get(name)
    # Unknown macros (`\textit`, `\emph`, `\url`...) vanish; their braced argument stays as text.
    return replacement or ""


def _latex_fallback(s: str) -> str:
    s = _ESCAPE.sub(lambda m: _ESCAPED_CHAR[m.group(1)], s)
    s = _SYMBOL_ACCENT.sub(_accent, s)
    s = _LETTER_ACCENT.sub(_accent, s)
    s = _WORD_MACRO.sub(_word_macro, s)
    s = s.replace("\\", "")
    s = s.replace("---", "—").replace("--", "–").replace("``", "“").replace("''", "”")
    s = s.replace("~", " ")
    s = _DROPPED_BRACE_OR_MATH.sub("", s)
    return s.replace("\ue000", "{").replace("\ue001", "}")


def latex_to_unicode(s: str) -> str:
    """Render LaTeX markup in a title or name as Unicode text, with whitespace collapsed.

    `Heged{\\H u}s` -> `Hegedűs`, `{\\"o}` -> `ö`, `\\&` -> `&`, `--` -> `–`, `~` -> space,
    `{BERT}` -> `BERT`, `\\emph{x}` -> `x`, `$\\alpha$` -> `α`. Plain text passes through unchanged
    apart from whitespace; bare `%`, `&` and `#` are taken literally.
    """
    if not _LATEX_HINT.search(s):
        return normalize_whitespace(s)
    s = _MATH_SPAN.sub(lambda math: _SCRIPT_OPERATOR.sub("", math.group()), s)
    text: str | None = None
    if _fits_pylatexenc(s):
        try:
            text = _latex_converter().latex_to_text(_BARE_SPECIAL.sub(r"\\\1", s))
        except Exception:  # pylatexenc on hostile input: any failure means "fall back"
            text = None
    if text is None:
        text = _latex_fallback(s)
    return normalize_whitespace(text)


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
