"""The parts of a file where a citation link or a `research:` comment can be, for `aletheia check`
(issue 30: the project's own checkout reported 19 problems, among them the README's description of
the syntax and the tests' fixture strings).

- Markdown (`.md`, `.markdown`): the prose. Fenced code blocks and inline code spans show syntax;
  they are not citations.
- Python (`.py`): the comments. A string literal is data (a test's fixture, a message), not a
  link; a file that does not tokenize is read whole.
- Any other file: the whole text, as before (comments are found by their markers).

What is left out is replaced by spaces, newlines kept, so line numbers do not move.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Final

MARKDOWN_SUFFIXES: Final = (".md", ".markdown")
_FENCE: Final = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN: Final = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _markdown_prose(text: str) -> str:
    out: list[str] = []
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            out.append(_blank(line))
        elif opening:
            fence = opening.group(1)
            out.append(_blank(line))
        else:
            out.append(_CODE_SPAN.sub(lambda m: _blank(m.group(0)), line))
    return "".join(out)


def _python_comments(text: str) -> str:
    lines = text.splitlines(keepends=True)
    kept = [[" " if ch != "\n" else ch for ch in line] for line in lines]
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                (row, col), (_, end) = token.start, token.end
                kept[row - 1][col:end] = list(token.string)
    except (tokenize.TokenError, SyntaxError, IndexError):
        return text
    return "".join("".join(line) for line in kept)


def citable_text(relative: str, text: str) -> str:
    """`text` with everything that cannot hold a citation link blanked (see the module docstring)."""
    name = relative.lower()
    if name.endswith(MARKDOWN_SUFFIXES):
        return _markdown_prose(text)
    if name.endswith(".py"):
        return _python_comments(text)
    return text
