"""Questionable venues (issue 21, item 6): the shipped, dated, licensed venue lists, and the
`questionable_venue` signal they give a reference. A signal, never a verdict.

The tables are data (`aletheia/core/data/venue_lists/`, derived from the published lists by
`python -m aletheia.pipeline.derive_venue_lists`; sources, dates, licences and attribution in
their `NOTICE.md`):

- `doaj_withdrawn.json.gz`: journals DOAJ withdrew for practice ("Journal not adhering to Best
  practice" and its variants), 2014-2025, with the date and DOAJ's reason (CC BY-SA 4.0). Journals
  withdrawn because they ceased, went inactive or lost their web site are not in it.
- `stop_predatory_journals.json.gz`: the 2018 Stop Predatory Journals lists (MIT): potential predatory
  standalone journals (name and site), and hijacked journals (the counterfeit site, with the
  authentic journal's name and site so that the reader can go to the real one).

A venue is matched on a valid ISSN, on its web site, or on its exact full name; never on a
similar name. Precisely:

- **ISSN**: the check digit must hold (`identifiers.clean_issn`); hyphen, case of `X` and an `ISSN`
  prefix do not matter.
- **Site** (`site_key`): the URL's host, lower-cased, without `www.` or a port, and its path,
  lower-cased, without a trailing home-page file (`index.php`, `Default.aspx`, ...). A listed site
  at the root of its host matches that host and every subdomain of it (a journal or counterfeit
  site owns its domain: `article.example.org` is `example.org`'s); a listed site with a path (one
  journal on a shared host: `journals.sfu.ca/africanem/index.php/ajtcam`) matches only the same
  host and URLs under that path, whole segments only.
- **Name** (`name_key`, the journal-title form of `signals.normalize_journal_title`: case, accents,
  punctuation and whitespace folded, `&` read as `and`, a leading "The" dropped): the whole name,
  equal. A one-word name (Research, Water, Aging: many journals share it) never matches by name;
  nor does a hijacked journal's name (it is the authentic journal's) or a name the list itself
  annotates (`[alt]`: another journal of that name exists). A DOAJ entry's name does not match when
  the reference's ISSNs are known and none of them is the entry's: another journal of that name.
"""

from __future__ import annotations

import gzip
import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from aletheia.core.identifiers import clean_issn
from aletheia.core.records import CitedReference, WorkRecord
from aletheia.core.signals import Signal, SignalKind, normalize_journal_title

__all__ = [
    "DATA_DIR",
    "LIST_FILES",
    "MIN_NAME_WORDS",
    "Clue",
    "ListedVenue",
    "QuestionableVenues",
    "VenueList",
    "name_key",
    "parse_list",
    "questionable_venue_signals",
    "questionable_venues",
    "reference_clues",
    "site_key",
    "site_matches",
]

DATA_DIR: Final = "venue_lists"
LIST_FILES: Final = ("doaj_withdrawn.json.gz", "stop_predatory_journals.json.gz")
# A name of fewer words is shared by too many journals to say which one was cited.
MIN_NAME_WORDS: Final = 2

# A last path segment that is only the site's home page: `/index.php`, `/Default1.aspx`, `/home`.
_HOME_PAGE: Final = re.compile(r"(?:index|default\d*|home(?:page)?)(?:\.[a-z0-9]{2,5})?")
_ISSN_LIKE: Final = re.compile(r"\d{4}\s*[-\u2010-\u2015]?\s*\d{3}[\dxX]")


# --- normalisation --------------------------------------------------------------------------------


def site_key(url: str | None) -> tuple[str, tuple[str, ...]] | None:
    """A URL's site: (host, path segments), both lower-cased; None for no host.

    `http://www.Example.org:8080/Journal/index.php?x=1` -> `("example.org", ("journal",))`."""
    if not url or not url.strip():
        return None
    text = html.unescape(url.strip())
    if "://" not in text:
        text = "http://" + text.lstrip("/")
    try:
        parts = urlsplit(text)
        host = (parts.hostname or "").rstrip(".").lower()
    except ValueError:
        return None
    host = host.removeprefix("www.")
    if "." not in host:
        return None
    segments = [s for s in unquote(parts.path).lower().split("/") if s]
    if segments and _HOME_PAGE.fullmatch(segments[-1]):
        segments.pop()  # one only: `/index.php/journal/index` is the journal at `/index.php/journal`
    return host, tuple(segments)


def site_matches(listed: tuple[str, tuple[str, ...]], cited: tuple[str, tuple[str, ...]]) -> bool:
    """Whether a cited site is (under) a listed one: the rule of the module docstring."""
    host, path = listed
    cited_host, cited_path = cited
    if not path:
        return cited_host == host or cited_host.endswith("." + host)
    return cited_host == host and cited_path[: len(path)] == path


