"""Plain-text reference lists cut into references, one `SplitReference` each.

Splitting (`split_references`): a list numbered `[1]`, `1.`, `(1)`, `1)` or `1 ` (the numbers must
count up, which tells a marker from a page number that starts a wrapped line), else one reference
per paragraph, per hanging-indent block or per line. Wrapped lines are joined; a soft hyphen at a
line end (PDF text) joins the word halves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from aletheia.core.text import normalize_whitespace

# Soft hyphens at a line end: U+00AD in text, U+FFFE and U+0002 as pdfium reports a hyphenation.
_SOFT_HYPHENS: Final = "\u00ad\ufffe\x02"
_HEADING = re.compile(
    r"^\s*(?:#{1,6}\s*)?(?:[\dIVX]+\.?\s+)?(?:\*\*)?"
    r"(?:references?|bibliography|works\s+cited|literature(?:\s+cited)?|cited\s+literature|sources"
    r"|reference\s+list|citations|notes\s+and\s+references|referências|références|literatur"
    r"|literaturverzeichnis|bibliografía|referencias)(?:\*\*)?\s*:?\s*$",
    re.IGNORECASE,
)
# List markers, by style. Each captures the number; what follows must be text.
_MARKERS: Final = (
    ("bracket", re.compile(r"^\s*\[(\d{1,4})\]\s*")),
    ("paren", re.compile(r"^\s*\((\d{1,4})\)\s*")),
    ("dot", re.compile(r"^\s*(\d{1,3})\.\s+(?=\S)")),
    ("close", re.compile(r"^\s*(\d{1,3})\)\s+(?=\S)")),
    ("bare", re.compile(r"^\s*(\d{1,3})\s+(?=[^\d\s])")),
)
_INDENT = re.compile(r"^[ \t]+")
_NAME_PREFIXES: Final = frozenset({"Mc", "Mac", "Fitz"})
_LAST_WORD = re.compile(r"[^\W\d_]+$")
_FIRST_WORD = re.compile(r"[^\W\d_]+")
_URL_OPEN_END = re.compile(r"(?:https?://|www\.|10\.\d{4,9}/)\S*[./\-_=?&#]$")


@dataclass(frozen=True, slots=True)
class SplitReference:
    """One reference cut out of a list: its text (lines joined) and the 1-based line it starts on."""

    text: str
    line: int


def _real_hyphen(before: str, after: str) -> bool:
    """Whether a hyphen at a line end joins two capitalised words ("Warde-Farley"): TeX's own
    hyphenation leaves a lower-case continuation ("adver-sarial"), or capitals ("ESPE-CIALLY")."""
    last, first = _LAST_WORD.search(before), _FIRST_WORD.match(after)
    if last is None or first is None or len(first.group()) < 2 or last.group() in _NAME_PREFIXES:
        return False  # "Mc-" / "Farland": TeX breaks "McFarland" after its prefix
    return last.group()[0].isupper() and first.group()[0].isupper() and not first.group().isupper()


def join_lines(lines: list[str]) -> str:
    """Join the lines of one wrapped reference: a soft hyphen joins word halves (pdfium's mark
    between capitalised halves stays a hyphen), a URL broken after `/`, `.` or `-` is rejoined,
    everything else is separated by one space."""
    joined = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not joined:
            joined = line
        elif joined[-1] in _SOFT_HYPHENS:
            # pdfium marks a real hyphen at a line end as it marks TeX's hyphenation: between two
            # capitalised halves ("David Warde-" / "Farley", "Pouget-" / "Abadie") it was a real one.
            real = joined[-1] != "\u00ad" and _real_hyphen(joined[:-1], line)
            joined = joined[:-1] + ("-" if real else "") + line
        elif _URL_OPEN_END.search(joined[-200:]):
            joined += line
        else:
            joined += " " + line
    return normalize_whitespace(joined.translate({ord(c): None for c in _SOFT_HYPHENS}))


def _numbered_items(lines: list[str]) -> list[tuple[int, int]] | None:
    """(line index, marker length) of each item of the best-fitting numbered style, or None.

    A style fits when its markers count up by one from the first; lines with a marker out of
    sequence are continuation lines (a page number, a volume at a line start).
    """
    best: list[tuple[int, int]] | None = None
    for _name, pattern in _MARKERS:
        items: list[tuple[int, int]] = []
        expected: int | None = None
        for index, line in enumerate(lines):
            match = pattern.match(line)
            if match is None:
                continue
            number = int(match.group(1))
            if (expected is None and number <= 10) or number == expected:
                items.append((index, match.end()))
                expected = number + 1
        if len(items) >= 2 and (best is None or len(items) > len(best)):
            best = items
    return best


def _starts_like_author(line: str) -> bool:
    """Whether a line opens like a reference: "Surname, X.", "Surname X", "X. Surname", "Surname and"."""
    return bool(
        re.match(
            r"^(?:[A-Z][\w'’\-]+(?:\s+(?:van|von|de|der|del|da|di|du|le|la)\s+[A-Z][\w'’\-]+)?,\s+[A-Z]"
            r"|[A-Z][\w'’\-]+\s+[A-Z]{1,3}[,.\s]"
            r"|(?:[A-Z]\.\s*){1,3}[A-Z][\w'’\-]+"
            r"|[A-Z][a-zà-ÿ'’\-]+(?:\s+[A-Z][a-zà-ÿ'’\-]+){1,3},"
            r"|[A-Z][a-zà-ÿ'’\-]+(?:\s+[A-Z][a-zà-ÿ'’\-]+){1,3}\s+and\s"
            r"|[A-Z][\w\-]+\s+et\s+al\.)",
            line,
        )
    )


def _split_paragraph(lines: list[tuple[int, str]]) -> list[tuple[int, list[str]]]:
    """Cut one paragraph (no blank lines, no list markers) into references."""
    if len(lines) == 1:
        return [(lines[0][0], [lines[0][1]])]
    indented = [bool(_INDENT.match(text)) for _, text in lines]
    if not indented[0] and any(indented[1:]):
        # Hanging indent: a reference starts at each line that is not indented.
        groups: list[tuple[int, list[str]]] = []
        for (number, text), is_indented in zip(lines, indented, strict=True):
            if is_indented and groups:
                groups[-1][1].append(text)
            else:
                groups.append((number, [text]))
        return groups
    texts = [text.strip() for _, text in lines]
    ends_open = sum(
        1 for text in texts[:-1] if not re.search(r"[.)\]\d]$", text) or text[-1:] in _SOFT_HYPHENS
    )
    if ends_open * 2 < len(texts) - 1:
        # Most lines end a sentence: one reference per line.
        return [(number, [text]) for number, text in lines]
    # Wrapped references without markers: a new one starts after a line ending a sentence, on a
    # line that opens like an author list.
    groups = [(lines[0][0], [lines[0][1]])]
    for (number, text), previous in zip(lines[1:], texts, strict=False):
        if re.search(r"[.)\]]$", previous) and _starts_like_author(text.strip()):
            groups.append((number, [text]))
        else:
            groups[-1][1].append(text)
    return groups


def split_references(text: str, *, first_line: int = 1) -> list[SplitReference]:
    """Cut a plain-text reference list into references (see the module docstring)."""
    lines = text.splitlines()
    numbered = _numbered_items(lines)
    pieces: list[tuple[int, list[str]]] = []
    if numbered is not None:
        for position, (index, marker_end) in enumerate(numbered):
            end = numbered[position + 1][0] if position + 1 < len(numbered) else len(lines)
            body = [lines[index][marker_end:], *lines[index + 1 : end]]
            pieces.append((index, body))
    else:
        paragraph: list[tuple[int, str]] = []
        for index, line in enumerate([*lines, ""]):
            if line.strip():
                paragraph.append((index, line))
                continue
            if paragraph:
                pieces.extend(_split_paragraph(paragraph))
            paragraph = []
    references: list[SplitReference] = []
    for index, body in pieces:
        joined = join_lines(body)
        if joined and not _HEADING.match(joined):
            references.append(SplitReference(joined, first_line + index))
    return references
