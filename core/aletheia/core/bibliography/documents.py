"""Whole documents given as input: only their references are read.

A paper as plain text, HTML or XML holds a reference list among much else; a blog page holds
none. What is read (issue 20: raw HTML, markup and paragraphs must never become "references"):

- plain text: the lines after the last References/Bibliography heading, up to an appendix; without
  a heading, the whole text only when most of its pieces read as references (a pasted list);
- HTML: the paragraphs and list items after the last heading named References/Bibliography (up to
  the next heading of the same or a higher level), or inside an element marked as the bibliography
  (`role="doc-bibliography"`, an id or class `references`/`bibliography`); scripts, styles and
  navigation are never read, and link targets (doi.org, arXiv) give identifiers;
- XML: JATS `<ref>` (its `mixed-citation` as written, an `element-citation` from its fields) and
  TEI `<biblStruct>`/`<bibl>` in a `<listBibl>`.

A document with no reference list yields nothing, and the reader of files says so ("no
references found in FILE", `aletheia.pipeline.documents.inputs`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET  # entity declarations are refused before parsing (`iter_xml`)
from collections.abc import Callable, Iterator
from html import unescape
from html.parser import HTMLParser
from typing import Final

from aletheia.core.bibliography.plain import (
    inherit_repeated_authors,
    parse_reference_string,
    reference_from_string,
)
from aletheia.core.bibliography.plain_split import split_references
from aletheia.core.bibliography.problems import InputError, InputProblem
from aletheia.core.records import CitedReference
from aletheia.core.text import normalize_whitespace

__all__ = ["iter_html", "iter_text_document", "iter_xml", "looks_like_reference_list"]

_SECTION_NAME = re.compile(
    r"^\s*(?:#{1,6}\s*)?(?:\*\*)?(?:(?:\d{1,2}|[IVX]{1,5}|[A-Z])\.?\s+)?"
    r"(?:references?|bibliography|works\s+cited|literature(?:\s+cited)?|cited\s+literature"
    r"|reference\s+list|notes\s+and\s+references|references\s+and\s+notes|sources)(?:\*\*)?\s*:?\s*$",
    re.IGNORECASE,
)
# What ends a references section in running text: an appendix or supplement heading.
_SECTION_END = re.compile(
    r"^\s*(?:#{1,6}\s*)?(?:(?:appendix|appendices)(?:\s+[A-Z0-9][^.]{0,80})?|supplementary(?:\s+\w+)?"
    r"|acknowledge?ments?|author\s+contributions|(?:[A-H](?:\.\d)?)\s+[A-Z][^.]{2,80})\s*:?\s*$",
    re.IGNORECASE,
)
# A text without a heading is a reference list when at least this share of its pieces read as
# references (a year or an identifier, and authors or a title).
_LIST_SHARE: Final = 0.5
_MIN_REFERENCE_CHARS: Final = 20
_MAX_REFERENCE_CHARS: Final = 2000


def _reads_as_reference(text: str) -> bool:
    if not _MIN_REFERENCE_CHARS <= len(text) <= _MAX_REFERENCE_CHARS:
        return False
    fields = parse_reference_string(text)
    if fields.get("doi") or fields.get("arxiv_id") or fields.get("pmid") or fields.get("isbn"):
        return True
    return "year" in fields and "authors" in fields and ("title" in fields or "venue" in fields)


def looks_like_reference_list(pieces: list[str]) -> bool:
    """Whether the pieces of a text (paragraphs, lines) are mostly references."""
    return bool(pieces) and sum(1 for p in pieces if _reads_as_reference(p)) >= _LIST_SHARE * len(pieces)


def _section(lines: list[str]) -> tuple[int, int] | None:
    """(first, end) line indexes of the body of the last References section of a text."""
    heading = None
    for index, line in enumerate(lines):
        if _SECTION_NAME.match(line):
            heading = index
    if heading is None:
        return None
    end = next(
        (
            i
            for i in range(heading + 1, len(lines))
            if len(lines[i].split()) <= 12 and _SECTION_END.match(lines[i])
        ),
        len(lines),
    )
    return heading + 1, end


def iter_text_document(text: str, *, origin: str) -> Iterator[CitedReference | InputProblem]:
    """The references of a plain-text input: its References section, or the whole text when it is
    a reference list (see the module docstring)."""
    lines = text.splitlines()
    section = _section(lines)
    if section is not None:
        first, end = section
        pieces = split_references("\n".join(lines[first:end]), first_line=first + 1)
    else:
        pieces = split_references(text)
        if not looks_like_reference_list([piece.text for piece in pieces]):
            return
    yield from inherit_repeated_authors(
        reference_from_string(piece.text, key=str(position), origin=f"{origin}:{piece.line}")
        for position, piece in enumerate(pieces, start=1)
    )


# --- HTML -------------------------------------------------------------------------------------------

_BLOCKS: Final = frozenset(
    {"p", "li", "div", "dd", "dt", "tr", "td", "section", "article", "blockquote", "pre", "br", "ol", "ul"}
)
_HEADINGS: Final = {f"h{n}": n for n in range(1, 7)}
_SKIPPED: Final = frozenset({"script", "style", "noscript", "template", "svg", "head", "nav"})
_BIBLIOGRAPHY_MARK = re.compile(
    r"(?:^|[\s_-])(?:references?|bibliography|ref-list|reflist|citations)(?:$|[\s_-])", re.I
)
_LINK_TARGET = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|https?://arxiv\.org/abs/|doi:)", re.I)


class _Blocks(HTMLParser):
    """An HTML page as a sequence of text blocks: (heading level or 0, text, link targets,
    inside a bibliography element)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[int, str, list[str], bool]] = []
        self._text: list[str] = []
        self._links: list[str] = []
        self._level = 0
        self._skip = 0
        self._marked: list[str | None] = []  # open elements; the tag of a bibliography element

    def _flush(self) -> None:
        text = normalize_whitespace("".join(self._text))
        if text:
            self.blocks.append((self._level, text, self._links, any(self._marked)))
        self._text, self._links, self._level = [], [], 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in _SKIPPED:
            self._skip += 1
            return
        if tag in _HEADINGS or tag in _BLOCKS:
            self._flush()
        if tag in _HEADINGS:
            self._level = _HEADINGS[tag]
        marks = " ".join(v or "" for k, v in values.items() if k in ("id", "class", "role", "epub:type"))
        if tag not in ("br",):
            self._marked.append(
                tag if _BIBLIOGRAPHY_MARK.search(marks) or "doc-bibliography" in marks else None
            )
        href = values.get("href")
        if tag == "a" and href and _LINK_TARGET.match(href):
            self._links.append(href)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self._skip = max(0, self._skip - 1)
            return
        if tag in _HEADINGS or tag in _BLOCKS:
            self._flush()
        if self._marked and tag != "br":
            self._marked.pop()

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._text.append(data)


