"""Open Library and Google Books clients against the loopback simulator: ISBN lookups, searches,
cache (negative answers too), faults, 429s, settings."""

from __future__ import annotations

import httpx
import pytest

from aletheia.config import Settings
from aletheia.sources.base import RateLimitedError, SourceUnavailableError, TransientSourceError
from aletheia.sources.cache import MemoryRawCache, cache_key
from aletheia.sources.google_books import GoogleBooksClient, google_books_transport
from aletheia.sources.open_library import OpenLibraryClient, open_library_transport
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from tests.unit import tier_client_support as support
from tests.unit.tier_client_support import FAST, requests, transport

tier_sim, http = support.tier_sim, support.http  # the fixtures

DEEP_LEARNING = "9780262035613"
KUHN = "9780226458083"  # only Open Library has it in the simulator


def open_library(
    sim: SimulatorServer, client: httpx.AsyncClient, cache: MemoryRawCache | None = None, **kw: object
) -> OpenLibraryClient:
    return OpenLibraryClient(transport(sim, client, "open_library", **kw), cache=cache)


def google_books(
    sim: SimulatorServer, client: httpx.AsyncClient, cache: MemoryRawCache | None = None, **kw: object
) -> GoogleBooksClient:
    return GoogleBooksClient(transport(sim, client, "google_books", **kw), cache=cache)


