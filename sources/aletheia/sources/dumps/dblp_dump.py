"""DBLP's XML dump, `dblp.xml.gz` (dblp.org/xml/; "DBLP — Some Lessons Learned", the dump's
documentation): `<?xml version="1.0" encoding="ISO-8859-1"?>`, `<!DOCTYPE dblp SYSTEM "dblp.dtd">`,
then one `<dblp>` root holding millions of records (`<article>`, `<inproceedings>`, ...: the
elements of `/rec/{key}.xml`), their accented letters written as the DTD's character entities
(`&auml;`, `&eacute;`, ...).

Parsed in a stream by expat with no DTD loaded: the entities are the DTD's own, read from
`dblp.dtd` by `dtd_character_entities`, which admits character entities only (a value made of
character references or plain characters). An entity the DTD does not define, a document with an
internal subset or entity declarations of its own, is an error, never a fetch: nothing is resolved
from the network or another file.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from aletheia.core.errors import AletheiaError
from aletheia.core.records import SourceName
from aletheia.sources.dumps.common import DumpItem, DumpStream

# The record elements (dblp.dtd's `<!ELEMENT dblp (article|inproceedings|...)*>`): `www` is a
# person's page, not a work, and is not mirrored.
RECORD_ELEMENTS: Final = frozenset(
    {"article", "inproceedings", "proceedings", "book", "incollection", "phdthesis", "mastersthesis", "data"}
)
_ENTITY_DECL: Final = re.compile(
    r"<!ENTITY\s+(%\s+)?([A-Za-z_][\w.-]*)\s+(?:\"([^\"]*)\"|'([^']*)'|([^>]*))\s*>"
)
_CHAR_VALUE: Final = re.compile(r"(?:&#[0-9]{1,7};|&#x[0-9A-Fa-f]{1,6};|[^&%<>\"'])+")
_DOCTYPE: Final = re.compile(rb"<!DOCTYPE\s+\w+\s+SYSTEM\s+[\"']([^\"']+)[\"']\s*(\[)?", re.IGNORECASE)
_COMMENT: Final = re.compile(r"<!--.*?-->", re.DOTALL)
PROLOG_BYTES: Final = 64 << 10


class DtdError(ValueError, AletheiaError):
    """A DTD that declares something other than character entities where they were expected."""


def dtd_character_entities(dtd_text: str) -> dict[str, str]:
    """The general entities `dtd_text` declares whose values are characters (`<!ENTITY auml
    "&#228;">`), as name -> text. Parameter entities and external (SYSTEM/PUBLIC) entities are
    not expanded by the reader and are left out; an entity whose value refers to another entity is
    a `DtdError` (expanding it would be expanding more than characters)."""
    entities: dict[str, str] = {}
    for match in _ENTITY_DECL.finditer(_COMMENT.sub("", dtd_text)):
        parameter, name, double, single, _external = match.groups()
        value = double if double is not None else single
        if parameter or value is None:
            continue  # a parameter entity, or an external one (SYSTEM "..."): never expanded
        if value and not _CHAR_VALUE.fullmatch(value):
            raise DtdError(f"entity {name} is not a character entity: {value[:40]!r}")
        entities[name] = html.unescape(value) if "&" in value else value
    return entities


class _Records:
    """An expat target building only the records (the root's children), each handed over and
    dropped as soon as it is closed, so that memory holds one record, not the dump."""

    def __init__(self) -> None:
        self.builder = ET.TreeBuilder()
        self.depth = 0
        self.root: ET.Element | None = None
        self.done: list[ET.Element] = []

    def start(self, tag: str, attrs: dict[str, str]) -> ET.Element:
        self.depth += 1
        element = self.builder.start(tag, attrs)
        if self.depth == 1:
            self.root = element
        return element

    def end(self, tag: str) -> ET.Element:
        element = self.builder.end(tag)
        self.depth -= 1
        if self.depth == 1:
            self.done.append(element)
            if self.root is not None:
                self.root.clear()
        return element

    def data(self, text: str) -> None:
        self.builder.data(text)

    def close(self) -> Any:
        return self.builder.close()


def _dtd_path(path: Path, system_id: str) -> Path:
    # Only a file beside the dump: the DOCTYPE's identifier is a name, never a URL to fetch.
    return path.parent / Path(system_id).name


class DblpDumpReader:
    source = SourceName.DBLP.value

    def __init__(self, dtd: Path | None = None) -> None:
        self.dtd = dtd

    def items(self, stream: DumpStream, *, skip: int = 0) -> Iterator[DumpItem]:
        head = b""
        while len(head) < PROLOG_BYTES and b"<dblp" not in head:
            chunk = stream.read(PROLOG_BYTES)
            if not chunk:
                break
            head += chunk
        root_at = head.find(b"<dblp")
        if root_at < 0:
            raise stream.error("not a DBLP XML dump (no <dblp> root in its first 64 KiB)", offset=0)
        prolog = head[:root_at]
        if b"<!ENTITY" in prolog.upper():
            raise stream.error("the dump declares entities of its own; refused", offset=0)
        doctype = _DOCTYPE.search(prolog)
        if doctype is not None and doctype.group(2) is not None:
            raise stream.error("the dump's DOCTYPE has an internal subset; refused", offset=0)
        entities: dict[str, str] = {}
        if doctype is not None:
            dtd = self.dtd or _dtd_path(stream.path, doctype.group(1).decode("ascii", "replace"))
            if not dtd.is_file():
                raise stream.error(
                    f"its DOCTYPE names {doctype.group(1).decode('ascii', 'replace')}, which is not at {dtd} "
                    "(give the DTD's path)",
                    offset=0,
                )
            try:
                entities = dtd_character_entities(dtd.read_text(encoding="latin-1"))
            except DtdError as exc:
                raise stream.error(f"{dtd}: {exc}", offset=0) from exc
        target = _Records()
        # Safe as used: the prolog was checked above (no entity declarations, no internal subset),
        # no DTD is loaded, and the only entities are the DTD's characters.
        parser = ET.XMLParser(target=target)  # noqa: S314
        parser.entity.update(entities)
        seen = 0
        chunk = head
        while True:
            try:
                if chunk:
                    parser.feed(chunk)
                else:
                    parser.close()
            except ET.ParseError as exc:
                line, column = exc.position
                detail = "the XML ends before its root closes (a truncated file)" if not chunk else str(exc)
                raise stream.error(f"{detail} (line {line}, column {column})") from exc
            for element in target.done:
                if element.tag not in RECORD_ELEMENTS or not element.get("key"):
                    continue
                seen += 1
                if seen > skip:
                    yield DumpItem(raw=ET.tostring(element, encoding="unicode"), payload=element)
            target.done.clear()
            if not chunk:
                return
            chunk = stream.read()
