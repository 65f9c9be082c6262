"""Canonical references to classical and religious texts (Tier 3): parse, resolve, check (pure).

"Augustine, Confessions 10.27", "Homer, Iliad 1.1", "Plato, Republic 514a", "John 3:16": such a
reference names a passage by the work's own canonical numbering (book and line, book and chapter,
chapter and verse, Stephanus page and section), the same in every edition. So it is verified
against the canonical text itself, never by search: a known work whose passage exists is the
cited passage; a passage number beyond the work's structure is a contradiction, and the structure
is the evidence; a work we do not know is unverifiable.

The known works are data (`data/canonical_works.json`, versioned): how each is cited, its
structure (`top` units, and per unit the count of `second`-level units when known), and where
its text is served (a Perseus CTS URN, a CCEL path).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any, Final, Literal

from aletheia.core.records import CitedReference
from aletheia.core.text import fold

__all__ = [
    "DATA_FILE",
    "CanonicalRef",
    "CanonicalWork",
    "Resolution",
    "canonical_reference",
    "canonical_works",
    "ccel_path",
    "cts_passage_urn",
    "parse_canonical",
    "resolve",
    "roman_to_int",
]

DATA_FILE: Final = "canonical_works.json"
# How far past the table's count of lines, chapters or verses a number must be to contradict the
# citation (or a tenth of the count, if more): editions differ by a few.
SECOND_LEVEL_MARGIN: Final = 5
Scheme = Literal["book.line", "book.chapter", "chapter:verse", "stephanus"]

_ROMAN: Final = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
_ROMAN_RE: Final = re.compile(r"^[ivxlc]+$", re.IGNORECASE)
_STEPHANUS: Final = re.compile(r"^(?P<page>\d{1,4})(?P<section>[a-e])(?P<line>\d{1,2})?$")
_NUMBERED: Final = r"(?:\d{1,4}|[IVXLCivxlc]{1,8})"
_LOCUS: Final = rf"(?:\d{{1,4}}[a-e]\d{{0,2}}|{_NUMBERED}(?:[.:,]\s?{_NUMBERED}){{0,2}})"
# "Author, Work 10.27", "Work 1.1", "Work 514a", "1 Corinthians 13:4", with an optional range end.
_REFERENCE: Final = re.compile(
    rf"^\s*(?:(?P<author>[^,\d]{{2,60}}),\s*)?(?P<work>(?:[1-3]\s)?[A-Za-z][A-Za-z .'\-]{{1,60}}?)\.?\s+"
    rf"(?P<locus>{_LOCUS})(?:\s*[-\u2013]\s*(?P<end>{_LOCUS}))?\s*\.?\s*$"
)


def roman_to_int(text: str) -> int | None:
    """A Roman numeral (either case) as an integer; None if it is not one."""
    if not text or not _ROMAN_RE.match(text):
        return None
    values = [_ROMAN[c] for c in text.lower()]
    total = sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))
    return total if total > 0 else None


def _int_to_roman(number: int) -> str:
    out = []
    for value, numeral in (
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ):
        while number >= value:
            out.append(numeral)
            number -= value
    return "".join(out)


@dataclass(frozen=True, slots=True)
class CanonicalRef:
    """A parsed canonical reference: the work as cited, and the locus as numbers ("514a" kept)."""

    work: str
    locus: tuple[str, ...]
    author: str | None = None
    end: tuple[str, ...] | None = None
    text: str = ""

    @property
    def locus_text(self) -> str:
        return ".".join(self.locus)


def _split_locus(text: str) -> tuple[str, ...]:
    parts = [p.strip() for p in re.split(r"[.:,]", text) if p.strip()]
    out: list[str] = []
    for part in parts:
        if _STEPHANUS.match(part):
            out.append(part)
            continue
        number = int(part) if part.isdigit() else roman_to_int(part)
        if number is None:
            return ()
        out.append(str(number))
    return tuple(out)


def parse_canonical(text: str | None) -> CanonicalRef | None:
    """The canonical reference a short string is, or None ("Homer, Iliad 1.1" -> Iliad, (1, 1))."""
    if not text or len(text) > 160:
        return None
    match = _REFERENCE.match(" ".join(text.split()))
    if match is None:
        return None
    locus = _split_locus(match.group("locus"))
    if not locus:
        return None
    end = _split_locus(match.group("end")) if match.group("end") else None
    author = match.group("author").strip() if match.group("author") else None
    return CanonicalRef(
        work=match.group("work").strip(), locus=locus, author=author, end=end or None, text=text
    )


@dataclass(frozen=True, slots=True)
class CanonicalWork:
    id: str
    title: str
    author: str | None
    author_aliases: tuple[str, ...]
    aliases: tuple[str, ...]
    service: Literal["perseus", "ccel"]
    scheme: Scheme
    top: int | None = None
    second: tuple[int, ...] = ()
    urn: str | None = None
    ccel_path: str | None = None
    first: str | None = None
    last: str | None = None


@dataclass(frozen=True, slots=True)
class CanonicalTable:
    version: str
    works: tuple[CanonicalWork, ...]
    by_alias: dict[str, tuple[CanonicalWork, ...]]
    authors: frozenset[str]


def _work(row: dict[str, Any]) -> CanonicalWork:
    return CanonicalWork(
        id=row["id"],
        title=row["title"],
        author=row.get("author"),
        author_aliases=tuple(row.get("author_aliases", ())),
        aliases=tuple(row.get("aliases", ())),
        service=row["service"],
        scheme=row["scheme"],
        top=row.get("top"),
        second=tuple(row.get("second", ())),
        urn=row.get("urn"),
        ccel_path=row.get("ccel_path"),
        first=row.get("first"),
        last=row.get("last"),
    )


def _key(text: str) -> str:
    return fold(text).removeprefix("the ").strip(" .")


@cache
def canonical_works() -> CanonicalTable:
    from importlib import resources

    data = json.loads((resources.files("aletheia.core") / "data" / DATA_FILE).read_text(encoding="utf-8"))
    works = tuple(_work(row) for row in data["works"])
    by_alias: dict[str, list[CanonicalWork]] = {}
    for work in works:
        for alias in {work.title, *work.aliases}:
            by_alias.setdefault(_key(alias), []).append(work)
    authors = frozenset(_key(a) for w in works if w.author for a in w.author_aliases)
    return CanonicalTable(
        version=data["version"],
        works=works,
        by_alias={k: tuple(v) for k, v in by_alias.items()},
        authors=authors,
    )


@dataclass(frozen=True, slots=True)
class Resolution:
    """What the table says about a reference: the work (None: unknown), whether its author is a
    known classical author, and whether the locus lies inside the work's structure (None: the
    structure is not known that deep). `why` says which count decided."""

    ref: CanonicalRef
    work: CanonicalWork | None
    author_known: bool
    in_range: bool | None
    why: str


def _stephanus_key(text: str) -> tuple[int, str] | None:
    match = _STEPHANUS.match(text)
    return (int(match.group("page")), match.group("section")) if match else None


def _check(work: CanonicalWork, locus: tuple[str, ...]) -> tuple[bool | None, str]:
    if work.scheme == "stephanus":
        cited = _stephanus_key(locus[-1]) if locus else None
        first, last = _stephanus_key(work.first or ""), _stephanus_key(work.last or "")
        if cited is None or first is None or last is None:
            return None, "no Stephanus page"
        return first <= cited <= last, f"Stephanus {work.first}-{work.last}"
    numbers = [int(p) for p in locus if p.isdigit()]
    if len(numbers) != len(locus) or not numbers or work.top is None:
        return None, "no numeric locus"
    if not 1 <= numbers[0] <= work.top:
        return False, f"{work.title} has {work.top} top-level units ({work.scheme})"
    if len(numbers) >= 2 and work.second:
        limit = work.second[numbers[0] - 1]
        if 1 <= numbers[1] <= limit:
            return True, f"{work.title} {numbers[0]} has {limit} units"
        # Editions number lines, chapters and verses a little differently (an interpolated line, a
        # chapter split elsewhere): only a number clearly beyond the table's count contradicts the
        # citation; one just past it is left to the canonical text itself.
        if numbers[1] < 1 or numbers[1] > limit + max(SECOND_LEVEL_MARGIN, limit // 10):
            return False, f"{work.title} {numbers[0]} has {limit} units ({work.scheme})"
        return None, f"{work.title} {numbers[0]} has {limit} units in this table's edition"
    if len(numbers) == 1:
        return True, f"{work.title} has {work.top} top-level units"
    return None, f"{work.title} has {work.top} top-level units; deeper counts not in the table"


def _end_locus(ref: CanonicalRef) -> tuple[str, ...] | None:
    """The range's last passage in full: "5:3-12" ends at 5.12, "1.1-2.7" at 2.7."""
    if not ref.end:
        return None
    if len(ref.end) >= len(ref.locus):
        return ref.end
    return ref.locus[: len(ref.locus) - len(ref.end)] + ref.end


