"""The real source records recorded for the ICLR 2026 bibliographies (`../shared/data/benchmarks/
iclr2026-real-bibliographies/api_cache`), read into `RealRecord`s: Crossref items, OpenAlex works,
Semantic Scholar papers and DBLP hits, in the few fields the benches compare. `noise.measure`
counts the sources' noise over them; the ICLR universe (`iclr_universe`) is derived from them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from aletheia.core.text import normalize_title

__all__ = ["RECORDED_SOURCES", "RealRecord", "load_api_cache"]

_REPOSITORY_TYPES = frozenset({"repository"})
_VENUE_TYPES = frozenset({"journal", "conference", "book series", "ebook platform"})


@dataclass(frozen=True)
class RealRecord:
    """One recorded source record, in the few fields the bench compares."""

    source: str  # crossref, openalex, semantic_scholar, dblp
    title: str
    authors: tuple[dict[str, str], ...]  # {"given","family"} or {"literal"}
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    venues: tuple[str, ...] = ()  # every venue name the record gives (series, other locations)
    aliases: tuple[str, ...] = ()  # S2 alternate names
    dblp_key: str | None = None
    repository_primary: bool = False
    raw_authors: tuple[str, ...] = ()
    work_type: str | None = None  # Crossref's vocabulary

    @cached_property
    def key(self) -> str:
        return normalize_title(self.title)


def _items(payload: Any) -> list[dict[str, Any]]:
    if isinstance(payload, dict):
        if isinstance(payload.get("data"), list):
            return [x for x in payload["data"] if isinstance(x, dict)]
        if isinstance(payload.get("message"), dict):
            message = payload["message"]
            return [x for x in message.get("items", [message]) if isinstance(x, dict)]
        return [payload]
    if isinstance(payload, list):
        return [x for x in payload if isinstance(x, dict)]
    return []


def _doi(value: Any) -> str | None:
    if not isinstance(value, str) or "10." not in value:
        return None
    return value[value.index("10.") :].lower()


def _split_name(name: str) -> dict[str, str]:
    parts = name.rsplit(" ", 1)
    return {"given": parts[0], "family": parts[1]} if len(parts) == 2 else {"family": name}


def _year(value: Any) -> int | None:
    try:
        return int(str(value)[:4])
    except ValueError:
        return None


def _crossref(item: dict[str, Any]) -> RealRecord | None:
    titles = item.get("title") or []
    if not titles:
        return None
    authors = tuple(
        {"literal": a["name"]}
        if a.get("name")
        else {k: a[k] for k in ("given", "family", "suffix") if a.get(k)}
        for a in item.get("author", [])
    )
    date = (item.get("published") or item.get("issued") or {}).get("date-parts") or [[None]]
    containers = tuple(item.get("container-title") or ())
    return RealRecord(
        source="crossref",
        title=titles[0],
        authors=authors,
        year=date[0][0] if date and date[0] else None,
        venue=containers[0] if containers else None,
        doi=_doi(item.get("DOI")),
        venues=containers,
        raw_authors=tuple(" ".join(a.values()) for a in authors),
        work_type=item.get("type"),
    )


def _openalex(work: dict[str, Any]) -> RealRecord | None:
    if not work.get("title"):
        return None
    authors = tuple(
        _split_name((a.get("author") or {}).get("display_name") or "") for a in work.get("authorships", [])
    )
    primary = (work.get("primary_location") or {}).get("source") or {}
    venues = []
    for loc in work.get("locations") or []:
        src = (loc or {}).get("source") or {}
        if src.get("display_name") and src.get("type") in _VENUE_TYPES:
            venues.append(src["display_name"])
    arxiv = (work.get("ids") or {}).get("arxiv")
    return RealRecord(
        source="openalex",
        title=work["title"],
        authors=authors,
        year=work.get("publication_year"),
        venue=primary.get("display_name"),
        doi=_doi(work.get("doi")),
        arxiv_id=arxiv.rsplit("/", 1)[-1] if isinstance(arxiv, str) else None,
        venues=tuple(dict.fromkeys(venues)),
        repository_primary=primary.get("type") in _REPOSITORY_TYPES,
        work_type={
            "preprint": "posted-content",
            "article": "journal-article",
            "book-chapter": "book-chapter",
        }.get(work.get("type") or ""),
        raw_authors=tuple(a.get("raw_author_name") or "" for a in work.get("authorships", [])),
    )


def _s2(paper: dict[str, Any]) -> RealRecord | None:
    if not paper.get("title"):
        return None
    ids = paper.get("externalIds") or {}
    venue_obj = paper.get("publicationVenue") or {}
    names = tuple(a.get("name") or "" for a in paper.get("authors") or [])
    return RealRecord(
        source="semantic_scholar",
        title=paper["title"],
        authors=tuple(_split_name(n) for n in names),
        year=paper.get("year"),
        venue=paper.get("venue") or venue_obj.get("name") or None,
        doi=_doi(ids.get("DOI")),
        arxiv_id=ids.get("ArXiv"),
        venues=tuple(v for v in (paper.get("venue"), venue_obj.get("name")) if v),
        aliases=tuple(venue_obj.get("alternate_names") or ()),
        dblp_key=ids.get("DBLP"),
        raw_authors=names,
    )


def _dblp(hit: dict[str, Any]) -> RealRecord | None:
    info = hit.get("info") or {}
    if not info.get("title"):
        return None
    people = (info.get("authors") or {}).get("author") or []
    if isinstance(people, dict):
        people = [people]
    names = tuple(re.sub(r"\s+\d{4}$", "", p.get("text", "")) for p in people)
    return RealRecord(
        source="dblp",
        title=info["title"].rstrip("."),
        authors=tuple(_split_name(n) for n in names),
        year=_year(info.get("year")),
        venue=info.get("venue") if isinstance(info.get("venue"), str) else None,
        doi=_doi(info.get("doi")),
        dblp_key=info.get("key"),
        raw_authors=names,
    )


_READERS = {"crossref": _crossref, "openalex": _openalex, "semantic_scholar": _s2, "dblp": _dblp}


def load_api_cache(directory: Path) -> list[RealRecord]:
    """Every record in the recorded responses, each distinct (source, DOI or title) once."""
    records: dict[tuple[str, str], RealRecord] = {}
    for source, reader in _READERS.items():
        for path in sorted((directory / source).glob("*.json")):
            try:
                payload = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            for item in _items(payload):
                record = reader(item)
                if record is not None and record.key:
                    records.setdefault((source, record.doi or record.key), record)
    return list(records.values())


# The sources whose recorded answers are read, in the order the tables list them.
RECORDED_SOURCES = tuple(_READERS)
