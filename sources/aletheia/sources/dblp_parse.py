"""DBLP's payloads as `WorkRecord`s: pure functions, no I/O.

Two shapes:

- the publication search (`/search/publ/api?format=json`): `{"result": {"hits": {"@total": "N",
  "hit": [{"info": {...}}, ...]}}}`; with no hit the `hit` key is absent. A hit's `info` has
  `title` (DBLP ends every title with a period unless it ends with "?" or "!"; HTML entities such
  as `&apos;` are left in), `authors.author` (a list, or one object for a single author, each
  `{"@pid", "text"}`, the text carrying DBLP's homonym number: "Wei Wang 0001"), `venue` (an
  abbreviation, "NeurIPS", "ICLR", "Trans. Mach. Learn. Res.", "CoRR"; a list for some editorships),
  `year`, `type`, `key`, `doi` (upper-cased), `ee` (a string or a list of links) and `url`;
- the record by key (`/rec/{key}.xml`): `<dblp><inproceedings key="...">` (or `<article>`,
  `<proceedings>`, `<book>`, `<incollection>`, `<phdthesis>`, ...) with `<author>`, `<title>`,
  `<booktitle>` or `<journal>`, `<year>`, `<ee>` (several), `<url>`.

Type: "Conference and Workshop Papers" -> proceedings-article, "Journal Articles" -> journal-article,
"Informal and Other Publications" -> a preprint when it is a CoRR (arXiv) copy, else "other";
"Editorship" -> proceedings (a volume, not a paper). The key's prefix says the same for the XML.
A CoRR record carries its arXiv id in its `ee` (`arxiv.org/abs/...`, or arXiv's DataCite DOI).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from aletheia.core.arxiv_ids import ARXIV_DOI_PREFIX, arxiv_id_from_doi, clean_arxiv_id
from aletheia.core.authors import parse_name
from aletheia.core.identifiers import clean_doi
from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.core.text import normalize_whitespace
from aletheia.sources.base import SourceParseError

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

__all__ = [
    "clean_dblp_title",
    "dblp_hits",
    "parse_dblp_hit",
    "parse_dblp_search",
    "parse_dblp_xml_record",
]

SOURCE: Final = SourceName.DBLP

_TYPES: Final = {
    "conference and workshop papers": "proceedings-article",
    "journal articles": "journal-article",
    "parts in books or collections": "book-chapter",
    "books and theses": "book",
    "editorship": "proceedings",
    "data and artifacts": "dataset",
    "reference works": "reference-entry",
}
_XML_TYPES: Final = {
    "inproceedings": "proceedings-article",
    "article": "journal-article",
    "incollection": "book-chapter",
    "book": "book",
    "phdthesis": "dissertation",
    "mastersthesis": "dissertation",
    "proceedings": "proceedings",
    "data": "dataset",
}
_INFORMAL: Final = "informal and other publications"
_CORR_KEY: Final = "journals/corr/"
_CORR_VENUE: Final = "corr"
_DOI_LINK: Final = re.compile(r"^https?://(?:dx\.)?doi\.org/", re.IGNORECASE)
# ACM's placeholder prefix (dl.acm.org/doi/10.5555/...): registered nowhere, so never a DOI to
# look up or to suggest.
_UNREGISTERED_PREFIXES: Final = ("10.5555/",)


def clean_dblp_title(title: str | None) -> str | None:
    """DBLP's title as the work has it: entities decoded, the period DBLP appends dropped (a
    title ending in "?", "!" or an abbreviation's own period such as "et al." keeps its end)."""
    if not title:
        return None
    text = normalize_whitespace(html.unescape(title))
    if text.endswith(".") and not text.endswith("..") and not re.search(r"\b(?:al|etc|vs)\.$", text):
        text = text[:-1].rstrip()
    return text or None


def _strings(value: Any) -> list[str]:
    """A field DBLP gives as one string, a list of strings, or `{"text": ...}` objects."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in items:
        if isinstance(item, Mapping):
            item = item.get("text")
        if isinstance(item, (str, int)) and str(item).strip():
            out.append(normalize_whitespace(html.unescape(str(item))))
    return out


def _authors(names: Iterable[str]) -> tuple[Author, ...]:
    # `parse_name` drops DBLP's homonym numbers ("Wei Wang 0001" -> Wei / Wang).
    return tuple(author for name in names if (author := parse_name(name)).family or author.literal)


def _year(value: Any) -> int | None:
    text = str(value).strip() if value is not None else ""
    return int(text) if text.isdigit() and len(text) == 4 else None


def _links_ids(links: Sequence[str]) -> tuple[str | None, str | None]:
    """(DOI, arXiv id) from DBLP's electronic-edition links."""
    doi: str | None = None
    arxiv: str | None = None
    for link in links:
        if _DOI_LINK.match(link):
            found = clean_doi(link)
            if found is None:
                continue
            from_doi = arxiv_id_from_doi(found)
            if from_doi is not None:
                arxiv = arxiv or from_doi.id
            else:
                doi = doi or found
        elif "arxiv.org/" in link.lower():
            parsed = clean_arxiv_id(link)
            if parsed is not None:
                arxiv = arxiv or parsed.id
    return doi, arxiv


