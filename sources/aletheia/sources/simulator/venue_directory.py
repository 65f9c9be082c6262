"""The venues the simulator's registries hold (issue 21): OpenAlex sources, DBLP venues, Crossref
journals.

What a real registry holds at least: every venue a record of the universe names, and every venue
of the shipped alias table (`core/data/venue_aliases.json`: its display name, full-name phrases,
exact forms and acronyms). Names that one work gives together (its `venue` and
`venue_aliases`, in any source's view), names the alias table files under one key, and names
sharing an ISSN are one venue; a book series, a repository copy's host and a venue only Semantic
Scholar names are venues of their own (joined to others only by a shared name).

Search is the registries' own kind of matching, over every name of a venue at once (tokens
accent- and case-folded, stop words dropped, plurals stemmed: `simulator/search.py`):

- OpenAlex (`search=`): every query word must occur (AND), ranked by BM25;
- DBLP: every query word must start some word of the venue (DBLP matches word prefixes);
- Crossref (`query=`): ranked bag of words, a venue sharing any word is a candidate.

So a search returns venues *like* the name, never only the exact one; which of them is the cited
venue is the core's decision (`core.venue_registry.holds`), as against the real services.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

from aletheia.core.identifiers import issn_check_character
from aletheia.core.venue_data import VenueAlias, venue_tables
from aletheia.core.venues import canonical_venue
from aletheia.sources.simulator.ids import stable_hex, stable_int
from aletheia.sources.simulator.search import FieldIndex, fold, tokenize
from aletheia.sources.simulator.universe import Universe
from aletheia.sources.simulator.work import SimWork

VenueKind = Literal["journal", "conference", "repository", "book series"]

_KEY_CHARS: Final = re.compile(r"[^0-9a-z]+")
# A regular expression of the alias table that is also plain text (a name, not a pattern).
_PLAIN: Final = re.compile(r"^[0-9a-z ]+$")
_CONFERENCE: Final = re.compile(
    r"\b(?:conference|symposium|meeting|workshop|congress|proceedings|interspeech)\b", re.IGNORECASE
)
_REPOSITORY: Final = re.compile(r"\b(?:arxiv|biorxiv|medrxiv|ssrn|chemrxiv|psyarxiv|repository)\b", re.I)
_ACRONYM: Final = re.compile(r"^[A-Za-z][A-Za-z0-9&-]{1,11}$")
_WORK_KINDS: Final[dict[str, VenueKind]] = {
    "journal-article": "journal",
    "proceedings-article": "conference",
    "posted-content": "repository",
}


@dataclass(frozen=True, slots=True)
class SimVenue:
    """One venue as the registries publish it."""

    index: int
    name: str
    alternates: tuple[str, ...]
    acronym: str | None
    iso_abbreviation: str | None  # OpenAlex's `abbreviated_title` (ISO 4 from the ISSN Centre)
    issn: tuple[str, ...]
    kind: VenueKind
    works: int  # works of the universe at the venue
    publisher: str | None

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.alternates)

    @property
    def slug(self) -> str:
        words = _KEY_CHARS.sub(" ", fold(self.acronym or self.name)).split()
        return "".join(words)[:16] or stable_hex("venue", self.name)[:8]

    @property
    def openalex_id(self) -> str:
        return f"S{4_000_000_000 + stable_int('openalex-source', self.name)}"

    @property
    def crossref_issn(self) -> str:
        """The journal's ISSN at Crossref: its own, else a stable one (a Crossref journal has one)."""
        return self.issn[0] if self.issn else synthetic_issn(self.name)


def synthetic_issn(name: str) -> str:
    """A stable, well-formed ISSN (mod-11 check character) for a journal the universe gives none."""
    digits = f"{9_000_000 + stable_int('issn', name, digits=6):07d}"[-7:]
    return f"{digits[:4]}-{digits[4:]}{issn_check_character(digits)}"


def _key(name: str) -> str:
    return " ".join(_KEY_CHARS.sub(" ", fold(name)).split())


