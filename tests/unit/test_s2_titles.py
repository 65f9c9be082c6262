"""Issue 23: Semantic Scholar's title matches asked many at a time through `paper/search/bulk`.

The pure rules first (`s2_titles`): each title is asked as its two halves, each a quoted phrase;
a title is found when exactly one paper of the answer holds a half and matches it clearly, proved
absent only by a complete answer where no paper's title holds either half (a paper one word away
from the cited title always holds one), and is a miss (asked of `match` alone) otherwise. Then the
simulator's bulk search (the documented syntax and refusals) and the client against it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from aletheia.config.settings import Settings, SourceLimits
from aletheia.sources.s2_titles import (
    bulk_answer,
    bulk_query,
    halves,
    share_halves,
    title_batchable,
    title_words,
)
from aletheia.sources.semantic_scholar import SemanticScholarClient, semantic_scholar_transport
from aletheia.sources.simulator import SimulatorServer
from aletheia.sources.simulator.s2_bulk import parse_bulk_query
from aletheia.sources.title_batches import BatchAnswer
from aletheia.sources.transport.ratelimit import LocalRateLimiter

WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=10)
TITLES = st.lists(WORDS, min_size=4, max_size=10).map(" ".join)


# --- pure -----------------------------------------------------------------------------------------


def test_a_title_is_asked_as_two_phrases_of_plain_words() -> None:
    words = title_words("Self-Consistency Improves Chain-of-Thought Reasoning (in LMs)")
    assert words == "self consistency improves chain of thought reasoning in lms"
    assert bulk_query([words]) == '"self consistency improves chain" | "of thought reasoning in lms"'
    # No operator survives: `-` would negate, `|`, `"`, `(` and `*` would restructure the query.
    assert not set(title_words('a-b | "c" (d) *e ~f +g')) - set("abcdefg ")


@given(TITLES)
def test_halves_cover_the_title_in_order(words: str) -> None:
    first, second = halves(words)
    assert f"{first} {second}".split() == words.split()


def test_short_or_stop_word_titles_are_asked_alone() -> None:
    assert not title_batchable(title_words("Graph Sketches"))
    assert not title_batchable(title_words("On the Use of It"))
    assert title_batchable(title_words("Learning Neural Networks is ER-complete"))


@given(TITLES, st.integers(min_value=0, max_value=9), WORDS, st.lists(TITLES, max_size=4))
@example("training neural networks is complete", 0, "learning", [])
def test_a_paper_one_word_away_is_never_read_as_absent(
    words: str, position: int, replacement: str, others: list[str]
) -> None:
    # The cited title with one word replaced: `match` may offer it as a near miss, so a complete
    # answer holding it must not prove the title absent.
    split = words.split()
    split[position % len(split)] = replacement
    near = " ".join(split).title()
    items = [(t, t) for t in others] + [(near, "near")]
    out = share_halves([words], BatchAnswer(items, complete=True), limit=1)[words]
    assert out != []


def test_found_only_when_one_candidate_matches_clearly() -> None:
    title = title_words("Sparse Attention Kernels for Long Document Retrieval")
    exact = ("Sparse Attention Kernels for Long Document Retrieval", "exact")
    near = ("Sparse Attention Kernels Revisited", "near")
    unrelated = ("Circadian Regulation of Hepatic Lipid Metabolism", "other")
    assert share_halves([title], BatchAnswer([exact, unrelated], True), 1)[title] == ["exact"]
    # Two candidates, one the title and the other not even a near miss: `match` answers the
    # closest title, the exact one, when the answer is complete (no closer paper left out).
    assert share_halves([title], BatchAnswer([exact, near], True), 1)[title] == ["exact"]
    assert share_halves([title], BatchAnswer([exact, near], False), 1)[title] is None
    # Beside a near miss of the title, `match`'s choice is its own score's: asked alone.
    one_word_off = ("Sparse Attention Kernels for Long Document Ranking", "one word off")
    assert share_halves([title], BatchAnswer([exact, one_word_off], True), 1)[title] is None
    # Only a paper holding half the title, not the decisive match: asked alone.
    assert share_halves([title], BatchAnswer([near], True), 1)[title] is None
    # Nothing near and complete: absent; nothing near but cut short: a miss.
    assert share_halves([title], BatchAnswer([unrelated], True), 1)[title] == []
    assert share_halves([title], BatchAnswer([unrelated], False), 1)[title] is None


def test_a_bulk_answer_is_complete_only_without_a_token() -> None:
    assert bulk_answer({"total": 1, "data": [{"paperId": "a", "title": "T"}]}).complete
    assert bulk_answer({"total": 0, "data": []}).complete
    assert bulk_answer({"total": 0}).complete
    assert not bulk_answer({"total": 2000, "token": "X", "data": [{"paperId": "a", "title": "T"}]}).complete


# --- the simulator's bulk search -------------------------------------------------------------------

SPARSE = "Sparse Attention Kernels for Long Document Retrieval"
BOUNDARY = "Notes on Boundary Conformal Field Theory"
INVENTED = "Quantum Sparse Lattices for Invented Retrieval Benchmarks"


def _bulk(sim: SimulatorServer, client: httpx.Client, **params: Any) -> httpx.Response:
    return client.get(sim.url_for("semantic_scholar") + "/graph/v1/paper/search/bulk", params=params)


def _titles(response: httpx.Response) -> set[str]:
    assert response.status_code == 200, response.text
    return {p["title"] for p in response.json().get("data") or []}


def test_the_simulator_reads_the_documented_bulk_syntax(sim: SimulatorServer, client: httpx.Client) -> None:
    assert _titles(_bulk(sim, client, query='"sparse attention kernels" | "boundary conformal"')) == {
        SPARSE,
        BOUNDARY,
    }
    # A phrase is a phrase; words without quotes are all required, in any order.
    assert _titles(_bulk(sim, client, query='"kernels sparse attention"')) == set()
    assert _titles(_bulk(sim, client, query="kernels sparse attention")) == {SPARSE}
    # `-` negates, `*` is a prefix, `~` a fuzzy word, parentheses group.
    assert SPARSE not in _titles(_bulk(sim, client, query="retrieval -sparse"))
    assert SPARSE in _titles(_bulk(sim, client, query="spars* kernel"))
    assert SPARSE in _titles(_bulk(sim, client, query="sparce~1 kernels"))
    assert _titles(_bulk(sim, client, query="(sparse kernels) | (conformal boundary)")) == {SPARSE, BOUNDARY}
    # Title and abstract are matched: an abstract's words find their paper.
    assert _titles(_bulk(sim, client, query=bulk_query([title_words(INVENTED)]))) == set()


def test_the_simulator_answers_bulk_as_recorded(sim: SimulatorServer, client: httpx.Client) -> None:
    # `offset` and `limit` are ignored (a recorded call sent offset=0&limit=100 and got 1,000).
    body = _bulk(sim, client, query="sparse", fields="title,year", offset=0, limit=1).json()
    assert set(body) == {"total", "data"} and body["total"] == len(body["data"]) >= 2
    assert all(set(p) == {"paperId", "title", "year"} for p in body["data"])
    assert [p["paperId"] for p in body["data"]] == sorted(p["paperId"] for p in body["data"])


def test_the_simulator_pages_with_a_token(
    sim: SimulatorServer, client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("aletheia.sources.simulator.s2_bulk.PAGE", 1)
    first = _bulk(sim, client, query="sparse").json()
    assert len(first["data"]) == 1 and first["total"] >= 2 and first["token"]
    second = _bulk(sim, client, query="sparse", token=first["token"]).json()
    assert second["data"] != first["data"]


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"query": "x", "fields": "title,garbage"}, "Unrecognized or unsupported fields: [garbage]"),
        ({"query": "x", "fields": "title,citations"}, "Unrecognized or unsupported fields: [citations]"),
        ({"query": "x", "sort": "relevance"}, "Unacceptable query params: [sort=relevance]"),
        ({"query": "x", "sort": "citationCount:up"}, "Unacceptable query params: [sort=citationCount:up]"),
        ({"query": "x", "token": "forged"}, "Unacceptable query params: [token=forged]"),
    ],
)
def test_the_simulator_refuses_as_documented(
    sim: SimulatorServer, client: httpx.Client, params: dict[str, str], error: str
) -> None:
    response = _bulk(sim, client, **params)
    assert response.status_code == 400
    assert response.json() == {"error": error}


@pytest.mark.parametrize("query", ['"unclosed', "(unbalanced", "a ) b", "-", "|", "~ *"])
def test_a_malformed_query_is_read_leniently_not_refused(
    sim: SimulatorServer, client: httpx.Client, query: str
) -> None:
    # The documentation names no refusal for the query's syntax.
    parse_bulk_query(query)
    assert _bulk(sim, client, query=query).status_code == 200


# --- the client ------------------------------------------------------------------------------------


async def _client(sim: SimulatorServer, http: httpx.AsyncClient, **kwargs: Any) -> SemanticScholarClient:
    settings = Settings(
        semantic_scholar_url=sim.url_for("semantic_scholar"),
        semantic_scholar_limits=SourceLimits(rate=1000, burst=1000, concurrency=20),
        http_attempts=1,
    )
    transport = semantic_scholar_transport(http, settings, LocalRateLimiter())
    return SemanticScholarClient(transport, **kwargs)


async def test_title_matches_share_one_bulk_search_and_agree_with_match(sim: SimulatorServer) -> None:
    sent: list[httpx.Request] = []

    async def record(request: httpx.Request) -> None:
        sent.append(request)

    async with httpx.AsyncClient(event_hooks={"request": [record]}) as http:
        batched = await _client(sim, http, title_batch=25, coalesce_window=0.01)
        together = await asyncio.gather(*(batched.match_title(t) for t in (SPARSE, BOUNDARY, INVENTED)))
        # One shared search; SPARSE (two candidates: preprint and article) is asked alone.
        assert [r.url.path.rsplit("/", 1)[-1] for r in sent] == ["bulk", "match"]
        single = await _client(sim, http, title_batch=0)
        alone = [await single.match_title(t) for t in (SPARSE, BOUNDARY, INVENTED)]
    assert together[2] is None and alone[2] is None  # proved absent, as `match` says
    assert together[1] is not None and alone[1] is not None
    assert together[1].record.title == alone[1].record.title == BOUNDARY
    # The simulator holds SPARSE twice (preprint and article): several candidates, asked alone.
    assert together[0] is not None and alone[0] is not None
    assert together[0].record == alone[0].record
    stats = batched.transport.stats.extra
    assert stats["title_batch_absent"] == 1 and stats["title_batch_hits"] == 1
    assert stats["title_batch_misses"] == 1


async def test_alone_skips_the_shared_search(sim: SimulatorServer) -> None:
    async with httpx.AsyncClient() as http:
        client = await _client(sim, http, title_batch=25, coalesce_window=0.01)
        await asyncio.gather(
            client.match_title(INVENTED, alone=True), client.match_title(BOUNDARY, alone=True)
        )
    assert "title_batches" not in client.transport.stats.extra
    assert client.transport.stats.requests == 2
