"""What the three dump readers share: opening a file (gzip or plain), counting where the reader
stands in it, the one error a broken file gives, and parsing a stored record with the parser a
live answer goes through."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final, Protocol

from aletheia.core.errors import AletheiaError
from aletheia.core.records import SourceName, WorkRecord
from aletheia.sources.base import SourceParseError

_GZIP_MAGIC: Final = b"\x1f\x8b"
CHUNK_BYTES: Final = 1 << 20


class DumpError(AletheiaError):
    """A dump file that cannot be read on: truncated, corrupt, or not the format it claims.

    Names the file and where it broke: `offset` counts bytes of the decompressed stream (what the
    format's own positions are), `file_offset` bytes of the file itself."""

    def __init__(self, path: str, detail: str, *, offset: int, file_offset: int) -> None:
        super().__init__(path, detail, offset, file_offset)
        self.path = path
        self.detail = detail
        self.offset = offset
        self.file_offset = file_offset

    def __str__(self) -> str:
        return (
            f"{self.path}: {self.detail} at byte {self.offset:,} of the decompressed data "
            f"(byte {self.file_offset:,} of the file)"
        )


class DumpStream:
    """A dump file opened for reading: `read` gives decompressed bytes, `offset` counts them,
    `file_offset` is how far into the file itself (gzip: compressed bytes) the reader is, for the
    progress bar. Decompressed with zlib directly, not `gzip.GzipFile`: a truncated stream then
    still gives every byte before the cut (GzipFile drops the whole read that hits the end), and
    the end of the file before the end of the gzip stream is a `DumpError`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[bytes] = path.open("rb")
        self.size = path.stat().st_size
        self.gzipped = self._file.read(2) == _GZIP_MAGIC
        self._file.seek(0)
        self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS) if self.gzipped else None
        self.offset = 0

    @property
    def file_offset(self) -> int:
        return self._file.tell()

    def error(self, detail: str, *, offset: int | None = None) -> DumpError:
        return DumpError(
            str(self.path),
            detail,
            offset=self.offset if offset is None else offset,
            file_offset=self.file_offset,
        )

    def read(self, size: int = CHUNK_BYTES) -> bytes:
        """The next bytes of data (at most about `size` bytes of the file decompressed); b"" at the end."""
        while True:
            raw = self._file.read(size)
            if self._inflate is None:
                chunk = raw
                break
            if not raw:
                if not self._inflate.eof:
                    raise self.error("truncated gzip stream (the file ends inside it)")
                return b""
            try:
                chunk = self._inflate.decompress(raw)
                # A gzip file may hold several members one after the other (as `cat a.gz b.gz`).
                while self._inflate.eof and self._inflate.unused_data:
                    rest = self._inflate.unused_data
                    self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    chunk += self._inflate.decompress(rest)
            except zlib.error as exc:
                raise self.error(f"corrupt gzip stream ({exc})") from exc
            if chunk:
                break
        self.offset += len(chunk)
        return chunk

    def chunks(self) -> Iterator[bytes]:
        while chunk := self.read():
            yield chunk

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> DumpStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_dump(path: Path) -> DumpStream:
    return DumpStream(path)


@dataclass(frozen=True)
class DumpItem:
    """One record of a dump: the source's own text of it, and that text decoded (the JSON object,
    or the XML element) for its parser."""

    raw: str
    payload: Any


class DumpReader(Protocol):
    """A format's reader: the records of one file, in order, after skipping the first `skip`
    (already loaded by a run that was killed) without decoding them further than counting."""

    source: str

    def items(self, stream: DumpStream, *, skip: int = 0) -> Iterator[DumpItem]:
        """Each record after the first `skip`, in the file's order."""
        ...


def dump_source(path: Path) -> str:
    """Which source's dump `path` is, read from its first bytes: DBLP's XML, Crossref's
    `{"items": [...]}` object, OpenAlex's JSON Lines of works, or Semantic Scholar's of papers."""
    with open_dump(path) as stream:
        head = stream.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        if head.startswith(b"<"):
            return SourceName.DBLP.value
        if head.startswith(b"{"):
            compact = b"".join(head[:200].split())
            if compact.startswith(b'{"items":'):
                return SourceName.CROSSREF.value
            if b'"https://openalex.org/w' in head.lower():
                return SourceName.OPENALEX.value
            if b'"corpusid":' in b"".join(head.split(b"\n", 1)[0].split()):
                return SourceName.SEMANTIC_SCHOLAR.value
        raise stream.error(
            "neither DBLP XML, a Crossref public-data file, OpenAlex JSON Lines "
            "nor Semantic Scholar's papers dataset",
            offset=0,
        )


def parse_payload(source: str, payload: Any) -> WorkRecord:
    """A dumped record through the parser a live answer of that source goes through: DBLP's
    `/rec/{key}.xml` record parser, OpenAlex's and Crossref's work parsers, Semantic Scholar's
    paper parser (the dataset's line in the Graph API's spelling, `s2_lines.graph_paper`)."""
    if source == SourceName.DBLP.value:
        from aletheia.sources.dblp_parse import parse_dblp_xml_record

        return parse_dblp_xml_record(payload)
    if source == SourceName.OPENALEX.value:
        from aletheia.sources.openalex_parse import parse_openalex_work

        return parse_openalex_work(payload)
    if source == SourceName.CROSSREF.value:
        from aletheia.sources.crossref_parse import parse_crossref_work

        return parse_crossref_work(payload)
    if source == SourceName.SEMANTIC_SCHOLAR.value:
        from aletheia.sources.dumps.s2_lines import graph_paper
        from aletheia.sources.semantic_scholar_parse import parse_s2_paper

        return parse_s2_paper(graph_paper(payload))
    raise SourceParseError(source, "no dump reader for this source")


def parse_stored(source: str, raw: str) -> tuple[WorkRecord, Any]:
    """A mirrored record as the parser of a live answer reads it, and the payload it was parsed
    from: the work's JSON for OpenAlex and Crossref, the record's XML text for DBLP."""
    if source == SourceName.DBLP.value:
        from aletheia.sources.safe_xml import parse_untrusted_xml

        return parse_payload(source, parse_untrusted_xml(raw, source=source)), raw
    try:
        payload = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise SourceParseError(source, f"a stored record is not JSON: {exc}") from exc
    return parse_payload(source, payload), payload
