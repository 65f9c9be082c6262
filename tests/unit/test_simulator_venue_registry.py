"""The simulator's venue registries (issue 21): OpenAlex `/sources`, DBLP `/search/venue/api`,
Crossref `/journals`, in the real shapes, holding the universe's venues and the alias table's,
searching by shared words, and refusing malformed queries as the services do; and the
`VenueRegistry` client against them, end to end, read by the core's `venue_standing`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from aletheia.config.settings import Settings, SourceLimits
from aletheia.core.evidence import Outcome, QueryKind, SourceAnswer
from aletheia.core.venue_registry import VENUE_REGISTRIES, VenueStanding, registry_query, venue_standing
from aletheia.sources.simulator import SimulatorServer, Universe, env_for, universe_from_records
from aletheia.sources.simulator.venue_directory import synthetic_issn
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from aletheia.sources.venue_registry import VenueRegistry
from aletheia.sources.venue_registry_parse import (
    parse_crossref_journals,
    parse_dblp_venues,
    parse_openalex_sources,
)

WORKS: list[dict[str, Any]] = [
    {
        "title": "Spectral methods for sparse graphs",
        "venue": "Journal of Graph Algorithms and Applications",
        "venue_aliases": ["J. Graph Algorithms Appl.", "JGAA"],
        "issn": ["1526-1719"],
        "doi": "10.7155/jgaa.00001",
        "type": "journal-article",
        "publisher": "Journal of Graph Algorithms and Applications",
    },
    {
        "title": "Scaling laws for sparse transformers",
        "venue": "Symposium on Efficient Deep Learning",
        "venue_aliases": ["SEDL"],
        "type": "proceedings-article",
        "dblp_key": "conf/sedl/X24",
        "sources": ["dblp", "semantic_scholar"],
    },
    {
        "title": "Attention Is All You Need",
        "venue": "NeurIPS",
        "type": "proceedings-article",
        "doi": "10.5555/3295222.3295349",
        "series": "Lecture Notes on Attention",
    },
]


@pytest.fixture(scope="module")
def universe() -> Universe:
    return universe_from_records(WORKS)


def get(client: httpx.Client, sim: SimulatorServer, path: str, **params: Any) -> httpx.Response:
    return client.get(sim.base_url + path, params=params)


# --- the routes --------------------------------------------------------------------------------


def test_openalex_sources_search_returns_sources_sharing_all_words(
    sim: SimulatorServer, client: httpx.Client
) -> None:
    response = get(client, sim, "/openalex/sources", search="graph algorithms")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"meta", "results", "group_by"} and body["meta"]["count"] == 1
    (source,) = body["results"]
    assert source["id"].startswith("https://openalex.org/S") and source["type"] == "journal"
    assert source["display_name"] == "Journal of Graph Algorithms and Applications"
    assert source["abbreviated_title"] == "J. Graph Algorithms Appl." and "JGAA" in source["alternate_titles"]
    assert source["issn_l"] == "1526-1719" and source["relevance_score"] > 0
    # Every query word must occur: a made-up venue sharing one word finds nothing.
    assert get(client, sim, "/openalex/sources", search="graph wizardry").json()["results"] == []


def test_openalex_holds_the_alias_table_venues_with_the_universe_names(
    sim: SimulatorServer, client: httpx.Client
) -> None:
    results = get(client, sim, "/openalex/sources", search="neurips").json()["results"]
    (neurips,) = [
        r for r in results if r["display_name"] == "Advances in Neural Information Processing Systems"
    ]
    assert "NeurIPS" in neurips["alternate_titles"] and neurips["type"] == "conference"
    (venue,) = parse_openalex_sources({"results": [neurips]})
    assert "NIPS" in venue.names
    icml = get(client, sim, "/openalex/sources", search="International Conference on Machine Learning")
    best = icml.json()["results"][0]
    assert best["display_name"] == "International Conference on Machine Learning"


def test_openalex_issn_filter_select_single_and_refusals(sim: SimulatorServer, client: httpx.Client) -> None:
    by_issn = get(client, sim, "/openalex/sources", filter="issn:1526-1719", select="id,display_name")
    (selected,) = by_issn.json()["results"]
    assert set(selected) == {"id", "display_name"}
    source_id = selected["id"].rsplit("/", 1)[-1]
    assert (
        get(client, sim, f"/openalex/sources/{source_id}").json()["display_name"] == selected["display_name"]
    )
    assert get(client, sim, "/openalex/sources/issn:1526-1719").json()["id"] == selected["id"]
    missing = get(client, sim, "/openalex/sources/S1")
    assert missing.status_code == 404 and missing.json()["error"] == "404 Not Found"
    for params in (
        {"search": "x", "foo": "1"},
        {"filter": "publisher:x"},
        {"per-page": "500"},
        {"select": "nope"},
    ):
        refused = get(client, sim, "/openalex/sources", **params)
        assert refused.status_code == 400, params
        assert refused.json()["error"] == "Invalid query parameters error."


def test_dblp_venue_search_matches_word_prefixes(sim: SimulatorServer, client: httpx.Client) -> None:
    body = get(client, sim, "/dblp/search/venue/api", q="efficient deep", format="json", h="5").json()
    hits = body["result"]["hits"]
    assert hits["@total"] == "1" and isinstance(hits["hit"], list)
    info = hits["hit"][0]["info"]
    assert info == {
        "venue": "Symposium on Efficient Deep Learning (SEDL)",
        "acronym": "SEDL",
        "type": "Conference or Workshop",
        "url": "https://dblp.org/db/conf/sedl/",
    }
    (venue,) = parse_dblp_venues(body)
    assert venue.name == "Symposium on Efficient Deep Learning" and venue.abbreviation == "SEDL"
    # "effic" is a prefix of "efficient", as DBLP matches.
    prefix = get(client, sim, "/dblp/search/venue/api", q="effic", format="json").json()
    assert prefix["result"]["hits"]["@total"] == "1"


def test_dblp_no_hit_and_malformed_queries(sim: SimulatorServer, client: httpx.Client) -> None:
    empty = get(client, sim, "/dblp/search/venue/api", q="Neural Scaling Wizardry", format="json").json()
    assert empty["result"]["hits"]["@total"] == "0" and "hit" not in empty["result"]["hits"]
    assert parse_dblp_venues(empty) == []
    missing_q = get(client, sim, "/dblp/search/venue/api", format="json")
    assert missing_q.status_code == 200 and missing_q.json()["result"]["hits"]["@total"] == "0"
    assert get(client, sim, "/dblp/search/venue/api", q="x", format="json", h="-1").status_code == 400
    assert get(client, sim, "/dblp/search/venue/api", q="x", format="yaml").status_code == 400


def test_crossref_journals_search_single_and_works(sim: SimulatorServer, client: httpx.Client) -> None:
    listing = get(client, sim, "/crossref/journals", query="journal graph algorithms", rows="3").json()
    assert listing["message-type"] == "journal-list" and listing["message"]["items-per-page"] == 3
    venues = parse_crossref_journals(listing)
    assert venues[0].name == "Journal of Graph Algorithms and Applications"
    assert venues[0].issn == ("1526-1719",)
    # Crossref ranks venues sharing any word: candidates, not only the exact venue.
    assert len(venues) > 1
    single = get(client, sim, "/crossref/journals/1526-1719").json()
    assert single["message-type"] == "journal" and parse_crossref_journals(single)[0] == venues[0]
    works = get(client, sim, "/crossref/journals/1526-1719/works").json()
    assert [w["DOI"] for w in works["message"]["items"]] == ["10.7155/jgaa.00001"]
    # A journal without an ISSN of its own gets a stable, well-formed one.
    jmlr = get(client, sim, "/crossref/journals", query="journal machine learning research").json()
    issn = synthetic_issn("Journal of Machine Learning Research")
    assert any(i["ISSN"] == [issn] for i in jmlr["message"]["items"])


def test_crossref_refusals_match_the_recorded_ones(sim: SimulatorServer, client: httpx.Client) -> None:
    unknown = get(client, sim, "/crossref/journals/4444-4444")
    assert unknown.status_code == 404 and unknown.text == "Resource not found."
    assert get(client, sim, "/crossref/journals/4444-4444/works").status_code == 404
    for params, kind in (
        ({"filter": "has-assertion:true"}, "parameter-not-allowed"),
        ({"sort": "things"}, "parameter-not-allowed"),
        ({"rows": "things"}, "integer-not-valid"),
        ({"bogus": "1"}, "unknown-parameter"),
    ):
        refused = get(client, sim, "/crossref/journals", **params)
        assert refused.status_code == 400
        assert refused.json()["message-type"] == "validation-failure"
        assert refused.json()["message"][0]["type"] == kind
    field_query = get(client, sim, "/crossref/journals/1526-1719", **{"query.bibliographic": "fish"})
    assert field_query.status_code == 400


def test_a_conference_is_no_crossref_journal(sim: SimulatorServer, client: httpx.Client) -> None:
    items = get(client, sim, "/crossref/journals", query="efficient deep learning").json()["message"]["items"]
    assert "Symposium on Efficient Deep Learning" not in [i["title"] for i in items]


# --- the client against the simulator, read by the core ------------------------------------------


@pytest.fixture
async def registry(sim: SimulatorServer) -> AsyncIterator[VenueRegistry]:
    urls = {k.removeprefix("ALETHEIA_").lower(): v for k, v in env_for(sim.base_url).items()}
    fast = SourceLimits(rate=1000, burst=1000, concurrency=4)
    settings = Settings(_env_file=None, **urls, openalex_limits=fast, dblp_limits=fast, crossref_limits=fast)
    async with httpx.AsyncClient() as http:
        yield VenueRegistry.from_settings(http, settings, LocalRateLimiter())


async def standing(registry: VenueRegistry, cited: str) -> VenueStanding:
    query = registry_query(cited)
    assert query is not None
    answers = []
    for source in VENUE_REGISTRIES:
        venues = tuple(await registry.lookup(source, query))
        outcome = Outcome.FOUND if venues else Outcome.NOT_FOUND
        answers.append(
            SourceAnswer(source=source, kind=QueryKind.VENUE, query=query, outcome=outcome, venues=venues)
        )
    return venue_standing(cited, answers).standing


@pytest.mark.parametrize(
    ("cited", "expected"),
    [
        ("Journal of Graph Algorithms and Applications", VenueStanding.KNOWN),
        ("J. Graph Algorithms Appl.", VenueStanding.KNOWN),
        ("Proceedings of the Symposium on Efficient Deep Learning", VenueStanding.KNOWN),
        ("Journal of Graph Wizardry", VenueStanding.UNKNOWN),
        ("International Symposium on Neural Scaling Laws", VenueStanding.UNKNOWN),
    ],
)
async def test_the_core_reads_the_simulated_registries(
    registry: VenueRegistry, cited: str, expected: VenueStanding
) -> None:
    assert await standing(registry, cited) is expected
