"""The mirror tier (issue 32): the sources' dumps, loaded at home, asked before their APIs.

What the mirror answers, without a request:
- an identifier the mirror holds: OpenAlex by DOI, DBLP by key;
- a title search of a mirrored source (OpenAlex, Crossref, DBLP) that finds the work in it (a
  title matching under the verdict rules' threshold);
- a title search of a source whose mirror is complete (a whole dump was loaded, `aletheia mirror
  load --complete`) and either fresh (`ALETHEIA_MIRROR_MAX_AGE_DAYS`) or older but dated long
  enough after the cited year for the work to have been recorded by then, even had it been cited
  a year early (the year after the cited one ended `ALETHEIA_MIRROR_INDEXING_LAG_DAYS` before the
  snapshot's day): what the mirror holds near the title is then the source's whole answer,
  "nothing" included. A work of a later year, or cited without one, is asked of the API: the
  sources recorded it after the snapshot, if at all;
- Semantic Scholar's title search, by the same rule, but only when its papers dataset holds
  nothing near the title: its lines lack what the verdict reads from its API's papers, so the
  mirror only ever says "not found" for it.
What stays live: whatever the mirror lacks (an identifier or a title it does not hold, in a mirror
that is not complete), and what changes after a snapshot: a work's standing. Crossref's record by
DOI carries its retractions and corrections (`updated-by`), so Crossref DOI lookups always go to
the API (many DOIs a request), as the Retraction Watch data is read as loaded.

Each answer from the mirror carries its snapshot's day (`SourceAnswer.mirror_snapshot`), and the
verdict names the sources read from the mirror with those days (`Verdict.mirror`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from aletheia.core.field_comparison import VERSION_TITLE_THRESHOLD
from aletheia.core.lexical_ranking import STOPWORDS
from aletheia.core.records import SourceName
from aletheia.core.text import index_word, normalize_title
from aletheia.core.titles import titles_match

if TYPE_CHECKING:
    from aletheia.sources.base import SourceRecord
    from aletheia.storage.mirror import MirrorHit, MirrorSnapshot, MirrorStore

Lookup = Callable[[], Awaitable[Any]]
# The sources whose title searches the mirror can answer (their dumps are the ones loaded).
TITLE_SOURCES: Final = frozenset({SourceName.OPENALEX, SourceName.CROSSREF, SourceName.DBLP})
# Semantic Scholar's papers dataset answers only absence: its lines lack the abstracts and the
# venues' details its Graph API answers carry, so a paper it holds near a title is asked live.
ABSENCE_SOURCES: Final = frozenset({SourceName.SEMANTIC_SCHOLAR})
# A paper sharing this share of the cited title's words and of its own is near enough that S2's
# closest-title `match` might answer it: the API is asked. `match` answers a paper sharing 60 % of
# the words both ways (the simulator's model of it); this is looser, so the mirror does not say
# "not found" where `match` would have found something.
S2_NEAR_SHARE: Final = 0.5
SEARCH_RESULTS: Final = 5
# How each source's title search matches words (what its API answers, so that the mirror answers
# the same): OpenAlex's `title.search` and DBLP's search want every word of the query in the title
# (DBLP: as a word's prefix); Crossref's `query.bibliographic` ranks without requiring any.
_EVERY_WORD: Final = {SourceName.OPENALEX: False, SourceName.DBLP: True}


def _query_words(text: str) -> list[str]:
    # Stop words and single letters are not required: an index drops them.
    words = (w for w in normalize_title(text).split() if w not in STOPWORDS and len(w) > 1)
    return [index_word(w) for w in words]


def answers_search(source: SourceName, query: str, title: str) -> bool:
    """Whether `source`'s title search for `query` can answer a work titled `title`: every word of
    the query (normalised, plural -s removed, stop words not required) is a word of the title
    (DBLP: the start of one); Crossref's ranking needs no word in particular."""
    prefix = _EVERY_WORD.get(source)
    if prefix is None:
        return True
    words = [index_word(w) for w in normalize_title(title).split()]
    have = set(words)
    for word in _query_words(query):
        if word in have:
            continue
        if not prefix or not any(w.startswith(word) for w in words):
            return False
    return True


def near_for_s2_match(query: str, title: str) -> bool:
    """Whether `title` shares enough of its words with `query`, and `query` of its, that S2's
    closest-title match might answer it."""
    asked = set(_query_words(query))
    held = set(_query_words(title))
    if not asked or not held:
        return False
    shared = len(asked & held)
    return shared / len(asked) >= S2_NEAR_SHARE and shared / len(held) >= S2_NEAR_SHARE


@dataclass(frozen=True)
class MirrorAnswer:
    """A lookup answered from the mirror: the records (none: absent from a complete mirror) and
    the day of the snapshot they are a copy of."""

    records: list[SourceRecord]
    snapshot_date: date


@dataclass
class _Grouped:
    """The mirror's queries of one moment, run together in one trip to the database threads.

    Why: the live calls that follow a mirror miss are batched by the clients (many titles or DOIs
    a request, `*_titles`, the coalescers) when they are asked at once. A query each, handed to
    the database thread one after another, released the references' live calls one by one, and
    each went out alone (HALLMARK, 40 references: 59 requests against 42 without the mirror)."""

    store: MirrorStore
    pending: list[tuple[Callable[[], Any], asyncio.Future[Any]]] = field(default_factory=list)
    draining: bool = False

    async def ask(self, query: Callable[[], Any]) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending.append((query, future))
        if not self.draining:
            self.draining = True
            asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            await asyncio.sleep(0)  # the other references of this moment join the group
            while self.pending:
                group, self.pending = self.pending, []
                try:
                    results = await self.store.run(lambda group=group: [query() for query, _ in group])
                except Exception as exc:  # every caller sees the failure, none waits forever
                    for _, future in group:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for (_, future), result in zip(group, results, strict=True):
                    if not future.done():
                        future.set_result(result)
        finally:
            self.draining = False


