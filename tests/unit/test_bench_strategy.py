"""The request strategy changes made for issue 3: coalescing behind a slow limit, Crossref DOI
batches, priority of batches over searches, and search text that is never a boolean query."""

from __future__ import annotations

import asyncio

import httpx

from aletheia.config import Settings
from aletheia.sources.batching import Coalescer
from aletheia.sources.crossref import CrossrefClient, crossref_transport
from aletheia.sources.openalex import _filter_text
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, universe_from_records
from aletheia.sources.simulator.search import parse_query
from aletheia.sources.transport.politeness import PriorityGate
from aletheia.sources.transport.ratelimit import LocalRateLimiter


async def test_a_partial_batch_waits_for_the_batch_in_flight_and_then_goes_whole() -> None:
    calls: list[list[str]] = []
    release = asyncio.Event()

    async def fetch(keys: list[str]) -> dict[str, str | None]:
        calls.append(keys)
        if len(calls) == 1:
            await release.wait()
        return {k: k.upper() for k in keys}

    coalescer: Coalescer[str, str] = Coalescer(fetch, max_batch=50, window=0.005)
    first = asyncio.create_task(coalescer.get("a"))
    await asyncio.sleep(0.02)  # "a" is in flight and held there
    later = [asyncio.create_task(coalescer.get(k)) for k in ("b", "c", "d")]
    await asyncio.sleep(0.03)  # three windows pass: without the hold these would be three batches
    assert calls == [["a"]]
    release.set()
    assert await first == "A"
    assert [await t for t in later] == ["B", "C", "D"]
    assert calls == [["a"], ["b", "c", "d"]]


async def test_full_batches_go_even_while_one_is_in_flight() -> None:
    calls: list[list[int]] = []

    async def fetch(keys: list[int]) -> dict[int, int | None]:
        calls.append(keys)
        await asyncio.sleep(0.01)
        return {k: k for k in keys}

    coalescer: Coalescer[int, int] = Coalescer(fetch, max_batch=2, window=0.005)
    assert await asyncio.gather(*(coalescer.get(i) for i in range(5))) == [0, 1, 2, 3, 4]
    assert calls == [[0, 1], [2, 3], [4]]


async def test_the_priority_gate_admits_batches_before_searches() -> None:
    gate = PriorityGate(1)
    await gate.acquire(0)  # held
    order: list[str] = []

    async def wait(name: str, priority: int) -> None:
        await gate.acquire(priority)
        order.append(name)
        gate.release()

    waiters = [asyncio.create_task(wait("search", 3)), asyncio.create_task(wait("batch", 0))]
    await asyncio.sleep(0)
    gate.release()
    await asyncio.gather(*waiters)
    assert order == ["batch", "search"]


def test_a_title_is_never_sent_to_openalex_as_a_boolean_query() -> None:
    assert (
        _filter_text("To AND or NOT to AND, Missing Not at Random")
        == "To and or not to and Missing Not at Random"
    )


def test_lower_or_mixed_case_operators_are_words_in_the_simulator() -> None:
    assert "NOT" not in parse_query("Missing Not at Random", dialect="openalex").__repr__()


async def test_crossref_dois_are_asked_in_one_filter_query() -> None:
    works = [
        {"title": f"Tidal Work {i}", "doi": f"10.5555/tidal.{i}", "authors": [{"given": "A", "family": "B"}]}
        for i in range(3)
    ]
    with SimulatorServer(universe_from_records(works), SimulatorConfig.unlimited()) as sim:
        settings = Settings(crossref_url=sim.url_for("crossref"))
        async with httpx.AsyncClient() as http:
            client = CrossrefClient(
                crossref_transport(http, settings, LocalRateLimiter()), coalesce_window=0.01
            )
            dois = ["10.5555/tidal.0", "10.5555/tidal.2", "10.5555/absent.9"]
            records = await asyncio.gather(*(client.work_by_doi(d) for d in dois))
            batch = await client.works_by_dois(["10.5555/TIDAL.1", "10.5555/tidal.0"])
        stats = sim.source_stats("crossref")
    assert [r.record.title if r else None for r in records] == ["Tidal Work 0", "Tidal Work 2", None]
    assert batch["10.5555/TIDAL.1"] is not None and batch["10.5555/TIDAL.1"].record.doi == "10.5555/tidal.1"
    assert stats["by_kind"] == {"search": 2}  # two list queries, no single lookups
