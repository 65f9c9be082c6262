"""The step that goes looking for venue, publication, version and author-list evidence (issue 21):
what it asks, when, and that a registry failure is recorded as such (never raised, never "not
found")."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer, VenueRecord
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import Reason
from aletheia.pipeline.evidence.gather import Gathered
from aletheia.pipeline.evidence.settling import look_for_settling_evidence
from aletheia.sources.base import SourceUnavailableError

AX, S2, OA, DB, CR = (
    SourceName.ARXIV,
    SourceName.SEMANTIC_SCHOLAR,
    SourceName.OPENALEX,
    SourceName.DBLP,
    SourceName.CROSSREF,
)
AUTHORS = (Author(given="Ada", family="Lovelace"), Author(given="Alan", family="Turing"))
TITLE = "Conjugate Energy-Based Models for Structured Prediction"


class _Gathered(Gathered):
    """The pipeline's own record of answers (kept in the order asked), started with `answers`."""

    def __init__(self, answers: list[SourceAnswer]) -> None:
        super().__init__(answers=answers)


class _Gateway:
    """Counts what is asked; the registries answer from a dict, one of them may fail."""

    def __init__(self, registry: dict[SourceName, list[VenueRecord]], failing: set[SourceName]) -> None:
        self.registry, self.failing = registry, failing
        self.asked: list[tuple[str, str]] = []
        self.semantic_scholar = self
        self.cs = self
        self.openalex = self

    def mirrored_search(self, source: SourceName, title: str, live: Any) -> Any:
        return live  # no mirror here: the live search, as the gateway without one

    def dblp_search(self, title: str) -> Any:
        return lambda: self._record("search", SourceName.DBLP, title)

    async def search(self, *, title: str, author: str | None, per_page: int) -> list[Any]:
        return await self._record("search", OA, title)

    async def match_title(self, title: str, *, alone: bool = False) -> None:
        self.asked.append(("match", f"semantic_scholar:{title}"))

    def venue_lookups(self, name: str) -> list[tuple[SourceName, Any]]:
        def call(source: SourceName) -> Any:
            async def run() -> list[VenueRecord]:
                self.asked.append(("venue", f"{source.value}:{name}"))
                if source in self.failing:
                    raise SourceUnavailableError(source.value, "HTTP 503")
                return self.registry.get(source, [])

            return run

        return [(s, call(s)) for s in (OA, DB, CR)]

    def doi_lookups(self, doi: str) -> list[tuple[SourceName, Any]]:
        return [(CR, lambda: self._record("doi", CR, doi)), (OA, lambda: self._record("doi", OA, doi))]

    def arxiv_lookups(self, arxiv_id: str, version: int | None) -> list[tuple[SourceName, Any]]:
        q = f"{arxiv_id}v{version}" if version else arxiv_id
        return [(AX, lambda: self._record("arxiv", AX, q)), (S2, lambda: self._record("arxiv", S2, q))]

    async def _record(self, kind: str, source: SourceName, query: str) -> list[Any]:
        self.asked.append((kind, f"{source.value}:{query}"))
        return []


async def _ask_into(g: _Gathered, source: SourceName, kind: QueryKind, query: str, call: Any) -> list[Any]:
    await call()
    g.answers.append(SourceAnswer(source=source, kind=kind, query=query, outcome=Outcome.NOT_FOUND))
    return []


def _cite(venue: str, **kw: Any) -> CitedReference:
    base: dict[str, Any] = {"key": "k", "title": TITLE, "authors": AUTHORS, "year": 2021, "venue": venue}
    base.update(kw)
    return CitedReference(**base)


def _arxiv_only(version: int = 1, title: str = TITLE) -> list[SourceAnswer]:
    ax = WorkRecord(
        source=AX,
        title=title,
        authors=AUTHORS,
        year=2021,
        arxiv_id="2101.00001",
        arxiv_version=version,
        is_preprint=True,
    )
    return [
        SourceAnswer(
            source=AX, kind=QueryKind.ARXIV, query="2101.00001", outcome=Outcome.FOUND, records=(ax,)
        )
    ]


