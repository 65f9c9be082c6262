"""Which waiting request a source serves first (`transport.precedence`, `PriorityGate`): the kind's
priority, then the reference with the most work left at the slow sources, then the oldest
reference, then arrival; every waiter is admitted once, never more than the limit at a time."""

from __future__ import annotations

import asyncio
import math

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia.config.settings import SourceLimits
from aletheia.pipeline.evidence.gather import later_work
from aletheia.sources.batching import Coalescer
from aletheia.sources.transport import precedence
from aletheia.sources.transport.polite import PoliteTransport
from aletheia.sources.transport.politeness import PriorityGate
from aletheia.sources.transport.ratelimit import LocalRateLimiter


def test_the_order_key_reads_the_reference_and_its_later_work() -> None:
    assert precedence.order_key() == (0.0, math.inf)  # no reference: after every reference's
    with precedence.reference_started(5.0):
        assert precedence.order_key() == (0.0, 5.0)
        with precedence.reference_started(9.0):  # a reference's own steps keep its age
            assert precedence.order_key() == (0.0, 5.0)
        with precedence.later_work(2.5):
            assert precedence.order_key() == (-2.5, 5.0)
        assert precedence.order_key() == (0.0, 5.0)
    assert precedence.order_key() == (0.0, math.inf)
    with pytest.raises(ValueError), precedence.later_work(-1.0):
        pass


async def test_the_marks_reach_the_tasks_a_reference_starts() -> None:
    async def key() -> tuple[float, float]:
        await asyncio.sleep(0)
        return precedence.order_key()

    with precedence.reference_started(3.0), precedence.later_work(1.5):
        keys = await asyncio.gather(key(), key())
    assert list(keys) == [(-1.5, 3.0), (-1.5, 3.0)]


def test_later_work_sums_the_stages_after_each() -> None:
    # OpenAlex, Semantic Scholar, arXiv + DBLP, Crossref: each stage leaves what follows it.
    stages = [[0.1], [1.0], [3.0, 2.0], [1 / 3]]
    assert later_work(stages) == pytest.approx([1.0 + 5.0 + 1 / 3, 5.0 + 1 / 3, 1 / 3, 0.0])
    assert later_work([]) == []
    assert later_work([[], [2.0]]) == [2.0, 0.0]


async def _admission_order(limit: int, waiters: list[tuple[int, tuple[float, float]]]) -> list[int]:
    """Hold the gate full, queue `waiters` (priority, order) in this order, then let each holder go
    as soon as it is admitted; the order they were admitted in (their indexes)."""
    gate = PriorityGate(limit)
    for _ in range(limit):
        await gate.acquire(0)
    admitted: list[int] = []
    holding = 0
    most = 0

    async def wait(index: int, priority: int, order: tuple[float, float]) -> None:
        nonlocal holding, most
        await gate.acquire(priority, order)
        holding += 1
        most = max(most, holding)
        admitted.append(index)
        await asyncio.sleep(0)
        holding -= 1
        gate.release()

    tasks = [asyncio.create_task(wait(i, p, o)) for i, (p, o) in enumerate(waiters)]
    await asyncio.sleep(0)  # every waiter queued before the first place frees
    for _ in range(limit):
        gate.release()
    await asyncio.gather(*tasks)
    assert most <= limit
    return admitted


async def test_more_later_work_goes_first_then_the_older_reference() -> None:
    waiters = [
        (3, (-0.33, 1.0)),  # a search with only Crossref after it, oldest reference
        (3, (-5.33, 4.0)),  # a search with arXiv and DBLP after it
        (3, (-5.33, 2.0)),  # the same later work, an older reference
        (0, (0.0, 9.0)),  # a batch: its kind still goes first
        (3, (0.0, math.inf)),  # no reference
    ]
    assert await _admission_order(1, waiters) == [3, 2, 1, 0, 4]


@settings(max_examples=60, deadline=None)
@given(
    limit=st.integers(1, 3),
    waiters=st.lists(
        st.tuples(
            st.sampled_from([0, 1, 3]),
            st.tuples(st.sampled_from([0.0, -0.33, -2.33, -5.33]), st.sampled_from([1.0, 2.0, math.inf])),
        ),
        max_size=12,
    ),
)
def test_every_waiter_is_admitted_once_in_its_order(
    limit: int, waiters: list[tuple[int, tuple[float, float]]]
) -> None:
    admitted = asyncio.run(_admission_order(limit, waiters))
    assert sorted(admitted) == list(range(len(waiters)))  # each once
    # All queued before any place freed: admitted by (priority, order, arrival).
    assert admitted == sorted(range(len(waiters)), key=lambda i: (waiters[i][0], waiters[i][1], i))


async def test_a_source_serves_the_reference_with_more_later_work_first() -> None:
    # One request at a time: the first holds the source while the others queue at its gate.
    sent: list[str] = []
    first_in = asyncio.Event()
    release = asyncio.Event()

    async def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.params["q"])
        if request.url.params["q"] == "first":
            first_in.set()
            await release.wait()
        return httpx.Response(200, json={})

    limits = SourceLimits(rate=1000, burst=1000, concurrency=1)
    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as http:
        transport = PoliteTransport(
            "dblp", http, base_url="https://dblp.example.org", limits=limits, limiter=LocalRateLimiter()
        )

        async def search(query: str, started: float, later: float) -> None:
            with precedence.reference_started(started), precedence.later_work(later):
                await transport.get_json("/search", params={"q": query}, kind="search")

        first = asyncio.create_task(search("first", 0.0, 0.0))
        await first_in.wait()
        others = [
            asyncio.create_task(search("crossref-left", 1.0, 0.33)),
            asyncio.create_task(search("dblp-left-young", 3.0, 2.33)),
            asyncio.create_task(search("dblp-left-old", 2.0, 2.33)),
        ]
        await asyncio.sleep(0.01)
        release.set()
        await asyncio.gather(first, *others)
    assert sent == ["first", "dblp-left-old", "dblp-left-young", "crossref-left"]


async def test_a_batch_waits_as_its_most_urgent_caller_would() -> None:
    seen: list[tuple[float, float]] = []

    async def fetch(keys: list[str]) -> dict[str, str | None]:
        seen.append(precedence.order_key())
        return {key: key.upper() for key in keys}

    coalescer: Coalescer[str, str] = Coalescer(fetch, max_batch=10, window=0.01)

    async def lookup(key: str, started: float, later: float) -> str | None:
        with precedence.reference_started(started), precedence.later_work(later):
            return await coalescer.get(key)

    answers = await asyncio.gather(
        lookup("a", 1.0, 0.33),  # the oldest, little left after it
        lookup("b", 4.0, 5.33),  # arXiv and DBLP left: the most urgent
        lookup("c", 2.0, 2.33),
        lookup("b", 3.0, 5.33),  # a second caller of b, older: b's place is its
    )
    assert list(answers) == ["A", "B", "C", "B"]
    assert seen == [(-5.33, 3.0)]
    # Outside every reference, a batch of unmarked callers keeps the unmarked place.
    assert await coalescer.get("d") == "D"
    assert seen[-1] == (0.0, math.inf)