class _Groups:
    """Union-find over name keys: names said to be one venue end up in one group."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.shown: dict[str, str] = {}  # key -> the name as first written

    def add(self, name: str) -> str | None:
        key = _key(name)
        if not key:
            return None
        self.parent.setdefault(key, key)
        self.shown.setdefault(key, name.strip())
        return key

    def find(self, key: str) -> str:
        root = key
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[key] != root:
            self.parent[key], key = root, self.parent[key]
        return root

    def join(self, names: Iterable[str]) -> str | None:
        keys = [k for n in names if (k := self.add(n)) is not None]
        if not keys:
            return None
        root = self.find(keys[0])
        for other in keys[1:]:
            self.parent[self.find(other)] = root
        return root


@dataclass
class _Facts:
    names: dict[str, None]
    primary: Counter[str]
    issn: dict[str, None]
    kinds: Counter[VenueKind]
    publisher: Counter[str]
    alias: VenueAlias | None = None
    works: int = 0


def _alias_names(alias: VenueAlias) -> list[str]:
    plain = [p for p in alias.phrases if _PLAIN.fullmatch(p)]
    return [alias.name, *plain, *alias.exact, *(a.upper() for a in alias.acronyms)]


def _alias_kind(alias: VenueAlias) -> VenueKind | None:
    """The kind the alias table's provenance gives ("DBLP conf/nips", "DBLP journals/jmlr",
    "Springer journal", "PMLR series title")."""
    sources = alias.sources.lower()
    stream = re.search(r"\b(conf|journals)/", sources)
    if stream is not None:
        return "conference" if stream.group(1) == "conf" else "journal"
    if "journal" in sources:
        return "journal"
    return "book series" if "series" in sources else None


def _views(work: SimWork) -> list[SimWork]:
    return [work, *(work.view(source) for source in work.overrides)]


class VenueDirectory:
    """Every venue of one universe and the alias table, with the three registries' searches."""

    def __init__(self, venues: list[SimVenue]) -> None:
        self.venues = venues
        self.index = FieldIndex([tokenize(" ".join(v.names)) for v in venues])
        self.by_issn: dict[str, int] = {}
        for venue in venues:
            for issn in venue.issn:
                self.by_issn.setdefault(issn, venue.index)
        self.by_openalex = {v.openalex_id: v.index for v in venues}
        self.by_crossref_issn: dict[str, int] = {}
        for venue in venues:
            for issn in (*venue.issn, venue.crossref_issn):
                self.by_crossref_issn.setdefault(issn, venue.index)

    @classmethod
    def build(cls, universe: Universe) -> VenueDirectory:
        groups = _Groups()
        issn_of: list[tuple[str, tuple[str, ...]]] = []
        kind_of: list[tuple[str, VenueKind, str | None]] = []
        primary: list[str] = []
        for work in universe:
            for view in _views(work):
                if view.venue or view.venue_aliases:
                    root = groups.join([n for n in (view.venue, *view.venue_aliases) if n])
                    if root is not None:
                        kind = _WORK_KINDS.get(view.type, "journal")
                        kind_of.append((root, kind, view.publisher))
                        issn_of.extend((root, (i,)) for i in view.issn)
                        if view.venue:
                            primary.append(view.venue)
                if view.series and (root := groups.join([view.series])) is not None:
                    kind_of.append((root, "book series", view.publisher))
                if view.repository_primary and (root := groups.join([view.repository_primary])):
                    kind_of.append((root, "repository", None))
                if view.s2_publication_venue:
                    groups.join([view.s2_publication_venue])
        tables = venue_tables()
        alias_root: dict[str, str] = {}
        for alias in tables.aliases:
            root = groups.join(_alias_names(alias))
            if root is not None:
                alias_root[alias.key] = root
        # A name of the universe that the alias table knows is that table venue.
        for key in list(groups.parent):
            table_key = canonical_venue(groups.shown[key])
            if table_key in alias_root:
                groups.parent[groups.find(key)] = groups.find(alias_root[table_key])
        # Names sharing an ISSN are one venue.
        first_with: dict[str, str] = {}
        for root, issns in issn_of:
            for issn in issns:
                other = first_with.setdefault(issn, root)
                groups.parent[groups.find(root)] = groups.find(other)
        return cls(cls._venues(groups, issn_of, kind_of, primary, alias_root, tables.aliases))

    @staticmethod
    def _venues(
        groups: _Groups,
        issn_of: list[tuple[str, tuple[str, ...]]],
        kind_of: list[tuple[str, VenueKind, str | None]],
        primary: list[str],
        alias_root: dict[str, str],
        aliases: tuple[VenueAlias, ...],
    ) -> list[SimVenue]:
        facts: dict[str, _Facts] = {}

        def at(key: str) -> _Facts:
            root = groups.find(key)
            return facts.setdefault(root, _Facts({}, Counter(), {}, Counter(), Counter()))

        for key in groups.parent:
            at(key).names.setdefault(groups.shown[key], None)
        for name in primary:
            if (key := _key(name)) in groups.parent:
                at(key).primary[name] += 1
        for root, issns in issn_of:
            at(root).issn.update(dict.fromkeys(issns))
        for root, kind, publisher in kind_of:
            entry = at(root)
            entry.kinds[kind] += 1
            entry.works += 1
            if publisher:
                entry.publisher[publisher] += 1
        by_key = {a.key: a for a in aliases}
        for table_key, root in alias_root.items():
            entry = at(root)
            entry.alias = entry.alias or by_key[table_key]
        venues: list[SimVenue] = []
        for entry in facts.values():
            venues.append(_venue(len(venues), entry))
        return venues

    # --- the registries' searches ----------------------------------------------------------------

    def search_all_words(self, query: str, candidates: Iterable[int] | None = None) -> list[int]:
        """OpenAlex: venues holding every query word, best first."""
        words = tokenize(query)
        if not words:
            return []
        matched = self.index.docs_with_all(words)
        if candidates is not None:
            matched &= set(candidates)
        return [doc for doc, _ in self.index.ranked(words, candidates=matched)]

    def search_prefixes(self, query: str, candidates: Iterable[int] | None = None) -> list[int]:
        """DBLP: venues where every query word starts a word of theirs, best first."""
        words = tokenize(query)
        if not words:
            return []
        matched = set(range(len(self.venues))) if candidates is None else set(candidates)
        vocabulary = list(self.index.postings)
        for word in dict.fromkeys(words):
            holding: set[int] = set()
            for token in vocabulary:
                if token.startswith(word):
                    holding |= self.index.postings[token].keys()
            matched &= holding
        ranked = [doc for doc, _ in self.index.ranked(words, candidates=matched)]
        return ranked + sorted(matched - set(ranked))

    def search_any_word(self, query: str, candidates: Iterable[int] | None = None) -> list[int]:
        """Crossref: venues sharing any query word, best first."""
        words = tokenize(query)
        return [doc for doc, _ in self.index.ranked(words, candidates=candidates)] if words else []

    def score(self, query: str, doc: int) -> float:
        return self.index.scores(tokenize(query), [doc]).get(doc, 0.0)


