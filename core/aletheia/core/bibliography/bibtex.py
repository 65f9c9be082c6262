"""BibTeX and biblatex, streamed: one `CitedReference` per entry, in memory that does not grow with the file.

The input arrives as chunks of text. A brace-aware scanner (`_BlockScanner`) cuts it at top-level
`@` blocks; each block is parsed on its own by bibtexparser's splitter (`bibtexparser.parse_string`
with an empty middleware stack), and everything above the splitter is done here, because the
middlewares work on a whole library:

- `@string` macros are collected as they stream by and expanded with BibTeX's rules, including
  `#` concatenation (`journal = jmlr # " (special issue)"`), which bibtexparser's
  `ResolveStringReferencesMiddleware` leaves alone. The month macros `jan`...`dec` are predefined.
- `crossref` inheritance (biblatex's rules: a child gets every field it lacks; a proceedings' or
  book's `title` becomes the child's `booktitle`). BibTeX puts parents after their children, so an
  entry whose parent has not been seen yet is held back until the parent streams by, or to the end
  of the input, when it is read without the inherited fields and a problem is noted. Only those
  entries are buffered; parents are remembered only if they are container types (proceedings, book,
  collection, periodical...) or among the last `_RECENT_PARENTS` entries.
- duplicate keys: both entries are kept and a problem is noted. Keys are remembered as 8-byte
  digests in a compact table (`_KeyTable`), a dozen bytes a key.

A malformed entry yields an `InputProblem` naming the file, line and column, and reading goes on
with the next entry: the scanner re-synchronises on the next `@type{` at the start of a line, the
way bibtexparser and BibTeX itself recover.

`CitedReference.fields` keeps each field's value as written (macros expanded, the outer braces or
quotes removed, LaTeX untouched); the typed attributes are decoded (LaTeX accents and braces to
Unicode) and cleaned (identifiers in canonical form).
"""

from __future__ import annotations

import hashlib
import logging
import re
from array import array
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final

from bibtexparser.entrypoint import parse_string
from bibtexparser.exceptions import BlockAbortedException
from bibtexparser.model import DuplicateFieldKeyBlock, Entry, ParsingFailedBlock, String

from aletheia.core.authors import parse_author_list
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.identifiers import (
    ArxivId,
    arxiv_id_from_doi,
    clean_arxiv_id,
    clean_doi,
    clean_isbn,
    clean_pmcid,
    clean_pmid,
    extract_identifiers,
)
from aletheia.core.records import CitedReference
from aletheia.core.text import latex_to_unicode

# bibtexparser logs each malformed block at WARNING; we report them as InputProblems instead. A
# NullHandler keeps Python's last-resort handler from printing them to stderr, while an application
# that configures logging still receives them.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())

__all__ = [
    "MAX_ENTRY_CHARS",
    "iter_bibtex",
    "parse_bibtex_year",
    "reference_from_fields",
]

# An entry longer than this is not a bibliography entry but a runaway (an unclosed brace swallowing
# the file); it is reported and skipped, so one broken entry cannot hold the whole input in memory.
MAX_ENTRY_CHARS: Final = 1_000_000
# Characters kept back at the end of the buffer until the next chunk arrives, so that an entry
# header (`@inproceedings{`) or an escaped brace split across two chunks is seen whole.
_HOLD: Final = 256
_RECENT_PARENTS: Final = 512
# `@string` macros may use each other, so a few lines can double a value forty times (BibTeX's
# "billion laughs": 1.5 KB of input, terabytes expanded). An expanded value is held to the size of
# an entry, and all macros together to a few entries' worth; beyond that they are reported.
MAX_EXPANDED_CHARS: Final = MAX_ENTRY_CHARS
_MAX_MACRO_CHARS_TOTAL: Final = 8 * MAX_ENTRY_CHARS

MONTH_MACROS: Final = {
    "jan": "January",
    "feb": "February",
    "mar": "March",
    "apr": "April",
    "may": "May",
    "jun": "June",
    "jul": "July",
    "aug": "August",
    "sep": "September",
    "oct": "October",
    "nov": "November",
    "dec": "December",
}

