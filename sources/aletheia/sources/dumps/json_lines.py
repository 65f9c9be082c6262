"""What the two JSON Lines dumps share (the OpenAlex snapshot's works, Semantic Scholar's papers
dataset): one record a line, read from a sliding buffer, each line's start offset kept for the
error a broken line gives."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from aletheia.sources.dumps.common import DumpItem, DumpStream


class JsonLinesReader:
    """A JSON Lines dump of `source`; `is_record` says whether a decoded line is one of its records
    (`kind` names what it should have been, for the error)."""

    source: str
    kind: str

    @staticmethod
    def is_record(value: Any) -> bool:
        raise NotImplementedError

    def items(self, stream: DumpStream, *, skip: int = 0) -> Iterator[DumpItem]:
        pending = b""
        start = 0  # decompressed offset of `pending`'s first byte
        seen = 0
        decoder = json.JSONDecoder()
        while True:
            chunk = stream.read()
            if not chunk:
                break
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
            for line in lines:
                line_start = start
                start += len(line) + 1
                if not line.strip():
                    continue
                seen += 1
                if seen <= skip:
                    continue
                yield self._item(stream, line, line_start, decoder)
        if pending.strip():
            seen += 1
            if seen > skip:
                yield self._item(stream, pending, start, decoder)

    def _item(self, stream: DumpStream, line: bytes, offset: int, decoder: json.JSONDecoder) -> DumpItem:
        try:
            text = line.decode("utf-8")
            value = decoder.decode(text)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise stream.error(f"a line that is not JSON ({exc})", offset=offset) from exc
        if not self.is_record(value):
            raise stream.error(f"a line that is not {self.kind}", offset=offset)
        return DumpItem(raw=text, payload=value)
