"""Request counters per reference (`item_stats`): every counter a source's stats take is also the
current reference's, so a queued job's counters are the sum of its references' and add up to what
the gateway counted, however the references' requests interleave."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia.config.settings import SourceLimits
from aletheia.sources.base import SourceStats
from aletheia.sources.cache import SearchMemo
from aletheia.sources.transport import item_stats
from aletheia.sources.transport.figures import request_figures, requests_by_kind
from aletheia.sources.transport.item_stats import COUNTERS, count, count_extra, counted
from aletheia.sources.transport.polite import PoliteTransport
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from tests.unit.fake_clock import FakeClock

T = TypeVar("T")
SOURCES = ("crossref", "openalex", "semantic_scholar")
EXTRAS = ("requests_lookup", "requests_search", "requests_batch", "search_memo_hits")


def figures(st_: SourceStats) -> tuple[Any, ...]:
    return (*(getattr(st_, c) for c in COUNTERS), dict(sorted((k, n) for k, n in st_.extra.items() if n)))


def test_outside_a_reference_only_the_gateway_counts() -> None:
    stats = SourceStats(source="crossref")
    count(stats, "requests")
    count_extra(stats, "requests_lookup", 2)
    assert (stats.requests, stats.extra) == (1, {"requests_lookup": 2})


async def test_a_reference_gets_what_it_counted_and_unnamed_stats_stay_the_gateways() -> None:
    named, unnamed = SourceStats(source="openalex"), SourceStats()

    async def verify() -> str:
        count(named, "requests")
        count_extra(named, "requests_search")
        count(named, "cache_hits", 3)
        count(unnamed, "errors")
        return "verdict"

    result, mine = await counted(verify())
    assert result == "verdict"
    assert set(mine) == {"openalex"}
    assert figures(mine["openalex"]) == (1, 0, 0, 3, {"requests_search": 1})
    assert requests_by_kind(mine["openalex"]) == {"lookup": 0, "batch": 0, "search": 1}
    assert (unnamed.errors, named.requests) == (1, 1)
    count(named, "requests")  # after the reference: the gateway's only
    assert mine["openalex"].requests == 1 and named.requests == 2


async def test_the_counters_are_reset_when_the_reference_fails() -> None:
    stats = SourceStats(source="crossref")

    async def boom() -> None:
        count(stats, "errors")
        raise RuntimeError("source down")

    with pytest.raises(RuntimeError):
        await counted(boom())
    count(stats, "requests")
    _, mine = await counted(asyncio.sleep(0))
    assert mine == {} and (stats.errors, stats.requests) == (1, 1)


def test_counted_sets_its_dict_on_the_loop_that_runs_it() -> None:
    """The worker hands the coroutine to another thread's loop (`LoopThread.run`): the dict must be
    set inside the coroutine, not in the caller's context."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    stats = SourceStats(source="crossref")

    async def verify(n: int) -> int:
        await asyncio.sleep(0)
        count(stats, "requests", n)
        return n

    def run(coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, loop).result(5)

    try:
        one = run(counted(verify(1)))
        two = run(counted(verify(2)))
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
    assert one[0] == 1 and one[1]["crossref"].requests == 1
    assert two[0] == 2 and two[1]["crossref"].requests == 2
    assert stats.requests == 3


def test_stored_counters_round_trip_and_sum() -> None:
    a = {"crossref": SourceStats(requests=2, errors=1, extra={"requests_lookup": 2}, source="crossref")}
    b = {
        "crossref": SourceStats(requests=1, rate_limited=1, extra={"requests_search": 1}),
        "openalex": SourceStats(cache_hits=4, extra={"search_memo_hits": 1}),
    }
    stored = [item_stats.as_json(a), item_stats.as_json(b)]
    counters = {"requests": 2, "errors": 1, "rate_limited": 0, "cache_hits": 0}
    assert stored[0] == {"crossref": {**counters, "extra": {"requests_lookup": 2}}}
    totals = item_stats.summed(stored)
    assert figures(totals["crossref"]) == (3, 1, 1, 0, {"requests_lookup": 2, "requests_search": 1})
    assert figures(totals["openalex"]) == (0, 0, 0, 4, {"search_memo_hits": 1})
    assert request_figures(totals, 2)["total"] == 3


# --- the property: however the references interleave, their counters add up to the gateway's -----


@dataclass(frozen=True)
class Step:
    source: int
    counter: str  # one of COUNTERS, or an extra's key
    n: int
    in_child: bool  # counted by a task the reference started (a gathered lookup)
    yields: int  # how often it gives the loop away first