async def test_open_library_by_isbn_fetches_the_author_names(
    tier_sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    found = await open_library(tier_sim, http).by_isbn("0-262-03561-8")  # the ISBN-10 of the same book
    assert found is not None
    record = found.record
    assert record.title == "Deep Learning" and record.isbn[0] == DEEP_LEARNING
    assert [a.family for a in record.authors] == ["Goodfellow", "Bengio", "Courville"]
    assert found.raw["author_names"] == ["Ian Goodfellow", "Yoshua Bengio", "Aaron Courville"]
    assert requests(tier_sim, "open_library") == 4  # the edition and its three authors
    assert await open_library(tier_sim, http).by_isbn("9780306406157") is None  # valid, unknown: 404
    with pytest.raises(ValueError):
        await open_library(tier_sim, http).by_isbn("9780262035614")  # bad check digit: never sent


async def test_google_books_by_isbn_takes_only_the_volume_carrying_it(
    tier_sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    client = google_books(tier_sim, http)
    found = await client.by_isbn(DEEP_LEARNING)
    assert found is not None and found.record.publisher == "MIT Press" and found.record.year == 2016
    assert await client.by_isbn(KUHN) is None  # not in this catalogue: totalItems 0


async def test_searches(tier_sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    ol = await open_library(tier_sim, http).search(
        title="Reinforcement Learning: An Introduction", author="Sutton"
    )
    assert [r.record.title for r in ol] == ["Reinforcement Learning: An Introduction"]
    assert ol[0].record.year == 1998  # the work's first edition
    gb = await google_books(tier_sim, http).search(title="Reinforcement Learning", author="Barto")
    assert [r.record.year for r in gb] == [2018]
    assert await google_books(tier_sim, http).search(title="A Book Nobody Wrote", author="Nobody") == []
    assert await open_library(tier_sim, http).search(title="Deep Learning", author="Bishop") == []
    with pytest.raises(ValueError):
        await open_library(tier_sim, http).search(title="  ")


async def test_answers_are_cached_negative_ones_too(
    tier_sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=60)
    ol, gb = open_library(tier_sim, http, cache), google_books(tier_sim, http, cache)
    assert await ol.by_isbn(DEEP_LEARNING) is not None
    assert await gb.by_isbn(KUHN) is None
    assert await ol.search(title="Deep Learning", author="Goodfellow")
    sent = requests(tier_sim, "open_library") + requests(tier_sim, "google_books")
    again_ol, again_gb = (
        open_library(tier_sim, http, cache),
        google_books(tier_sim, http, cache),
    )  # a new process
    hit = await again_ol.by_isbn("0262035618")
    assert hit is not None and hit.from_cache and hit.record.authors[0].family == "Goodfellow"
    assert await again_gb.by_isbn(KUHN) is None
    assert await again_ol.search(title="Deep Learning", author="Goodfellow")
    assert requests(tier_sim, "open_library") + requests(tier_sim, "google_books") == sent
    # Kept under the base URL that answered (issue 20), as the client reads it.
    assert gb.cache is not None and await gb.cache.get("google_books", cache_key("isbn", KUHN)) is not None


async def test_server_errors_are_retried(tier_sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    tier_sim.configure(
        SimulatorConfig.unlimited(seed=7)
        .with_source("open_library", faults={"error_503": 0.4, "reset": 0.1})
        .with_source("google_books", faults={"error_500": 0.5})
    )
    ol, gb = open_library(tier_sim, http, attempts=12), google_books(tier_sim, http, attempts=12)
    for _ in range(3):
        assert await ol.by_isbn(DEEP_LEARNING) is not None
        assert await gb.by_isbn(DEEP_LEARNING) is not None
    faults = (
        tier_sim.source_stats("open_library")["faults_injected"]
        + tier_sim.source_stats("google_books")["faults_injected"]
    )
    assert faults >= 1


async def test_a_truncated_body_is_a_failure_and_not_cached(
    tier_sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    tier_sim.configure(SimulatorConfig.unlimited().with_source("google_books", faults={"malformed": 1.0}))
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=60)
    with pytest.raises(TransientSourceError):  # a JSON body cut short: worth retrying later
        await google_books(tier_sim, http, cache, attempts=1).by_isbn(DEEP_LEARNING)
    assert await cache.get("google_books", cache_key("isbn", DEEP_LEARNING)) is None


async def test_a_429_is_honoured_then_the_call_succeeds(
    tier_sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    tier_sim.configure(
        SimulatorConfig.unlimited().with_source("open_library", rate=2, burst=1, retry_after=1)
    )
    client = open_library(tier_sim, http)
    assert await client.search(title="Deep Learning") != []
    assert (
        await client.search(title="Pattern Recognition and Machine Learning") != []
    )  # 429 first, then answered
    assert tier_sim.source_stats("open_library")["rate_limited"] >= 1


async def test_a_long_retry_after_goes_back_to_the_queue(
    tier_sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    tier_sim.configure(
        SimulatorConfig.unlimited().with_source("google_books", rate=0.01, burst=1, retry_after=500)
    )
    client = google_books(tier_sim, http)
    assert await client.by_isbn(DEEP_LEARNING) is not None
    with pytest.raises(RateLimitedError) as raised:
        await client.by_isbn("9780387310732")
    assert raised.value.retry_after == pytest.approx(500.0)


async def test_transports_from_settings(tier_sim: SimulatorServer, http: httpx.AsyncClient) -> None:
    assert Settings().open_library_url == "https://openlibrary.org"
    assert Settings().google_books_url == "https://www.googleapis.com"
    settings = Settings(
        open_library_url=tier_sim.url_for("open_library"),
        google_books_url=tier_sim.url_for("google_books"),
        open_library_limits=FAST,
        google_books_limits=FAST,
        GOOGLE_BOOKS_API_KEY="sekrit-key",
    )
    gb = GoogleBooksClient(google_books_transport(http, settings, LocalRateLimiter()))
    assert await gb.by_isbn(DEEP_LEARNING) is not None  # the key rides along, outside the cache key
    ol = OpenLibraryClient(open_library_transport(http, settings, LocalRateLimiter()))
    assert ol.transport.base_url == tier_sim.url_for("open_library")
    off = settings.model_copy(update={"disabled_sources": "open_library,google_books"})
    with pytest.raises(SourceUnavailableError):
        await OpenLibraryClient(open_library_transport(http, off, LocalRateLimiter())).by_isbn(DEEP_LEARNING)
    with pytest.raises(SourceUnavailableError):
        await GoogleBooksClient(google_books_transport(http, off, LocalRateLimiter())).search(
            title="Deep Learning"
        )
