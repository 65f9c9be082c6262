"""Open Library and Google Books, simulated over a few books (Tier 1).

The books are a fixed table here (`SIM_BOOKS`), not universe lines: the universe's works are
scholarly records with DOIs, arXiv ids and PMIDs, and a book's catalogue view (editions, ISBNs,
first-publication years) is another shape. Each book says which catalogues hold it, so tests can
build a book only one catalogue knows.

- Open Library: `/isbn/{isbn}.json` (the edition, authors as keys; answered directly, where the
  real service redirects to `/books/OL…M.json`), `/authors/{key}.json`, `/search.json?title=&author=`.
- Google Books: `/books/v1/volumes?q=isbn:...` and `q=intitle:"..." inauthor:"..."`; no `items`
  when nothing matched; `q="phrase" isbn:...` searches inside a book with text (`book_text`).
"""

from __future__ import annotations

import re
from typing import Any, Final

from aletheia.core.isbn import isbn13_to_10, normalise_isbn
from aletheia.sources.simulator.book_text import search_inside
from aletheia.sources.simulator.config import RequestKind
from aletheia.sources.simulator.http import Request, Response, json_response, text_response
from aletheia.sources.simulator.search import tokenize

SIM_BOOKS: Final[tuple[dict[str, Any], ...]] = (
    {
        "id": "OL1M", "title": "Deep Learning",
        "authors": ["Ian Goodfellow", "Yoshua Bengio", "Aaron Courville"],
        "year": 2016, "first_year": 2016, "publisher": "MIT Press", "isbn": "9780262035613",
        "catalogues": ("open_library", "google_books"),
    },
    {
        "id": "OL2M", "title": "Pattern Recognition and Machine Learning",
        "authors": ["Christopher M. Bishop"],
        "year": 2006, "first_year": 2006, "publisher": "Springer", "isbn": "9780387310732",
        "catalogues": ("open_library", "google_books"),
    },
    {
        "id": "OL3M", "title": "Reinforcement Learning", "subtitle": "An Introduction",
        "authors": ["Richard S. Sutton", "Andrew G. Barto"], "year": 2018, "first_year": 1998,
        "publisher": "The MIT Press", "edition": "Second edition", "isbn": "9780262039246",
        "catalogues": ("open_library", "google_books"),
    },
    {
        "id": "OL4M", "title": "The Structure of Scientific Revolutions", "authors": ["Thomas S. Kuhn"],
        "year": 1962, "first_year": 1962, "publisher": "University of Chicago Press", "isbn": "9780226458083",
        "catalogues": ("open_library",),
    },
)  # fmt: skip

OPEN_LIBRARY_PREFIX: Final = "/openlibrary"
GOOGLE_BOOKS_PREFIX: Final = "/googlebooks"
_ISBN_PATH: Final = re.compile(r"^/isbn/([0-9Xx-]{10,17})\.json$")
_AUTHOR_PATH: Final = re.compile(r"^/authors/(OL\d+A)\.json$")
_Q_ISBN: Final = re.compile(r"^isbn:([0-9Xx-]{10,17})$")
_Q_FIELD: Final = re.compile(r'(intitle|inauthor):"([^"]*)"|(intitle|inauthor):(\S+)')


def _author_key(book: dict[str, Any], i: int) -> str:
    return f"OL{int(book['id'][2:-1]) * 10 + i}A"


def _authors_by_key() -> dict[str, str]:
    return {_author_key(b, i): name for b in SIM_BOOKS for i, name in enumerate(b["authors"])}


def _in(catalogue: str) -> list[dict[str, Any]]:
    return [b for b in SIM_BOOKS if catalogue in b["catalogues"]]


def _by_isbn(catalogue: str, raw: str) -> dict[str, Any] | None:
    isbn = normalise_isbn(raw)
    return next((b for b in _in(catalogue) if b["isbn"] == isbn), None) if isbn else None


def _words_in(wanted: str, text: str) -> bool:
    want = set(tokenize(wanted))
    return bool(want) and want <= set(tokenize(text))


def _matches(book: dict[str, Any], title: str | None, author: str | None) -> bool:
    full = f"{book['title']} {book.get('subtitle', '')}"
    if title and not _words_in(title, full):
        return False
    return not author or any(_words_in(author, name) for name in book["authors"])


def classify(request: Request, path: str) -> tuple[RequestKind, list[str]]:
    if path.startswith("/search.json") or (
        "q" in request.params() and not _Q_ISBN.match(request.param("q") or "")
    ):
        return "search", []
    match = _ISBN_PATH.match(path)
    if match:
        return "single", [match.group(1)]
    return "single", []


