"""VenueRegistry through PoliteTransport over httpx.MockTransport (issue 21): the endpoint each
registry is asked at, the polite parameters, the `venue` request kind in the stats, the long-lived
cache, failures, and the gateway's `venue_lookups`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from sqlalchemy import update

from aletheia.config.settings import Settings, SourceLimits
from aletheia.core.evidence import Outcome, QueryKind, SourceAnswer
from aletheia.core.records import SourceName
from aletheia.core.venue_registry import VENUE_REGISTRIES, VenueStanding, venue_standing
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.sources.base import PermanentSourceError, SourceUnavailableError
from aletheia.sources.cache import MemoryRawCache
from aletheia.sources.transport.figures import request_figures
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from aletheia.sources.venue_registry import OPENALEX_FIELDS, VenueRegistry, venue_query
from aletheia.storage.db import engine_for
from aletheia.storage.models import SourceRecordRow
from aletheia.storage.stores import SqlRawCache

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "venue_registry"
MAILTO = "citations@example.org"
OPENALEX_KEY = "test-key-1234"
FAST = SourceLimits(rate=1000, burst=1000, concurrency=4)


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


class Registries:
    """Answers like the three registries, at three hosts; records every request."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.override: Callable[[httpx.Request], httpx.Response | None] = lambda _: None

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        scripted = self.override(request)
        if scripted is not None:
            return scripted
        host, path = request.url.host, request.url.path
        if host == "openalex.test" and path == "/sources":
            return httpx.Response(200, json=fixture("openalex_sources_search.json"))
        if host == "dblp.test" and path == "/search/venue/api":
            return httpx.Response(200, json=fixture("dblp_venues_search.json"))
        if host == "crossref.test" and path == "/journals":
            return httpx.Response(200, json=fixture("crossref_journals_query.json"))
        if host == "crossref.test" and path == "/journals/0899-7667":
            return httpx.Response(200, json=fixture("crossref_journal.json"))
        if host == "crossref.test":
            return httpx.Response(404, text="Resource not found.")
        return httpx.Response(404, text="Not Found")


def settings(**overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "openalex_url": "https://openalex.test",
        "dblp_url": "https://dblp.test",
        "crossref_url": "https://crossref.test",
        "openalex_limits": FAST,
        "dblp_limits": FAST,
        "crossref_limits": FAST,
        "mailto": MAILTO,
        "openalex_api_key": OPENALEX_KEY,
        "http_attempts": 1,
        **overrides,
    }
    return Settings(_env_file=None, **values)


@pytest.fixture
def registries() -> Registries:
    return Registries()


@pytest.fixture
async def http(registries: Registries) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.MockTransport(registries)) as client:
        yield client


def registry(http: httpx.AsyncClient, cache: MemoryRawCache | None = None, **overrides: Any) -> VenueRegistry:
    return VenueRegistry.from_settings(http, settings(**overrides), LocalRateLimiter(), cache=cache)


async def test_each_registry_is_asked_at_its_documented_endpoint(
    http: httpx.AsyncClient, registries: Registries
) -> None:
    client = registry(http)
    openalex = await client.lookup(SourceName.OPENALEX, "Neural Networks")
    dblp = await client.lookup(SourceName.DBLP, "Machine Learning")
    crossref = await client.lookup(SourceName.CROSSREF, "Neural Networks")
    assert [v.name for v in openalex] == ["Neural Networks", "Neural Information Processing Systems"]
    assert [v.abbreviation for v in dblp] == ["ICML", None]
    assert crossref[0].issn == ("0893-6080", "1879-2782")
    oa, db, cr = (r.url for r in registries.requests)
    assert (oa.host, oa.path) == ("openalex.test", "/sources")
    assert oa.params["search"] == "neural networks" and oa.params["per-page"] == "10"
    assert oa.params["select"] == OPENALEX_FIELDS
    assert oa.params["api_key"] == OPENALEX_KEY and oa.params["mailto"] == MAILTO
    assert (db.host, db.path) == ("dblp.test", "/search/venue/api")
    assert dict(db.params) == {"q": "machine learning", "format": "json", "h": "10"}
    assert (cr.host, cr.path) == ("crossref.test", "/journals")
    assert dict(cr.params) == {"query": "neural networks", "rows": "10", "mailto": MAILTO}
    # The source's polite User-Agent, as for its other requests.
    assert all(MAILTO in r.headers["user-agent"] for r in registries.requests)


