"""Span-preserving edits of a BibTeX file: where each entry and field value is, and replacing values
in place. Pure.

`aletheia fix` must keep everything it does not change byte for byte (comments, `@string`s, field
order, indentation, line endings, other fields), so it never re-serialises an entry: it finds the
character span of the value to change (`scan_entries`) and splices the new value into the
original text (`apply_edits`). Only a value written as one literal (`{...}`, `"..."` or a bare
number) is editable; a value built from macros or `#` concatenation is reported as not editable.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from aletheia.core.bibliography.bibtex_scan import _Block, blocks_of

_SKIPPED_TYPES: Final = frozenset({"comment", "string", "preamble"})
_TYPE = re.compile(r"@[ \t]*([A-Za-z][\w:.+-]*)[ \t\r\n]*([{(])")
_NAME = re.compile(r"[^\s=,{}()\"#%]+")
_BARE = re.compile(r"[^\s,#{}()\"]+")


@dataclass(frozen=True)
class FieldSpan:
    name: str  # lower-cased
    start: int  # the value as written: from its first delimiter to its last
    end: int
    delimiter: str  # "{", '"' or "" (a bare number or macro)
    editable: bool  # one literal piece (no macro, no `#`)


@dataclass(frozen=True)
class EntrySpan:
    entry_type: str
    key: str
    start: int
    end: int
    line: int  # 1-based line of the `@`
    fields: dict[str, FieldSpan] = field(default_factory=dict)


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    replacement: str


class _Malformed(Exception):
    pass


def _skip_ws(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i].isspace():
        i += 1
    return i


def _balanced(text: str, i: int, close: str) -> int:
    """Index just past the delimiter closing the group opened at text[i] (`{` or `"`)."""
    depth = 0
    j = i + 1
    n = len(text)
    while j < n:
        c = text[j]
        if c == "\\" and j + 1 < n and text[j + 1] in '{}\\"':
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                if close == "}":
                    return j + 1
                raise _Malformed("unbalanced '}' in a quoted value")
            depth -= 1
        elif c == '"' and close == '"' and depth == 0:
            return j + 1
        j += 1
    raise _Malformed("value never closes")


def _value(text: str, i: int, closer: str) -> tuple[int, int, str, bool]:
    """(start, end, delimiter, editable) of the value starting at i (pieces joined by `#`)."""
    start = i
    pieces = 0
    delimiter = ""
    while True:
        i = _skip_ws(text, i)
        if i >= len(text):
            raise _Malformed("entry never closes")
        c = text[i]
        if c == "{":
            end = _balanced(text, i, "}")
        elif c == '"':
            end = _balanced(text, i, '"')
        else:
            m = _BARE.match(text, i)
            if not m or (closer == ")" and ")" in m.group(0)):
                raise _Malformed(f"no value at offset {i}")
            end = m.end()
        if pieces == 0:
            delimiter = c if c in '{"' else ""
            bare_is_number = c not in '{"' and text[i:end].isdigit()
        pieces += 1
        i = _skip_ws(text, end)
        if i < len(text) and text[i] == "#":
            i += 1
            continue
        editable = pieces == 1 and (delimiter != "" or bare_is_number)
        return start, end, delimiter, editable


def _entry(block: _Block) -> EntrySpan | None:
    """The entry one block holds, its spans offsets into the whole text; None for an `@string`,
    `@comment` or `@preamble`, or a block with no key."""
    text, base = block.text, block.start
    m = _TYPE.match(text)
    if not m:
        return None
    entry_type = m.group(1).lower()
    if entry_type in _SKIPPED_TYPES:
        return None
    closer = "}" if m.group(2) == "{" else ")"
    i = m.end()
    comma = text.find(",", i)
    close = text.find(closer, i)
    if comma < 0 or (0 <= close < comma):
        return None
    key = text[i:comma].strip()
    i = comma + 1
    fields: dict[str, FieldSpan] = {}
    while True:
        i = _skip_ws(text, i)
        while i < len(text) and text[i] == ",":
            i = _skip_ws(text, i + 1)
        if i >= len(text):
            raise _Malformed("entry never closes")
        if text[i] == closer:
            return EntrySpan(entry_type, key, base, base + i + 1, block.line, fields)
        name = _NAME.match(text, i)
        if not name:
            raise _Malformed(f"no field name at offset {base + i}")
        i = _skip_ws(text, name.end())
        if i >= len(text) or text[i] != "=":
            raise _Malformed(f"no '=' after field {name.group(0)!r}")
        start, end, delimiter, editable = _value(text, i + 1, closer)
        lowered = name.group(0).lower()
        if lowered in fields:  # a duplicate field: BibTeX keeps the first; never edit either
            fields[lowered] = FieldSpan(lowered, fields[lowered].start, fields[lowered].end, "", False)
        else:
            fields[lowered] = FieldSpan(
                lowered, base + _skip_ws(text, start), base + end, delimiter, editable
            )
        i = end


def scan_entries(text: str) -> list[EntrySpan]:
    """Every entry of `text` with the spans of its field values. The text is cut into blocks by
    the reader's own scanner (`bibliography/bibtex_scan.blocks_of`: braces counted, `@` on a `%`
    line skipped, a block that never closes cut at the next line starting an entry): a block it
    reports (unclosed, or braces nested past `MAX_BRACE_DEPTH`) and a malformed entry are left
    out, since nothing in them can be edited safely."""
    out: list[EntrySpan] = []
    for block in blocks_of(text):
        if block.error is not None:
            continue
        try:
            entry = _entry(block)
        except _Malformed:
            continue
        if entry is not None:
            out.append(entry)
    return out


def render_value(delimiter: str, value: str, *, original: str = "") -> str:
    """`value` (already BibTeX-escaped) in the original's delimiters; a title written in double
    braces (`{{Title}}`, case protected) keeps them."""
    if delimiter == '"':
        return f'"{value}"'
    if delimiter == "" and value.isdigit():
        return value
    if (
        original.startswith("{{")
        and original.endswith("}}")
        and _balanced(original, 1, "}") == len(original) - 1
    ):
        return "{{" + value + "}}"
    return "{" + value + "}"


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """`text` with each edit's span replaced; every byte outside the spans is kept."""
    ordered = sorted(edits, key=lambda e: e.start)
    for a, b in itertools.pairwise(ordered):
        if b.start < a.end:
            raise ValueError(f"overlapping edits at offsets {a.start} and {b.start}")
    out: list[str] = []
    pos = 0
    for e in ordered:
        if not 0 <= e.start <= e.end <= len(text):
            raise ValueError(f"edit span {e.start}..{e.end} outside the text")
        out.append(text[pos : e.start])
        out.append(e.replacement)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)


def insert_before_line(text: str, offset: int, comment_lines: Iterable[str]) -> Edit:
    """An edit adding `% ...` comment lines just before the line holding `offset`, in the file's
    own line ending."""
    line_start = text.rfind("\n", 0, offset) + 1
    newline = "\r\n" if "\r\n" in text else "\n"
    block = "".join(f"% {line}{newline}" for line in comment_lines)
    if text[line_start:offset].strip():  # the entry does not start its line: a line of its own
        return Edit(offset, offset, newline + block)
    return Edit(line_start, line_start, block)
