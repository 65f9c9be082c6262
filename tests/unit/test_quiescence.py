"""Batches sent when nothing else is in flight (`Quiescence`): once every marked task (a reference
being verified) waits on a key not yet sent, the pending batches go at once instead of waiting out
their window; while one marked task is still busy, they keep filling."""

from __future__ import annotations

import asyncio
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia.sources.batching import Coalescer, Quiescence

# A window no test waits out: a send before it is the quiescence rule's doing.
LONG = 30.0


class Batches:
    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    async def __call__(self, keys: list[str]) -> dict[str, str | None]:
        self.calls.append(list(keys))
        await asyncio.sleep(0)
        return {key: key.upper() for key in keys}


def _coalescer(batches: Batches, max_batch: int = 50) -> Coalescer[str, str]:
    return Coalescer(batches, max_batch=max_batch, window=LONG)


async def test_a_lone_marked_lookup_goes_at_once() -> None:
    batches, quiescence = Batches(), Quiescence()
    coalescer = _coalescer(batches)
    loop = asyncio.get_running_loop()
    started = loop.time()
    with quiescence.running():
        assert await coalescer.get("a") == "A"
    assert loop.time() - started < 1.0
    assert batches.calls == [["a"]]
    assert quiescence.flushes == 1


async def test_an_unmarked_lookup_still_waits_for_its_window() -> None:
    batches = Batches()
    coalescer = Coalescer(batches, max_batch=50, window=0.2)
    Quiescence()  # a quiescence nobody is marked in changes nothing
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await coalescer.get("a") == "A"
    assert loop.time() - started >= 0.15


async def test_a_busy_marked_task_holds_the_batch_until_it_parks_too() -> None:
    batches, quiescence = Batches(), Quiescence()
    coalescer = _coalescer(batches)
    busy = asyncio.Event()

    async def early() -> str | None:
        with quiescence.running():
            return await coalescer.get("a")

    async def late() -> str | None:
        with quiescence.running():
            await busy.wait()  # a request of its own, say
            return await coalescer.get("b")

    tasks = [asyncio.ensure_future(early()), asyncio.ensure_future(late())]
    await asyncio.sleep(0.05)
    assert batches.calls == []  # "a" waits: the other task may still bring a key
    busy.set()
    assert await asyncio.gather(*tasks) == ["A", "B"]
    assert batches.calls == [["a", "b"]]


async def test_a_task_that_ends_releases_the_parked_ones() -> None:
    batches, quiescence = Batches(), Quiescence()
    coalescer = _coalescer(batches)
    done = asyncio.Event()

    async def parked() -> str | None:
        with quiescence.running():
            return await coalescer.get("a")

    async def finishing() -> None:
        with quiescence.running():
            await done.wait()  # ends without asking the coalescer

    tasks = [asyncio.ensure_future(parked()), asyncio.ensure_future(finishing())]
    await asyncio.sleep(0.05)
    assert batches.calls == []
    done.set()
    assert (await asyncio.gather(*tasks))[0] == "A"
    assert batches.calls == [["a"]]


async def test_a_task_marked_on_another_thread_counts_as_running() -> None:
    # The engine's item steps run in threads: the step's rows are written there, before and after
    # its coroutine runs on the loop; it counts as running all that while.
    batches, quiescence = Batches(), Quiescence()
    coalescer = _coalescer(batches)
    entered, leave = threading.Event(), threading.Event()

    def item_step() -> None:
        with quiescence.running():
            entered.set()
            leave.wait(5)

    thread = threading.Thread(target=item_step)
    thread.start()
    entered.wait(5)

    async def parked() -> str | None:
        with quiescence.running():
            return await coalescer.get("a")

    task = asyncio.ensure_future(parked())
    await asyncio.sleep(0.05)
    assert batches.calls == []  # the thread's step may still ask
    leave.set()
    await asyncio.to_thread(thread.join, 5)
    assert await asyncio.wait_for(task, 5) == "A"
    assert batches.calls == [["a"]]


async def test_a_waiter_parked_on_a_key_in_flight_is_not_counted_as_parked() -> None:
    # A key already sent is a request under way: its waiter will move on, so the other pending
    # batches keep waiting for it.
    release = asyncio.Event()
    calls: list[list[str]] = []

    async def slow(keys: list[str]) -> dict[str, str | None]:
        calls.append(list(keys))
        await release.wait()
        return {key: key.upper() for key in keys}

    quiescence = Quiescence()
    in_flight = Coalescer(slow, max_batch=1, window=LONG)  # "x" goes at once: a full batch
    other = _coalescer(Batches())
    other_calls = other._fetch_batch.calls  # type: ignore[attr-defined]

    async def on_flight() -> str | None:
        with quiescence.running():
            return await in_flight.get("x")

    async def pending() -> str | None:
        with quiescence.running():
            return await other.get("a")

    tasks = [asyncio.ensure_future(on_flight()), asyncio.ensure_future(pending())]
    await asyncio.sleep(0.05)
    assert calls == [["x"]] and other_calls == []
    release.set()
    assert await asyncio.gather(*tasks) == ["X", "A"]


@settings(max_examples=25, deadline=None)
@given(
    steps=st.lists(
        st.lists(st.sampled_from([0.0, 0.001, 0.003]), min_size=1, max_size=4), min_size=1, max_size=6
    )
)
def test_marked_tasks_never_wait_out_the_window(steps: list[list[float]]) -> None:
    """Any mix of marked tasks, each asking a few keys in turn after a short delay of its own: all
    answered, every key asked once, and no batch waits for the (30 s) window."""

    async def scenario() -> tuple[list[list[str | None]], list[list[str]], float]:
        batches, quiescence = Batches(), Quiescence()
        coalescer = _coalescer(batches, max_batch=3)

        async def task(i: int, delays: list[float]) -> list[str | None]:
            with quiescence.running():
                out = []
                for j, delay in enumerate(delays):
                    await asyncio.sleep(delay)
                    out.append(await coalescer.get(f"t{i}k{j}"))
                return out

        loop = asyncio.get_running_loop()
        started = loop.time()
        answers = await asyncio.wait_for(
            asyncio.gather(*(task(i, d) for i, d in enumerate(steps))), timeout=LONG / 3
        )
        return answers, batches.calls, loop.time() - started

    answers, calls, elapsed = asyncio.run(scenario())
    assert answers == [[f"T{i}K{j}" for j in range(len(d))] for i, d in enumerate(steps)]
    asked = sorted(key for call in calls for key in call)
    assert asked == sorted(f"t{i}k{j}" for i, d in enumerate(steps) for j in range(len(d)))
    assert all(len(call) <= 3 for call in calls)
    assert elapsed < 2.0


async def test_tasks_in_step_share_every_batch() -> None:
    # Tasks that reach each step together (the start of a run) send one batch per step.
    batches, quiescence = Batches(), Quiescence()
    coalescer = _coalescer(batches)

    async def task(i: int) -> list[str | None]:
        with quiescence.running():
            return [await coalescer.get(f"t{i}s{step}") for step in range(3)]

    await asyncio.gather(*(task(i) for i in range(5)))
    assert [sorted(call) for call in batches.calls] == [
        sorted(f"t{i}s{step}" for i in range(5)) for step in range(3)
    ]
