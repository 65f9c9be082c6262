"""The source noise real records show, measured, and applied to a derived universe.

`measure(load_api_cache(dir))` counts, over the real Crossref / OpenAlex / Semantic Scholar / DBLP
responses recorded in `../shared/data/benchmarks/iclr2026-real-bibliographies/api_cache`, how often
the sources differ from what a citation says:

- `repository_primary`: OpenAlex works whose primary location is a repository / preprint server
  while another location is a journal or conference (of the works with such a location);
- `series`: Crossref items with more than one container-title (a series beside the proceedings);
- `venue_aliases` / `dblp_key`: Semantic Scholar papers with `publicationVenue.alternate_names` /
  with `externalIds.DBLP`;
- `author_count_differs`: works known to two sources (same DOI, or same normalised title) whose
  author lists differ in length;
- `consortium_as_person` / `suffix_as_surname`: author entries that are an organisation written as a
  person ("Initiative" as a family name) / a suffix ("Jr", "III") written as the family name;
- `single_source`: works (DOI or title) found at one source only, among the works that match a
  cited reference, the only ones every source was asked about.

Every rate carries its counts (`Rate`). `NoiseModel` holds the rates the universe derivation uses:
the measured ones where the sample is meaningful, documented fall-backs where it is not.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from aletheia.core.authors import is_organisation_name
from aletheia.core.records import CitedReference
from aletheia.core.text import normalize_title
from aletheia.core.titles import TITLE_THRESHOLD
from aletheia.core.venues import canonical_venue
from aletheia.sources.simulator.work import SimWork

# rapidfuzz ratio (0-100) on normalised titles: the same work, at the product's decisive threshold.
TITLE_MATCH = TITLE_THRESHOLD * 100
_REPOSITORY_TYPES = frozenset({"repository"})
_VENUE_TYPES = frozenset({"journal", "conference", "book series", "ebook platform"})
_ORG_FAMILY = re.compile(
    r"(?i)^(?:initiative|consortium|collaboration|group|team|office|committee|project|network|"
    r"society|association|investigators|study|alliance|contributors)$"
)
_SUFFIX = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})


def _is_repository(venue: str) -> bool:
    return bool(re.search(r"(?i)arxiv|corr|ssrn|biorxiv|medrxiv|repository|zenodo", venue))


def unit(*parts: object) -> float:
    """A deterministic draw in [0, 1) from the parts (the seed among them)."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()
    return int(digest[:12], 16) / 16**12


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


@dataclass
class Rate:
    count: int
    total: int
    note: str = ""

    @property
    def rate(self) -> float:
        return self.count / self.total if self.total else 0.0

    @property
    def applied(self) -> float:
        """The rate the noise model applies: Laplace's rule of succession, (k + 1) / (n + 2), so a
        kind of noise not seen in a small sample is applied rarely, not never."""
        return (self.count + 1) / (self.total + 2)


@dataclass
class NoiseModel:
    """The rates applied by the universe derivation (`measured` says where each comes from)."""

    # Defaults: the figures measured on the recorded ICLR 2026 responses (`measure`, applied rates),
    # for runs without ../shared; `from_measurement` replaces them with a fresh measurement.
    repository_primary: float = 0.029
    series: float = 0.064
    venue_aliases: float = 0.844
    dblp_key: float = 0.553
    openalex_repository_only: float = 0.44
    author_count_differs: float = 0.032
    consortium_as_person: float = 0.2
    suffix_as_surname: float = 0.2
    single_source: float = 0.1
    measured: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def from_measurement(cls, rates: dict[str, Rate]) -> NoiseModel:
        model = cls()
        for name, rate in rates.items():
            if hasattr(model, name):
                setattr(model, name, round(rate.applied, 3))
        model.measured = {
            n: {**asdict(r), "share": round(r.rate, 3), "applied": round(r.applied, 3)}
            for n, r in rates.items()
        }
        return model


# --- reading the recorded responses --------------------------------------------------------------


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


# --- matching and measuring -----------------------------------------------------------------------


