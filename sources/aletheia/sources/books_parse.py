"""Pure parsers of the two book catalogues (Tier 1): Open Library and Google Books, to `WorkRecord`.

No I/O. Each record keeps what the catalogue says, faithfully: the title with its subtitle (joined
"Title: Subtitle", the subtitle also kept apart), the authors, the year, the publisher, every ISBN
(13-digit form), the edition statement. `work_type` is "book". The raw payload is kept beside the
record by the client (`SourceRecord.raw`).

Shapes (from the services' documentation; no real response is recorded in ../shared, so the test
fixtures are modelled on the documented shapes):

- Open Library edition (`/isbn/{isbn}.json`, redirected to `/books/OL…M.json`): `title`,
  `subtitle`, `publishers` (list), `publish_date` (free text: "2016", "Nov 18, 2016"),
  `isbn_10`/`isbn_13` (lists), `edition_name`, `by_statement`, `authors` as keys only
  (`[{"key": "/authors/OL…A"}]`); the client fetches the author names and passes them in.
- Open Library search (`/search.json`): `{"numFound", "docs": [...]}`, each doc with `key`
  (`/works/OL…W`), `title`, `subtitle`, `author_name`, `first_publish_year`, `publisher`, `isbn`.
- Google Books (`/books/v1/volumes`): `{"totalItems", "items": [{"id", "volumeInfo": {...}}]}`
  (no `items` when nothing matched); `volumeInfo` has `title`, `subtitle`, `authors`, `publisher`,
  `publishedDate` ("2016", "2016-11", "2016-11-18"), `industryIdentifiers`
  (`[{"type": "ISBN_13" | "ISBN_10" | "OTHER", "identifier"}]`), `infoLink`,
  `canonicalVolumeLink`, `printType` ("BOOK" | "MAGAZINE").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from aletheia.core.authors import parse_name
from aletheia.core.isbn import normalise_isbn
from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.sources.base import SourceParseError

__all__ = [
    "google_books_items",
    "parse_google_books_volume",
    "parse_google_books_volumes",
    "parse_open_library_edition",
    "parse_open_library_search",
]

_YEAR: Final = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")


def _text(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())
    return None


def _year(value: Any) -> int | None:
    if isinstance(value, int) and 1400 <= value <= 2100:
        return value
    match = _YEAR.search(value) if isinstance(value, str) else None
    return int(match.group(1)) if match else None


def _full_title(title: str | None, subtitle: str | None) -> str | None:
    if title and subtitle and subtitle.casefold() not in title.casefold():
        return f"{title}: {subtitle}"
    return title or subtitle


def _authors(names: Iterable[Any]) -> tuple[Author, ...]:
    return tuple(parse_name(name) for name in (_text(n) for n in names) if name)


def _isbns(values: Iterable[Any]) -> tuple[str, ...]:
    out: list[str] = []
    for value in values:
        isbn = normalise_isbn(value) if isinstance(value, str) else None
        if isbn is not None and isbn not in out:
            out.append(isbn)
    return tuple(out)


def _strings(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


# --- Open Library -------------------------------------------------------------------------------


def parse_open_library_edition(
    edition: Any, author_names: Sequence[str] = (), *, base_url: str = "https://openlibrary.org"
) -> WorkRecord:
    """One Open Library edition record; `author_names` are the names of its `authors` keys, in
    order (fetched by the client). Without them, `by_statement` is not split: it is free text."""
    if not isinstance(edition, Mapping) or not _text(edition.get("title")):
        raise SourceParseError(SourceName.OPEN_LIBRARY.value, "not an Open Library edition (no `title`)")
    return _open_library_record(
        edition,
        base_url,
        publishers=edition.get("publishers"),
        authors=_authors(author_names),
        year=_year(edition.get("publish_date")),
        isbn=_isbns([*_strings(edition.get("isbn_13")), *_strings(edition.get("isbn_10"))]),
        edition=_text(edition.get("edition_name")),
    )


def parse_open_library_doc(doc: Any, *, base_url: str = "https://openlibrary.org") -> WorkRecord:
    if not isinstance(doc, Mapping) or not _text(doc.get("title")):
        raise SourceParseError(SourceName.OPEN_LIBRARY.value, "an Open Library search doc without `title`")
    return _open_library_record(
        doc,
        base_url,
        publishers=doc.get("publisher"),
        authors=_authors(_strings(doc.get("author_name"))),
        # The work's first edition: a later edition's year is an edition difference, not an error.
        year=_year(doc.get("first_publish_year")),
        isbn=_isbns(_strings(doc.get("isbn"))[:20]),
    )


def _open_library_record(
    obj: Mapping[str, Any], base_url: str, *, publishers: Any, **fields: Any
) -> WorkRecord:
    """What an edition and a search doc write alike (title, key, first publisher, link), with
    `fields`, what each writes its own way (authors, year, ISBNs, edition)."""
    title, subtitle = _text(obj.get("title")), _text(obj.get("subtitle"))
    key = _text(obj.get("key"))
    names = [p for p in (_text(x) for x in _strings(publishers)) if p]
    return WorkRecord(
        source=SourceName.OPEN_LIBRARY,
        source_id=key,
        title=_full_title(title, subtitle),
        subtitle=subtitle,
        work_type="book",
        publisher=names[0] if names else None,
        urls={"open_library": f"{base_url.rstrip('/')}{key}"} if key else {},
        **fields,
    )


def open_library_search_docs(payload: Any) -> list[Mapping[str, Any]]:
    """The docs of a search answer that are works (a text title): the ones parsed, in order."""
    if not isinstance(payload, Mapping) or not isinstance(payload.get("docs"), list):
        raise SourceParseError(SourceName.OPEN_LIBRARY.value, "not an Open Library search answer (no `docs`)")
    return [d for d in payload["docs"] if isinstance(d, Mapping) and _text(d.get("title"))]


def parse_open_library_search(payload: Any, *, base_url: str = "https://openlibrary.org") -> list[WorkRecord]:
    return [parse_open_library_doc(d, base_url=base_url) for d in open_library_search_docs(payload)]


# --- Google Books -------------------------------------------------------------------------------


def parse_google_books_volume(item: Any) -> WorkRecord:
    info = item.get("volumeInfo") if isinstance(item, Mapping) else None
    if not isinstance(info, Mapping) or not _text(info.get("title")):
        raise SourceParseError(
            SourceName.GOOGLE_BOOKS.value, "not a Google Books volume (no `volumeInfo.title`)"
        )
    title, subtitle = _text(info.get("title")), _text(info.get("subtitle"))
    identifiers = [
        i.get("identifier")
        for i in _strings(info.get("industryIdentifiers"))
        if isinstance(i, Mapping) and i.get("type") in ("ISBN_13", "ISBN_10")
    ]
    urls = {k: v for k in ("canonicalVolumeLink", "infoLink") if (v := _text(info.get(k)))}
    return WorkRecord(
        source=SourceName.GOOGLE_BOOKS,
        source_id=_text(item.get("id")),
        title=_full_title(title, subtitle),
        subtitle=subtitle,
        authors=_authors(_strings(info.get("authors"))),
        year=_year(info.get("publishedDate")),
        work_type="book" if info.get("printType", "BOOK") == "BOOK" else "periodical",
        isbn=_isbns(identifiers),
        publisher=_text(info.get("publisher")),
        urls=urls,
    )


def google_books_items(payload: Any) -> list[Mapping[str, Any]]:
    """The volumes of a volumes answer that carry a title (`items` is absent when nothing matched)."""
    if not isinstance(payload, Mapping) or ("totalItems" not in payload and "items" not in payload):
        raise SourceParseError(SourceName.GOOGLE_BOOKS.value, "not a Google Books volumes answer")
    items = payload.get("items") or []
    if not isinstance(items, list):
        raise SourceParseError(SourceName.GOOGLE_BOOKS.value, "`items` is not a list")
    return [
        i
        for i in items
        if isinstance(i, Mapping)
        and isinstance(i.get("volumeInfo"), Mapping)
        and _text(i["volumeInfo"].get("title"))
    ]


def parse_google_books_volumes(payload: Any) -> list[WorkRecord]:
    return [parse_google_books_volume(i) for i in google_books_items(payload)]
