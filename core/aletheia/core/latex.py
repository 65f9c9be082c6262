"""LaTeX markup in titles and names rendered as Unicode text (pure; total: never raises).

`latex_to_unicode` uses pylatexenc's `LatexNodes2Text`, which knows far more macros than any table
we would write, but pylatexenc is a recursive parser: deeply nested braces exhaust the stack and its
cost grows with the input. So it only sees inputs that are short and shallow enough, and any error
it raises sends the text to `_latex_fallback`, a table-and-regex cleanup whose every pattern is
linear-time. The folded comparison forms built on it are in `text`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Final

from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

__all__ = ["latex_to_unicode"]

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
        return _collapse_whitespace(s)
    s = _MATH_SPAN.sub(lambda math: _SCRIPT_OPERATOR.sub("", math.group()), s)
    text: str | None = None
    if _fits_pylatexenc(s):
        try:
            text = _latex_converter().latex_to_text(_BARE_SPECIAL.sub(r"\\\1", s))
        except Exception:  # pylatexenc on hostile input: any failure means "fall back"
            text = None
    if text is None:
        text = _latex_fallback(s)
    return _collapse_whitespace(text)


_WHITESPACE = re.compile(r"\s+")


def _collapse_whitespace(s: str) -> str:
    # `text.normalize_whitespace`, which cannot be imported here: `text` folds through this module.
    return _WHITESPACE.sub(" ", s).strip()