def name_key(name: str | None) -> str:
    """The comparison form of a venue's full name ("" when it may not be matched by name)."""
    key = normalize_journal_title(name)
    return key if len(key.split()) >= MIN_NAME_WORDS else ""


# --- the tables -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VenueList:
    """One published list: who publishes it, as of when, under which licence."""

    id: str
    title: str
    source: str  # who says so: the signal's `source`
    date: str  # the list's date (the last change it holds)
    licence: str
    attribution: str
    url: str = ""


@dataclass(frozen=True, slots=True)
class ListedVenue:
    """One entry of a list. `kind`: `withdrawn` (DOAJ), `journal` or `hijacked` (Stop Predatory
    Journals). `date` and `reason` are the entry's own where the list gives them (DOAJ)."""

    list: VenueList
    kind: str
    name: str
    issn: tuple[str, ...] = ()
    sites: tuple[str, ...] = ()  # the listed URLs, as published
    date: str | None = None
    reason: str | None = None
    match_name: bool = True
    authentic_name: str | None = None
    authentic_url: str | None = None


@dataclass(frozen=True, slots=True)
class Clue:
    """One thing a reference says about its venue: an ISSN, a URL or a name, and where it was read
    (`cited`, or the source of the matched work's record)."""

    kind: str  # issn | site | name
    value: str
    where: str


@dataclass
class QuestionableVenues:
    """Every shipped list, indexed by ISSN, by site host and by name key."""

    lists: tuple[VenueList, ...] = ()
    entries: tuple[ListedVenue, ...] = ()
    by_issn: dict[str, list[ListedVenue]] = field(default_factory=dict)
    by_host: dict[str, list[tuple[tuple[str, tuple[str, ...]], ListedVenue]]] = field(default_factory=dict)
    by_name: dict[str, list[ListedVenue]] = field(default_factory=dict)

    @classmethod
    def of(cls, lists: Iterable[VenueList], entries: Iterable[ListedVenue]) -> QuestionableVenues:
        table = cls(lists=tuple(lists), entries=tuple(entries))
        for entry in table.entries:
            for issn in entry.issn:
                table.by_issn.setdefault(issn, []).append(entry)
            for url in entry.sites:
                site = site_key(url)
                if site is not None:
                    table.by_host.setdefault(site[0], []).append((site, entry))
            key = name_key(entry.name) if entry.match_name else ""
            if key:
                table.by_name.setdefault(key, []).append(entry)
        return table

    def __len__(self) -> int:
        return len(self.entries)

    def _by_site(self, url: str) -> list[ListedVenue]:
        cited = site_key(url)
        if cited is None:
            return []
        host = cited[0]
        labels = host.split(".")
        # The cited host and each parent domain of it: a listed root site covers its subdomains.
        candidates = [".".join(labels[i:]) for i in range(len(labels) - 1)]
        return [
            entry
            for candidate in candidates
            for site, entry in self.by_host.get(candidate, ())
            if site_matches(site, cited)
        ]

    def lookup(self, clues: Sequence[Clue]) -> list[tuple[ListedVenue, Clue]]:
        """Each listed venue the clues name, with the first clue that named it: ISSNs first, then
        sites, then names (a DOAJ name only when no known ISSN contradicts it)."""
        found: dict[int, tuple[ListedVenue, Clue]] = {}
        issns = {c.value for c in clues if c.kind == "issn"}
        for kind in ("issn", "site", "name"):
            for clue in clues:
                if clue.kind != kind:
                    continue
                if kind == "issn":
                    hits = self.by_issn.get(clue.value, [])
                elif kind == "site":
                    hits = self._by_site(clue.value)
                else:
                    hits = [
                        e
                        for e in self.by_name.get(name_key(clue.value), [])
                        if not (issns and e.issn and not issns & set(e.issn))
                    ]
                for entry in hits:
                    found.setdefault(id(entry), (entry, clue))
        return list(found.values())


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,) if value else ()
    if isinstance(value, list):
        return tuple(str(v) for v in value if v)
    return ()


