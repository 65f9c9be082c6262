"""The OpenAlex snapshot's works: `works/updated_date=YYYY-MM-DD/part_NNN.gz`, gzip-compressed JSON
Lines, one work object a line, as the API's `/works/{id}` answers it (docs.openalex.org,
"Download to your machine": the snapshot data format)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Final

from aletheia.core.records import SourceName
from aletheia.sources.dumps.common import DumpItem, DumpStream

_PARTITION: Final = re.compile(r"updated_date=(\d{4}-\d{2}-\d{2})")


def partition_date(path: Path) -> date | None:
    """The `updated_date=` partition a snapshot file sits in: every work in it was last updated
    that day, so it is the date of the snapshot those records are a copy of."""
    found = _PARTITION.search(str(path))
    return date.fromisoformat(found.group(1)) if found else None


class OpenAlexDumpReader:
    source = SourceName.OPENALEX.value

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

    @staticmethod
    def _item(stream: DumpStream, line: bytes, offset: int, decoder: json.JSONDecoder) -> DumpItem:
        try:
            text = line.decode("utf-8")
            work = decoder.decode(text)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise stream.error(f"a line that is not a JSON work ({exc})", offset=offset) from exc
        if not isinstance(work, dict) or not isinstance(work.get("id"), str):
            raise stream.error("a line that is not an OpenAlex work (no `id`)", offset=offset)
        return DumpItem(raw=text, payload=work)
