"""Streamed readers of the sources' published dumps (issue 32): DBLP's `dblp.xml.gz`, the OpenAlex
snapshot's `works/updated_date=*/part_*.gz` JSON Lines, Crossref's public-data `{"items": [...]}`
files. Each yields the records one at a time, as the source's own text (XML of one record, JSON
of one work), never holding a file in memory; a truncated or corrupt file is a `DumpError` naming
the file and the offset where it broke.
"""

from __future__ import annotations

from aletheia.sources.dumps.common import (
    DumpError,
    DumpItem,
    DumpReader,
    dump_source,
    open_dump,
    parse_payload,
    parse_stored,
)
from aletheia.sources.dumps.readers import reader_for

__all__ = [
    "DumpError",
    "DumpItem",
    "DumpReader",
    "dump_source",
    "open_dump",
    "parse_payload",
    "parse_stored",
    "reader_for",
]
