"""Issue 11: OpenAlex stage-1 title searches sent many at a time (`openalex_titles`).

The pure parts first (the boolean filter, the URL budget, which works a batch clearly found for a
title); then the client against the simulator, which reads OpenAlex's documented boolean syntax:
what a batch found is a positive finding only, and a title it did not find goes to its own
single search, never to "not found".
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.config.settings import Settings, SourceLimits
from aletheia.core.titles import TITLE_THRESHOLD, title_similarity
from aletheia.sources.base import TransientSourceError
from aletheia.sources.openalex import OpenAlexClient, openalex_transport
from aletheia.sources.openalex_titles import (
    TitleQuery,
    batch_filter,
    matching_works,
    query_words,
    title_batcher,
)
from aletheia.sources.simulator import SimulatorServer
from aletheia.sources.transport.ratelimit import LocalRateLimiter


def work(title: str, *authors: str, number: int = 1) -> dict[str, Any]:
    return {
        "id": f"https://openalex.org/W{number}",
        "title": title,
        "authorships": [{"raw_author_name": name, "author": {"display_name": name}} for name in authors],
    }


# --- pure -----------------------------------------------------------------------------------------


def test_the_filter_is_one_group_of_anded_words_per_title_ored_together() -> None:
    assert batch_filter(["Attention is all you need", "Deep residual learning"]) == (
        "title.search:(Attention is all you need) OR (Deep residual learning)"
    )


def test_query_syntax_in_a_title_stays_words() -> None:
    # Parentheses, quotes, `-`, `*`, `?`, `:` would change the boolean query; AND / OR / NOT are
    # operators only in upper case.
    assert query_words('Self-supervised "ViT": (Not) AND OR? x*') == [
        "Self", "supervised", "ViT", "Not", "and", "or", "x"
    ]  # fmt: skip


def test_a_batch_finds_a_title_only_with_every_word_the_decisive_match_and_the_author() -> None:
    exact = work("Deep Residual Learning for Image Recognition", "Kaiming He", number=1)
    other_author = work("Deep Residual Learning for Image Recognition", "Someone Else", number=2)
    missing_word = work("Deep Residual Learning for Recognition", "Kaiming He", number=3)
    query = TitleQuery("Deep residual learning for image recognition", "He")
    assert matching_works(query, [other_author, missing_word, exact], 5) == [exact]
    assert matching_works(TitleQuery(query.title, None), [other_author, exact], 5) == [other_author, exact]
    # A near-miss title (one word changed) is not a finding, however similar.
    near = TitleQuery("Deep residual learning towards image recognition", None)
    assert matching_works(near, [exact], 5) == []


@given(
    title=st.text(alphabet="abcdefgh ", min_size=1, max_size=40),
    others=st.lists(st.text(alphabet="abcdefgh ", min_size=1, max_size=40), max_size=8),
)
def test_a_batch_never_hands_a_title_a_work_below_the_title_rule(title: str, others: list[str]) -> None:
    works = [work(t, number=n) for n, t in enumerate(others)]
    found = matching_works(TitleQuery(title, None), works, 200)
    assert all(title_similarity(title, w["title"]) >= TITLE_THRESHOLD for w in found)
    assert all(any(w is x for x in works) for w in found)


@given(titles=st.lists(st.text(min_size=1, max_size=300), min_size=1, max_size=60), base=st.integers(0, 500))
def test_every_request_of_a_batch_fits_the_url_budget(titles: list[str], base: int) -> None:
    batcher = title_batcher(_never_called, max_titles=60, max_url_bytes=4000, base_bytes=base)
    queries = [TitleQuery(t, None) for t in titles]
    chunks = batcher.chunks(queries)
    assert [q for chunk in chunks for q in chunk] == queries  # every title, in order, once
    for chunk in chunks:
        if len(chunk) > 1:  # a chunk of one is never sent as a batch
            size = base + len("&filter=") + len(quote(batch_filter(q.title for q in chunk), safe=""))
            assert size <= 4000


async def _never_called(params: dict[str, Any]) -> Any:
    raise AssertionError("no request expected")


async def test_a_lone_title_a_short_title_and_a_failed_batch_are_misses() -> None:
    calls: list[dict[str, Any]] = []

    async def failing(params: dict[str, Any]) -> Any:
        calls.append(params)
        raise TransientSourceError("openalex", "scripted")

    batcher = title_batcher(failing, max_titles=5, window=0.001)
    residual = "Deep residual learning for image recognition"
    assert await batcher.find(TitleQuery(residual, "He"), 5) is None  # alone
    assert await batcher.find(TitleQuery("Dropout", None), 5) is None  # too short to share a batch
    assert calls == []
    both = await asyncio.gather(
        batcher.find(TitleQuery("Deep residual learning for image recognition", None), 5),
        batcher.find(TitleQuery("Attention is all you need", None), 5),
    )
    assert both == [None, None] and len(calls) == 1
    assert batcher.stats["title_batch_failures"] == 1


# --- against the simulator ------------------------------------------------------------------------

CIRCADIAN = "Circadian Regulation of Hepatic Lipid Metabolism in Zebrafish"
GRAPHENE = "Rapid Synthesis of Graphene Aerogels at Ambient Pressure"
INVENTED = "Quantum Gravity Effects on Zebrafish Lipid Metabolism"


def test_the_simulator_reads_the_documented_boolean_title_search(
    sim: SimulatorServer, client: httpx.Client
) -> None:
    url = sim.url_for("openalex") + "/works"
    params = {"filter": "title.search:(circadian hepatic zebrafish) OR (graphene aerogels)", "per-page": 200}
    titles = {w["title"] for w in client.get(url, params=params).json()["results"]}
    assert titles == {CIRCADIAN, GRAPHENE}
    phrase = client.get(url, params={"filter": 'title.search:"graphene aerogels" NOT rapid'}).json()
    assert phrase["meta"]["count"] == 0


async def _client(sim: SimulatorServer, http: httpx.AsyncClient, **kwargs: Any) -> OpenAlexClient:
    settings = Settings(
        openalex_url=sim.url_for("openalex"),
        openalex_limits=SourceLimits(rate=1000, burst=1000, concurrency=20),
        http_attempts=1,
    )
    return OpenAlexClient(openalex_transport(http, settings, LocalRateLimiter()), **kwargs)


async def test_concurrent_title_searches_share_one_request_and_a_miss_asks_alone(
    sim: SimulatorServer,
) -> None:
    sent: list[httpx.Request] = []

    async def record(request: httpx.Request) -> None:
        sent.append(request)

    async with httpx.AsyncClient(event_hooks={"request": [record]}) as http:
        client = await _client(sim, http, title_batch=25, coalesce_window=0.01)
        circadian, graphene, invented = await asyncio.gather(
            client.search(title=CIRCADIAN, author="Okonkwo", per_page=5),
            client.search(title=GRAPHENE, author="Liu", per_page=5),
            client.search(title=INVENTED, author="Okonkwo", per_page=5),
        )
    assert [r.record.title for r in circadian] == [CIRCADIAN]
    assert [r.record.title for r in graphene] == [GRAPHENE]
    # Issue 23: the batch was complete and held nothing the invented title's own search could
    # return, so it is proved absent without a search of its own.
    assert invented == []
    filters = [r.url.params["filter"] for r in sent]
    assert filters[0].startswith("title.search:(") and filters[0].count(" OR ") == 2
    assert sent[0].url.params["per-page"] == "200"
    assert len(sent) == 1
    assert client.transport.stats.extra["title_batch_hits"] == 2
    assert client.transport.stats.extra["title_batch_absent"] == 1


async def test_without_absence_a_miss_asks_alone(sim: SimulatorServer) -> None:
    sent: list[httpx.Request] = []

    async def record(request: httpx.Request) -> None:
        sent.append(request)

    async with httpx.AsyncClient(event_hooks={"request": [record]}) as http:
        client = await _client(sim, http, title_batch=25, coalesce_window=0.01, title_absence=False)
        _, _, invented = await asyncio.gather(
            client.search(title=CIRCADIAN, author="Okonkwo", per_page=5),
            client.search(title=GRAPHENE, author="Liu", per_page=5),
            client.search(title=INVENTED, author="Okonkwo", per_page=5),
        )
    assert invented == []  # the batch's miss was asked as its own search, which found nothing
    # The miss: the single search as before, title and author.
    filters = [r.url.params["filter"] for r in sent]
    assert filters[1:] == [f"title.search:{INVENTED},raw_author_name.search:Okonkwo"]
    assert client.transport.stats.extra["title_batch_misses"] == 1


async def test_an_incomplete_batch_proves_nothing(
    sim: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One work per page: OpenAlex counts more than came back, so the invented title is asked alone.
    monkeypatch.setattr("aletheia.sources.openalex_titles.MAX_RESULTS", 1)
    async with httpx.AsyncClient() as http:
        client = await _client(sim, http, title_batch=25, coalesce_window=0.01)
        found = await asyncio.gather(
            client.search(title=CIRCADIAN, author="Okonkwo", per_page=5),
            client.search(title=GRAPHENE, author="Liu", per_page=5),
            client.search(title=INVENTED, author="Okonkwo", per_page=5),
        )
    assert found[2] == []
    assert "title_batch_absent" not in client.transport.stats.extra
    assert client.transport.stats.extra["title_batch_misses"] >= 1


async def test_a_batch_finding_matches_the_single_search(sim: SimulatorServer) -> None:
    async with httpx.AsyncClient() as http:
        batched = await _client(sim, http, title_batch=25, coalesce_window=0.01)
        single = await _client(sim, http, title_batch=0)
        together = await asyncio.gather(
            batched.search(title=CIRCADIAN, author="Okonkwo", per_page=5),
            batched.search(title=GRAPHENE, author="Liu", per_page=5),
        )
        alone = [
            await single.search(title=CIRCADIAN, author="Okonkwo", per_page=5),
            await single.search(title=GRAPHENE, author="Liu", per_page=5),
        ]
    assert [[_work(r.raw) for r in rs] for rs in together] == [[_work(r.raw) for r in rs] for rs in alone]


def _work(raw: Mapping[str, Any]) -> dict[str, Any]:
    # The same work, but a batch's relevance score is the batch's, not the single search's.
    return {k: v for k, v in raw.items() if k != "relevance_score"}


@pytest.mark.parametrize("title_batch", [0, 1])
async def test_title_batching_can_be_turned_off(sim: SimulatorServer, title_batch: int) -> None:
    async with httpx.AsyncClient() as http:
        client = await _client(sim, http, title_batch=title_batch, coalesce_window=0.01)
        await asyncio.gather(
            client.search(title=CIRCADIAN, author="Okonkwo"), client.search(title=GRAPHENE, author="Liu")
        )
    assert client.transport.stats.requests == 2
    assert "title_batch_hits" not in client.transport.stats.extra