def resolve(ref: CanonicalRef) -> Resolution:
    table = canonical_works()
    candidates = table.by_alias.get(_key(ref.work), ())
    author_key = _key(ref.author) if ref.author else None
    if author_key is not None:
        candidates = tuple(
            w for w in candidates if w.author is None or author_key in {_key(a) for a in w.author_aliases}
        )
    author_known = author_key is not None and author_key in table.authors
    if not candidates:
        return Resolution(ref, None, author_known, None, "not in the table of canonical works")
    work = candidates[0]
    in_range, why = _check(work, ref.locus)
    end_locus = _end_locus(ref)
    if in_range is not False and end_locus:
        end_in, end_why = _check(work, end_locus)
        if end_in is False:
            in_range, why = False, end_why
    return Resolution(ref, work, True if work.author else author_known, in_range, why)


def cts_passage_urn(work: CanonicalWork, ref: CanonicalRef) -> str | None:
    """The CTS URN of the cited passage (`urn:cts:...:1.1`), a range as `start-end`."""
    if work.urn is None:
        return None
    passage = ref.locus_text
    end = _end_locus(ref)
    if end:
        passage += "-" + ".".join(end)
    return f"{work.urn}:{passage}"


def ccel_path(work: CanonicalWork, ref: CanonicalRef) -> str | None:
    """The CCEL page of the cited passage, from the work's path template (`{1:roman}` is the first
    locus number in lower-case Roman numerals, `{1:roman_upper}` upper-case, `{2}` plain)."""
    if work.ccel_path is None:
        return None
    numbers = [int(p) for p in ref.locus if p.isdigit()]

    def fill(match: re.Match[str]) -> str:
        index, style = int(match.group(1)) - 1, match.group(2) or ""
        if index >= len(numbers):
            raise IndexError(index)
        if style == ":roman":
            return _int_to_roman(numbers[index])
        if style == ":roman_upper":
            return _int_to_roman(numbers[index]).upper()
        return str(numbers[index])

    try:
        return re.sub(r"\{(\d)(:roman_upper|:roman)?\}", fill, work.ccel_path)
    except IndexError:
        return None


def _candidates(cited: CitedReference) -> list[str]:
    texts = [cited.raw or "", cited.title or ""]
    author = cited.authors[0].display if cited.authors else None
    locus = next(
        (cited.fields.get(k, "") for k in ("pages", "chapter", "note", "locus") if cited.fields.get(k)), ""
    )
    if cited.title:
        if author:
            texts.append(f"{author}, {cited.title}")
        if locus:
            texts.append(f"{author}, {cited.title} {locus}" if author else f"{cited.title} {locus}")
    return [t for t in texts if t]


def canonical_reference(cited: CitedReference) -> Resolution | None:
    """The reference as a canonical one, resolved; None when it is not one.

    A string that parses as "Work N.N" is canonical only when the table knows the work, or knows
    its author (a classical author's work we do not hold is `unverifiable`): an ordinary paper
    cited as "Smith, Journal 10.27" is none of these. A reference with a DOI, arXiv id or PMID is
    never canonical."""
    if cited.doi or cited.arxiv_id or cited.pmid:
        return None
    for text in _candidates(cited):
        ref = parse_canonical(text)
        if ref is None:
            continue
        resolution = resolve(ref)
        if resolution.work is not None or resolution.author_known:
            return resolution
    return None