# Entry types that other entries `crossref` (biblatex's container types).
_CONTAINER_TYPES: Final = frozenset(
    {
        "proceedings",
        "mvproceedings",
        "book",
        "mvbook",
        "collection",
        "mvcollection",
        "reference",
        "mvreference",
        "periodical",
        "journal",
    }
)
# Entry types that are a part of a container: their parent's title is their booktitle.
_PART_TYPES: Final = frozenset(
    {"inproceedings", "conference", "incollection", "inbook", "inreference", "bookinbook", "suppbook"}
)
_TITLE_FIELDS: Final = frozenset({"title", "subtitle", "titleaddon"})
# Never inherited: bookkeeping fields (biblatex's list), and identifiers and links, which name one
# work each; a proceedings volume's DOI is not its papers' DOI.
_NOT_INHERITED: Final = frozenset(
    {
        "crossref",
        "xref",
        "xdata",
        "ids",
        "entryset",
        "entrysubtype",
        "execute",
        "label",
        "options",
        "presort",
        "related",
        "relatedoptions",
        "relatedstring",
        "relatedtype",
        "shorthand",
        "shorthandintro",
        "sortkey",
        "shorttitle",
        "sorttitle",
        "indextitle",
        "indexsorttitle",
        "doi",
        "eprint",
        "eprinttype",
        "eprintclass",
        "archiveprefix",
        "primaryclass",
        "url",
        "urldate",
        "pmid",
        "pmcid",
        "pages",
        "abstract",
        "keywords",
        "file",
    }
)


# --- the streaming scanner ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Block:
    """One top-level `@...` block as written, and where it starts (1-based line and column)."""

    text: str
    line: int
    column: int
    entry_type: str
    error: str | None = None  # set when the block never closed


_AT_HEADER = re.compile(r"@[ \t]*(\w[\w:.+-]*)?[ \t\r\n]*([{(])")
# Inside a block: escaped braces and backslashes (skipped), braces, the `)` that can close a
# `(`-delimited block, and a line starting with a new entry header (an unclosed entry before it).
_INSIDE = re.compile(r"\\[{}\\]|[{}]|\)|\n(?=[ \t]*@[ \t]*\w+[ \t]*[{(])")


