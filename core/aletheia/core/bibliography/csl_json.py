"""CSL-JSON (Zotero, Mendeley, pandoc, citeproc): an array of items, one item, or `{"items": [...]}`.

CSL-JSON is structured, so nothing is guessed: `title`, `author` (`{family, given}` or
`{literal}`), `issued` (`date-parts`, `raw`, `literal`, or an EDTF string), `container-title`,
`DOI`, `URL`, `PMID`, `PMCID`, `ISBN`, `type`, `id` (or `citation-key`) as the key. arXiv ids are
read from the places Zotero and others put them: `number` ("arXiv:2101.00001"), `archive` /
`archive_location`, `publisher`/`container-title` "arXiv" with the id in `URL` or `note`.
`fields` keeps every top-level member, strings as they are and other values as compact JSON.

JSON that does not parse is a whole-input failure (`InputError`, with line and column); an item
that is not an object, or lacks a title and every identifier, is a problem for that item only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from aletheia.core.arxiv_ids import ArxivId, arxiv_id_from_doi, clean_arxiv_id
from aletheia.core.bibliography.manager_fields import identifiable_or_skipped
from aletheia.core.bibliography.problems import InputError, InputProblem
from aletheia.core.identifiers import clean_doi, clean_isbn, clean_pmcid, clean_pmid
from aletheia.core.identifiers_in_text import extract_identifiers
from aletheia.core.records import Author, CitedReference
from aletheia.core.text import normalize_whitespace

__all__ = ["iter_csl_json", "reference_from_csl_item"]

_TRUNCATION = re.compile(r"^(?:et\.?\s*al\.?|others)$", re.IGNORECASE)


def _string(value: Any) -> str | None:
    """A CSL string value; CSL-JSON from some exporters puts a one-element list where a string goes."""
    if isinstance(value, list) and value:
        value = value[0]
    if isinstance(value, str):
        text = normalize_whitespace(value)
        return text or None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def _authors(value: Any) -> tuple[tuple[Author, ...], bool]:
    if not isinstance(value, list):
        return (), False
    authors: list[Author] = []
    truncated = False
    for person in value:
        if not isinstance(person, dict):
            continue
        literal = _string(person.get("literal"))
        family = _string(person.get("family"))
        given = _string(person.get("given"))
        particle = _string(person.get("non-dropping-particle"))
        dropping = _string(person.get("dropping-particle"))
        suffix = _string(person.get("suffix"))
        if literal and _TRUNCATION.match(literal):
            truncated = True
            continue
        if family and particle:
            family = f"{particle} {family}"
        if given and dropping:
            given = f"{given} {dropping}"
        if literal or family or given:
            authors.append(Author(given=given, family=family, literal=literal, suffix=suffix))
    return tuple(authors), truncated


def _year(value: Any) -> int | None:
    """The year of a CSL date: `{"date-parts": [[2020, 5]]}`, `{"raw": "2020-05"}`,
    `{"literal": "Spring 2020"}`, or (CSL 1.0.2) an EDTF string."""
    if isinstance(value, str):
        candidates: list[Any] = [value]
    elif isinstance(value, dict):
        parts = value.get("date-parts")
        first = parts[0] if isinstance(parts, list) and parts and isinstance(parts[0], list) else None
        candidates = [first[0] if first else None, value.get("raw"), value.get("literal"), value.get("year")]
    else:
        return None
    for candidate in candidates:
        if isinstance(candidate, int) and not isinstance(candidate, bool) and 1000 <= candidate <= 2999:
            return candidate
        if isinstance(candidate, str):
            match = re.search(r"(?<!\d)(1\d{3}|2\d{3})(?!\d)", candidate)
            if match is not None:
                return int(match.group(1))
    return None


def _arxiv(item: dict[str, Any], doi: str | None) -> ArxivId | None:
    if doi is not None:
        from_doi = arxiv_id_from_doi(doi)
        if from_doi is not None:
            return from_doi
    for name in ("number", "archive_location", "archive-location", "URL", "note", "id"):
        value = _string(item.get(name))
        if not value:
            continue
        direct = clean_arxiv_id(value)
        if direct is not None:
            return direct
        found = extract_identifiers(value).arxiv_ids
        if found:
            return found[0]
    archive = (_string(item.get("archive")) or _string(item.get("publisher")) or "").lower()
    if archive == "arxiv":
        for name in ("number", "note", "URL"):
            value = _string(item.get(name))
            parsed = clean_arxiv_id(value) if value else None
            if parsed is not None:
                return parsed
    return None


def _fields(item: dict[str, Any]) -> dict[str, str]:
    fields: dict[str, str] = {}
    for name, value in item.items():
        if isinstance(value, str):
            fields[name] = value
        else:
            fields[name] = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return fields


def reference_from_csl_item(item: dict[str, Any], *, key: str, origin: str | None) -> CitedReference:
    """One CSL-JSON item as a `CitedReference`."""
    title = _string(item.get("title"))
    authors, truncated = _authors(item.get("author"))
    doi = clean_doi(_string(item.get("DOI")) or _string(item.get("doi")))
    url = _string(item.get("URL")) or _string(item.get("url"))
    if doi is None and url is not None:
        found = extract_identifiers(url).dois
        doi = found[0] if found else None
    arxiv = _arxiv(item, doi)
    isbn_value = _string(item.get("ISBN"))
    isbn = None
    if isbn_value:
        for candidate in re.split(r"[,;]|\s{1,}(?=97[89])", isbn_value):
            isbn = clean_isbn(candidate.strip())
            if isbn is not None:
                break
    return CitedReference(
        key=key,
        entry_type=_string(item.get("type")),
        fields=_fields(item),
        title=title,
        authors=authors,
        authors_truncated=truncated,
        year=_year(item.get("issued")),
        venue=_string(item.get("container-title")),
        doi=doi,
        arxiv_id=arxiv.id if arxiv else None,
        arxiv_version=arxiv.version if arxiv else None,
        pmid=clean_pmid(_string(item.get("PMID"))),
        pmcid=clean_pmcid(_string(item.get("PMCID"))),
        isbn=isbn,
        url=url,
        origin=origin,
    )


def _items(document: Any, origin: str) -> list[Any]:
    if isinstance(document, list):
        return document
    if isinstance(document, dict):
        items = document.get("items")
        if isinstance(items, list):
            return items
        if any(name in document for name in ("title", "type", "author", "DOI", "id")):
            return [document]
    raise InputError(
        origin, 'JSON, but not CSL-JSON: expected an array of items, an item, or {"items": [...]}'
    )


def iter_csl_json(text: str, *, origin: str) -> Iterator[CitedReference | InputProblem]:
    """Read CSL-JSON; raises `InputError` when the text is not JSON or not CSL-JSON."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            origin, f"invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
        ) from None
    except RecursionError:
        raise InputError(origin, "invalid JSON: nested too deeply") from None
    for position, item in enumerate(_items(document, origin), start=1):
        where = f"{origin}:item {position}"
        if not isinstance(item, dict):
            yield InputProblem(origin=origin, message=f"item {position} is not a JSON object; skipped")
            continue
        key = _string(item.get("citation-key")) or _string(item.get("id")) or str(position)
        reference = reference_from_csl_item(item, key=key, origin=where)
        yield identifiable_or_skipped(reference, origin=origin, key=key, what=f"item {position}")