def _venue(index: int, entry: _Facts) -> SimVenue:
    names = list(entry.names)
    alias = entry.alias
    if alias is not None:
        name = alias.name
    elif entry.primary:
        name = entry.primary.most_common(1)[0][0]
    else:
        name = max(names, key=len)
    others = [n for n in names if _key(n) != _key(name)]
    acronym = next((n for n in others if _ACRONYM.fullmatch(n) and sum(c.isupper() for c in n) >= 2), None)
    iso = next((n for n in others if "." in n and " " in n), None)
    kind: VenueKind
    table_kind = _alias_kind(alias) if alias is not None else None
    if entry.kinds:
        kind = entry.kinds.most_common(1)[0][0]
    elif table_kind is not None:
        kind = table_kind
    elif _REPOSITORY.search(name):
        kind = "repository"
    else:
        kind = "conference" if _CONFERENCE.search(name) else "journal"
    return SimVenue(
        index=index,
        name=name,
        alternates=tuple(others),
        acronym=acronym,
        iso_abbreviation=iso,
        issn=tuple(entry.issn),
        kind=kind,
        works=entry.works,
        publisher=entry.publisher.most_common(1)[0][0] if entry.publisher else None,
    )


def venue_directory(universe: Universe) -> VenueDirectory:
    """The universe's directory, built on first use and kept with it (answers may render in
    threads: `SourceCatalog.derived` holds a lock)."""
    return universe.catalog("openalex").derived("venue_directory", lambda _: VenueDirectory.build(universe))
