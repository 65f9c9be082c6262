"""The OpenAlex snapshot's works: `works/updated_date=YYYY-MM-DD/part_NNN.gz`, gzip-compressed JSON
Lines, one work object a line, as the API's `/works/{id}` answers it (docs.openalex.org,
"Download to your machine": the snapshot data format)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any, Final

from aletheia.core.records import SourceName
from aletheia.sources.dumps.json_lines import JsonLinesReader

_PARTITION: Final = re.compile(r"updated_date=(\d{4}-\d{2}-\d{2})")


def partition_date(path: Path) -> date | None:
    """The `updated_date=` partition a snapshot file sits in: every work in it was last updated
    that day, so it is the date of the snapshot those records are a copy of."""
    found = _PARTITION.search(str(path))
    return date.fromisoformat(found.group(1)) if found else None


class OpenAlexDumpReader(JsonLinesReader):
    source = SourceName.OPENALEX.value
    kind = "an OpenAlex work (an object with an `id`)"

    @staticmethod
    def is_record(value: Any) -> bool:
        return isinstance(value, dict) and isinstance(value.get("id"), str)