def _html_references(blocks: list[tuple[int, str, list[str], bool]]) -> list[tuple[str, list[str]]]:
    headings = [i for i, (level, text, _, _) in enumerate(blocks) if level and _SECTION_NAME.match(text)]
    if headings:
        start = headings[-1]
        level = blocks[start][0]
        found: list[tuple[str, list[str]]] = []
        for block_level, text, links, _ in blocks[start + 1 :]:
            if block_level and block_level <= level:
                break
            if not block_level:
                found.append((text, links))
        return found
    return [(text, links) for level, text, links, marked in blocks if marked and not level]


def iter_html(text: str, *, origin: str) -> Iterator[CitedReference | InputProblem]:
    """The references of an HTML page (see the module docstring)."""
    parser = _Blocks()
    parser.feed(text)
    parser.close()
    parser._flush()
    position = 0
    for block, links in _html_references(parser.blocks):
        if not _MIN_REFERENCE_CHARS <= len(block) <= _MAX_REFERENCE_CHARS or _SECTION_NAME.match(block):
            continue
        position += 1
        yield reference_from_string(
            block,
            key=str(position),
            origin=f"{origin}:reference {position}",
            source=" ".join([block, *links]),
        )


# --- XML --------------------------------------------------------------------------------------------

_ENTITY_DECLARATION = re.compile(r"<!ENTITY", re.IGNORECASE)