class TitleIndex:
    """Real records by normalised title; `match` finds those at >= TITLE_MATCH."""

    def __init__(self, records: Iterable[RealRecord]) -> None:
        self.records = list(records)
        self._by_first: dict[str, list[RealRecord]] = {}
        for r in self.records:
            self._by_first.setdefault(r.key[:1], []).append(r)

    def match(self, title: str | None) -> list[RealRecord]:
        key = normalize_title(title or "")
        if len(key) < 8:
            return []
        return [r for r in self._by_first.get(key[:1], []) if fuzz.ratio(key, r.key) >= TITLE_MATCH]


def _groups(records: list[RealRecord]) -> list[list[RealRecord]]:
    """Records of one work across sources: same DOI, or same normalised title (>= TITLE_MATCH)."""
    groups: list[list[RealRecord]] = []
    for r in records:
        for g in groups:
            if any((r.doi and r.doi == o.doi) or fuzz.ratio(r.key, o.key) >= TITLE_MATCH for o in g):
                g.append(r)
                break
        else:
            groups.append([r])
    return groups


def measure(records: list[RealRecord], cited_titles: Iterable[str] = ()) -> dict[str, Rate]:
    by_source: dict[str, list[RealRecord]] = {}
    for r in records:
        by_source.setdefault(r.source, []).append(r)
    oa = by_source.get("openalex", [])
    oa_with_venue = [r for r in oa if r.venues]
    cr = [r for r in by_source.get("crossref", []) if r.venues]
    s2 = by_source.get("semantic_scholar", [])
    s2_venue = [r for r in s2 if r.venue and r.venue != "arXiv.org"]
    rates = {
        "repository_primary": Rate(
            sum(1 for r in oa_with_venue if r.repository_primary),
            len(oa_with_venue),
            "OpenAlex works with a journal/conference location whose primary location is a repository",
        ),
        "series": Rate(
            sum(1 for r in cr if len(r.venues) > 1), len(cr), "Crossref items with >1 container-title"
        ),
        "venue_aliases": Rate(
            sum(1 for r in s2_venue if r.aliases),
            len(s2_venue),
            "S2 papers (venue not arXiv) with alternate_names",
        ),
        "dblp_key": Rate(sum(1 for r in s2 if r.dblp_key), len(s2), "S2 papers with externalIds.DBLP"),
    }
    multi = [g for g in _groups(records) if len({r.source for r in g}) > 1]
    with_oa = [
        g
        for g in multi
        if any(r.source == "openalex" for r in g)
        and any(r.source != "openalex" and r.venue and not _is_repository(r.venue) for r in g)
    ]
    rates["openalex_repository_only"] = Rate(
        sum(
            1
            for g in with_oa
            if all(r.venue is None or _is_repository(r.venue) for r in g if r.source == "openalex")
        ),
        len(with_oa),
        "works another source places at a venue, which OpenAlex gives only a repository (or no source) for",
    )
    differs = sum(1 for g in multi if len({len(r.authors) for r in g if r.authors}) > 1)
    rates["author_count_differs"] = Rate(
        differs, len(multi), "works at >=2 sources, author lists of different length"
    )
    # Only Crossref structures names (given / family / suffix / name); the others give strings.
    crossref_people = [a for r in by_source.get("crossref", []) for a in r.authors]
    orgs = [a for a in crossref_people if is_organisation_name(" ".join(a.values()))]
    rates["consortium_as_person"] = Rate(
        sum(1 for a in orgs if "family" in a),
        len(orgs),
        "Crossref organisation authors written as given/family (not as a name)",
    )
    suffixed = [a for a in crossref_people if a.get("suffix") or a.get("family", "").lower() in _SUFFIX]
    rates["suffix_as_surname"] = Rate(
        sum(1 for a in suffixed if a.get("family", "").lower() in _SUFFIX),
        len(suffixed),
        "Crossref authors with Jr/II/III: the suffix written as the family name",
    )
    groups = _groups(records)
    found_at: dict[int, set[str]] = {}
    asked_at: dict[int, set[str]] = {}
    for title in cited_titles:
        key = normalize_title(title)
        if len(key) < 8:
            continue
        for i, g in enumerate(groups):
            if any(fuzz.ratio(key, r.key) >= TITLE_MATCH for r in g):
                found_at.setdefault(i, set()).update(r.source for r in g)
                # A source was asked about this title when its recorded answers include neighbours
                # of it (a title search returns words of the title), found or not.
                asked_at[i] = {r.source for r in records if fuzz.token_set_ratio(key, r.key) >= 60}
    asked_twice = [i for i in found_at if len(asked_at[i]) > 1]
    rates["single_source"] = Rate(
        sum(1 for i in asked_twice if len(found_at[i]) == 1),
        len(asked_twice),
        "cited works (title match) asked of >=2 sources and found at one only",
    )
    rates["single_source_all_records"] = Rate(
        sum(1 for g in groups if len({r.source for r in g}) == 1),
        len(groups),
        "all recorded works (most were never asked of another source: not used)",
    )
    return rates