def _step(cited: CitedReference, answers: list[SourceAnswer], gw: _Gateway) -> tuple[bool, _Gathered]:
    g = _Gathered(list(answers))
    verdict = decide(cited, Evidence(answers=tuple(answers)), current_year=2026)
    ask = functools.partial(_ask_into, g)
    asked = asyncio.run(look_for_settling_evidence(cited, verdict, gw, g, ask))  # type: ignore[arg-type]
    return asked, g


def test_an_unconfirmed_venue_asks_the_registries_and_the_publication_recorders() -> None:
    gw = _Gateway({}, failing=set())
    cited = _cite("Symposium on Probabilistic Reasoning", arxiv_id="2101.00001")
    asked, g = _step(cited, _arxiv_only(), gw)
    assert asked
    kinds = sorted(gw.asked)
    assert ("venue", "openalex:Symposium on Probabilistic Reasoning") in kinds
    assert ("venue", "dblp:Symposium on Probabilistic Reasoning") in kinds
    # Looking for "published": Semantic Scholar's merged record, and a title search (DBLP's for a
    # computing venue, OpenAlex's otherwise).
    assert ("arxiv", "semantic_scholar:2101.00001") in kinds
    assert ("search", f"openalex:{TITLE}") in kinds
    gw_cs = _Gateway({}, failing=set())
    _step(_cite("ICML", arxiv_id="2101.00001"), _arxiv_only(), gw_cs)
    assert ("search", f"dblp:{TITLE}") in gw_cs.asked
    venue_answers = [a for a in g.answers if a.kind is QueryKind.VENUE]
    assert {a.outcome for a in venue_answers} == {Outcome.NOT_FOUND}
    # Asked again with the answers in hand: the registries are not asked twice for one name.
    gw2 = _Gateway({}, failing=set())
    _step(cited, g.answers, gw2)
    assert not [a for a in gw2.asked if a[0] == "venue"]


def test_a_failing_registry_is_recorded_as_failed() -> None:
    gw = _Gateway({}, failing={DB})
    _, g = _step(_cite("Symposium on Probabilistic Reasoning", arxiv_id="2101.00001"), _arxiv_only(), gw)
    outcomes = {a.source: a.outcome for a in g.answers if a.kind is QueryKind.VENUE}
    assert outcomes[DB] is Outcome.FAILED and outcomes[OA] is Outcome.NOT_FOUND
    verdict = decide(
        _cite("Symposium on Probabilistic Reasoning"), Evidence(answers=tuple(g.answers)), current_year=2026
    )
    assert Reason.NONEXISTENT_VENUE not in verdict.reasons


def test_a_venue_the_table_knows_asks_no_registry() -> None:
    gw = _Gateway({}, failing=set())
    _step(_cite("ICML", arxiv_id="2101.00001"), _arxiv_only(), gw)
    assert not [a for a in gw.asked if a[0] == "venue"]


def test_a_title_changed_between_versions_asks_for_the_earlier_versions() -> None:
    gw = _Gateway({}, failing=set())
    cited = _cite("", arxiv_id="2101.00001", title="Conjugate Energy Based Models")
    answers = _arxiv_only(version=3, title="Conjugate Energy-Based Models for Structured Prediction at Scale")
    _step(cited, answers, gw)
    assert ("arxiv", "arxiv:2101.00001v1") in gw.asked and ("arxiv", "arxiv:2101.00001v2") in gw.asked


def test_a_coauthor_omission_seen_at_one_source_asks_a_second_author_list() -> None:
    four = (*AUTHORS, Author(given="Grace", family="Hopper"), Author(given="Emmy", family="Noether"))
    oa = WorkRecord(source=OA, title=TITLE, authors=four, year=2021, venue="Machine Learning")
    answers = [
        SourceAnswer(source=OA, kind=QueryKind.SEARCH, query="q", outcome=Outcome.FOUND, records=(oa,))
    ]
    cited = _cite("Machine Learning", authors=(four[0], four[1], four[3]))
    gw = _Gateway({}, failing=set())
    asked, _ = _step(cited, answers, gw)
    assert asked and ("match", f"semantic_scholar:{TITLE}") in gw.asked
