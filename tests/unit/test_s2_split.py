"""Issue 32: a Semantic Scholar bulk search cut short is asked again in parts, not title by title.

A batch of titles whose phrases match more than a page (1,000 papers) proves no title absent; the
answer's `total` says how many papers matched, so the titles are asked again in as many parts as
should each fit a page (`s2_titles.split_titles`), and only the titles of a part still cut short
go to `match` one by one.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aletheia.core.records import SourceName
from aletheia.sources.base import SourceStats
from aletheia.sources.s2_titles import (
    BULK_PAGE,
    BULK_PATH,
    SplitAnswer,
    bulk_total,
    share_halves,
    split_titles,
    title_words,
)
from aletheia.sources.semantic_scholar import SemanticScholarClient
from aletheia.sources.title_batches import BatchAnswer

TITLES = [
    title_words(t)
    for t in (
        "Invented Lattice Methods for Quantum Sparse Decoding",
        "Hierarchical Spectral Priors for Robust Graph Matching",
        "Contrastive Tabular Learning with Missing Covariates",
        "Stochastic Curriculum Pruning for Vision Transformers",
        "Causal Reward Shaping in Offline Bandit Settings",
        "Neural Operator Surrogates for Coastal Flood Forecasts",
        "Differentiable Rendering of Sparse Volumetric Scenes",
        "Federated Adapter Tuning under Label Shift Constraints",
    )
]


def test_a_batch_is_split_by_its_total_only_when_the_parts_cost_less() -> None:
    assert split_titles(TITLES, None) is None
    assert split_titles(TITLES, BULK_PAGE) is None  # one page: nothing was cut
    parts = split_titles(TITLES, 1500)  # three parts of at most 600 papers on average
    assert parts == [TITLES[0:3], TITLES[3:6], TITLES[6:8]]
    # More parts than half the titles: `match` one by one costs no more.
    assert split_titles(TITLES, 3000) is None
    assert split_titles(TITLES[:3], 1500) is None
    assert bulk_total({"total": 1500}) == 1500 and bulk_total({"total": True}) is None


def test_each_part_is_shared_out_of_its_own_answer() -> None:
    complete: BatchAnswer[dict[str, Any]] = BatchAnswer(items=[], complete=True)
    cut: BatchAnswer[dict[str, Any]] = BatchAnswer(items=[], complete=False)
    answer = SplitAnswer(
        items=[], complete=False, parts=((tuple(TITLES[:4]), complete), (tuple(TITLES[4:]), cut))
    )
    shared = share_halves(TITLES, answer, 1)
    assert all(shared[t] == [] for t in TITLES[:4])  # proved absent by a complete part
    assert all(shared[t] is None for t in TITLES[4:])  # a part cut short proves nothing


class _Bulk:
    """A stand-in for S2's transport: a bulk query of more than `fits` titles matches 1,500
    papers (a page and a token), a smaller one matches none; every `match` call is counted."""

    source = SourceName.SEMANTIC_SCHOLAR
    base_url = "https://api.semanticscholar.invalid"

    def __init__(self, fits: int) -> None:
        self.fits = fits
        self.stats = SourceStats()
        self.bulk_titles: list[int] = []
        self.matches = 0

    async def get_json(self, path: str, *, params: Any = None, **_: Any) -> Any:
        if path == BULK_PATH:
            titles = params["query"].count('" | "') // 2 + 1
            self.bulk_titles.append(titles)
            if titles > self.fits:
                return {"total": 1500, "token": "next", "data": [{"title": "Filler"}] * BULK_PAGE}
            return {"total": 0, "data": []}
        self.matches += 1
        return None  # `match`: 404, no such title


async def _match_all(transport: _Bulk) -> list[Any]:
    client = SemanticScholarClient(transport, title_batch=25, coalesce_window=0.01)  # type: ignore[arg-type]
    return await asyncio.gather(*(client.match_title(t) for t in TITLES))


def test_a_batch_cut_short_proves_absence_in_parts_without_match_calls() -> None:
    transport = _Bulk(fits=3)
    found = asyncio.run(_match_all(transport))
    assert found == [None] * len(TITLES)
    assert transport.bulk_titles == [8, 3, 3, 2] and transport.matches == 0
    assert transport.stats.extra["title_batch_splits"] == 1
    assert transport.stats.extra["title_batch_absent"] == len(TITLES)


def test_parts_still_cut_short_go_to_match_one_by_one() -> None:
    transport = _Bulk(fits=0)  # every bulk query cut short, however small
    found = asyncio.run(_match_all(transport))
    assert found == [None] * len(TITLES)
    # 8 titles -> parts of 3, 3, 2; the parts of 3 and 2 are too small to split again.
    assert transport.bulk_titles == [8, 3, 3, 2] and transport.matches == len(TITLES)
    assert "title_batch_absent" not in transport.stats.extra