def format_rates(rates: dict[str, Rate]) -> str:
    lines = ["| noise | count | of | share | applied (k+1)/(n+2) | what |", "|---|---|---|---|---|---|"]
    for name, r in rates.items():
        lines.append(f"| `{name}` | {r.count} | {r.total} | {r.rate:.1%} | {r.applied:.1%} | {r.note} |")
    return "\n".join(lines)


# --- applying the noise to a derived record ------------------------------------------------------

# The repositories the recorded OpenAlex works have as primary location beside a journal/conference.
REPOSITORIES = (
    "Lancaster EPrints (Lancaster University)",
    "Max Planck Digital Library",
    "CERN Document Server (European Organization for Nuclear Research)",
    "arXiv (Cornell University)",
)

# SimWork fields being added to the simulator (venue aliases, series, repository primary location,
# DBLP key, S2 published venue). Until they exist the derivation records them under
# `meta["pending"]` instead, so the universe stays valid and the run says what it could not model.
NEW_FIELDS = ("venue_aliases", "series", "repository_primary", "dblp_key", "issn", "s2_publication_venue")


def has_field(name: str) -> bool:
    return name in SimWork.model_fields


def set_new_field(record: dict[str, Any], name: str, value: Any) -> None:
    if has_field(name):
        record[name] = value
    else:
        record.setdefault("meta", {}).setdefault("pending", {})[name] = value


def _override(record: dict[str, Any], source: str, **changes: Any) -> None:
    record.setdefault("overrides", {}).setdefault(source, {}).update(changes)


def _general_sources(record: dict[str, Any]) -> list[str]:
    if record.get("sources") is not None:
        return [s for s in record["sources"] if s != "arxiv"]
    doi = record.get("doi") or ""
    has_doi = bool(doi) and not doi.lower().startswith("10.48550/")
    return (["crossref", "openalex"] if has_doi else []) + ["semantic_scholar"]


def _acronym(cited: str) -> str:
    return re.sub(r"(?i)^(?:proc\.?|proceedings of(?: the)?)\s+", "", cited).strip()


def _dblp_key(record: dict[str, Any]) -> str:
    family = next((a.get("family") or a.get("literal") or "" for a in record.get("authors", [])), "X")
    stem = re.sub(r"[^A-Za-z]", "", family)[:12] or "X"
    yy = f"{(record.get('year') or 2020) % 100:02d}"
    if record.get("type") == "posted-content" and record.get("arxiv_id"):
        return f"journals/corr/abs-{str(record['arxiv_id']).split('v')[0].replace('.', '-')}"
    venue = canonical_venue(record.get("venue")) or "misc"
    kind = "conf" if record.get("type") == "proceedings-article" else "journals"
    return f"{kind}/{venue}/{stem}{yy}"


