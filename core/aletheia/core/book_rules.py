"""Books (Tier 1): which references are books, and the facts `decide` reads about them (pure).

Book catalogues (Open Library, Google Books) are incomplete and partly user-edited, so two rules
hold every book row of `decide`:

- silence is no evidence: a book no catalogue has stays `unverifiable`, never `not_found` or
  `fabricated` (only a sign of invention on the citation itself can accuse it);
- one catalogue's title match is no proof: a book is `verified` when its cited ISBN resolves at a
  catalogue to a record whose title and first author agree (the identifier and the metadata
  agree, as for a DOI), or when two independent sources agree on it (two catalogues, or a
  catalogue and a scholarly index). A single catalogue's search hit alone is `unverifiable`
  (`book_single_catalogue`), whatever its fields say: a record anyone may have typed in neither
  proves the book nor convicts the citation.

Editions: a book's year is its edition's, and catalogues give the first edition's year or another
edition's; a different year is a minor `edition_year_differs`, never a contradiction. A different
publisher (imprints, co-publishers, reissues) is a minor `publisher_differs`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from aletheia.core.evidence import Evidence, Outcome, QueryKind
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.core.text import fold
from aletheia.core.work_kinds import classify_kind

__all__ = [
    "BOOK_SOURCES",
    "book_query_title",
    "catalogues_answered",
    "is_book_like",
    "is_book_record",
    "publisher_agrees",
    "single_catalogue_match",
    "without_edition_statement",
]

BOOK_SOURCES: Final = frozenset({SourceName.OPEN_LIBRARY, SourceName.GOOGLE_BOOKS})
BOOK_ENTRY_TYPES: Final = frozenset({"book", "mvbook", "booklet"})
_PUBLISHER_WORDS: Final = re.compile(
    r"(?<![a-z])(?:press|publish\w*|books|verlag|editions?|edizioni)(?![a-z])"
)
# Words of a publisher's name that say nothing about which publisher it is.
_PUBLISHER_NOISE: Final = frozenset(
    {"press", "publishing", "publishers", "publisher", "publications", "books", "inc", "ltd", "llc", "co",
     "company", "group", "the", "and", "of", "verlag", "gmbh", "ag", "sa", "editions", "edition", "house",
     "media", "international", "new", "york", "london", "cambridge", "ma", "usa", "uk"}
)  # fmt: skip


_ORDINAL: Final = (
    r"(?:\d+(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|revised|new)"
)
# "(2nd Edition)" anywhere, or ", 2nd ed." / "- Second Edition" closing the title: an edition
# statement inside a cited title ("A New Edition of ..." in the middle of a title is left alone).
_EDITION_IN_TITLE: Final = re.compile(
    rf"\s*[(\[]\s*{_ORDINAL}\s+(?:edition|ed\.?)\s*[)\]]"
    rf"|\s*[,:\u2013\u2014-]?\s*\b{_ORDINAL}\s+(?:edition|ed\.?)\s*$",
    re.IGNORECASE,
)


def book_query_title(title: str) -> str:
    """The cited title as a catalogue query: an edition statement in it ("(2nd Edition)") dropped,
    since catalogues keep the edition apart from the title and search for every word given."""
    stripped = _EDITION_IN_TITLE.sub(" ", title)
    return " ".join(stripped.split()) or title


def without_edition_statement(cited: CitedReference) -> CitedReference:
    """A book cited with its edition in the title ("... (2nd Edition)"), as compared with the
    sources: catalogues keep the edition apart, so the title is compared without it (the edition
    is no part of the title; a different edition is at most `edition_year_differs`)."""
    if not cited.title or not is_book_like(cited):
        return cited
    title = book_query_title(cited.title)
    return cited if title == cited.title else cited.model_copy(update={"title": title})


def is_book_like(cited: CitedReference) -> bool:
    """A reference the book catalogues should be asked about: cited with an ISBN, as a book entry,
    or with a book-seller URL or a publisher for venue (and no DOI, arXiv id or PMID, which the
    scholarly sources settle)."""
    if cited.isbn:
        return True
    if cited.doi or cited.arxiv_id or cited.pmid or not cited.title:
        return False
    if (cited.entry_type or "").lower() in BOOK_ENTRY_TYPES:
        return True
    kind = classify_kind(cited)
    if kind is None or kind.out_of_scope:
        return False
    if kind.name == "book":
        return True
    venue = fold(" ".join(x for x in (cited.venue or "", cited.fields.get("publisher", "")) if x))
    return kind.name == "report or book" and bool(_PUBLISHER_WORDS.search(venue))


def is_book_record(record: WorkRecord) -> bool:
    return record.source in BOOK_SOURCES or record.work_type in ("book", "monograph", "edited-book")


def catalogues_answered(evidence: Evidence) -> tuple[SourceName, ...]:
    """The book catalogues that answered a lookup or a search (found something or said no)."""
    return tuple(
        dict.fromkeys(
            a.source for a in evidence.answers if a.source in BOOK_SOURCES and a.outcome is not Outcome.FAILED
        )
    )


def single_catalogue_match(records: Iterable[WorkRecord], via: set[QueryKind]) -> bool:
    """The matched work rests on one book catalogue's search alone: no ISBN lookup found it, and no
    other source (another catalogue, a scholarly index) has it."""
    sources = {r.source for r in records}
    return QueryKind.ISBN not in via and len(sources) == 1 and sources <= BOOK_SOURCES


def _publisher_words(name: str) -> frozenset[str]:
    return frozenset(w for w in re.findall(r"[a-z0-9]+", fold(name)) if w not in _PUBLISHER_NOISE)


def publisher_agrees(cited: CitedReference, records: Iterable[WorkRecord]) -> bool | None:
    """The cited publisher against every publisher the sources give: True when one shares its
    distinctive words (MIT Press ~ The MIT Press, Cambridge, MA), False when none does, None when
    either side gives none."""
    cited_name = cited.fields.get("publisher")
    found = [r.publisher for r in records if r.publisher]
    if not cited_name or not found:
        return None
    mine = _publisher_words(cited_name)
    if not mine:
        return None
    return any(mine & _publisher_words(name) or not _publisher_words(name) for name in found)