async def test_requests_are_counted_as_venue_requests_of_their_source(http: httpx.AsyncClient) -> None:
    client = registry(http)
    for source in VENUE_REGISTRIES:
        await client.lookup(source, "Neural Networks")
    for source in VENUE_REGISTRIES:
        stats = client.transports[source].stats
        assert stats.requests == 1 and stats.extra == {"requests_venue": 1}


async def test_an_answer_is_asked_once_and_then_read_from_the_long_lived_cache(
    http: httpx.AsyncClient, registries: Registries
) -> None:
    now = [1_000_000.0]
    day = 24 * 3600.0
    cache = MemoryRawCache(
        ttl_seconds=30 * day,
        negative_ttl_seconds=day,
        clock=lambda: now[0],
        ttls_by_namespace={"venue": (180 * day, 30 * day)},
    )
    first = await registry(http, cache).lookup(SourceName.OPENALEX, "Neural Networks")
    now[0] += 100 * day  # past the cache's own TTL, within the venue namespace's
    again = registry(http, cache)  # a new client (another job) on the same cache
    assert await again.lookup(SourceName.OPENALEX, "NEURAL   Networks.") == first
    assert len(registries.requests) == 1 and again.transports[SourceName.OPENALEX].stats.cache_hits == 1
    now[0] += 81 * day
    await registry(http, cache).lookup(SourceName.OPENALEX, "Neural Networks")
    assert len(registries.requests) == 2


async def test_an_empty_answer_is_an_answer_and_a_shorter_lived_entry(
    http: httpx.AsyncClient, registries: Registries
) -> None:
    registries.override = lambda r: httpx.Response(200, json=fixture("dblp_venues_empty.json"))
    cache = MemoryRawCache.from_settings(settings())
    answer = await registry(http, cache).search(SourceName.DBLP, "Symposium on Neural Scaling Laws")
    assert answer.venues == () and answer.raw["result"]["hits"]["@total"] == "0"
    stored = [entry for entry, _ in cache._entries.values()]
    assert len(stored) == 1 and not stored[0].found


async def test_a_journal_by_issn_and_crossref_documented_404(http: httpx.AsyncClient) -> None:
    client = registry(http)
    (journal,) = (await client.by_issn(SourceName.CROSSREF, "0899 7667")).venues
    assert journal.name == "Neural Computation"
    assert (await client.by_issn(SourceName.CROSSREF, "1234-5679")).venues == ()
    with pytest.raises(ValueError, match="no venue lookup by ISSN"):
        await client.by_issn(SourceName.DBLP, "1234-5679")


async def test_a_search_route_that_answers_404_is_a_failed_registry(
    http: httpx.AsyncClient, registries: Registries
) -> None:
    # Crossref's own 404 body on its list route, OpenAlex's JSON error and DBLP's page: none of
    # them is "the registry holds nothing" (a wrong base URL, issue 20).
    registries.override = lambda r: (
        httpx.Response(404, text="Resource not found.")
        if r.url.host == "crossref.test"
        else httpx.Response(404, json={"error": "404 Not Found", "message": "no route"})
    )
    client = registry(http)
    for source in VENUE_REGISTRIES:
        with pytest.raises(PermanentSourceError):
            await client.lookup(source, "Neural Networks")