def parse_list(data: Mapping[str, Any]) -> tuple[VenueList, list[ListedVenue]]:
    """One list file: `{"list": {id, title, source, date, licence, attribution, url}, "columns":
    [...], "rows": [[...], ...]}`; each row holds the named columns (`kind`, `name`, `issn`,
    `sites`, `date`, `reason`, `match_name`, `authentic_name`, `authentic_url`)."""
    meta = data["list"]
    listed = VenueList(
        id=str(meta["id"]),
        title=str(meta["title"]),
        source=str(meta["source"]),
        date=str(meta["date"]),
        licence=str(meta["licence"]),
        attribution=str(meta["attribution"]),
        url=str(meta.get("url") or ""),
    )
    columns = list(data["columns"])
    entries = []
    for row in data["rows"]:
        cells = dict(zip(columns, row, strict=True))
        entries.append(
            ListedVenue(
                list=listed,
                kind=str(cells.get("kind") or meta.get("kind") or "listed"),
                name=str(cells.get("name") or ""),
                issn=tuple(i for i in map(clean_issn, _strings(cells.get("issn"))) if i),
                sites=_strings(cells.get("sites")),
                date=cells.get("date") or None,
                reason=cells.get("reason") or None,
                match_name=bool(cells.get("match_name", True)),
                authentic_name=cells.get("authentic_name") or None,
                authentic_url=cells.get("authentic_url") or None,
            )
        )
    return listed, entries


@cache
def questionable_venues() -> QuestionableVenues:
    """The shipped lists, read once on first use (never at import)."""
    from importlib import resources

    lists: list[VenueList] = []
    entries: list[ListedVenue] = []
    folder = resources.files("aletheia.core") / "data" / DATA_DIR
    for name in LIST_FILES:
        listed, rows = parse_list(json.loads(gzip.decompress((folder / name).read_bytes())))
        lists.append(listed)
        entries.extend(rows)
    return QuestionableVenues.of(lists, entries)


# --- the signal -----------------------------------------------------------------------------------


def reference_clues(cited: CitedReference | None, records: Sequence[WorkRecord] = ()) -> list[Clue]:
    """What the reference says of its venue (its `issn` field, URL and venue name), then what the
    records of its matched work say (ISSNs, landing URLs, venue names)."""
    clues: list[Clue] = []
    if cited is not None:
        for raw in _ISSN_LIKE.findall(cited.fields.get("issn", "")):
            issn = clean_issn(raw)
            if issn:
                clues.append(Clue("issn", issn, "cited"))
        if cited.url:  # the parsers' reading: `\url{}` unwrapped, or a URL found in `howpublished`
            clues.append(Clue("site", cited.url, "cited"))
        if cited.venue:
            clues.append(Clue("name", cited.venue, "cited"))
    for record in records:
        where = record.source.value
        clues.extend(Clue("issn", i, where) for i in map(clean_issn, record.issn) if i)
        clues.extend(Clue("site", url, where) for kind, url in record.urls.items() if kind == "landing")
        clues.extend(Clue("name", name, where) for name in (record.venue, record.published_venue) if name)
    return clues


def _evidence(entry: ListedVenue, clue: Clue, year: int | None) -> dict[str, Any]:
    listed = entry.list
    evidence: dict[str, Any] = {
        "list": listed.id,
        "list_title": listed.title,
        "list_date": listed.date,
        "entry_kind": entry.kind,
        "listed_name": entry.name,
        "matched_on": clue.kind,
        "value": clue.value,
        "where": clue.where,
        "licence": listed.licence,
        "attribution": listed.attribution,
    }
    optional = {
        "listed_issn": list(entry.issn),
        "listed_sites": list(entry.sites),
        "listed_on": entry.date,
        "reason": entry.reason,
        "authentic_name": entry.authentic_name,
        "authentic_url": entry.authentic_url,
    }
    evidence.update({k: v for k, v in optional.items() if v})
    listed_year = (entry.date or "")[:4]
    if year is not None and listed_year.isdigit():
        # A removal says little about work published long before it: the reader weighs that.
        # (Only where the entry is dated: the 2018 list's date is not when a journal joined it.)
        evidence["work_year"] = year
        evidence["before_listing"] = year < int(listed_year)
    return evidence


def questionable_venue_signals(
    cited: CitedReference | None,
    records: Sequence[WorkRecord] = (),
    table: QuestionableVenues | None = None,
) -> list[Signal]:
    """One `questionable_venue` signal per listed venue the reference or its matched work's
    records name (ISSN, site or exact name). Never read by `decide()`."""
    listed = table if table is not None else questionable_venues()
    clues = reference_clues(cited, records)
    if not clues or not len(listed):
        return []
    year = next((r.year for r in records if r.year), None) or (cited.year if cited is not None else None)
    return [
        Signal(
            kind=SignalKind.QUESTIONABLE_VENUE,
            evidence=_evidence(entry, clue, year),
            source=entry.list.source,
        )
        for entry, clue in listed.lookup(clues)
    ]
