"""Crossref's public data file: one gzip-compressed JSON object per file, `{"items": [...]}`, each
item a work as the REST API's `/works/{doi}` answers it in `message` (Crossref, "Public data
file", the annual release via Academic Torrents). A file is tens of megabytes decompressed: the
items are decoded one at a time from a sliding buffer, never the whole array at once."""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import Final

from aletheia.core.records import SourceName
from aletheia.sources.dumps.common import DumpError, DumpItem, DumpStream

_OPENING: Final = re.compile(rb'\A\s*\{\s*"items"\s*:\s*\[')
# One work's JSON is a few kilobytes (references included, rarely a megabyte): a buffer this much
# larger without a complete item is a broken file, not a long work.
MAX_ITEM_BYTES: Final = 64 << 20


_NOT_A_DUMP: Final = 'not a Crossref public-data file (no `{"items": [` at its start)'


def _read_opening(stream: DumpStream) -> tuple[bytes, int]:
    """Read past the `{"items": [` that opens the file: (the bytes read after it, its length)."""
    head = b""
    while not _OPENING.match(head):
        chunk = stream.read()
        if not chunk:
            raise stream.error(_NOT_A_DUMP, offset=0)
        head += chunk
        if len(head) > 4096 and not _OPENING.match(head):
            raise stream.error(_NOT_A_DUMP, offset=0)
    opening = _OPENING.match(head)
    assert opening is not None
    return head[opening.end() :], opening.end()


class _ItemText:
    """The items array's text, decoded chunk by chunk into a sliding buffer: `more()` appends the
    next chunk and drops what was already decoded (before `pos`), counting its UTF-8 bytes in
    `consumed` so an error names its offset in the decompressed file. A read that breaks
    (`DumpError`) is kept in `broken`: the items before the break are still read."""

    def __init__(self, stream: DumpStream, undecoded: bytes, consumed: int) -> None:
        self.stream = stream
        self.buffer = ""
        self.pos = 0
        self.consumed = consumed  # decompressed bytes before `buffer` (UTF-8 lengths of what was dropped)
        self.broken: DumpError | None = None
        self._undecoded = undecoded
        self._eof = False
        self._utf8 = codecs.getincrementaldecoder("utf-8")()

    def more(self) -> bool:
        """Append the next chunk to the buffer, dropping what was decoded; False at the end."""
        if self._eof:
            return False
        try:
            chunk = self._undecoded + self.stream.read()
        except DumpError as exc:  # the items before the break are still read
            self.broken, chunk = exc, self._undecoded
        self._undecoded = b""
        self._eof = not chunk
        self.consumed += len(self.buffer[: self.pos].encode("utf-8"))
        try:
            self.buffer = self.buffer[self.pos :] + self._utf8.decode(chunk, final=self._eof)
        except UnicodeDecodeError as exc:
            raise self.stream.error(f"text that is not UTF-8 ({exc})", offset=self.consumed) from exc
        self.pos = 0
        return True

    def skip_separators(self) -> None:
        while self.pos < len(self.buffer) and self.buffer[self.pos] in " \t\r\n,":
            self.pos += 1

    def offset(self) -> int:
        """The decompressed file offset of `pos`."""
        return self.consumed + len(self.buffer[: self.pos].encode("utf-8"))


class CrossrefDumpReader:
    source = SourceName.CROSSREF.value

    def items(self, stream: DumpStream, *, skip: int = 0) -> Iterator[DumpItem]:
        decoder = json.JSONDecoder()
        text = _ItemText(stream, *_read_opening(stream))
        seen = 0
        closed = False
        text.more()
        while True:
            text.skip_separators()
            if text.pos >= len(text.buffer):
                if not text.more():
                    break
                continue
            if text.buffer[text.pos] == "]":
                closed = True
                break
            try:
                item, end = decoder.raw_decode(text.buffer, text.pos)
            except json.JSONDecodeError as exc:
                if len(text.buffer) - text.pos > MAX_ITEM_BYTES or not text.more():
                    if text.broken is not None:
                        raise text.broken from exc
                    raise stream.error(
                        f"an item that is not complete JSON ({exc.msg})", offset=text.offset()
                    ) from exc
                continue
            if not isinstance(item, dict):
                raise stream.error("an item that is not a JSON object", offset=text.offset())
            seen += 1
            if seen > skip:
                yield DumpItem(raw=text.buffer[text.pos : end], payload=item)
            text.pos = end
        if text.broken is not None:
            raise text.broken
        if not closed:
            raise stream.error("the items list ends before its closing `]` (a truncated file)")
