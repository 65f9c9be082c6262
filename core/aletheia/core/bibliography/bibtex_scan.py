"""BibTeX's streaming scanner: a stream of text chunks cut into top-level `@` blocks, in bounded memory.

`_BlockScanner` counts braces (and the `)` of a `(`-delimited block), skips `@` on `%` comment lines
and stray `@`s, and notes where each block starts (1-based line and column). A block that never
closes is cut where the next `@type{` starts a line, the way bibtexparser and BibTeX itself
recover, or where the input ends; both come out as blocks with an `error` that says so. A block
has no length limit of its own (issue 30: a legitimate 1.7 MB abstract was refused as "an unclosed
brace?"): the input is bounded by the file size limit (`ALETHEIA_MAX_INPUT_BYTES`, checked by
the readers), and a long block is gathered in chunks whose total doubles, so reading it stays
linear. What a block holds is read by `bibtex._BibtexReader`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

# An open block longer than this gathers the chunks that follow until they are as long as it, then
# scans them at once (so the buffer's copies add up to linear time, not quadratic).
_GATHER: Final = 1 << 20
# Braces nested deeper than this are no entry a person wrote (real titles nest three or four deep:
# `{{\"{o}}}`): such a block is reported and skipped (issue 20: 100,000 nested braces were read as
# a title and handed to the LaTeX decoder).
MAX_BRACE_DEPTH: Final = 32
# Characters kept back at the end of the buffer until the next chunk arrives, so that an entry
# header (`@inproceedings{`) or an escaped brace split across two chunks is seen whole.
_HOLD: Final = 256


@dataclass(frozen=True, slots=True)
class _Block:
    """One top-level `@...` block as written, and where it starts (1-based line and column; `start`,
    the offset of its `@` in the whole input)."""

    text: str
    line: int
    column: int
    entry_type: str
    error: str | None = None  # set when the block never closed or nests braces too deep
    start: int = 0


def blocks_of(text: str) -> Iterator[_Block]:
    """The top-level blocks of a whole text, as the streaming reader cuts them (`aletheia fix`
    edits the same entries `aletheia verify` read, and skips the ones it reported)."""
    scanner = _BlockScanner()
    yield from scanner.feed(text)
    yield from scanner.finish()


_AT_HEADER = re.compile(r"@[ \t]*(\w[\w:.+-]*)?[ \t\r\n]*([{(])")
# Inside a block: escaped braces and backslashes (skipped), braces, the `)` that can close a
# `(`-delimited block, and a line starting with a new entry header (an unclosed entry before it).
_INSIDE = re.compile(r"\\[{}\\]|[{}]|\)|\n(?=[ \t]*@[ \t]*\w+[ \t]*[{(])")


class _BlockScanner:
    """Cuts a stream of text into top-level `@` blocks, counting braces, in bounded memory.

    BibTeX ignores everything outside `@` blocks; `%` starts a comment only by convention, but
    biber and every editor honour it, so an `@` on a `%` line is not an entry.
    """

    def __init__(self) -> None:
        self._buf = ""
        self._pos = 0  # where scanning resumes, an index into _buf
        self._base = 0  # absolute offset of _buf[0]
        self._line = 1  # line number at _counted
        self._counted = 0  # index into _buf up to which newlines are counted
        self._line_start = 0  # absolute offset of the start of the line holding _counted
        self._in_block = False
        self._block_start = 0
        self._block_line = 0
        self._block_column = 0
        self._block_type = ""
        self._depth = 0
        self._too_deep = False  # the current block nests braces past MAX_BRACE_DEPTH
        self._closer = "}"
        self._pending: list[str] = []  # chunks not yet added to _buf (a long open block)
        self._pending_chars = 0

    def feed(self, chunk: str) -> Iterator[_Block]:
        if self._in_block and len(self._buf) >= _GATHER:
            # Inside a long block, `_buf += chunk` would copy the whole block per chunk: gather
            # the chunks until they are as long as the buffer, then add them at once.
            self._pending.append(chunk)
            self._pending_chars += len(chunk)
            if self._pending_chars < len(self._buf):
                return
            chunk = self._take_pending()
        self._buf += chunk
        yield from self._scan(final=False)
        self._trim()

    def _take_pending(self) -> str:
        text = "".join(self._pending)
        self._pending.clear()
        self._pending_chars = 0
        return text

    def finish(self) -> Iterator[_Block]:
        if self._pending:
            self._buf += self._take_pending()
        yield from self._scan(final=True)
        if self._in_block:
            self._in_block = False
            yield self._cut(
                len(self._buf),
                error=f"unterminated @{self._block_type} block: the input ended before its closing "
                f"{self._closer!r}",
            )
        self._buf = ""

    def _count_to(self, index: int) -> None:
        if index <= self._counted:
            return
        newlines = self._buf.count("\n", self._counted, index)
        if newlines:
            self._line += newlines
            self._line_start = self._base + self._buf.rfind("\n", self._counted, index) + 1
        self._counted = index

    def _cut(self, end: int, *, error: str | None = None) -> _Block:
        if self._too_deep and error is None:
            error = f"braces nested more than {MAX_BRACE_DEPTH} deep: not a bibliography entry; skipped"
        self._too_deep = False
        return _Block(
            self._buf[self._block_start : end],
            self._block_line,
            self._block_column,
            self._block_type,
            error,
            self._base + self._block_start,
        )

    def _scan(self, *, final: bool) -> Iterator[_Block]:
        buf = self._buf
        limit = len(buf) if final else len(buf) - _HOLD
        while True:
            if not self._in_block:
                at = buf.find("@", self._pos)
                if at < 0 or at >= limit:
                    self._pos = len(buf) if at < 0 else at
                    return
                line_start = buf.rfind("\n", 0, at) + 1
                if buf[line_start:at].lstrip().startswith("%"):
                    self._pos = at + 1
                    continue
                header = _AT_HEADER.match(buf, at)
                if header is None:  # a stray `@` in comment text (an e-mail address, say)
                    self._pos = at + 1
                    continue
                self._count_to(at)
                self._in_block = True
                self._block_start = at
                self._block_line = self._line
                self._block_column = self._base + at - self._line_start + 1
                self._block_type = (header.group(1) or "").lower()
                self._closer = "}" if header.group(2) == "{" else ")"
                self._depth = 1
                self._pos = header.end()
                continue

            mark = _INSIDE.search(buf, self._pos)
            if mark is None or mark.start() >= limit:
                self._pos = max(self._pos, limit)
                return
            mark_text = mark.group()
            self._pos = mark.end()
            if mark_text == "{":
                self._depth += 1
                self._too_deep = self._too_deep or self._depth > MAX_BRACE_DEPTH
            elif mark_text == "}":
                self._depth -= 1
                if self._depth == 0:
                    self._in_block = False
                    if self._closer == "}":
                        yield self._cut(mark.end())
                    else:
                        yield self._cut(mark.end(), error="unbalanced '}' in a '('-delimited block")
            elif mark_text == ")":
                if self._closer == ")" and self._depth == 1:
                    self._in_block = False
                    yield self._cut(mark.end())
            elif mark_text == "\n":
                # A new entry starts at the beginning of this line while this one is still open.
                self._in_block = False
                self._count_to(mark.start() + 1)
                yield self._cut(
                    mark.start(),
                    error=f"unterminated @{self._block_type} block: no closing {self._closer!r} "
                    f"before the next entry at line {self._line}",
                )

    def _trim(self) -> None:
        if self._in_block:
            cut = self._block_start
        else:
            # Keep the current line: whether it is a `%` comment decides what an `@` on it means.
            cut = self._buf.rfind("\n", 0, self._pos) + 1
            if self._pos - cut > 4 * _HOLD:
                cut = self._pos
        if cut <= 0:
            return
        self._count_to(cut)
        self._buf = self._buf[cut:]
        self._base += cut
        self._pos -= cut
        self._counted -= cut
        if self._in_block:
            self._block_start -= cut