async def test_a_disabled_registry_is_unavailable_and_a_name_without_words_is_refused(
    http: httpx.AsyncClient, registries: Registries
) -> None:
    client = registry(http, disabled_sources="dblp")
    with pytest.raises(SourceUnavailableError):
        await client.lookup(SourceName.DBLP, "Machine Learning")
    with pytest.raises(ValueError, match="no searchable word"):
        await client.lookup(SourceName.OPENALEX, " ... ")
    with pytest.raises(ValueError):
        await client.lookup(SourceName.SEMANTIC_SCHOLAR, "Neural Networks")
    assert registries.requests == []


def test_venue_query_keeps_words_only() -> None:
    assert venue_query("IEEE Trans. Pattern Anal. Mach. Intell.") == "ieee trans pattern anal mach intell"
    assert venue_query('"Learning" AND -Theory | NOT x') == "learning and theory not x"
    assert venue_query("NEURAL NETWORKS") == venue_query("Neural  Networks")


# --- the gateway -----------------------------------------------------------------------------------


async def test_gateway_venue_lookups_ask_every_registry_and_count_the_requests(
    http: httpx.AsyncClient, registries: Registries
) -> None:
    gateway = SourceGateway(settings(), http, LocalRateLimiter())
    lookups = gateway.venue_lookups("Neural Networks")
    assert [source for source, _ in lookups] == list(VENUE_REGISTRIES)
    answers = [
        SourceAnswer(
            source=source,
            kind=QueryKind.VENUE,
            query="Neural Networks",
            outcome=Outcome.FOUND,
            venues=tuple(await call()),
        )
        for source, call in lookups
    ]
    assert venue_standing("Neural Networks", answers).standing is VenueStanding.KNOWN
    figures = request_figures(gateway.stats(), references=3)
    assert figures["total"] == 3 and figures["per_reference"] == 1.0
    for source in ("openalex", "dblp", "crossref"):
        assert figures["by_source"][source]["venue"] == 1
    assert len(registries.requests) == 3


async def test_gateway_leaves_out_registries_turned_off_or_offline(http: httpx.AsyncClient) -> None:
    some = SourceGateway(settings(disabled_sources="dblp"), http, LocalRateLimiter())
    assert [s for s, _ in some.venue_lookups("Neural Networks")] == [SourceName.OPENALEX, SourceName.CROSSREF]
    offline = SourceGateway(settings(offline=True), http, LocalRateLimiter())
    assert offline.venue_lookups("Neural Networks") == []


async def test_gateway_name_without_words_is_a_failed_answer(http: httpx.AsyncClient) -> None:
    gateway = SourceGateway(settings(), http, LocalRateLimiter())
    _, call = gateway.venue_lookups("!!!")[0]
    with pytest.raises(PermanentSourceError, match="no searchable query"):
        await call()


@given(st.text(max_size=60))
@example("NOT a Journal | -of OR (Things)")
def test_venue_query_is_idempotent(name: str) -> None:
    try:
        once = venue_query(name)
    except ValueError:
        return
    assert venue_query(once) == once and once == once.lower()


async def test_the_sql_cache_keeps_venue_answers_for_their_own_ttl(tmp_path: Path) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'cache.sqlite3'}")
    day = 24 * 3600.0
    cache = SqlRawCache(
        engine, ttl=30 * day, negative_ttl=day, ttls_by_namespace={"venue": (180 * day, 30 * day)}
    )
    scoped = "https://api.openalex.org"
    await cache.put("openalex", f"{scoped}|venue:abc", {"results": []}, found=True)
    await cache.put("openalex", f"{scoped}|search:abc", {"results": []}, found=True)
    with engine.begin() as connection:  # both fetched 100 days ago
        connection.execute(update(SourceRecordRow).values(fetched_at=datetime.now(UTC) - timedelta(days=100)))
    assert await cache.get("openalex", f"{scoped}|venue:abc") is not None
    assert await cache.get("openalex", f"{scoped}|search:abc") is None
