"""The web tier's answers in the raw cache: a second check of the same URL sends no request; a
failure (any non-2xx status) is kept for a shorter time than a page that answered; a fetch that got
no HTTP answer is not kept; the body never is."""

from __future__ import annotations

import contextlib
import ipaddress
import time
from collections.abc import Iterator, Sequence

import pytest

from aletheia.config.settings import SourceLimits
from aletheia.sources.base import PermanentSourceError, TransientSourceError
from aletheia.sources.cache import MemoryRawCache
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from aletheia.sources.web_fetch import WebFetcher
from aletheia.sources.web_page import WebPageClient, page_cache_key
from aletheia.sources.web_policy import IPAddress, WebPolicy
from tests.unit.web_server import _Server, local_server

LIMITS = SourceLimits(rate=1000, burst=1000, concurrency=4)
HOUR = 3600.0


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, _Server]]:
    with local_server() as running:
        yield running


def client(base: str, cache: MemoryRawCache | None, **fetcher: object) -> WebPageClient:
    policy = WebPolicy.from_strings(f"80,443,{base.rsplit(':', 1)[1]}", "127.0.0.0/8")
    return WebPageClient(
        WebFetcher(policy, **fetcher),  # type: ignore[arg-type]
        LocalRateLimiter(),
        LIMITS,
        cache=cache,
        ttl_seconds=7 * 24 * HOUR,
        failure_ttl_seconds=HOUR,
    )


def aged_cache(age_seconds: float) -> MemoryRawCache:
    """A cache whose entries are stamped `age_seconds` in the past (its own TTLs are longer)."""
    return MemoryRawCache(
        ttl_seconds=30 * 24 * HOUR, negative_ttl_seconds=24 * HOUR, clock=lambda: time.time() - age_seconds
    )


async def test_a_second_check_of_the_same_url_sends_no_request(server: tuple[str, _Server]) -> None:
    base, srv = server
    cache = aged_cache(0)
    url = f"{base}/redirect?to=/page"
    first = await client(base, cache).check(url)
    before = len(srv.hosts)
    again = client(base, cache)  # a second run: a new client, the same cache
    second = await again.check(url)
    assert len(srv.hosts) == before and again.stats.requests == 0 and again.stats.cache_hits == 1
    assert first is not None and second is not None and second.from_cache and not first.from_cache
    assert second.record == first.record and second.url == f"{base}/page"
    assert second.raw["status"] == 200 and second.raw["redirects"] == [url]
    assert second.raw["title"] == "Scaling Laws for Widgets | The Widget Blog"
    assert "archive_date" in second.raw and not any(isinstance(v, bytes) for v in second.raw.values())
    entry = await cache.get("web", page_cache_key(url))
    assert entry is not None and entry.found and entry.url == f"{base}/page"


async def test_an_archived_page_keeps_its_snapshot_date(server: tuple[str, _Server]) -> None:
    """web.archive.org is the local server here (a resolver that answers 127.0.0.1 for it)."""
    base, srv = server

    async def archive_is_local(host: str, port: int) -> Sequence[IPAddress]:
        return [ipaddress.ip_address("127.0.0.1")]

    cache = aged_cache(0)
    url = f"http://web.archive.org:{base.rsplit(':', 1)[1]}/web/2023/https://widgets.example/"
    await client(base, cache, resolver=archive_is_local).check(url)
    before = len(srv.hosts)
    again = await client(base, cache, resolver=archive_is_local).check(url)
    assert len(srv.hosts) == before
    assert again is not None and again.from_cache and again.raw["archive_date"] == "2025-06-01"
    assert again.record.urls["final"].endswith("/web/20250601000000/https://widgets.example/")


async def test_failures_expire_sooner_than_pages_that_answered(server: tuple[str, _Server]) -> None:
    base, srv = server
    two_hours_old = aged_cache(2 * HOUR)  # older than the failure TTL, younger than the page TTL
    for path in ("/page", "/gone", "/error"):
        with contextlib.suppress(PermanentSourceError):
            await client(base, two_hours_old).check(base + path)
    page, gone, error = (client(base, two_hours_old) for _ in range(3))
    before = len(srv.hosts)
    assert (await page.check(f"{base}/page")) is not None
    assert page.stats.requests == 0 and len(srv.hosts) == before
    assert (await gone.check(f"{base}/gone")) is None
    with pytest.raises(PermanentSourceError, match="HTTP 500"):
        await error.check(f"{base}/error")
    assert gone.stats.requests > 0 and error.stats.requests > 0 and len(srv.hosts) > before
    # fresh failures are answered from the cache, as they were
    fresh = aged_cache(0)
    await client(base, fresh).check(f"{base}/gone")
    cached_gone = client(base, fresh)
    assert await cached_gone.check(f"{base}/gone") is None
    assert cached_gone.stats.requests == 0 and cached_gone.stats.cache_hits == 1
    entry = await fresh.get("web", page_cache_key(f"{base}/gone"))
    assert entry is not None and not entry.found and entry.raw["status"] == 404


async def test_a_fetch_without_an_http_answer_is_not_cached(server: tuple[str, _Server]) -> None:
    base, _ = server
    calls: list[str] = []

    async def does_not_resolve(host: str, port: int) -> Sequence[IPAddress]:
        calls.append(host)
        raise OSError("Name or service not known")

    cache = aged_cache(0)
    url = f"http://nowhere.test:{base.rsplit(':', 1)[1]}/page"
    for _ in range(2):
        with pytest.raises(TransientSourceError):
            await client(base, cache, resolver=does_not_resolve).check(url)
    assert calls == ["nowhere.test", "nowhere.test"] and len(cache) == 0


async def test_without_a_cache_every_check_fetches(server: tuple[str, _Server]) -> None:
    base, _ = server
    web = client(base, None)
    await web.check(f"{base}/page")
    sent = web.stats.requests
    await web.check(f"{base}/page")
    assert web.stats.requests == 2 * sent and web.stats.cache_hits == 0