# --- Open Library ---------------------------------------------------------------------------------


def _edition(book: dict[str, Any]) -> dict[str, Any]:
    isbn10 = isbn13_to_10(book["isbn"])
    edition: dict[str, Any] = {
        "key": f"/books/{book['id']}",
        "title": book["title"],
        "publishers": [book["publisher"]],
        "publish_date": str(book["year"]),
        "isbn_13": [book["isbn"]],
        "isbn_10": [isbn10] if isbn10 else [],
        "authors": [{"key": f"/authors/{_author_key(book, i)}"} for i in range(len(book["authors"]))],
        "works": [{"key": f"/works/{book['id'][:-1]}W"}],
    }
    if book.get("subtitle"):
        edition["subtitle"] = book["subtitle"]
    if book.get("edition"):
        edition["edition_name"] = book["edition"]
    return edition


def _doc(book: dict[str, Any]) -> dict[str, Any]:
    doc = {
        "key": f"/works/{book['id'][:-1]}W",
        "title": book["title"],
        "author_name": list(book["authors"]),
        "first_publish_year": book["first_year"],
        "publisher": [book["publisher"]],
        "isbn": [book["isbn"]],
        "edition_count": 1,
    }
    if book.get("subtitle"):
        doc["subtitle"] = book["subtitle"]
    return doc


def handle_open_library(request: Request, path: str) -> Response:
    match = _ISBN_PATH.match(path)
    if match:
        book = _by_isbn("open_library", match.group(1))
        return json_response(_edition(book)) if book else json_response({"error": "notfound"}, status=404)
    match = _AUTHOR_PATH.match(path)
    if match:
        name = _authors_by_key().get(match.group(1))
        if name is None:
            return json_response({"error": "notfound"}, status=404)
        return json_response(
            {"key": f"/authors/{match.group(1)}", "name": name, "type": {"key": "/type/author"}}
        )
    if path == "/search.json":
        title, author = request.param("title"), request.param("author")
        limit = int(request.param("limit") or 10)
        docs = [_doc(b) for b in _in("open_library") if _matches(b, title, author)][:limit]
        return json_response({"numFound": len(docs), "start": 0, "numFoundExact": True, "docs": docs})
    return text_response("Not Found", status=404)


# --- Google Books ---------------------------------------------------------------------------------


def _volume(book: dict[str, Any]) -> dict[str, Any]:
    isbn10 = isbn13_to_10(book["isbn"])
    identifiers = [{"type": "ISBN_13", "identifier": book["isbn"]}]
    if isbn10:
        identifiers.append({"type": "ISBN_10", "identifier": isbn10})
    info: dict[str, Any] = {
        "title": book["title"],
        "authors": list(book["authors"]),
        "publisher": book["publisher"],
        "publishedDate": f"{book['year']}-01-01",
        "industryIdentifiers": identifiers,
        "printType": "BOOK",
        "language": "en",
        "infoLink": f"https://books.google.com/books?id=sim{book['id']}",
        "canonicalVolumeLink": f"https://books.google.com/books/about/?id=sim{book['id']}",
    }
    if book.get("subtitle"):
        info["subtitle"] = book["subtitle"]
    return {"kind": "books#volume", "id": f"sim{book['id']}", "volumeInfo": info}


def handle_google_books(request: Request, path: str) -> Response:
    if path != "/books/v1/volumes":
        return text_response("Not Found", status=404)
    q = request.param("q") or ""
    inside = search_inside(q, lambda isbn: (b := _by_isbn("google_books", isbn)) and _volume(b))
    if inside is not None:  # `"phrase" isbn:...`: page snippets (`book_text`)
        return json_response(inside)
    match = _Q_ISBN.match(q.strip())
    if match:
        book = _by_isbn("google_books", match.group(1))
        books = [book] if book else []
    else:
        fields: dict[str, str] = {}
        for m in _Q_FIELD.finditer(q):
            fields[m.group(1) or m.group(3)] = m.group(2) if m.group(1) else m.group(4)
        if not fields:
            return json_response({"error": {"code": 400, "message": "Missing query."}}, status=400)
        books = [b for b in _in("google_books") if _matches(b, fields.get("intitle"), fields.get("inauthor"))]
    limit = int(request.param("maxResults") or 10)
    payload: dict[str, Any] = {"kind": "books#volumes", "totalItems": len(books)}
    if books:
        payload["items"] = [_volume(b) for b in books[:limit]]
    return json_response(payload)
