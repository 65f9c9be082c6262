"""Issue 23: title searches sent many at a time, with absence proved only where a batch is exact.

The pure rules first (`title_batches.share_out`): a title present in a batch's answer is always
found; a title is proved absent only by a complete answer none of whose items could be what its
own search returns; anything else is a miss, asked alone. Then arXiv's `ti:"..." OR ti:"..."`
against the simulator.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from aletheia.config.settings import Settings, SourceLimits
from aletheia.sources.arxiv import ArxivClient, arxiv_transports
from aletheia.sources.arxiv_titles import batch_answer, batch_query, feed_of
from aletheia.sources.base import TransientSourceError
from aletheia.sources.simulator import SimulatorServer
from aletheia.sources.title_batches import (
    BatchAnswer,
    TitleBatcher,
    loosely_holds,
    share_out,
    title_batchable,
)
from aletheia.sources.transport.ratelimit import LocalRateLimiter

WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=10)
TITLES = st.lists(WORDS, min_size=3, max_size=8).map(" ".join)


# --- pure -----------------------------------------------------------------------------------------


@given(TITLES, st.lists(TITLES, max_size=6), st.booleans())
@example("deep residual learning", ["Deep Residual Learning for Image Recognition"], True)
def test_a_title_present_in_the_answer_is_always_found(title: str, others: list[str], complete: bool) -> None:
    items = [(t, t) for t in others] + [(title.title(), "it")]
    found = share_out([title], BatchAnswer(items, complete), limit=5)[title]
    assert found is not None and "it" in found


@given(TITLES, st.lists(TITLES, max_size=6), st.lists(WORDS, max_size=3))
def test_absence_is_said_only_by_a_complete_answer_with_nothing_that_could_match(
    title: str, others: list[str], extra: list[str]
) -> None:
    # An item holding every word of the title (its own search could return it): never absent.
    holder = " ".join([*extra, title.upper(), *extra])
    for complete in (True, False):
        out = share_out([title], BatchAnswer([(t, t) for t in [*others, holder]], complete), limit=5)
        assert out[title] != []
    # Absent only when complete, and then no item loosely holds the title.
    answer = BatchAnswer([(t, t) for t in others], complete=True)
    if share_out([title], answer, limit=5)[title] == []:
        assert not any(loosely_holds(t, title) for t in others)
    incomplete = share_out([title], BatchAnswer([(t, t) for t in others], complete=False), limit=5)
    assert incomplete[title] != []


def test_a_near_title_in_a_complete_batch_is_a_miss_not_an_absence() -> None:
    answer = BatchAnswer([("Deep Residual Learning for Image Recognition", "resnet")], complete=True)
    # Every word there, not the decisive match: its own search might return it, so ask alone.
    assert share_out(["Residual Learning Image"], answer, limit=5) == {"Residual Learning Image": None}
    # Stemming is looser than exact words: "networks" holds "network".
    answer = BatchAnswer([("Graph Attention Networks", "gat")], complete=True)
    assert share_out(["graph attention network"], answer, limit=5)["graph attention network"] == ["gat"]
    assert share_out(["graphs attend networking"], answer, limit=5)["graphs attend networking"] is None


def test_short_titles_are_not_batched() -> None:
    assert not title_batchable("Attention")
    assert not title_batchable("On it")
    assert title_batchable("Attention is all you need")


async def test_a_lone_title_and_a_failed_batch_are_misses() -> None:
    calls: list[list[str]] = []

    async def fail(titles: list[str]) -> BatchAnswer[str]:
        calls.append(titles)
        raise TransientSourceError("arxiv", "503")

    batcher: TitleBatcher[str, str] = TitleBatcher(
        fail,
        max_titles=5,
        max_query_chars=1000,
        term_chars=len,
        separator_chars=4,
        limit=5,
        share=share_out,
        batchable=title_batchable,
        window=0.01,
    )
    assert await batcher.find("one lone title here", 5) is None
    assert calls == []  # a lone title is never sent as a batch
    found = await asyncio.gather(
        batcher.find("first title of three", 5), batcher.find("second one of three", 5)
    )
    assert found == [None, None]
    assert batcher.stats["title_batch_failures"] == 1


@given(st.lists(TITLES, min_size=1, max_size=30), st.integers(min_value=40, max_value=400))
def test_every_chunk_fits_the_query_budget(titles: list[str], budget: int) -> None:
    async def never(titles: list[str]) -> BatchAnswer[str]:
        raise AssertionError

    batcher: TitleBatcher[str, str] = TitleBatcher(
        never,
        max_titles=30,
        max_query_chars=budget,
        term_chars=len,
        separator_chars=4,
        limit=5,
        share=share_out,
        batchable=title_batchable,
    )
    chunks = batcher.chunks(titles)
    assert [t for c in chunks for t in c] == titles
    for chunk in chunks:
        assert len(chunk) == 1 or sum(map(len, chunk)) + 4 * (len(chunk) - 1) <= budget


def test_the_arxiv_batch_is_the_single_terms_ored() -> None:
    assert batch_query(["a b c", "d e f"]) == 'ti:"a b c" OR ti:"d e f"'
    assert batch_answer([("t", "raw")], total_results=1).complete
    assert not batch_answer([("t", "raw")], total_results=7).complete
    assert not batch_answer([], total_results=None).complete


# --- arXiv against the simulator ------------------------------------------------------------------

SPARSE = "Sparse Attention Kernels for Long Document Retrieval"
BOUNDARY = "Notes on Boundary Conformal Field Theory"
INVENTED = "Sparse Kernels for Invented Quantum Retrieval Benchmarks"


async def _client(sim: SimulatorServer, http: httpx.AsyncClient, **kwargs: Any) -> ArxivClient:
    settings = Settings(
        arxiv_api_url=sim.url_for("arxiv_api"),
        arxiv_url=sim.url_for("arxiv"),
        arxiv_limits=SourceLimits(rate=1000, burst=1000, concurrency=20),
        http_attempts=1,
    )
    api, web = arxiv_transports(http, settings, LocalRateLimiter())
    return ArxivClient(api, web, **kwargs)


def test_the_simulator_ors_title_phrases(sim: SimulatorServer, client: httpx.Client) -> None:
    url = sim.url_for("arxiv_api") + "/api/query"
    query = batch_query(["Sparse Attention Kernels for Long Document Retrieval", "Boundary Conformal Field"])
    body = client.get(url, params={"search_query": query, "max_results": 100}).text
    assert SPARSE in body and BOUNDARY in body
    assert "<opensearch:totalResults>2</opensearch:totalResults>" in body
    # A phrase is a phrase: the words out of order match nothing.
    body = client.get(url, params={"search_query": 'ti:"Kernels Sparse Attention"'}).text
    assert "<opensearch:totalResults>0</opensearch:totalResults>" in body


async def test_concurrent_arxiv_title_searches_share_one_request_and_prove_absence(
    sim: SimulatorServer,
) -> None:
    sent: list[httpx.Request] = []

    async def record(request: httpx.Request) -> None:
        sent.append(request)

    async with httpx.AsyncClient(event_hooks={"request": [record]}) as http:
        batched = await _client(sim, http, title_batch=20, coalesce_window=0.01)
        together = await asyncio.gather(
            batched.search(title=SPARSE, max_results=5),
            batched.search(title=BOUNDARY, max_results=5),
            batched.search(title=INVENTED, max_results=5),
        )
        assert len(sent) == 1
        assert sent[0].url.params["search_query"].count(" OR ti:") == 2
        single = await _client(sim, http, title_batch=0)
        alone = [await single.search(title=t, max_results=5) for t in (SPARSE, BOUNDARY, INVENTED)]
    assert [[r.record for r in rs] for rs in together] == [[r.record for r in rs] for rs in alone]
    assert together[2] == []  # proved absent by the complete batch, never asked alone
    assert batched.api.stats.extra["title_batch_absent"] == 1
    assert batched.api.stats.extra["title_batch_hits"] == 2


async def test_an_incomplete_batch_asks_its_unfound_titles_alone(
    sim: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One entry per page: the answer is not complete, so the invented title proves nothing.
    monkeypatch.setattr("aletheia.sources.arxiv.BATCH_MAX_RESULTS", 1)
    async with httpx.AsyncClient() as http:
        client = await _client(sim, http, title_batch=20, coalesce_window=0.01)
        found = await asyncio.gather(
            client.search(title=SPARSE, max_results=5),
            client.search(title=BOUNDARY, max_results=5),
            client.search(title=INVENTED, max_results=5),
        )
    assert found[2] == []
    assert client.api.stats.extra["title_batch_misses"] >= 2
    assert client.api.stats.requests >= 3


def test_a_batch_feed_parses_like_the_single_feed() -> None:
    assert "<entry" not in feed_of([])
