"""Google Books' search inside a book, simulated (`q="phrase" isbn:...`): page snippets.

A few simulated books have searchable text here (`BOOK_TEXTS`, by ISBN-13). A query with a quoted
phrase and `isbn:` answers, as Google Books does, with the volume and `searchInfo.textSnippet`: a
stretch of the page around the words, HTML-escaped, the matched words in `<b>` tags, cut at word
boundaries with "..." either side. The phrase is found as Google finds it: by its words, in order,
whatever their case and the punctuation between them, so a snippet can hold the words of a
misquoted phrase (the verbatim check is `core.book_quotes`'s). No such page: `totalItems` 0.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any, Final

from aletheia.core.isbn import normalise_isbn

__all__ = ["BOOK_TEXTS", "PHRASE_ISBN", "search_inside"]

# The pages of Deep Learning (MIT Press, 2016) the simulator can show (written for the simulator).
BOOK_TEXTS: Final[dict[str, str]] = {
    "9780262035613": (
        "Inventors have long dreamed of creating machines that think. This desire dates back to at "
        "least the time of ancient Greece. When programmable computers were first conceived, people "
        "wondered whether such machines might become intelligent, over a hundred years before one was "
        "built. Today, artificial intelligence (AI) is a thriving field with many practical "
        "applications and active research topics. "
        "The true challenge to artificial intelligence proved to be solving the tasks that are easy "
        "for people to perform but hard for people to describe formally\u2014problems that we solve "
        "intuitively, that feel automatic, like recognizing spoken words or faces in images."
    ),
}
PHRASE_ISBN: Final = re.compile(
    r'^\s*"([^"]+)"\s+isbn:([0-9Xx-]{10,17})\s*$|^\s*isbn:([0-9Xx-]{10,17})\s+"([^"]+)"\s*$'
)
_WORD: Final = re.compile(r"\w+")
CONTEXT: Final = 60  # characters of the page either side of the phrase


def _phrase_span(text: str, phrase: str) -> tuple[int, int, list[tuple[int, int]]] | None:
    """Where the phrase's words occur in the text in order (case and punctuation ignored)."""
    wanted = [w.casefold() for w in _WORD.findall(phrase)]
    if not wanted:
        return None
    words = [(m.start(), m.end(), m.group().casefold()) for m in _WORD.finditer(text)]
    for i in range(len(words) - len(wanted) + 1):
        if all(words[i + j][2] == w for j, w in enumerate(wanted)):
            spans = [(words[i + j][0], words[i + j][1]) for j in range(len(wanted))]
            return spans[0][0], spans[-1][1], spans
    return None


def _snippet(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> str:
    left = max(0, text.rfind(" ", 0, max(0, start - CONTEXT)) + 1) if start > CONTEXT else 0
    right_space = text.find(" ", min(len(text), end + CONTEXT))
    right = len(text) if end + CONTEXT >= len(text) or right_space < 0 else right_space
    out: list[str] = ["..."] if left > 0 else []
    at = left
    for s, e in spans:
        out.append(html.escape(text[at:s]))
        out.append(f"<b>{html.escape(text[s:e])}</b>")
        at = e
    out.append(html.escape(text[at:right]))
    if right < len(text):
        out.append("...")
    return "".join(out)


def search_inside(q: str, volume: Callable[[str], dict[str, Any] | None]) -> dict[str, Any] | None:
    """The volumes answer to `"phrase" isbn:...`, or None when `q` is not that form; `volume(isbn)`
    is the catalogue's volume for an ISBN (None: not in the catalogue)."""
    match = PHRASE_ISBN.match(q)
    if match is None:
        return None
    phrase = match.group(1) or match.group(4)
    isbn = normalise_isbn(match.group(2) or match.group(3))
    item = volume(isbn) if isbn else None
    text = BOOK_TEXTS.get(isbn or "")
    found = _phrase_span(text, phrase) if item is not None and text else None
    if item is None or text is None or found is None:
        return {"kind": "books#volumes", "totalItems": 0}
    start, end, spans = found
    return {
        "kind": "books#volumes",
        "totalItems": 1,
        "items": [{**item, "searchInfo": {"textSnippet": _snippet(text, start, end, spans)}}],
    }
