"""BibTeX values as BibTeX reads them: delimiters removed, `@string` macros expanded, `#` parts joined.

`_expand` follows BibTeX's rules, including `#` concatenation (`journal = jmlr # " (special issue)"`),
which bibtexparser's `ResolveStringReferencesMiddleware` leaves alone. The month macros `jan`...`dec`
are predefined. Expansion is bounded (`MAX_EXPANDED_CHARS` a value, `_MAX_MACRO_CHARS_TOTAL` for
all macros together), so a few self-doubling `@string`s cannot blow up.
"""

from __future__ import annotations

import re
from typing import Final

# `@string` macros may use each other, so a few lines can double a value forty times (BibTeX's
# "billion laughs": 1.5 KB of input, terabytes expanded). What macros add to a value is held to
# this (a value written out in full is bounded by the input's size limit alone), and all macros
# together to a few times it; beyond that they are reported.
MAX_EXPANDED_CHARS: Final = 1_000_000
_MAX_MACRO_CHARS_TOTAL: Final = 8 * MAX_EXPANDED_CHARS

MONTH_MACROS: Final = {
    "jan": "January",
    "feb": "February",
    "mar": "March",
    "apr": "April",
    "may": "May",
    "jun": "June",
    "jul": "July",
    "aug": "August",
    "sep": "September",
    "oct": "October",
    "nov": "November",
    "dec": "December",
}


_MACRO_NAME = re.compile(r"[^\s\"#%'(),={}0-9][^\s\"#%'(),={}]*")


# What `#` splitting reads: an escaped character (skipped whole), a brace, a quote, the operator.
_CONCATENATION_TOKEN: Final = re.compile(r'\\.|[{}"#]', re.DOTALL)


def _split_concatenation(value: str) -> list[str]:
    """Split a field value at the `#` operators that are outside braces and quotes."""
    if "#" not in value:
        return [value]
    parts: list[str] = []
    depth = 0
    in_quotes = False
    start = 0
    for match in _CONCATENATION_TOKEN.finditer(value):
        piece = match.group()
        if piece == "#" and depth == 0 and not in_quotes:
            parts.append(value[start : match.start()])
            start = match.end()
        elif piece == '"' and depth == 0:
            in_quotes = not in_quotes
        elif piece in "{}":
            depth = max(depth + (1 if piece == "{" else -1), 0)
    parts.append(value[start:])
    return parts


class _ExpansionTooLong(ValueError):
    """A value whose macros add more than `MAX_EXPANDED_CHARS`."""


def _expand(value: str, macros: dict[str, str]) -> tuple[str, list[str]]:
    """A field value as BibTeX reads it: delimiters removed, macros expanded, parts concatenated.

    Returns the value and the names of undefined macros (kept as their own name, which is what a
    user meant more often than BibTeX's empty string: `journal = JMLR`). Raises
    `_ExpansionTooLong` when macros add more than `MAX_EXPANDED_CHARS`.
    """
    pieces: list[str] = []
    undefined: list[str] = []
    length = 0
    for part in _split_concatenation(value):
        piece = part.strip()
        if not piece:
            continue
        braced = piece[0] == "{" and piece[-1] == "}"
        quoted = piece[0] == '"' and piece[-1] == '"' and len(piece) > 1
        if braced or quoted:
            pieces.append(piece[1:-1])
        elif piece.isdigit():
            pieces.append(piece)
        elif _MACRO_NAME.fullmatch(piece):
            expansion = macros.get(piece.lower())
            if expansion is None:
                expansion = MONTH_MACROS.get(piece.lower())
            if expansion is None:
                undefined.append(piece)
                expansion = piece
            pieces.append(expansion)
        else:
            pieces.append(piece)
        if not (braced or quoted):
            length += len(pieces[-1])  # a macro's expansion (a written value costs nothing more)
        if length > MAX_EXPANDED_CHARS:
            raise _ExpansionTooLong(f"expands to more than {MAX_EXPANDED_CHARS} characters")
    return "".join(pieces), undefined