class _BlockScanner:
    """Cuts a stream of text into top-level `@` blocks, counting braces, in bounded memory.

    BibTeX ignores everything outside `@` blocks; `%` starts a comment only by convention, but
    biber and every editor honour it, so an `@` on a `%` line is not an entry.
    """

    def __init__(self) -> None:
        self._buf = ""
        self._pos = 0  # where scanning resumes, an index into _buf
        self._base = 0  # absolute offset of _buf[0]
        self._line = 1  # line number at _counted
        self._counted = 0  # index into _buf up to which newlines are counted
        self._line_start = 0  # absolute offset of the start of the line holding _counted
        self._in_block = False
        self._block_start = 0
        self._block_line = 0
        self._block_column = 0
        self._block_type = ""
        self._depth = 0
        self._closer = "}"

    def feed(self, chunk: str) -> Iterator[_Block]:
        self._buf += chunk
        yield from self._scan(final=False)
        self._trim()

    def finish(self) -> Iterator[_Block]:
        yield from self._scan(final=True)
        if self._in_block:
            self._in_block = False
            yield self._cut(
                len(self._buf),
                error=f"unterminated @{self._block_type} block: the input ended before its closing "
                f"{self._closer!r}",
            )
        self._buf = ""

    def _count_to(self, index: int) -> None:
        if index <= self._counted:
            return
        newlines = self._buf.count("\n", self._counted, index)
        if newlines:
            self._line += newlines
            self._line_start = self._base + self._buf.rfind("\n", self._counted, index) + 1
        self._counted = index

    def _cut(self, end: int, *, error: str | None = None) -> _Block:
        return _Block(
            self._buf[self._block_start : end],
            self._block_line,
            self._block_column,
            self._block_type,
            error,
        )

    def _scan(self, *, final: bool) -> Iterator[_Block]:
        buf = self._buf
        limit = len(buf) if final else len(buf) - _HOLD
        while True:
            if not self._in_block:
                at = buf.find("@", self._pos)
                if at < 0 or at >= limit:
                    self._pos = len(buf) if at < 0 else at
                    return
                line_start = buf.rfind("\n", 0, at) + 1
                if buf[line_start:at].lstrip().startswith("%"):
                    self._pos = at + 1
                    continue
                header = _AT_HEADER.match(buf, at)
                if header is None:  # a stray `@` in comment text (an e-mail address, say)
                    self._pos = at + 1
                    continue
                self._count_to(at)
                self._in_block = True
                self._block_start = at
                self._block_line = self._line
                self._block_column = self._base + at - self._line_start + 1
                self._block_type = (header.group(1) or "").lower()
                self._closer = "}" if header.group(2) == "{" else ")"
                self._depth = 1
                self._pos = header.end()
                continue

            mark = _INSIDE.search(buf, self._pos)
            if mark is None or mark.start() >= limit:
                self._pos = max(self._pos, limit)
                if self._pos - self._block_start > MAX_ENTRY_CHARS:
                    yield from self._abandon_runaway()
                return
            mark_text = mark.group()
            self._pos = mark.end()
            if mark_text == "{":
                self._depth += 1
            elif mark_text == "}":
                self._depth -= 1
                if self._depth == 0:
                    self._in_block = False
                    if self._closer == "}":
                        yield self._cut(mark.end())
                    else:
                        yield self._cut(mark.end(), error="unbalanced '}' in a '('-delimited block")
            elif mark_text == ")":
                if self._closer == ")" and self._depth == 1:
                    self._in_block = False
                    yield self._cut(mark.end())
            elif mark_text == "\n":
                # A new entry starts at the beginning of this line while this one is still open.
                self._in_block = False
                self._count_to(mark.start() + 1)
                yield self._cut(
                    mark.start(),
                    error=f"unterminated @{self._block_type} block: no closing {self._closer!r} "
                    f"before the next entry at line {self._line}",
                )
            if self._in_block and self._pos - self._block_start > MAX_ENTRY_CHARS:
                yield from self._abandon_runaway()

    def _abandon_runaway(self) -> Iterator[_Block]:
        self._in_block = False
        block = _Block(
            self._buf[self._block_start : self._block_start + 200],
            self._block_line,
            self._block_column,
            self._block_type,
            f"@{self._block_type} block longer than {MAX_ENTRY_CHARS} characters (an unclosed brace?); "
            "skipped up to the next entry",
        )
        yield block

    def _trim(self) -> None:
        if self._in_block:
            cut = self._block_start
        else:
            # Keep the current line: whether it is a `%` comment decides what an `@` on it means.
            cut = self._buf.rfind("\n", 0, self._pos) + 1
            if self._pos - cut > 4 * _HOLD:
                cut = self._pos
        if cut <= 0:
            return
        self._count_to(cut)
        self._buf = self._buf[cut:]
        self._base += cut
        self._pos -= cut
        self._counted -= cut
        if self._in_block:
            self._block_start -= cut


# --- values and macros --------------------------------------------------------------------

_MACRO_NAME = re.compile(r"[^\s\"#%'(),={}0-9][^\s\"#%'(),={}]*")


def _split_concatenation(value: str) -> list[str]:
    """Split a field value at the `#` operators that are outside braces and quotes."""
    if "#" not in value:
        return [value]
    parts: list[str] = []
    depth = 0
    in_quotes = False
    start = 0
    index = 0
    while index < len(value):
        char = value[index]
        if char == "\\":
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        elif char == '"' and depth == 0:
            in_quotes = not in_quotes
        elif char == "#" and depth == 0 and not in_quotes:
            parts.append(value[start:index])
            start = index + 1
        index += 1
    parts.append(value[start:])
    return parts


class _ExpansionTooLong(ValueError):
    """A value whose macros expand beyond `MAX_EXPANDED_CHARS`."""


def _expand(value: str, macros: dict[str, str]) -> tuple[str, list[str]]:
    """A field value as BibTeX reads it: delimiters removed, macros expanded, parts concatenated.

    Returns the value and the names of undefined macros (kept as their own name, which is what a
    user meant more often than BibTeX's empty string: `journal = JMLR`). Raises
    `_ExpansionTooLong` past `MAX_EXPANDED_CHARS`.
    """
    pieces: list[str] = []
    undefined: list[str] = []
    length = 0
    for part in _split_concatenation(value):
        piece = part.strip()
        if not piece:
            continue
        braced = piece[0] == "{" and piece[-1] == "}"
        quoted = piece[0] == '"' and piece[-1] == '"' and len(piece) > 1
        if braced or quoted:
            pieces.append(piece[1:-1])
        elif piece.isdigit():
            pieces.append(piece)
        elif _MACRO_NAME.fullmatch(piece):
            expansion = macros.get(piece.lower())
            if expansion is None:
                expansion = MONTH_MACROS.get(piece.lower())
            if expansion is None:
                undefined.append(piece)
                expansion = piece
            pieces.append(expansion)
        else:
            pieces.append(piece)
        length += len(pieces[-1])
        if length > MAX_EXPANDED_CHARS:
            raise _ExpansionTooLong(f"expands to more than {MAX_EXPANDED_CHARS} characters")
    return "".join(pieces), undefined


