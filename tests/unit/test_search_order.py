"""Issue 23: the search stages' order, and when Semantic Scholar's match is asked alone.

Crossref documents no OR, so its title searches cost a request each: for a reference with a title
it is asked last (`ALETHEIA_CROSSREF_SEARCH_LAST`), only when no other index found the work; a
reference given as a string keeps Crossref second (its whole string suits `query.bibliographic`).
A reference whose earlier answers hold a near miss of its title asks Semantic Scholar's fuzzy
`match` alone, never through the shared bulk search (`s2_titles`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from aletheia.config.settings import Settings
from aletheia.core.authors import parse_name
from aletheia.core.evidence import Outcome, QueryKind, SourceAnswer
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.pipeline.evidence.gather import Gathered, _near_miss_seen
from aletheia.sources.transport.ratelimit import LocalRateLimiter

CITED = CitedReference(
    key="k",
    entry_type="inproceedings",
    title="Training Neural Networks is ER-complete",
    authors=(parse_name("Mikkel Abrahamsen"),),
    year=2021,
    venue="NeurIPS",
)


async def _gateway(tmp_path: Path, **settings: object) -> AsyncIterator[SourceGateway]:
    async with httpx.AsyncClient() as http:
        yield SourceGateway(Settings(data_dir=tmp_path, **settings), http, LocalRateLimiter())


def _order(gateway: SourceGateway, cited: CitedReference) -> list[list[SourceName]]:
    coverage = [SourceName.OPENALEX, SourceName.CROSSREF, SourceName.SEMANTIC_SCHOLAR, SourceName.DBLP]
    return [[call.source for call in stage] for stage in gateway.search_stages(cited, coverage=coverage)]


@pytest.mark.parametrize(
    ("last", "expected"),
    [
        (True, [["openalex"], ["semantic_scholar"], ["dblp"], ["crossref"]]),
        (False, [["openalex"], ["crossref"], ["semantic_scholar"], ["dblp"]]),
    ],
)
async def test_crossref_is_asked_last_for_a_titled_reference(
    tmp_path: Path, last: bool, expected: list[list[str]]
) -> None:
    async for gateway in _gateway(tmp_path, crossref_search_last=last):
        assert _order(gateway, CITED) == [[SourceName(s) for s in stage] for stage in expected]


async def test_a_reference_string_keeps_crossref_second(tmp_path: Path) -> None:
    as_string = CITED.model_copy(
        update={
            "raw": "M. Abrahamsen. Training neural networks is ER-complete. NeurIPS 2021.",
            "heuristic_fields": ("title",),
        }
    )
    async for gateway in _gateway(tmp_path):
        assert _order(gateway, as_string)[1] == [SourceName.CROSSREF]


def _answer(title: str) -> SourceAnswer:
    record = WorkRecord(source=SourceName.OPENALEX, title=title)
    return SourceAnswer(
        source=SourceName.OPENALEX, kind=QueryKind.SEARCH, query="q", outcome=Outcome.FOUND, records=(record,)
    )


def test_a_near_miss_seen_elsewhere_asks_match_alone() -> None:
    g = Gathered()
    assert not _near_miss_seen(CITED, g)
    g.answers.append(_answer("Graph Sketches for Streaming Connectivity"))
    assert not _near_miss_seen(CITED, g)
    g.answers.append(_answer("Learning Neural Networks is ER-complete"))
    assert _near_miss_seen(CITED, g)
