"""Issue 23: DBLP title searches proved absent a few at a time (`dblp_titles`).

DBLP documents `|` only between words and no grouping, so titles are OR-ed in conjunctive form:
one `|` clause per choice of a word from each title. The batch is used only to prove absence: a
complete answer with no hit that could be a title's (its words anywhere DBLP indexes: title,
authors, venue) proves that title's own search empty; anything else is asked alone.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.config.settings import Settings, SourceLimits
from aletheia.sources.dblp import DblpClient, dblp_query, dblp_transport
from aletheia.sources.dblp_titles import (
    WORDS_PER_TITLE,
    batch_answer,
    batch_query,
    batch_words,
    share_absence,
    title_batchable,
)
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, universe_from_records
from aletheia.sources.title_batches import BatchAnswer
from aletheia.sources.transport.ratelimit import LocalRateLimiter

WORKS: list[dict[str, Any]] = [
    {
        "title": "Attention Is All You Need",
        "authors": [{"given": "Ashish", "family": "Vaswani"}, {"given": "Noam", "family": "Shazeer"}],
        "year": 2017,
        "venue": "Advances in Neural Information Processing Systems",
        "type": "proceedings-article",
        "dblp_key": "conf/nips/VaswaniSPUJGKP17",
        "sources": ["dblp"],
    },
    {
        "title": "Graph Sketches for Streaming Connectivity",
        "authors": [{"given": "Tomás", "family": "Ruiz"}],
        "year": 2012,
        "venue": "SODA",
        "type": "proceedings-article",
        "dblp_key": "conf/soda/Ruiz12",
        "sources": ["dblp"],
    },
]


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(universe_from_records(WORKS), SimulatorConfig.unlimited()) as server:
        yield server


WORDS = st.sampled_from(
    ["graph", "neural", "network", "sparse", "kernel", "learning", "retrieval", "quantum"]
)
QUERIES = st.lists(WORDS, min_size=2, max_size=6, unique=True).map(" ".join)


def _matches(query: str, record: set[str]) -> bool:
    """DBLP's reading of a query (without prefixes): every clause has one of its words."""
    return all(any(w in record for w in clause.split("|")) for clause in query.split())


@given(st.lists(QUERIES, min_size=1, max_size=3), st.sets(WORDS))
def test_the_clauses_say_any_title_s_words(queries: list[str], record: set[str]) -> None:
    # The conjunctive form is the OR of each title's (chosen) words, no more and no less.
    either = any(set(batch_words(q)) <= record for q in queries)
    assert _matches(batch_query(queries), record) == either


@given(QUERIES)
def test_a_batch_is_never_stricter_than_the_title_s_own_search(query: str) -> None:
    assert set(batch_words(query)) <= set(query.split())
    assert len(batch_words(query)) <= WORDS_PER_TITLE


def test_batch_words_are_the_longest() -> None:
    query = dblp_query("On the Convergence of Adam and Beyond: Stochastic Optimization Revisited")
    assert batch_words(query) == ("optimization", "convergence", "stochastic", "revisited")
    assert batch_query(["aaa bbb", "ccc ddd"]) == "aaa|ccc aaa|ddd bbb|ccc bbb|ddd"
    assert not title_batchable("of it")


def _hit(title: str, authors: list[str], venue: str) -> dict[str, Any]:
    return {"info": {"title": title, "authors": {"author": [{"text": a} for a in authors]}, "venue": venue}}


def test_absence_needs_a_complete_answer_without_a_possible_hit() -> None:
    query = dblp_query("Sparse Kernels for Invented Retrieval")
    other = _hit("Graph Sketches.", ["Ann Example"], "SODA")
    # The words spread over title and venue: DBLP's own search would match it, so not absent
    # (a stop word such as "for" is not required: an index may drop it).
    spread = _hit("Sparse Kernels.", ["Ann Example"], "Invented Retrieval Workshop")
    complete = {"result": {"hits": {"@total": "1", "hit": [other]}}}
    assert share_absence([query], batch_answer(complete), 5) == {query: []}
    with_spread = {"result": {"hits": {"@total": "2", "hit": [other, spread]}}}
    assert share_absence([query], batch_answer(with_spread), 5) == {query: None}
    cut = {"result": {"hits": {"@total": "40", "hit": [other]}}}
    assert share_absence([query], batch_answer(cut), 5) == {query: None}
    assert share_absence([query], BatchAnswer([], complete=True), 5) == {query: []}


def test_the_simulator_reads_or_between_words(sim: SimulatorServer, client: httpx.Client) -> None:
    url = sim.url_for("dblp") + "/search/publ/api"

    def titles(q: str) -> set[str]:
        body = client.get(url, params={"q": q, "format": "json", "h": 100}).json()
        return {h["info"]["title"] for h in body["result"]["hits"].get("hit", [])}

    sketches = titles("graph sketches")
    assert sketches and titles("graph|zebrafish sketches") == sketches
    assert titles("graph zebrafish sketches") == set()
    both = titles(batch_query(["graph sketches streaming", "attention need"]))
    assert sketches <= both and any("Attention" in t for t in both)


async def test_concurrent_dblp_searches_share_one_request(sim: SimulatorServer) -> None:
    sent: list[httpx.Request] = []

    async def record(request: httpx.Request) -> None:
        sent.append(request)

    settings = Settings(
        dblp_url=sim.url_for("dblp"),
        dblp_limits=SourceLimits(rate=1000, burst=1000, concurrency=20),
        http_attempts=1,
    )
    invented = ["Quantum Lattices for Invented Retrieval", "Zebrafish Kernels on Imaginary Graphs"]
    async with httpx.AsyncClient(event_hooks={"request": [record]}) as http:
        client = DblpClient(
            dblp_transport(http, settings, LocalRateLimiter()), title_batch=3, coalesce_window=0.01
        )
        found = await asyncio.gather(*(client.search(t) for t in invented))
        single = DblpClient(dblp_transport(http, settings, LocalRateLimiter()))
        alone = [await single.search(t) for t in invented]
    assert found == alone == [[], []]
    assert len(sent) == 1 + 2
    assert client.transport.stats.extra["title_batch_absent"] == 2
    # A title with a possible hit is asked alone, and gets what its own search gets.
    async with httpx.AsyncClient() as http:
        client = DblpClient(
            dblp_transport(http, settings, LocalRateLimiter()), title_batch=3, coalesce_window=0.01
        )
        real, gone = await asyncio.gather(
            client.search("Graph Sketches for Streaming Connectivity"), client.search(invented[0])
        )
    assert gone == [] and [r.record.dblp_key for r in real] == ["conf/soda/Ruiz12"]
    assert client.transport.stats.requests == 2  # the batch, then the title it could not settle


def test_every_clause_choice_is_present() -> None:
    queries = ["aaa bbb ccc", "ddd eee", "fff ggg"]
    clauses = set(batch_query(queries).split())
    assert clauses == {"|".join(c) for c in itertools.product(*(q.split() for q in queries))}