_YEAR = re.compile(r"\d{4}")
_DATE = re.compile(r"(\d{4})(?:[-/~?%].*)?")
_BRACES_QUOTES = re.compile(r"[{}\"\s]")


def parse_bibtex_year(value: str | None) -> int | None:
    """A `year` (or biblatex `date`) value as an int: `{2023}` and `2023-05-01` -> 2023;
    `2023a`, `to appear`, `forthcoming` -> None (a year we cannot vouch for is not a year)."""
    if not value:
        return None
    text = _BRACES_QUOTES.sub("", value)
    match = _YEAR.fullmatch(text) or _DATE.fullmatch(text)
    if match is None:
        return None
    year = int(match.group(1) if match.re is _DATE else match.group())
    return year if 1000 <= year <= 2999 else None


# --- turning an entry into a CitedReference -------------------------------------------------------

_VERBATIM_ESCAPE = re.compile(r"\\([_%&#$~{}])")
_URL_MACRO = re.compile(r"\\(?:url|href|doi|nolinkurl)\s*\{([^{}]*)\}")


def _verbatim(value: str) -> str:
    """An identifier or URL as written in BibTeX: `\\url{...}` unwrapped, `\\_` unescaped, braces gone."""
    text = _URL_MACRO.sub(r"\1", value)
    text = _VERBATIM_ESCAPE.sub(r"\1", text)
    return text.replace("{", "").replace("}", "").strip()


def _text(value: str | None) -> str | None:
    if value is None:
        return None
    decoded = latex_to_unicode(value)
    return decoded or None


def _arxiv_from_fields(fields: dict[str, str]) -> ArxivId | None:
    eprint = _verbatim(fields.get("eprint", ""))
    archive = _verbatim(fields.get("archiveprefix") or fields.get("eprinttype") or "").lower()
    if eprint and archive in ("arxiv", ""):
        primary = _verbatim(fields.get("primaryclass") or fields.get("eprintclass") or "")
        candidates = [eprint]
        if primary and re.fullmatch(r"\d{7}(?:v\d+)?", eprint):
            # Old-style ids written as `eprint = {9901001}, primaryClass = {hep-th}`.
            candidates.insert(0, f"{primary}/{eprint}")
        for candidate in candidates:
            found = clean_arxiv_id(candidate)
            if found is not None:
                return found
    venue = _verbatim(fields.get("journal") or fields.get("journaltitle") or "").lower()
    volume = _verbatim(fields.get("volume", ""))
    if venue in ("corr", "arxiv", "arxiv preprint") and volume.lower().startswith("abs/"):
        # DBLP's form: `journal = {CoRR}, volume = {abs/1810.04805}`.
        return clean_arxiv_id(volume[4:])
    return None


def _scanned_identifiers(fields: dict[str, str]) -> tuple[str | None, ArxivId | None, str | None]:
    """DOI, arXiv id and URL mentioned in the free-text fields (`howpublished`, `note`, ...)."""
    text = " ".join(
        _verbatim(fields[name])
        for name in ("url", "howpublished", "note", "journal", "journaltitle", "eprint", "annote", "addendum")
        if name in fields
    )
    if not text:
        return None, None, None
    found = extract_identifiers(text)
    return (
        found.dois[0] if found.dois else None,
        found.arxiv_ids[0] if found.arxiv_ids else None,
        found.urls[0] if found.urls else None,
    )


def _first_isbn(value: str | None) -> str | None:
    if not value:
        return None
    for candidate in re.split(r"[,;/]|\s+and\s+|\s{2,}", _verbatim(value)):
        isbn = clean_isbn(candidate.strip())
        if isbn is not None:
            return isbn
    return clean_isbn(_verbatim(value))


def _title(fields: dict[str, str]) -> str | None:
    title = _text(fields.get("title"))
    subtitle = _text(fields.get("subtitle"))
    if title and subtitle:
        return f"{title}: {subtitle}"
    return title or subtitle