steps = st.builds(
    Step,
    source=st.integers(0, len(SOURCES) - 1),
    counter=st.sampled_from((*COUNTERS, *EXTRAS)),
    n=st.integers(1, 3),
    in_child=st.booleans(),
    yields=st.integers(0, 3),
)


PerSource = dict[str, SourceStats]


async def _interleaved(references: list[list[Step]]) -> tuple[PerSource, list[PerSource]]:
    gateway = {name: SourceStats(source=name) for name in SOURCES}

    async def step(s: Step) -> None:
        for _ in range(s.yields):
            await asyncio.sleep(0)
        stats = gateway[SOURCES[s.source]]
        if s.counter in COUNTERS:
            count(stats, s.counter, s.n)
        else:
            count_extra(stats, s.counter, s.n)

    async def verify(plan: list[Step]) -> None:
        children = [asyncio.create_task(step(s)) for s in plan if s.in_child]
        for s in plan:
            if not s.in_child:
                await step(s)
        await asyncio.gather(*children)

    async def one(plan: list[Step]) -> dict[str, SourceStats]:
        waited: Awaitable[tuple[None, dict[str, SourceStats]]] = counted(verify(plan))
        return (await waited)[1]

    per_reference = await asyncio.gather(*(one(plan) for plan in references))
    return gateway, list(per_reference)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(steps, max_size=8), min_size=1, max_size=6))
def test_the_references_counters_sum_to_the_gateways(references: list[list[Step]]) -> None:
    gateway, per_reference = asyncio.run(_interleaved(references))
    totals = item_stats.summed(item_stats.as_json(mine) for mine in per_reference)
    for name, stats in gateway.items():
        assert figures(totals.get(name, SourceStats())) == figures(stats)
    # ... and each reference holds its own steps, none of another's.
    for plan, mine in zip(references, per_reference, strict=True):
        for i, name in enumerate(SOURCES):
            wanted: dict[str, int] = {}
            for s in plan:
                if s.source == i:
                    wanted[s.counter] = wanted.get(s.counter, 0) + s.n
            got = mine.get(name, SourceStats())
            assert {c: getattr(got, c) for c in COUNTERS} == {c: wanted.get(c, 0) for c in COUNTERS}
            assert got.extra == {k: n for k, n in wanted.items() if k not in COUNTERS}
    assert request_figures(totals, len(references))["total"] == sum(s.requests for s in gateway.values())


# --- the counter sites: a real transport and the search memo count for the reference too ----------


async def test_a_transports_requests_429s_and_errors_are_the_reference_that_sent_them() -> None:
    clock = FakeClock()
    answers = {"/works/a": [httpx.Response(429, headers={"Retry-After": "1"}), httpx.Response(200, json={})]}

    def answer(request: httpx.Request) -> httpx.Response:
        queue = answers.get(request.url.path)
        return queue.pop(0) if queue else httpx.Response(200, json={"ok": True})

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as http:
        transport = PoliteTransport(
            "crossref",
            http,
            base_url="https://api.example.org",
            limits=SourceLimits(rate=100, burst=100, concurrency=4, search_rate=100),
            limiter=LocalRateLimiter(clock=clock, sleep=clock.sleep),
            sleep=clock.sleep,
        )
        memo = SearchMemo("crossref", None, transport.stats)

        async def search() -> Any:
            return await transport.get_json("/works", params={"query": "x"}, kind="search")

        async def first() -> None:
            await transport.get_json("/works/a")  # a 429, then the answer
            await memo.get("/works", {"query": "x"}, search, lambda raw, _at, _cached: raw)

        async def second() -> None:
            await asyncio.sleep(0)
            await transport.get_json("/works/b")
            await memo.get("/works", {"query": "x"}, search, lambda raw, _at, _cached: raw)

        (_, a), (_, b) = await asyncio.gather(counted(first()), counted(second()))
    total = transport.stats
    assert (total.requests, total.rate_limited, total.errors) == (4, 1, 1)
    mine_a, mine_b = a["crossref"], b["crossref"]
    assert mine_a.rate_limited == 1 and mine_a.errors == 1 and mine_b.rate_limited == 0
    assert mine_a.extra.get("search_memo_hits", 0) + mine_b.extra.get("search_memo_hits", 0) == 1
    summed = item_stats.summed([item_stats.as_json(a), item_stats.as_json(b)])
    assert figures(summed["crossref"]) == figures(total)
    assert requests_by_kind(mine_a)["lookup"] == 2 and requests_by_kind(mine_b)["lookup"] == 1
