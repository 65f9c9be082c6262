"""The venue registries' answers as typed records (issue 21): pure, no I/O.

Each parser reads one registry's documented list (or single-entry) response into
`VenueRecord`s, best first as the registry ranked them, every name the registry gives a venue
kept (the core compares the cited venue with all of them: `core.venue_registry.holds`):

- OpenAlex `/sources?search=...` (and `filter=issn:...`): `{"meta", "results": [Source]}`, a
  Source being `id` ("https://openalex.org/S137773608"), `display_name`, `alternate_titles`
  ("commonly abbreviations or translations of the source's canonical name", from the ISSN Centre
  and the works that carry the name), `abbreviated_title` (ISO 4, from the ISSN Centre), `issn`,
  `issn_l` and `type` (journal, repository, conference, ebook platform, book series). A single
  Source (`/sources/{id}`) is read too.
- DBLP `/search/venue/api?q=...&format=json`: `{"result": {"hits": {"@total", "hit": [...]}}}`,
  each hit's `info` holding `venue` ("International Conference on Machine Learning (ICML)"),
  `acronym`, `type` ("Conference or Workshop", "Journal", "Series") and `url` (the venue's
  stream page). `hit` is absent when nothing matched, and DBLP's JSON writes a lone element as an
  object rather than a list of one.
- Crossref `/journals?query=...` (`message-type: journal-list`, `message.items`) and
  `/journals/{issn}` (`message-type: journal`, the item as `message`): `title`, `ISSN`,
  `issn-type` (`[{"type": "print", "value": ...}]`) and `publisher`, as in habanero's recorded
  sessions (`../shared/data/api-samples/crossref/habanero-sessions/test-journals__*.json`).

A body that is not the documented shape raises `SourceParseError` (a failed answer, never "the
registry holds nothing").
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from aletheia.core.evidence import VenueRecord
from aletheia.core.identifiers import clean_issn
from aletheia.core.records import SourceName
from aletheia.sources.base import SourceParseError

__all__ = ["parse_crossref_journals", "parse_dblp_venues", "parse_openalex_sources"]

_SPACES: Final = re.compile(r"\s+")
# DBLP writes the acronym after the name: "Conference on Neural Information Processing Systems
# (NeurIPS)". A trailing parenthesis that reads as an acronym (one token, a capital in it).
_TRAILING_ACRONYM: Final = re.compile(r"^(?P<name>.+?)\s*\((?P<acronym>[^()\s]{2,20})\)\s*$")
_OPENALEX_ID: Final = re.compile(r"(?:https?://openalex\.org/)?(S\d+)", re.IGNORECASE)


def _text(value: Any) -> str | None:
    """A name as shown: entities decoded, spaces collapsed; None for anything but text."""
    if not isinstance(value, str):
        return None
    text = _SPACES.sub(" ", html.unescape(value)).strip()
    return text or None


def _texts(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return [t for item in items if (t := _text(item)) is not None]


def _distinct(names: Iterable[str], *, besides: Iterable[str | None] = ()) -> tuple[str, ...]:
    """Names in order, each once (case-insensitively), none of `besides`."""
    seen = {n.casefold() for n in besides if n}
    out: list[str] = []
    for name in names:
        key = name.casefold()
        if key not in seen:
            seen.add(key)
            out.append(name)
    return tuple(out)


def _issns(values: Iterable[Any]) -> tuple[str, ...]:
    cleaned = (clean_issn(v) if isinstance(v, str) else None for v in values)
    return tuple(dict.fromkeys(i for i in cleaned if i is not None))


def _record(
    source: SourceName,
    *,
    source_id: str | None,
    name: str,
    alternates: Iterable[str] = (),
    abbreviation: str | None = None,
    issn: Sequence[str] = (),
    kind: str | None = None,
) -> VenueRecord:
    return VenueRecord(
        source=source,
        source_id=source_id,
        name=name,
        alternate_names=_distinct(alternates, besides=(name, abbreviation)),
        abbreviation=abbreviation,
        issn=tuple(issn),
        kind=kind,
    )


# --- OpenAlex ------------------------------------------------------------------------------------


def _openalex_source(item: Any) -> VenueRecord | None:
    if not isinstance(item, Mapping):
        raise SourceParseError(SourceName.OPENALEX.value, "a source list item is not an object")
    name = _text(item.get("display_name"))
    if name is None:  # a source without a name names nothing a citation could give
        return None
    raw_id = item.get("id")
    found = _OPENALEX_ID.fullmatch(raw_id.strip()) if isinstance(raw_id, str) else None
    issn_l = item.get("issn_l")
    issn = item.get("issn")
    return _record(
        SourceName.OPENALEX,
        source_id=found.group(1).upper() if found else None,
        name=name,
        alternates=_texts(item.get("alternate_titles") or []),
        abbreviation=_text(item.get("abbreviated_title")),
        issn=_issns([issn_l, *(issn if isinstance(issn, list) else [])]),
        kind=_text(item.get("type")),
    )


def parse_openalex_sources(payload: Any) -> list[VenueRecord]:
    """OpenAlex's sources list (`results`), or one Source object."""
    if isinstance(payload, Mapping) and isinstance(payload.get("results"), list):
        items: list[Any] = payload["results"]
    elif isinstance(payload, Mapping) and "display_name" in payload and "id" in payload:
        items = [payload]
    else:
        raise SourceParseError(SourceName.OPENALEX.value, "not an OpenAlex source list (no `results` list)")
    return [record for item in items if (record := _openalex_source(item)) is not None]


