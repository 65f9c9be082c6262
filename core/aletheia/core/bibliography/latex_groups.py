"""Balanced brace groups in LaTeX source, found in linear time, and line numbers of offsets (pure;
read by the `.bbl` readers, `bbl` and `biblatex_bbl`).
"""

from __future__ import annotations

import functools
import re
from typing import Final

__all__ = ["LineCounter", "brace_group", "skip_space"]


# Brace pairs are found in one pass per text and reused: scanning from every opening brace to its
# partner made hostile input (thousands of unclosed `\\field{x}{`) quadratic. Texts longer than this
# are scanned per call (`bbl` cuts its items to `_MAX_ITEM_CHARS` first).
_PAIRED_TEXT_LIMIT: Final = 4_000_000
_BRACE_OR_ESCAPE = re.compile(r"\\.|[{}]", re.DOTALL)


@functools.lru_cache(maxsize=8)
def _brace_pairs(text: str) -> dict[int, int]:
    """Each unescaped `{` of `text` that closes, mapped to the index of its `}`."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for match in _BRACE_OR_ESCAPE.finditer(text):
        char = match.group()
        if char == "{":
            stack.append(match.start())
        elif char == "}" and stack:
            pairs[stack.pop()] = match.start()
    return pairs


def _escaped(text: str, index: int) -> bool:
    run = index
    while run > 0 and text[run - 1] == "\\":
        run -= 1
    return (index - run) % 2 == 1


def _scan_group(text: str, start: int, stop: int) -> tuple[str, int] | None:
    depth = 0
    for match in _BRACE_OR_ESCAPE.finditer(text, start, stop):
        depth += {"{": 1, "}": -1}.get(match.group(), 0)
        if depth == 0:
            return text[start + 1 : match.start()], match.end()
    return None


def brace_group(text: str, start: int, end: int | None = None) -> tuple[str, int] | None:
    """The content of the balanced `{...}` group opening at `text[start]`, and the index after it;
    the group must close before `end` (default: the end of the text)."""
    stop = len(text) if end is None else min(end, len(text))
    if start >= stop or text[start] != "{":
        return None
    if len(text) > _PAIRED_TEXT_LIMIT or _escaped(text, start):
        return _scan_group(text, start, stop)
    close = _brace_pairs(text).get(start)
    if close is None or close >= stop:
        return None
    return text[start + 1 : close], close + 1


def skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


class LineCounter:
    """Line numbers of increasing offsets, counted incrementally (linear in the text)."""

    def __init__(self, text: str, first_line: int = 1) -> None:
        self._text = text
        self._offset = 0
        self._line = first_line

    def line_at(self, offset: int) -> int:
        if offset > self._offset:
            self._line += self._text.count("\n", self._offset, offset)
            self._offset = offset
        return self._line