def _venue(fields: dict[str, str]) -> str | None:
    for name in ("journaltitle", "journal", "booktitle", "maintitle"):
        venue = _text(fields.get(name))
        if venue:
            return venue
    return None


def reference_from_fields(
    key: str, entry_type: str | None, fields: dict[str, str], *, origin: str | None
) -> CitedReference:
    """A `CitedReference` from BibTeX/biblatex fields (lower-case names, values as written:
    LaTeX undecoded, macros expanded); also used for biblatex's `.bbl` records."""
    authors, truncated = parse_author_list(fields["author"]) if "author" in fields else ((), False)
    year = parse_bibtex_year(fields.get("date")) or parse_bibtex_year(fields.get("year"))

    doi = clean_doi(_verbatim(fields["doi"])) if "doi" in fields else None
    arxiv = _arxiv_from_fields(fields)
    if arxiv is None and doi is not None:
        arxiv = arxiv_id_from_doi(doi)
    scanned_doi, scanned_arxiv, scanned_url = _scanned_identifiers(fields)
    doi = doi or scanned_doi
    arxiv = arxiv or scanned_arxiv

    archive = _verbatim(fields.get("eprinttype") or fields.get("archiveprefix") or "").lower()
    pmid = clean_pmid(_verbatim(fields["pmid"])) if "pmid" in fields else None
    if pmid is None and archive == "pubmed":
        pmid = clean_pmid(_verbatim(fields.get("eprint", "")))
    pmcid = clean_pmcid(_verbatim(fields["pmcid"])) if "pmcid" in fields else None
    if pmcid is None and archive in ("pmc", "pubmedcentral"):
        pmcid = clean_pmcid(_verbatim(fields.get("eprint", "")))
    url = _verbatim(fields["url"]) if fields.get("url") else scanned_url

    return CitedReference(
        key=key,
        entry_type=entry_type,
        fields=dict(fields),
        title=_title(fields),
        authors=authors,
        authors_truncated=truncated,
        year=year,
        venue=_venue(fields),
        doi=doi,
        arxiv_id=arxiv.id if arxiv else None,
        arxiv_version=arxiv.version if arxiv else None,
        pmid=pmid,
        pmcid=pmcid,
        isbn=_first_isbn(fields.get("isbn")),
        url=url or None,
        origin=origin,
    )


# --- entries, crossref, duplicate keys ----------------------------------------------------------------


@dataclass(slots=True)
class _Entry:
    key: str
    entry_type: str
    fields: dict[str, str]
    line: int
    column: int
    crossref_unresolvable: bool = False
    emitted: bool = False
    notes: list[str] = field(default_factory=list)


class _KeyTable:
    """The keys seen so far, as 64-bit digests with the line each was first seen on.

    An open-addressing table over two arrays: 12 bytes a slot, against some 100 bytes a key for a
    `dict[str, int]`, so a 100,000-entry file costs about 2 MB here. Two different keys share a
    digest with probability about n^2 / 2^65, negligible for any bibliography.
    """

    def __init__(self) -> None:
        self._digests = array("Q", bytes(8 * 1024))
        self._lines = array("I", bytes(4 * 1024))
        self._used = 0

    @staticmethod
    def _digest(key: str) -> int:
        raw = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).digest()
        return int.from_bytes(raw, "little") or 1  # 0 marks an empty slot

    def add(self, key: str, line: int) -> int | None:
        """Record `key`; return the line it was first seen on if it was seen before."""
        digest = self._digest(key)
        mask = len(self._digests) - 1
        slot = digest & mask
        while self._digests[slot]:
            if self._digests[slot] == digest:
                return self._lines[slot]
            slot = (slot + 1) & mask
        self._digests[slot] = digest
        self._lines[slot] = min(line, 0xFFFFFFFF)
        self._used += 1
        if self._used * 4 > len(self._digests) * 3:
            self._grow()
        return None

    def _grow(self) -> None:
        digests, lines = self._digests, self._lines
        size = 2 * len(digests)
        self._digests = array("Q", bytes(8 * size))
        self._lines = array("I", bytes(4 * size))
        mask = size - 1
        for digest, line in zip(digests, lines, strict=True):
            if digest:
                slot = digest & mask
                while self._digests[slot]:
                    slot = (slot + 1) & mask
                self._digests[slot] = digest
                self._lines[slot] = line