# --- DBLP ----------------------------------------------------------------------------------------


def _dblp_hits(payload: Any) -> list[Any]:
    result = payload.get("result") if isinstance(payload, Mapping) else None
    if not isinstance(result, Mapping):
        raise SourceParseError(SourceName.DBLP.value, "not a DBLP search answer (no `result`)")
    hits = result.get("hits")
    if hits is None:
        return []
    if not isinstance(hits, Mapping):
        raise SourceParseError(SourceName.DBLP.value, "`result.hits` is not an object")
    hit = hits.get("hit")
    if hit is None:  # DBLP leaves `hit` out when nothing matched (`@total` 0)
        return []
    return hit if isinstance(hit, list) else [hit]


def _dblp_venue(hit: Any) -> VenueRecord | None:
    info = hit.get("info") if isinstance(hit, Mapping) else None
    if not isinstance(info, Mapping):
        raise SourceParseError(SourceName.DBLP.value, "a venue hit without `info`")
    shown = _text(info.get("venue"))
    if shown is None:
        return None
    acronym = _text(info.get("acronym"))
    name = shown
    trailing = _TRAILING_ACRONYM.match(shown)
    if trailing is not None:
        inner = trailing.group("acronym")
        if (acronym is not None and inner.casefold() == acronym.casefold()) or (
            acronym is None and any(ch.isupper() for ch in inner)
        ):
            name = trailing.group("name")
            acronym = acronym or inner
    url = _text(info.get("url"))
    return _record(
        SourceName.DBLP,
        source_id=url,
        name=name,
        # The name as DBLP prints it, acronym and all, is a form a citation may copy too.
        alternates=[shown],
        abbreviation=acronym,
        kind=_text(info.get("type")),
    )


def parse_dblp_venues(payload: Any) -> list[VenueRecord]:
    """DBLP's venue search hits, best first."""
    return [record for hit in _dblp_hits(payload) if (record := _dblp_venue(hit)) is not None]


# --- Crossref ------------------------------------------------------------------------------------


def _crossref_journal(item: Any) -> VenueRecord | None:
    if not isinstance(item, Mapping):
        raise SourceParseError(SourceName.CROSSREF.value, "a journal item is not an object")
    titles = _texts(item.get("title"))  # a string at /journals; a list tolerated, as for works
    if not titles:
        return None
    typed = [t.get("value") for t in item.get("issn-type") or [] if isinstance(t, Mapping)]
    plain = item.get("ISSN")
    issn = _issns([*(plain if isinstance(plain, list) else [plain]), *typed])
    return _record(
        SourceName.CROSSREF,
        source_id=issn[0] if issn else None,
        name=titles[0],
        alternates=titles[1:],
        issn=issn,
        kind="journal",
    )


def parse_crossref_journals(payload: Any) -> list[VenueRecord]:
    """Crossref's journal list (`journal-list`) or one journal (`journal`)."""
    kind = payload.get("message-type") if isinstance(payload, Mapping) else None
    message = payload.get("message") if isinstance(payload, Mapping) else None
    if kind == "journal" and isinstance(message, Mapping):
        items: list[Any] = [message]
    elif kind == "journal-list" and isinstance(message, Mapping) and isinstance(message.get("items"), list):
        items = message["items"]
    else:
        raise SourceParseError(
            SourceName.CROSSREF.value, f"not a Crossref journal answer (message-type {kind!r})"
        )
    return [record for item in items if (record := _crossref_journal(item)) is not None]
