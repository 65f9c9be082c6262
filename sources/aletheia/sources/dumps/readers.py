"""The reader of each dump format, by source name."""

from __future__ import annotations

from pathlib import Path

from aletheia.core.records import SourceName
from aletheia.sources.dumps.common import DumpReader
from aletheia.sources.dumps.crossref_dump import CrossrefDumpReader
from aletheia.sources.dumps.dblp_dump import DblpDumpReader
from aletheia.sources.dumps.openalex_dump import OpenAlexDumpReader
from aletheia.sources.dumps.s2_dump import S2PapersDumpReader


def reader_for(source: str, *, dtd: Path | None = None) -> DumpReader:
    """The reader of `source`'s dump (`dtd`: DBLP's DTD, when not the file its DOCTYPE names)."""
    if source == SourceName.DBLP.value:
        return DblpDumpReader(dtd)
    if source == SourceName.OPENALEX.value:
        return OpenAlexDumpReader()
    if source == SourceName.CROSSREF.value:
        return CrossrefDumpReader()
    if source == SourceName.SEMANTIC_SCHOLAR.value:
        return S2PapersDumpReader()
    raise ValueError(f"no dump reader for {source!r}")
