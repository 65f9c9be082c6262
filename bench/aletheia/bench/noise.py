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
the measured ones where the sample is meaningful, documented fall-backs where it is not. The
records are read by `recorded_records.py`; the rates are applied to a derived record by
`noise_apply.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from rapidfuzz import fuzz

from aletheia.bench.recorded_records import RECORDED_SOURCES, RealRecord, load_api_cache
from aletheia.core.authors import is_organisation_name
from aletheia.core.text import normalize_title
from aletheia.core.titles import TITLE_THRESHOLD

# rapidfuzz ratio (0-100) on normalised titles: the same work, at the product's decisive threshold.
TITLE_MATCH = TITLE_THRESHOLD * 100
_ORG_FAMILY = re.compile(
    r"(?i)^(?:initiative|consortium|collaboration|group|team|office|committee|project|network|"
    r"society|association|investigators|study|alliance|contributors)$"
)
_SUFFIX = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})


def _is_repository(venue: str) -> bool:
    return bool(re.search(r"(?i)arxiv|corr|ssrn|biorxiv|medrxiv|repository|zenodo", venue))


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
    rates = _venue_rates(by_source)
    rates.update(_cross_source_rates(records))
    rates.update(_author_rates(by_source.get("crossref", [])))
    rates.update(_single_source_rates(records, cited_titles))
    return rates


def _venue_rates(by_source: dict[str, list[RealRecord]]) -> dict[str, Rate]:
    """How each source gives venues: repository primary locations, series, aliases, DBLP keys."""
    oa_with_venue = [r for r in by_source.get("openalex", []) if r.venues]
    cr = [r for r in by_source.get("crossref", []) if r.venues]
    s2 = by_source.get("semantic_scholar", [])
    s2_venue = [r for r in s2 if r.venue and r.venue != "arXiv.org"]
    return {
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


def _cross_source_rates(records: list[RealRecord]) -> dict[str, Rate]:
    """What sources that know one work disagree on: OpenAlex's venue, the author count."""
    multi = [g for g in _groups(records) if len({r.source for r in g}) > 1]
    with_oa = [
        g
        for g in multi
        if any(r.source == "openalex" for r in g)
        and any(r.source != "openalex" and r.venue and not _is_repository(r.venue) for r in g)
    ]
    differs = sum(1 for g in multi if len({len(r.authors) for r in g if r.authors}) > 1)
    return {
        "openalex_repository_only": Rate(
            sum(
                1
                for g in with_oa
                if all(r.venue is None or _is_repository(r.venue) for r in g if r.source == "openalex")
            ),
            len(with_oa),
            "works another source places at a venue, which OpenAlex gives only a repository"
            " (or no source) for",
        ),
        "author_count_differs": Rate(
            differs, len(multi), "works at >=2 sources, author lists of different length"
        ),
    }


def _author_rates(crossref: list[RealRecord]) -> dict[str, Rate]:
    """Crossref's organisation and suffixed authors written wrongly. Only Crossref structures names
    (given / family / suffix / name); the others give strings."""
    crossref_people = [a for r in crossref for a in r.authors]
    orgs = [a for a in crossref_people if is_organisation_name(" ".join(a.values()))]
    suffixed = [a for a in crossref_people if a.get("suffix") or a.get("family", "").lower() in _SUFFIX]
    return {
        "consortium_as_person": Rate(
            sum(1 for a in orgs if "family" in a),
            len(orgs),
            "Crossref organisation authors written as given/family (not as a name)",
        ),
        "suffix_as_surname": Rate(
            sum(1 for a in suffixed if a.get("family", "").lower() in _SUFFIX),
            len(suffixed),
            "Crossref authors with Jr/II/III: the suffix written as the family name",
        ),
    }


def _single_source_rates(records: list[RealRecord], cited_titles: Iterable[str]) -> dict[str, Rate]:
    """Cited works found at one source of the several asked (and, for reference, of all records)."""
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
    return {
        "single_source": Rate(
            sum(1 for i in asked_twice if len(found_at[i]) == 1),
            len(asked_twice),
            "cited works (title match) asked of >=2 sources and found at one only",
        ),
        "single_source_all_records": Rate(
            sum(1 for g in groups if len({r.source for r in g}) == 1),
            len(groups),
            "all recorded works (most were never asked of another source: not used)",
        ),
    }


def format_rates(rates: dict[str, Rate]) -> str:
    lines = ["| noise | count | of | share | applied (k+1)/(n+2) | what |", "|---|---|---|---|---|---|"]
    for name, r in rates.items():
        lines.append(f"| `{name}` | {r.count} | {r.total} | {r.rate:.1%} | {r.applied:.1%} | {r.note} |")
    return "\n".join(lines)


def main() -> int:
    """`python -m aletheia.bench.noise`: the measured table, over the recorded responses."""
    from aletheia.bench.iclr_reader import ICLR_DIR, read_all

    if not (ICLR_DIR / "api_cache").is_dir():
        print(f"the recorded responses are not at {ICLR_DIR / 'api_cache'} (../shared/data/benchmarks)")
        return 2
    records = load_api_cache(ICLR_DIR / "api_cache")
    rates = measure(records, [r.title or "" for r in read_all(ICLR_DIR)])
    counts = ", ".join(f"{s} {sum(1 for r in records if r.source == s)}" for s in RECORDED_SOURCES)
    print(f"recorded records (distinct): {counts}")
    print(format_rates(rates))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