def apply_noise(
    record: dict[str, Any], ref: CitedReference | None, model: NoiseModel, seed: int
) -> dict[str, Any]:
    """The measured kinds of source noise, each drawn at its rate (deterministic given the seed,
    the record's title and type). Changes `record` in place and returns it; `meta["noise"]` lists
    what was applied."""
    tag = (seed, record.get("title"), record.get("type"), record.get("doi"), record.get("arxiv_id"))
    applied: list[str] = []
    venue = record.get("venue")
    general = _general_sources(record)
    preprint = record.get("type") == "posted-content"

    def draw(name: str, rate: float) -> bool:
        return unit(*tag, name) < rate

    cited_venue = ref.venue if ref is not None else None
    if (
        venue
        and cited_venue
        and cited_venue.casefold() != venue.casefold()
        and draw("alias", model.venue_aliases)
    ):
        aliases = [_acronym(cited_venue)]
        key = canonical_venue(cited_venue)
        if key and key.upper() not in aliases:
            aliases.append(key.upper())
        set_new_field(record, "venue_aliases", aliases)
        # Measured at Semantic Scholar (alternate names): the others do not publish them here.
        for other in ("crossref", "openalex"):
            if other in general:
                _override(record, other, venue_aliases=[])
        applied.append("venue_aliases")
    if venue and not preprint and "crossref" in general and draw("series", model.series):
        series = "Lecture Notes in Computer Science" if record.get("type") != "journal-article" else venue
        if record.get("type") == "journal-article":
            series = f"{venue} (Online)"
        set_new_field(record, "series", series)
        applied.append("series")
    if venue and not preprint and "openalex" in general:
        if draw("repository_primary", model.repository_primary):
            names = REPOSITORIES
            set_new_field(record, "repository_primary", names[int(unit(*tag, "repo") * len(names))])
            applied.append("repository_primary")
        elif draw("openalex_repository_only", model.openalex_repository_only):
            if record.get("doi") or unit(*tag, "oa-kind") < 0.5:
                _override(record, "openalex", venue=None)
            else:
                _override(record, "openalex", venue="arXiv (Cornell University)", type="posted-content")
            applied.append("openalex_repository_only")
    if "semantic_scholar" in general and draw("dblp", model.dblp_key):
        set_new_field(record, "dblp_key", _dblp_key(record))
        applied.append("dblp_key")
    authors = list(record.get("authors") or [])
    if len(authors) >= 3 and "semantic_scholar" in general and draw("coauthor", model.author_count_differs):
        drop = 1 + int(unit(*tag, "which") * (len(authors) - 2))
        _override(record, "semantic_scholar", authors=authors[:drop] + authors[drop + 1 :])
        applied.append("missing_coauthor")
    groups = [i for i, a in enumerate(authors) if "literal" in a and len(a["literal"].split()) > 1]
    if groups and "crossref" in general and draw("consortium", model.consortium_as_person):
        changed = [dict(a) for a in authors]
        for i in groups:
            words = changed[i]["literal"].split()
            changed[i] = {"given": " ".join(words[:-1]), "family": words[-1]}
        _override(record, "crossref", authors=changed)
        applied.append("consortium_as_person")
    suffixed = [i for i, a in enumerate(ref.authors if ref is not None else ()) if a.suffix]
    if suffixed and general and draw("suffix", model.suffix_as_surname):
        changed = [dict(a) for a in authors]
        for i in suffixed:
            if i < len(changed) and changed[i].get("family") and ref is not None:
                suffix = ref.authors[i].suffix or ""
                given = " ".join(x for x in (changed[i].get("given"), changed[i]["family"]) if x)
                changed[i] = {"given": given, "family": suffix}
        _override(record, general[0], authors=changed)
        applied.append("suffix_as_surname")
    if len(general) > 1 and draw("single", model.single_source):
        # A DOI registered at Crossref always resolves there: such a work keeps Crossref (as every
        # recorded single-source work with a DOI did); a DOI-less one keeps OpenAlex or S2.
        keep = (
            "crossref" if "crossref" in general else general[int(unit(*tag, "which-source") * len(general))]
        )
        record["sources"] = [keep] + (["arxiv"] if record.get("arxiv_id") else [])
        record["overrides"] = {k: v for k, v in record.get("overrides", {}).items() if k in record["sources"]}
        applied.append(f"single_source:{keep}")
    if applied:
        record.setdefault("meta", {})["noise"] = applied
    return record


def main() -> int:
    """`python -m aletheia.bench.noise`: the measured table, over the recorded responses."""
    from aletheia.bench.iclr_reader import ICLR_DIR, read_all

    if not (ICLR_DIR / "api_cache").is_dir():
        print(f"the recorded responses are not at {ICLR_DIR / 'api_cache'} (../shared/data/benchmarks)")
        return 2
    records = load_api_cache(ICLR_DIR / "api_cache")
    rates = measure(records, [r.title or "" for r in read_all(ICLR_DIR)])
    counts = ", ".join(f"{s} {sum(1 for r in records if r.source == s)}" for s in _READERS)
    print(f"recorded records (distinct): {counts}")
    print(format_rates(rates))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
