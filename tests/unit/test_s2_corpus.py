"""Issue 32: Semantic Scholar's bulk search over a corpus far larger than the universe.

The real service matches a bulk query over the titles and abstracts of 200 million papers and
answers at most 1,000 per call, with a continuation token when more matched. The simulator's
`S2Corpus` stands for the papers beyond the universe (generated in the phrases of the universe's
titles), so that a phrase common in the field fills the page; and the client never reads an
answer that was cut short as proof that a title is absent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from aletheia.config.settings import Settings, SourceLimits
from aletheia.sources.semantic_scholar import SemanticScholarClient, semantic_scholar_transport
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, Universe
from aletheia.sources.simulator.s2_corpus import S2Corpus, field_phrases
from aletheia.sources.simulator.search import tokenize
from aletheia.sources.transport.ratelimit import LocalRateLimiter

TITLES = (
    "Graph Neural Networks for Molecule Design",
    "Graph Neural Networks Meet Language Models",
    "Boundary Conformal Field Theory",
)
# In no title of the universe; the first half ("circadian clock") is in one work's abstract only.
ABSTRACT_ONLY = "Circadian Clock Shapes Invented Lattices"


def test_field_phrases_are_the_titles_runs_counted_once_a_title() -> None:
    counts = field_phrases([*TITLES, "Neural Networks of Neural Networks"])
    assert counts["graph neural networks"] == 2
    assert counts["neural networks"] == 3  # once for the last title, though it holds it twice
    assert counts["conformal field theory"] == 1
    # A run may hold a stop word inside, never at an end.
    assert counts["networks of neural"] == 1 and "networks for" not in counts and "for molecule" not in counts


def test_the_corpus_is_seeded_and_writes_common_phrases_most_often() -> None:
    one, again = S2Corpus(TITLES, 300, seed=1), S2Corpus(TITLES, 300, seed=1)
    other = S2Corpus(TITLES, 300, seed=2)
    assert one.titles == again.titles and one.abstracts == again.abstracts
    assert one.titles != other.titles
    assert len(one) == 300 and all(one.abstracts)
    # "graph neural networks" is held by two titles, "conformal field theory" by one: drawn twice
    # as often (among 40 more titles, so that neither is in nearly every paper).
    more = [f"topic{i} method{i} result{i}" for i in range(40)]
    sample = S2Corpus([*TITLES, *more], 300, seed=1)
    common = len(sample.text.docs_with_phrase(tokenize("graph neural networks")))
    rare = len(sample.text.docs_with_phrase(tokenize("conformal field theory")))
    assert common > 1.4 * rare > 0
    paper = one.render(0)
    assert paper["title"] == one.titles[0] and paper["abstract"] == one.abstracts[0]
    assert len(paper["paperId"]) == 40 and paper["paperId"] != one.render(1)["paperId"]
    assert S2Corpus([], 10).titles == []


@pytest.fixture(scope="module")
def crowded(universe: Universe) -> Iterator[SimulatorServer]:
    """The hand-written universe, and 3,000 more papers at Semantic Scholar."""
    config = SimulatorConfig.unlimited().merged({"semantic_scholar_corpus": 3000})
    with SimulatorServer(universe, config) as server:
        yield server


def _bulk(sim: SimulatorServer, client: httpx.Client, **params: Any) -> dict[str, Any]:
    response = client.get(sim.url_for("semantic_scholar") + "/graph/v1/paper/search/bulk", params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_a_common_phrase_fills_the_page_and_comes_with_a_token(
    crowded: SimulatorServer, sim: SimulatorServer, client: httpx.Client
) -> None:
    query = '"sparse attention" | "document retrieval" | "lipid metabolism" | "conformal field"'
    alone = _bulk(sim, client, query=query, fields="title")
    assert "token" not in alone and alone["total"] == len(alone["data"]) < 10
    first = _bulk(crowded, client, query=query, fields="title,abstract")
    assert first["total"] > 1000 and len(first["data"]) == 1000 and first["token"]
    # The universe's papers are among those matched (sorted by paperId, on some page).
    pages = [first]
    while "token" in pages[-1]:
        pages.append(_bulk(crowded, client, query=query, fields="title", token=pages[-1]["token"]))
    titles = {p["title"] for page in pages for p in page["data"]}
    assert sum(len(page["data"]) for page in pages) == first["total"]
    assert {p["title"] for p in alone["data"]} <= titles
    # Matched over the abstract as well as the title.
    assert any("sparse attention" not in p["title"].lower() for p in first["data"])
    # The relevance search and `match` answer from the universe, as before.
    base = crowded.url_for("semantic_scholar") + "/graph/v1/paper/search/match"
    hit = client.get(base, params={"query": "Sparse Attention Kernels for Long Document Retrieval"}).json()
    assert hit["data"][0]["title"] == "Sparse Attention Kernels for Long Document Retrieval"


async def _ask(sim: SimulatorServer, title: str) -> tuple[Any, dict[str, Any]]:
    settings = Settings(
        semantic_scholar_url=sim.url_for("semantic_scholar"),
        semantic_scholar_limits=SourceLimits(rate=1000, burst=1000, concurrency=20),
        http_attempts=1,
    )
    async with httpx.AsyncClient() as http:
        transport = semantic_scholar_transport(http, settings, LocalRateLimiter())
        client = SemanticScholarClient(transport, title_batch=25, coalesce_window=0.01)
        # A second title, so that the batch is shared (a lone title is asked of `match` directly).
        found, _ = await asyncio.gather(
            client.match_title(title), client.match_title("Quantum Lattices for Invented Benchmarks Today")
        )
    return found, dict(client.transport.stats.extra)


async def test_an_answer_cut_short_never_proves_a_title_absent(
    sim: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Complete: the one paper matched (by its abstract) is no candidate, so both are absent.
    found, stats = await _ask(sim, ABSTRACT_ONLY)
    assert found is None and stats["title_batch_absent"] == 2 and "title_batch_misses" not in stats
    assert "title_batch_incomplete" not in stats
    # The same answer cut short (a page too small for it, with a token): nothing is proved,
    # every title goes to `match`, which finds nothing either.
    monkeypatch.setattr("aletheia.sources.simulator.s2_bulk.PAGE", 0)
    found, stats = await _ask(sim, ABSTRACT_ONLY)
    assert found is None and "title_batch_absent" not in stats and stats["title_batch_misses"] == 2
    assert stats["title_batch_incomplete"] == 1