def _record(
    *,
    key: str | None,
    title: str | None,
    authors: tuple[Author, ...],
    venues: list[str],
    year: int | None,
    work_type: str | None,
    doi_field: str | None,
    links: list[str],
    url: str | None,
) -> WorkRecord:
    doi, arxiv = _links_ids(links)
    if doi_field:
        field_doi = clean_doi(doi_field)
        if field_doi is not None and field_doi.startswith(ARXIV_DOI_PREFIX):
            from_doi = arxiv_id_from_doi(field_doi)
            arxiv = arxiv or (from_doi.id if from_doi is not None else None)
        elif field_doi is not None:
            doi = field_doi
    if doi is not None and doi.startswith(_UNREGISTERED_PREFIXES):
        doi = None
    is_corr = bool(key and key.startswith(_CORR_KEY)) or any(v.casefold() == _CORR_VENUE for v in venues)
    if is_corr:
        work_type = "preprint"
    urls = {"dblp": url} if url else {}
    for link in links:
        urls.setdefault("ee", link)
    return WorkRecord(
        source=SOURCE,
        source_id=key,
        title=clean_dblp_title(title),
        authors=authors,
        year=year,
        venue=venues[0] if venues else None,
        other_venues=tuple(venues[1:]),
        work_type=work_type,
        doi=doi,
        arxiv_id=arxiv,
        is_preprint=is_corr,
        urls=urls,
        dblp_key=key,
    )


def parse_dblp_hit(hit: Mapping[str, Any]) -> WorkRecord:
    """One search hit (`{"info": {...}}`, or the `info` object itself)."""
    info = hit.get("info", hit)
    if not isinstance(info, Mapping):
        raise SourceParseError(SOURCE.value, "a DBLP hit without `info`")
    title = info.get("title")
    if not isinstance(title, str):
        raise SourceParseError(SOURCE.value, "a DBLP hit without a title")
    authors_field = info.get("authors")
    names = _strings(authors_field.get("author")) if isinstance(authors_field, Mapping) else []
    kind = str(info.get("type") or "").casefold()
    key = info.get("key") if isinstance(info.get("key"), str) else None
    doi = info.get("doi") if isinstance(info.get("doi"), str) else None
    url = info.get("url") if isinstance(info.get("url"), str) else None
    return _record(
        key=key,
        title=title,
        authors=_authors(names),
        venues=_strings(info.get("venue")),
        year=_year(info.get("year")),
        work_type=_TYPES.get(kind, "other" if kind == _INFORMAL else None),
        doi_field=doi,
        links=_strings(info.get("ee")),
        url=url,
    )


def dblp_hits(payload: Any) -> list[Mapping[str, Any]]:
    """The hits of a search answer: the documented envelope, or a bare list of hits (how the
    recorded caches keep them). No hit at all is an empty list, not an error."""
    if isinstance(payload, list):
        return [h for h in payload if isinstance(h, Mapping)]
    result = payload.get("result") if isinstance(payload, Mapping) else None
    if not isinstance(result, Mapping):
        raise SourceParseError(SOURCE.value, "not a DBLP search answer (no `result`)")
    hits = result.get("hits")
    if hits is None:
        return []
    if not isinstance(hits, Mapping):
        raise SourceParseError(SOURCE.value, "DBLP `result.hits` is not an object")
    listed = hits.get("hit", [])
    if isinstance(listed, Mapping):
        listed = [listed]
    if not isinstance(listed, list):
        raise SourceParseError(SOURCE.value, "DBLP `result.hits.hit` is not a list")
    return [h for h in listed if isinstance(h, Mapping)]


def parse_dblp_search(payload: Any) -> list[WorkRecord]:
    """Every hit of a search answer, in DBLP's order."""
    return [parse_dblp_hit(hit) for hit in dblp_hits(payload)]


def _texts(element: ET.Element, tag: str) -> list[str]:
    return [normalize_whitespace("".join(child.itertext())) for child in element.findall(tag)]


def parse_dblp_xml_record(root: ET.Element) -> WorkRecord:
    """The record of `/rec/{key}.xml` (`<dblp><TYPE key=...>`), already parsed safely."""
    element = root if root.get("key") else next(iter(root), None)
    if element is None or not element.get("key"):
        raise SourceParseError(SOURCE.value, "not a DBLP record (no element with a `key`)")
    key = element.get("key")
    titles = _texts(element, "title")
    if not titles:
        raise SourceParseError(SOURCE.value, f"DBLP record {key} has no title")
    venues = _texts(element, "booktitle") or _texts(element, "journal") or _texts(element, "series")
    url = _texts(element, "url")
    dblp_url = f"https://dblp.org/rec/{key}" if key else None
    doi_field = next((link for link in _texts(element, "ee") if _DOI_LINK.match(link)), None)
    people = _texts(element, "author") or _texts(element, "editor")
    return _record(
        key=key,
        title=titles[0],
        authors=_authors(people),
        venues=venues,
        year=_year(next(iter(_texts(element, "year")), None)),
        work_type=_XML_TYPES.get(element.tag, "other"),
        doi_field=doi_field,
        links=_texts(element, "ee"),
        url=dblp_url or (url[0] if url else None),
    )
