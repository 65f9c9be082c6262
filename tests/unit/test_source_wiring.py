"""What every client shares: the transport built from settings (`transport_from_settings`) and
the single-record lookup through the raw cache (`cached_record`)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from aletheia.config.settings import Settings
from aletheia.core.records import SourceName, WorkRecord
from aletheia.sources.base import SourceParseError, SourceStats
from aletheia.sources.cache import MemoryRawCache, cached_record
from aletheia.sources.transport.breaker import CircuitBreaker
from aletheia.sources.transport.factory import transport_from_settings
from aletheia.sources.transport.ratelimit import LocalRateLimiter

SOURCE = SourceName.DBLP
URL = "https://dblp.example/rec/x.xml"


async def test_a_given_breaker_is_shared_and_otherwise_each_transport_has_its_own() -> None:
    settings = Settings(_env_file=None)
    shared = CircuitBreaker.from_settings(SOURCE.value, settings)
    async with httpx.AsyncClient() as http:
        with_shared = transport_from_settings(
            SOURCE, http, settings, LocalRateLimiter(), shared, base_url="https://dblp.example/"
        )
        own = transport_from_settings(
            SOURCE, http, settings, LocalRateLimiter(), base_url="https://x.example"
        )
        off = transport_from_settings(
            SOURCE,
            http,
            Settings(_env_file=None, offline=True),
            LocalRateLimiter(),
            base_url="https://x.example",
        )
    assert with_shared.breaker is shared
    assert own.breaker is not None and own.breaker is not shared
    assert with_shared.base_url == "https://dblp.example" and with_shared.enabled and not off.enabled
    assert with_shared.limits == settings.limits_for(SOURCE.value)


class Fetch:
    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.calls = 0

    async def __call__(self) -> Any:
        self.calls += 1
        return self.answers.pop(0)


def parse(raw: Any) -> WorkRecord | None:
    if raw == "not a record":
        raise SourceParseError(SOURCE.value, "unreadable")
    return None if raw == "empty" else WorkRecord(source=SOURCE, title=str(raw))


async def lookup(cache: MemoryRawCache, stats: SourceStats, fetch: Fetch) -> Any:
    return await cached_record(cache, SOURCE, "dblp:x", stats, fetch=fetch, parse=parse, url=URL)


def memory_cache() -> MemoryRawCache:
    return MemoryRawCache(ttl_seconds=60, negative_ttl_seconds=60)


async def test_a_record_is_fetched_once_then_read_from_the_cache() -> None:
    cache, stats, fetch = memory_cache(), SourceStats(), Fetch("Attention")
    fresh = await lookup(cache, stats, fetch)
    again = await lookup(cache, stats, fetch)
    assert fresh.record.title == "Attention" and fresh.raw == "Attention" and not fresh.from_cache
    assert again.record == fresh.record and again.from_cache and again.url == URL
    assert fetch.calls == 1 and stats.cache_hits == 1


@pytest.mark.parametrize("answer", [None, "empty"])
async def test_no_record_is_a_cached_negative_answer(answer: Any) -> None:
    cache, stats, fetch = memory_cache(), SourceStats(), Fetch(answer)
    assert await lookup(cache, stats, fetch) is None
    assert await lookup(cache, stats, fetch) is None
    assert fetch.calls == 1
    cached = await cache.get(SOURCE, "dblp:x")
    assert cached is not None and not cached.found and cached.raw is None


async def test_a_payload_that_does_not_parse_is_never_cached() -> None:
    cache, stats, fetch = memory_cache(), SourceStats(), Fetch("not a record", "Attention")
    with pytest.raises(SourceParseError):
        await lookup(cache, stats, fetch)
    assert await cache.get(SOURCE, "dblp:x") is None
    assert (await lookup(cache, stats, fetch)).record.title == "Attention"
    assert fetch.calls == 2