def _inherit(child: _Entry, parent: _Entry) -> None:
    """biblatex's default crossref inheritance, into `child.fields` (fields already set win)."""
    for name, value in parent.fields.items():
        if name in _NOT_INHERITED:
            continue
        target = name
        if name in _TITLE_FIELDS:
            if parent.entry_type in ("periodical", "journal") and name == "title":
                target = "journaltitle"
            elif child.entry_type in _PART_TYPES or parent.entry_type in _CONTAINER_TYPES:
                target = f"book{name}"
            else:
                continue
        if target not in child.fields:
            child.fields[target] = value


class _BibtexReader:
    def __init__(self, origin: str, macros: dict[str, str] | None) -> None:
        self.origin = origin
        self.macros: dict[str, str] = {} if macros is None else macros
        self.keys = _KeyTable()
        self.containers: dict[str, _Entry] = {}
        self.recent: OrderedDict[str, _Entry] = OrderedDict()
        self.pending: dict[str, list[_Entry]] = {}
        self.macro_chars = 0

    def problem(self, line: int, column: int | None, message: str, key: str | None = None) -> InputProblem:
        return InputProblem(origin=self.origin, line=line, column=column, message=message, key=key)

    # -- blocks --------------------------------------------------------------------------------

    def read_block(self, block: _Block) -> Iterator[CitedReference | InputProblem]:
        if block.error is not None:
            yield self.problem(block.line, block.column, f"malformed entry: {block.error}")
            return
        if block.entry_type in ("comment", "preamble"):
            return
        if not block.entry_type:
            yield self.problem(block.line, block.column, "malformed entry: '@' without an entry type")
            return
        try:
            library = parse_string(block.text, parse_stack=[])
        except Exception as error:  # bibtexparser raises on states it considers its own bugs
            yield self.problem(block.line, block.column, f"malformed entry: {error}")
            return
        for parsed in library.blocks:
            if isinstance(parsed, String):
                yield from self._read_string(parsed, block)
            elif isinstance(parsed, DuplicateFieldKeyBlock):
                entry = parsed.ignore_error_block
                if isinstance(entry, Entry):
                    yield from self._read_entry(entry, block)
            elif isinstance(parsed, ParsingFailedBlock):
                yield self._failure(parsed, block)
            elif isinstance(parsed, Entry):
                yield from self._read_entry(parsed, block)

    def _failure(self, failed: ParsingFailedBlock, block: _Block) -> InputProblem:
        error = failed.error
        line, column = block.line, block.column
        if isinstance(error, BlockAbortedException) and error.end_index is not None:
            reason = error.abort_reason
            # end_index counts the newline bibtexparser puts in front of the text.
            index = min(max(error.end_index - 1, 0), len(block.text))
            newlines = block.text.count("\n", 0, index)
            if newlines:
                line += newlines
                column = index - block.text.rfind("\n", 0, index)
            else:
                column += index
        else:
            reason = str(error)
        return self.problem(line, column, f"malformed @{block.entry_type} entry: {reason}")

    def _read_string(self, string: String, block: _Block) -> Iterator[InputProblem]:
        name = string.key.strip()
        if not _MACRO_NAME.fullmatch(name):
            yield self.problem(block.line, block.column, f"malformed @string: {name!r} is not a macro name")
            return
        try:
            value, _undefined = _expand(string.value, self.macros)
        except _ExpansionTooLong as exc:
            yield self.problem(block.line, block.column, f"@string {name} {exc}; it is not defined")
            return
        if self.macro_chars + len(value) > _MAX_MACRO_CHARS_TOTAL:
            too_many = f"the macros together exceed {_MAX_MACRO_CHARS_TOTAL} characters"
            yield self.problem(block.line, block.column, f"@string {name}: {too_many}; it is not defined")
            return
        self.macro_chars += len(value)
        self.macros[name.lower()] = value

    def _read_entry(self, parsed: Entry, block: _Block) -> Iterator[CitedReference | InputProblem]:
        key = parsed.key.strip()
        if not key or any(char in key for char in " \t\n{}\"#%'(),="):
            shown = key if key else "(none)"
            yield self.problem(
                block.line, block.column, f"malformed @{block.entry_type} entry: invalid key {shown}"
            )
            return
        fields: dict[str, str] = {}
        notes: list[str] = []
        total = 0
        for bib_field in parsed.fields:
            name = bib_field.key.strip().lower()
            if name in fields:
                notes.append(f"duplicate field {name!r}: the first value is kept")
                continue
            try:
                value, _undefined = _expand(str(bib_field.value), self.macros)
            except _ExpansionTooLong as exc:
                yield self.problem(block.line, block.column, f"field {name!r} of entry {key} {exc}", key=key)
                return
            total += len(value)
            if total > MAX_EXPANDED_CHARS:
                message = f"the fields of entry {key} expand to more than {MAX_EXPANDED_CHARS} characters"
                yield self.problem(block.line, block.column, message, key=key)
                return
            fields[name] = value
        entry = _Entry(key, block.entry_type, fields, block.line, block.column, notes=notes)
        first = self.keys.add(key, block.line)
        if first is not None:
            notes.append(f"duplicate key {key!r} (first used at line {first}); both entries are kept")
        yield from self._settle(entry)

    # -- crossref --------------------------------------------------------------------------------

    def _parent_key(self, entry: _Entry) -> str | None:
        raw = entry.fields.get("crossref")
        if raw is None or entry.crossref_unresolvable:
            return None
        parent = _verbatim(raw).lower()
        if not parent:
            return None
        if parent == entry.key.lower():
            entry.notes.append("the entry's crossref names the entry itself; ignored")
            return None
        return parent

    def _find(self, key: str) -> _Entry | None:
        return self.containers.get(key) or self.recent.get(key)

    def _remember(self, entry: _Entry) -> None:
        lowered = entry.key.lower()
        if entry.entry_type in _CONTAINER_TYPES:
            self.containers[lowered] = entry
        self.recent[lowered] = entry
        self.recent.move_to_end(lowered)
        if len(self.recent) > _RECENT_PARENTS:
            self.recent.popitem(last=False)

    def _settle(self, entry: _Entry) -> Iterator[CitedReference | InputProblem]:
        """Emit `entry` once its crossref parent is known, then every entry that was waiting for it."""
        work = [entry]
        while work:
            current = work.pop(0)
            parent_key = self._parent_key(current)
            if parent_key is not None:
                parent = self._find(parent_key)
                if parent is None:
                    self.pending.setdefault(parent_key, []).append(current)
                    continue
                _inherit(current, parent)
            self._remember(current)
            yield from self._emit(current)
            work.extend(self.pending.pop(current.key.lower(), ()))

    def _emit(self, entry: _Entry) -> Iterator[CitedReference | InputProblem]:
        entry.emitted = True
        for note in entry.notes:
            yield self.problem(entry.line, entry.column, note, key=entry.key)
        yield reference_from_fields(
            entry.key, entry.entry_type, entry.fields, origin=f"{self.origin}:{entry.line}"
        )

    def finish(self) -> Iterator[CitedReference | InputProblem]:
        """Emit the entries whose crossref parent never appeared, without inherited fields.

        In file order; an orphan that is itself a parent releases its own children on the way, and
        they inherit from it as usual.
        """
        orphans = sorted((entry for waiting in self.pending.values() for entry in waiting), key=_line_of)
        for orphan in orphans:
            if orphan.emitted:
                continue
            parent_key = self._parent_key(orphan)
            if parent_key is not None:
                waiting = self.pending.get(parent_key, [])
                if orphan in waiting:
                    waiting.remove(orphan)
                if not waiting:
                    self.pending.pop(parent_key, None)
            orphan.crossref_unresolvable = True
            target = _verbatim(orphan.fields.get("crossref", ""))
            orphan.notes.append(
                f"crossref target {target!r} not found; the entry is read without inherited fields"
            )
            yield from self._settle(orphan)


def _line_of(entry: _Entry) -> int:
    return entry.line


def iter_bibtex(
    chunks: Iterable[str], *, origin: str, macros: dict[str, str] | None = None
) -> Iterator[CitedReference | InputProblem]:
    """Read BibTeX/biblatex from a stream of text chunks, one reference (or problem) at a time.

    `origin` names the input in problems and in each reference's `origin` (`origin:line`).
    `macros` (lower-case name -> value) may be shared between calls, so that a strings file read
    first defines the macros of the files after it, as `\\bibliography{strings,refs}` does; it is
    updated in place with this input's `@string` definitions.
    """
    scanner = _BlockScanner()
    reader = _BibtexReader(origin, macros)
    for chunk in chunks:
        for block in scanner.feed(chunk):
            yield from reader.read_block(block)
    for block in scanner.finish():
        yield from reader.read_block(block)
    yield from reader.finish()