def _local(tag: object) -> str:
    return str(tag).rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _all_text(element: ET.Element) -> str:
    return normalize_whitespace(unescape("".join(element.itertext())))


def _children(element: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in element.iter() if _local(e.tag) == name]


def _first_text(element: ET.Element, *names: str) -> str:
    for name in names:
        for child in _children(element, name):
            text = _all_text(child)
            if text:
                return text
    return ""


def _people(element: ET.Element, person: str, family: str, given: str) -> list[str]:
    names: list[str] = []
    for node in _children(element, person):
        surname = _first_text(node, family)
        forenames = " ".join(_all_text(g) for g in _children(node, given))
        if surname:
            names.append(f"{surname}, {forenames}".rstrip(", ") if forenames else surname)
    return names


def _composed(authors: list[str], year: str, title: str, venue: str, doi: str) -> str:
    """A reference string in one shape the plain reader reads without guessing: "Surname, Given;
    Surname, Given (2014). “Title.” Venue. doi:..."."""
    parts = ["; ".join(authors)] if authors else []
    if year:
        parts.append(f"({year}).")
    if title:
        parts.append(f"\u201c{title.rstrip('.')}.\u201d")
    if venue:
        parts.append(f"{venue}.")
    if doi:
        parts.append(f"doi:{doi}")
    return " ".join(parts)


def _jats(ref: ET.Element) -> str:
    mixed = next(iter(_children(ref, "mixed-citation")), None)
    if mixed is not None:
        return _all_text(mixed)
    doi = next((_all_text(p) for p in _children(ref, "pub-id") if p.get("pub-id-type") == "doi"), "")
    return _composed(
        _people(ref, "name", "surname", "given-names"),
        _first_text(ref, "year"),
        _first_text(ref, "article-title", "chapter-title"),
        _first_text(ref, "source"),
        doi,
    )


def _tei(bibl: ET.Element) -> str:
    if _local(bibl.tag) == "bibl":
        return _all_text(bibl)
    titles = _children(bibl, "title")
    title = next((_all_text(t) for t in titles if t.get("level") == "a"), "") or (
        _all_text(titles[0]) if titles else ""
    )
    venue = next((_all_text(t) for t in titles if t.get("level") in ("j", "m") and _all_text(t) != title), "")
    dates = _children(bibl, "date")
    year = next((d.get("when", "")[:4] or _all_text(d)[:4] for d in dates), "")
    doi = next((_all_text(i) for i in _children(bibl, "idno") if (i.get("type") or "").upper() == "DOI"), "")
    return _composed(_people(bibl, "persName", "surname", "forename"), year, title, venue, doi)


def iter_xml(text: str, *, origin: str) -> Iterator[CitedReference | InputProblem]:
    """The references of a JATS or TEI document (see the module docstring)."""
    if _ENTITY_DECLARATION.search(text):
        # Entity declarations are how an XML file expands itself without bound: refused, unread.
        raise InputError(origin, "XML with entity declarations (<!ENTITY ...>) is not read")
    try:
        root = ET.fromstring(text)  # noqa: S314 - no entity declarations (refused above)
    except ET.ParseError as error:
        raise InputError(origin, f"not well-formed XML ({error})") from None
    strings: list[str] = []
    seen: set[int] = set()
    for container in root.iter():
        name = _local(container.tag)
        entries: list[tuple[ET.Element, Callable[[ET.Element], str]]]
        if name == "ref-list":
            entries = [(ref, _jats) for ref in _children(container, "ref")]
        elif name == "listBibl":
            entries = [(b, _tei) for b in container if _local(b.tag) in ("biblStruct", "bibl")]
        else:
            continue
        for entry, read in entries:
            if id(entry) not in seen:
                seen.add(id(entry))
                strings.append(read(entry))
    position = 0
    for string in strings:
        if len(string) < _MIN_REFERENCE_CHARS:
            continue
        position += 1
        yield reference_from_string(string, key=str(position), origin=f"{origin}:reference {position}")
