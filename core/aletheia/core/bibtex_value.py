"""Plain text as a BibTeX field's value that reads back, LaTeX-decoded, as the same text.

One escape for every writer of BibTeX (`render`'s entries, the corrected bibliography, the reference
managers' records read as BibTeX): `& % $ # _` get a backslash; `\\`, `~` and `^` become
`\\textbackslash{}`, `\\textasciitilde{}` and `\\textasciicircum{}`. BibTeX counts every brace, escaped or
not, so a literal brace that has a partner in the same value is written `\\{`/`\\}` (balanced either way)
and one without a partner becomes `\\textbraceleft{}`/`\\textbraceright{}`; TeX ligatures are broken with
`{}` (`-{}-`, `'{}'`). `latex.latex_to_unicode` decodes each of these back.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from aletheia.core.text import normalize_whitespace

__all__ = ["bibtex_escape", "clean_text"]


def clean_text(text: str) -> str:
    """Control characters dropped, whitespace collapsed: the text every format starts from."""
    kept = "".join(char if unicodedata.category(char) != "Cc" or char.isspace() else "" for char in text)
    return normalize_whitespace(kept)


_SPECIAL: Final = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "\\": r"\textbackslash{}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
# (character, next character) pairs that TeX fonts turn into one glyph.
_LIGATURES: Final = frozenset(
    {("-", "-"), ("`", "`"), ("'", "'"), ("?", "`"), ("!", "`"), (",", ","), ("<", "<"), (">", ">")}
)


def _partnered_braces(text: str) -> set[int]:
    """Positions of the braces in `text` that pair up, as brackets do."""
    opened: list[int] = []
    paired: set[int] = set()
    for position, char in enumerate(text):
        if char == "{":
            opened.append(position)
        elif char == "}" and opened:
            paired.update((opened.pop(), position))
    return paired


def bibtex_escape(text: str) -> str:
    """Plain text as the value of a BibTeX field, reading back (LaTeX-decoded) as the same text."""
    text = clean_text(text)
    paired = _partnered_braces(text)
    out: list[str] = []
    for position, char in enumerate(text):
        if char in "{}":
            if position in paired:
                out.append("\\" + char)
            else:
                out.append(r"\textbraceleft{}" if char == "{" else r"\textbraceright{}")
        else:
            out.append(_SPECIAL.get(char, char))
        following = text[position + 1] if position + 1 < len(text) else ""
        if (char, following) in _LIGATURES:
            out.append("{}")
    return "".join(out)