class MirrorTier:
    def __init__(
        self,
        store: MirrorStore,
        snapshots: dict[str, MirrorSnapshot],
        *,
        max_age_days: int,
        indexing_lag_days: int,
    ) -> None:
        self.store = store
        self.snapshots = snapshots
        self.max_age = timedelta(days=max_age_days)
        self.indexing_lag = timedelta(days=indexing_lag_days)
        # The group of the running event loop: a gateway serves one loop, but a tier may outlive
        # it (a benchmark runs several `asyncio.run`s over one tier); a new loop, a new group.
        self._group: tuple[asyncio.AbstractEventLoop, _Grouped] | None = None

    async def _query(self, query: Callable[[], Any]) -> Any:
        loop = asyncio.get_running_loop()
        if self._group is None or self._group[0] is not loop:
            self._group = (loop, _Grouped(self.store))
        return await self._group[1].ask(query)

    @classmethod
    def open(cls, store: MirrorStore, *, max_age_days: int, indexing_lag_days: int) -> MirrorTier | None:
        """The tier over `store`, or None when nothing was ever loaded into it."""
        snapshots = store.snapshots()
        if not snapshots:
            return None
        return cls(store, snapshots, max_age_days=max_age_days, indexing_lag_days=indexing_lag_days)

    def holds(self, source: SourceName) -> bool:
        return source.value in self.snapshots

    def proves_absence(
        self, source: SourceName, *, cited_year: int | None = None, today: date | None = None
    ) -> bool:
        """A complete mirror of `source` that would hold the cited work if the source did: fresh
        (at most `max_age` old, whatever the year), or dated at least `indexing_lag` after the end
        of the year after the cited one. A work of that year was recorded by the snapshot's day,
        and so was one cited a year early, as a work often is (its preprint's year, its online
        date): a real work of the next year, cited under the wrong year, is then never absent."""
        snapshot = self.snapshots.get(source.value)
        if snapshot is None or not snapshot.complete:
            return False
        today = today or datetime.now(UTC).date()
        if today - snapshot.as_of <= self.max_age:
            return True
        return cited_year is not None and date(cited_year + 1, 12, 31) + self.indexing_lag <= snapshot.as_of

    def _answer(self, source: SourceName, hits: list[MirrorHit]) -> MirrorAnswer:
        day = min((h.snapshot_date for h in hits), default=self.snapshots[source.value].as_of)
        return MirrorAnswer([h.record for h in hits], day)

    def by_doi(self, source: SourceName, doi: str, live: Lookup) -> Lookup:
        """`source`'s record of `doi` from the mirror, else the live lookup."""
        if not self.holds(source) or source is SourceName.CROSSREF:
            return live

        async def lookup() -> Any:
            hits = await self._query(lambda: self.store.by_doi(doi, source.value))
            return self._answer(source, hits) if hits else await live()

        return lookup

    def by_record_id(self, source: SourceName, record_id: str, live: Lookup) -> Lookup:
        """`source`'s record under its own id (DBLP's key) from the mirror, else the live lookup."""
        if not self.holds(source):
            return live

        async def lookup() -> Any:
            hits = await self._query(lambda: self.store.by_record_id(source.value, record_id))
            return self._answer(source, hits) if hits else await live()

        return lookup

    def title_search(
        self, source: SourceName, title: str, live: Lookup, *, cited_year: int | None = None
    ) -> Lookup:
        """`source`'s title search from the mirror when the mirror finds the work, or holds the
        whole source as it stood when a work of `cited_year` was recorded (then what it finds near
        the title, nothing included, is the answer: `proves_absence`); else the live search."""
        if source in ABSENCE_SOURCES and self.holds(source):
            return self._absence_only(source, title, live, cited_year)
        if source not in TITLE_SOURCES or not self.holds(source):
            return live

        async def lookup() -> Any:
            hits = await self._query(
                lambda: self.store.search_title(title, source.value, limit=SEARCH_RESULTS)
            )
            # Crossref ranks and always answers its best few; the others answer what has every word.
            floor = 0.0 if source is SourceName.CROSSREF else VERSION_TITLE_THRESHOLD
            near = [
                h
                for h in hits
                if h.similarity >= floor and answers_search(source, title, h.record.record.title or "")
            ]
            if any(titles_match(title, h.record.record.title or "") for h in near):
                return self._answer(source, near)
            if self.proves_absence(source, cited_year=cited_year):
                return self._answer(source, near)
            return await live()

        return lookup

    def _absence_only(self, source: SourceName, title: str, live: Lookup, cited_year: int | None) -> Lookup:
        """`source`'s title search answered "not found" at home when its mirror proves absence and
        holds nothing near the title; anything near, and every other case, asked live."""
        if not self.proves_absence(source, cited_year=cited_year):
            return live

        async def lookup() -> Any:
            hits = await self._query(
                lambda: self.store.search_title(title, source.value, limit=SEARCH_RESULTS)
            )
            if any(near_for_s2_match(title, h.record.record.title or "") for h in hits):
                return await live()
            return self._answer(source, [])

        return lookup
