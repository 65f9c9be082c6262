"""The coalescer: many single lookups, few batch calls."""

from __future__ import annotations

import asyncio

import pytest

from aletheia.sources.batching import Coalescer


class Batches:
    """A batch endpoint that answers `key.upper()` for every key not in `missing`."""

    def __init__(self, *, missing: frozenset[str] = frozenset(), delay: float = 0.0) -> None:
        self.calls: list[list[str]] = []
        self.missing = missing
        self.delay = delay
        self.failure: Exception | None = None

    async def __call__(self, keys: list[str]) -> dict[str, str | None]:
        self.calls.append(keys)
        await asyncio.sleep(self.delay)
        if self.failure is not None:
            raise self.failure
        return {key: key.upper() for key in keys if key not in self.missing}


async def test_120_concurrent_lookups_make_3_batch_calls() -> None:
    batches = Batches()
    coalescer = Coalescer(batches, max_batch=50, window=0.05)
    keys = [f"10.1/{i}" for i in range(120)]
    results = await asyncio.gather(*(coalescer.get(key) for key in keys))
    assert results == [key.upper() for key in keys]
    assert [len(call) for call in batches.calls] == [50, 50, 20]
    assert sorted(key for call in batches.calls for key in call) == sorted(keys)


async def test_a_lone_lookup_waits_at_most_the_window() -> None:
    batches = Batches()
    coalescer = Coalescer(batches, max_batch=50, window=0.03)
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await coalescer.get("a") == "A"
    elapsed = loop.time() - started
    assert 0.02 <= elapsed < 0.03 + 0.1  # the window, plus scheduling slack on a busy machine
    assert batches.calls == [["a"]]


async def test_lookups_arriving_within_the_window_share_a_call() -> None:
    batches = Batches()
    coalescer = Coalescer(batches, max_batch=50, window=0.05)

    async def later(key: str, delay: float) -> str | None:
        await asyncio.sleep(delay)
        return await coalescer.get(key)

    assert list(await asyncio.gather(later("a", 0), later("b", 0.01))) == ["A", "B"]
    assert batches.calls == [["a", "b"]]


async def test_duplicate_keys_share_one_slot() -> None:
    batches = Batches()
    coalescer = Coalescer(batches, max_batch=2, window=0.05)
    results = await asyncio.gather(*(coalescer.get(key) for key in ["a", "a", "a", "b"]))
    assert results == ["A", "A", "A", "B"]
    assert batches.calls == [["a", "b"]]  # three "a" did not fill the batch of two


async def test_a_key_already_in_flight_is_not_asked_again() -> None:
    batches = Batches(delay=0.05)
    coalescer = Coalescer(batches, max_batch=1, window=0.01)
    first = asyncio.ensure_future(coalescer.get("a"))
    await asyncio.sleep(0.01)  # the batch for "a" is out, not back
    assert batches.calls == [["a"]]
    assert list(await asyncio.gather(first, coalescer.get("a"))) == ["A", "A"]
    assert batches.calls == [["a"]]


async def test_keys_the_batch_omits_resolve_to_none() -> None:
    batches = Batches(missing=frozenset({"b"}))
    coalescer = Coalescer(batches, max_batch=10, window=0.01)
    assert list(await asyncio.gather(coalescer.get("a"), coalescer.get("b"))) == ["A", None]


async def test_a_failed_batch_fails_every_waiter_and_the_next_batch_starts_fresh() -> None:
    batches = Batches()
    batches.failure = RuntimeError("503 from the batch endpoint")
    coalescer = Coalescer(batches, max_batch=10, window=0.01)
    results = await asyncio.gather(*(coalescer.get(k) for k in "abc"), return_exceptions=True)
    assert all(isinstance(r, RuntimeError) and "503" in str(r) for r in results)
    batches.failure = None
    assert await coalescer.get("a") == "A"
    assert len(batches.calls) == 2


async def test_one_waiter_giving_up_does_not_cancel_the_others() -> None:
    batches = Batches(delay=0.02)
    coalescer = Coalescer(batches, max_batch=10, window=0.01)
    impatient = asyncio.ensure_future(coalescer.get("a"))
    patient = asyncio.ensure_future(coalescer.get("a"))
    await asyncio.sleep(0.015)
    impatient.cancel()
    assert await patient == "A"
    with pytest.raises(asyncio.CancelledError):
        await impatient


@pytest.mark.parametrize(("max_batch", "window"), [(0, 0.1), (1, -0.1)])
def test_nonsense_settings_are_refused(max_batch: int, window: float) -> None:
    with pytest.raises(ValueError, match="must"):
        Coalescer(Batches(), max_batch=max_batch, window=window)


async def test_a_stream_of_lookups_closer_than_the_window_fills_one_batch() -> None:
    # Issue 11: the window is a quiet gap, restarted by each new key (up to `max_window`), so the
    # lookups of many references arriving a little apart go out together, not a few at a time.
    batches = Batches()
    coalescer = Coalescer(batches, max_batch=50, window=0.2, max_window=5.0)

    async def staggered(i: int) -> str | None:
        await asyncio.sleep(0.03 * i)  # 10 keys over 0.27 s: longer than one window
        return await coalescer.get(f"k{i}")

    assert await asyncio.gather(*(staggered(i) for i in range(10))) == [f"K{i}" for i in range(10)]
    assert batches.calls == [[f"k{i}" for i in range(10)]]


async def test_a_stream_never_holds_a_lookup_longer_than_max_window() -> None:
    batches = Batches()
    coalescer = Coalescer(batches, max_batch=50, window=0.2, max_window=0.2)  # = a fixed window

    async def staggered(i: int) -> str | None:
        await asyncio.sleep(0.1 * i)  # 0.0 ... 0.5 s: more than two fixed windows
        return await coalescer.get(f"k{i}")

    await asyncio.gather(*(staggered(i) for i in range(6)))
    assert len(batches.calls) >= 2
    assert coalescer.max_window == 0.2
    assert Coalescer(batches, max_batch=5, window=0.02).max_window == pytest.approx(0.2)  # 10 windows
