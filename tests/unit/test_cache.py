"""Cache keys and the in-memory raw cache (TTLs on a fake clock, LRU bound)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.config.settings import Settings
from aletheia.sources.base import RawCache
from aletheia.sources.cache import MemoryRawCache, cache_key, normalise_query
from tests.unit.fake_clock import FakeClock


@pytest.mark.parametrize(
    ("kind", "value", "key"),
    [
        ("doi", "10.1/x", "doi:10.1/x"),
        ("doi", " https://doi.org/10.1103/PhysRevLett.116.061102 ", "doi:10.1103/physrevlett.116.061102"),
        ("doi", "http://dx.doi.org/10.1000/ABC", "doi:10.1000/abc"),
        ("doi", "doi: 10.1000/ABC", "doi:10.1000/abc"),
        ("arxiv", "2502.03801", "arxiv:2502.03801"),
        ("arxiv", "arXiv:2502.03801v2", "arxiv:2502.03801v2"),
        ("arxiv", "https://arxiv.org/pdf/2502.03801v1.pdf", "arxiv:2502.03801v1"),
        ("arxiv", "https://arxiv.org/abs/hep-th/9901001", "arxiv:hep-th/9901001"),
        ("pmid", "123", "pmid:123"),
        ("pmid", "PMID: 31452104", "pmid:31452104"),
        ("openalex", " W2741809807 ", "openalex:W2741809807"),
    ],
)
def test_identifier_keys(kind: str, value: str, key: str) -> None:
    assert cache_key(kind, value) == key


def test_search_keys_are_short_hashes_of_the_normalised_query() -> None:
    key = cache_key("search", "Attention Is All You Need")
    assert key.startswith("search:") and len(key) == len("search:") + 40
    assert cache_key("search", "  attention  is all\tyou NEED ") == key
    assert cache_key("search", "Attention Is All You Want") != key
    assert cache_key("search", "ﬁeld theory") == cache_key("search", "field theory")  # NFKC ligature


@given(st.text())
def test_normalising_a_query_twice_changes_nothing(query: str) -> None:
    once = normalise_query(query)
    assert normalise_query(once) == once
    assert cache_key("search", query) == cache_key("search", once)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=1_700_000_000.0)


@pytest.fixture
def cache(clock: FakeClock) -> MemoryRawCache:
    return MemoryRawCache(ttl_seconds=100, negative_ttl_seconds=10, max_entries=3, clock=clock)


def test_it_is_a_raw_cache(cache: MemoryRawCache) -> None:
    typed: RawCache = cache
    assert typed is cache


async def test_a_hit_returns_the_payload_with_its_fetch_time(cache: MemoryRawCache, clock: FakeClock) -> None:
    await cache.put(
        "crossref", "doi:10.1/x", {"title": ["X"]}, found=True, url="https://api.crossref.org/works/10.1/x"
    )
    hit = await cache.get("crossref", "doi:10.1/x")
    assert hit is not None and hit.found and hit.raw == {"title": ["X"]}
    assert hit.url == "https://api.crossref.org/works/10.1/x"
    assert hit.fetched_at == datetime.fromtimestamp(clock.now, tz=UTC)
    assert await cache.get("openalex", "doi:10.1/x") is None  # keyed by source as well


async def test_positive_and_negative_entries_expire_at_their_own_ttl(
    cache: MemoryRawCache, clock: FakeClock
) -> None:
    await cache.put("crossref", "doi:10.1/found", {"ok": 1}, found=True)
    await cache.put("crossref", "doi:10.1/missing", None, found=False)
    clock.advance(9.9)
    missing = await cache.get("crossref", "doi:10.1/missing")
    assert missing is not None and not missing.found
    clock.advance(0.1)
    assert await cache.get("crossref", "doi:10.1/missing") is None
    assert await cache.get("crossref", "doi:10.1/found") is not None
    clock.advance(90)
    assert await cache.get("crossref", "doi:10.1/found") is None
    assert len(cache) == 0


async def test_the_least_recently_used_entry_is_evicted(cache: MemoryRawCache) -> None:
    for name in "abc":
        await cache.put("crossref", name, name, found=True)
    assert await cache.get("crossref", "a") is not None  # "a" is now the most recent
    await cache.put("crossref", "d", "d", found=True)
    assert len(cache) == 3
    assert await cache.get("crossref", "b") is None
    for name in "acd":
        assert await cache.get("crossref", name) is not None


async def test_a_put_replaces_the_entry(cache: MemoryRawCache) -> None:
    await cache.put("pubmed", "pmid:1", None, found=False)
    await cache.put("pubmed", "pmid:1", {"uid": "1"}, found=True)
    hit = await cache.get("pubmed", "pmid:1")
    assert hit is not None and hit.found and hit.raw == {"uid": "1"}


async def test_a_zero_ttl_stores_nothing(clock: FakeClock) -> None:
    cache = MemoryRawCache(ttl_seconds=100, negative_ttl_seconds=0, clock=clock)
    await cache.put("arxiv", "arxiv:1", None, found=False)
    assert await cache.get("arxiv", "arxiv:1") is None


def test_ttls_come_from_settings() -> None:
    config = Settings(_env_file=None, cache_ttl_seconds=5, negative_cache_ttl_seconds=2)
    cache = MemoryRawCache.from_settings(config, max_entries=7)
    assert (cache.ttl_seconds, cache.negative_ttl_seconds, cache.max_entries) == (5, 2, 7)


async def test_lookup_many_uses_cached_answers_and_fetches_the_rest_in_batches() -> None:
    from aletheia.sources.cache import lookup_many

    cache = {"a": "A", "b": None}  # b: a cached "not found"
    batches: list[list[str]] = []

    async def cached(key: str) -> tuple[bool, str | None]:
        return (key in cache, cache.get(key))

    async def fetch(keys: list[str]) -> dict[str, str | None]:
        batches.append(keys)
        return {k: k.upper() for k in keys if k != "x"}

    given = {"A-id": "a", "B-id": "b", "c1": "c", "c2": "c", "d": "d", "e": "e", "x": "x"}
    answer = await lookup_many(given, cached, fetch, batch=2)
    assert answer == {"A-id": "A", "B-id": None, "c1": "C", "c2": "C", "d": "D", "e": "E", "x": None}
    assert batches == [["c", "d"], ["e", "x"]]  # each missing key once, in batches of 2
