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


class CrossrefDumpReader:
    source = SourceName.CROSSREF.value

    def items(self, stream: DumpStream, *, skip: int = 0) -> Iterator[DumpItem]:
        decoder = json.JSONDecoder()
        buffer = ""
        consumed = 0  # decompressed bytes before `buffer` (UTF-8 lengths of what was dropped)
        head = b""
        while not _OPENING.match(head):
            chunk = stream.read()
            if not chunk:
                raise stream.error(
                    'not a Crossref public-data file (no `{"items": [` at its start)', offset=0
                )
            head += chunk
            if len(head) > 4096 and not _OPENING.match(head):
                raise stream.error(
                    'not a Crossref public-data file (no `{"items": [` at its start)', offset=0
                )
        opening = _OPENING.match(head)
        assert opening is not None
        undecoded = head[opening.end() :]
        consumed = opening.end()
        pos = 0
        seen = 0
        eof = False
        closed = False
        broken: DumpError | None = None

        utf8 = codecs.getincrementaldecoder("utf-8")()

        def more() -> bool:
            """Append the next chunk to the buffer, dropping what was decoded; False at the end."""
            nonlocal buffer, pos, consumed, undecoded, eof, broken
            if eof:
                return False
            try:
                chunk = undecoded + stream.read()
            except DumpError as exc:  # the items before the break are still read
                broken, chunk = exc, undecoded
            undecoded = b""
            eof = not chunk
            consumed += len(buffer[:pos].encode("utf-8"))
            try:
                buffer = buffer[pos:] + utf8.decode(chunk, final=eof)
            except UnicodeDecodeError as exc:
                raise stream.error(f"text that is not UTF-8 ({exc})", offset=consumed) from exc
            pos = 0
            return True

        more()
        while True:
            while pos < len(buffer) and buffer[pos] in " \t\r\n,":
                pos += 1
            if pos >= len(buffer):
                if not more():
                    break
                continue
            if buffer[pos] == "]":
                closed = True
                break
            try:
                item, end = decoder.raw_decode(buffer, pos)
            except json.JSONDecodeError as exc:
                if len(buffer) - pos > MAX_ITEM_BYTES or not more():
                    if broken is not None:
                        raise broken from exc
                    offset = consumed + len(buffer[:pos].encode("utf-8"))
                    raise stream.error(
                        f"an item that is not complete JSON ({exc.msg})", offset=offset
                    ) from exc
                continue
            if not isinstance(item, dict):
                offset = consumed + len(buffer[:pos].encode("utf-8"))
                raise stream.error("an item that is not a JSON object", offset=offset)
            seen += 1
            if seen > skip:
                yield DumpItem(raw=buffer[pos:end], payload=item)
            pos = end
        if broken is not None:
            raise broken
        if not closed:
            raise stream.error("the items list ends before its closing `]` (a truncated file)")
