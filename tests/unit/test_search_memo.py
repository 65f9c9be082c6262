"""SearchMemo: one request per distinct search, in flight or answered, and the raw cache for a
second run (issue 11)."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import datetime
from typing import Any

from aletheia.sources.base import SourceStats
from aletheia.sources.cache import MemoryRawCache, SearchMemo, search_key


def _parse(payload: Any, fetched_at: datetime, from_cache: bool) -> tuple[Any, bool]:
    return payload, from_cache


def test_search_key_keeps_case_and_leaves_out_the_caller() -> None:
    assert search_key("/works", {"q": "a NOT b", "mailto": "x@y"}) == search_key("/works", {"q": "a NOT b"})
    assert search_key("/works", {"q": "a NOT b"}) != search_key("/works", {"q": "a not b"})
    keyed = search_key("/works", {"q": "a", "api_key": "k1"})
    assert keyed == search_key("/works", {"q": "a", "api_key": "k2"})


def test_concurrent_and_repeated_searches_make_one_request() -> None:
    calls = 0

    async def fetch() -> dict[str, Any]:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.01)
        return {"results": [1]}

    async def main() -> list[Any]:
        memo = SearchMemo("openalex", None, SourceStats())
        first = await asyncio.gather(*(memo.get("/works", {"q": "t"}, fetch, _parse) for _ in range(5)))
        again = await memo.get("/works", {"q": "t"}, fetch, _parse)
        return [*first, again]

    answers = asyncio.run(main())
    assert calls == 1
    assert all(a == ({"results": [1]}, False) for a in answers)


def test_a_failed_search_is_not_remembered() -> None:
    calls = 0

    async def fetch() -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("boom")
        return {"results": []}

    async def main() -> Any:
        memo = SearchMemo("openalex", None, SourceStats())
        with contextlib.suppress(RuntimeError):
            await memo.get("/works", {"q": "t"}, fetch, _parse)
        return await memo.get("/works", {"q": "t"}, fetch, _parse)

    assert asyncio.run(main()) == ({"results": []}, False)
    assert calls == 2


def test_the_raw_cache_answers_a_second_run_negative_entries_included() -> None:
    cache = MemoryRawCache(ttl_seconds=60, negative_ttl_seconds=60)
    calls = 0

    async def fetch() -> Any:
        nonlocal calls
        calls += 1
        return {"results": []}

    async def run_once() -> Any:
        stats = SourceStats()
        memo = SearchMemo("openalex", cache, stats)  # a new process: an empty memo
        answer = await memo.get("/works", {"q": "t"}, fetch, _parse, found=lambda p: bool(p and p["results"]))
        return answer, stats.cache_hits

    assert asyncio.run(run_once()) == (({"results": []}, False), 0)
    # A "not found" answer is a negative entry: parsed again as None (nothing found).
    assert asyncio.run(run_once()) == ((None, True), 1)
    assert calls == 1
