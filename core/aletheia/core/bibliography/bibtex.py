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

Where the code is: `bibtex_scan` (the streaming scanner), `bibtex_macros` (values, `@string`
expansion), `bibtex_fields` (fields to a `CitedReference`, `parse_bibtex_year`); this module reads
the blocks (entries, `@string`s, crossref, duplicate keys) and re-exports the public names.
"""

from __future__ import annotations

import hashlib
import logging
from array import array
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final

from bibtexparser.entrypoint import parse_string
from bibtexparser.exceptions import BlockAbortedException
from bibtexparser.model import DuplicateFieldKeyBlock, Entry, ParsingFailedBlock, String

from aletheia.core.bibliography.bibtex_fields import _verbatim, parse_bibtex_year, reference_from_fields
from aletheia.core.bibliography.bibtex_macros import (
    _MACRO_NAME,
    _MAX_MACRO_CHARS_TOTAL,
    MAX_EXPANDED_CHARS,
    _expand,
    _ExpansionTooLong,
)
from aletheia.core.bibliography.bibtex_scan import _Block, _BlockScanner
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.records import CitedReference

# bibtexparser logs each malformed block at WARNING; we report them as InputProblems instead. A
# NullHandler keeps Python's last-resort handler from printing them to stderr, while an application
# that configures logging still receives them.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())

__all__ = [
    "iter_bibtex",
    "parse_bibtex_year",
    "reference_from_fields",
]

_RECENT_PARENTS: Final = 512

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
            # Macros may grow an entry by MAX_EXPANDED_CHARS over what is written, no more; what
            # is written is bounded by the input's size limit (a 1.7 MB abstract is read).
            if total > len(block.text) + MAX_EXPANDED_CHARS:
                message = f"the fields of entry {key} expand to more than {MAX_EXPANDED_CHARS} characters"
                message += " beyond what is written"
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
