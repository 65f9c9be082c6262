"""Semantic Scholar: the paper parser, canonical ids, and the client against a scripted transport."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from aletheia.config.settings import Settings
from aletheia.core.records import Author, SourceName
from aletheia.sources.base import SourceParseError, SourceRecord, SourceUnavailableError
from aletheia.sources.cache import MemoryRawCache
from aletheia.sources.semantic_scholar import (
    MAX_BATCH_IDS,
    PAPER_FIELDS,
    SemanticScholarClient,
    canonical_paper_id,
    semantic_scholar_transport,
)
from aletheia.sources.semantic_scholar_parse import parse_s2_paper
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from tests.unit.fake_clock import FakeClock
from tests.unit.source_fakes import Call, FakeTransport, fixture_text

FIELDS = ",".join(PAPER_FIELDS)


def fixture(name: str) -> Any:
    return json.loads(fixture_text("s2", name))


def paper_for(paper_id: str) -> dict[str, Any]:
    return {
        "paperId": paper_id.encode().hex()[:40].ljust(40, "0"),
        "title": f"Paper {paper_id}",
        "year": 2000,
    }


def cache() -> MemoryRawCache:
    return MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=60)


# --- parser ----------------------------------------------------------------------------------------


def test_parse_full_paper() -> None:
    record = parse_s2_paper(fixture("paper_full.json"))
    assert record.source is SourceName.SEMANTIC_SCHOLAR
    assert record.source_id == "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"
    assert record.title == "Tidal locking of small moons"
    assert record.authors == (
        Author(given="Ana María", family="Rivera"),
        Author(given="T.", family="O'Neill"),
    )
    assert record.authors_truncated is False
    assert record.year == 2019
    # `venue` is empty, so publicationVenue.name wins over journal.name.
    assert record.venue == "Journal of Foo Studies"
    assert record.work_type == "journal-article"
    assert record.doi == "10.5555/jfoo.2019.0042"
    assert record.arxiv_id == "1811.04521"
    assert record.arxiv_version is None
    assert record.pmid == "30412345"
    assert record.pmcid == "PMC6543210"
    assert record.abstract == "We study tidal locking."
    assert record.urls == {
        "s2": "https://www.semanticscholar.org/paper/0a1b2c3d4e5f60718293a4b5c6d7e8f901234567",
        "pdf": "https://example.org/tidal.pdf",
        "oa_pdf": "https://example.org/tidal.pdf",  # the full-text chain's key (`oa_fulltext`)
        "dblp": "https://dblp.org/rec/journals/jfoo/RiveraO19",
        "corpus": "https://api.semanticscholar.org/CorpusId:53311111",
    }
    assert record.score is None


def test_truncation_only_when_the_payload_says_so() -> None:
    record = parse_s2_paper(fixture("paper_truncated.json"))
    assert record.authors_truncated is True
    assert [a.family for a in record.authors] == ["Aad", "Abbott"]  # the marker is not an author
    assert record.venue == "Physics Letters B"  # journal.name, the last fallback
    assert "pdf" not in record.urls and "oa_pdf" not in record.urls  # S2's empty openAccessPdf url
    assert record.work_type is None

    many = {"paperId": "a" * 40, "authors": [{"name": f"Author Number{i}"} for i in range(500)]}
    assert parse_s2_paper(many).authors_truncated is False  # a long list alone is no sign


def test_venue_prefers_s2_venue_string() -> None:
    record = parse_s2_paper(
        {
            "paperId": "b" * 40,
            "venue": "ICLR",
            "publicationVenue": {"name": "Intl Conf"},
            "journal": {"name": "X"},
        }
    )
    assert record.venue == "ICLR"


def test_null_fields_are_absent_values() -> None:
    record = parse_s2_paper({"paperId": "c" * 40, "authors": None, "title": None, "externalIds": None})
    assert record.authors == ()
    assert record.title is None
    assert record.doi is None


def test_match_score_becomes_score() -> None:
    hit = fixture("match_response.json")["data"][0]
    assert parse_s2_paper(hit).score == pytest.approx(187.25)


@pytest.mark.parametrize(
    "payload",
    [
        [],
        {"paperId": "d" * 40, "title": ["a list"]},
        {"paperId": "d" * 40, "authors": "Smith"},
        {"paperId": "d" * 40, "year": "2019"},
        {"paperId": "d" * 40, "journal": "Nature"},
        {"paperId": "d" * 40, "matchScore": "high"},
    ],
)
def test_wrong_shapes_are_parse_errors(payload: Any) -> None:
    with pytest.raises(SourceParseError):
        parse_s2_paper(payload)


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("doi:10.1000/ABC", "DOI:10.1000/abc"),
        ("10.1000/abc", "DOI:10.1000/abc"),
        ("https://doi.org/10.1000/abc", "DOI:10.1000/abc"),
        ("arXiv:2104.12255v2", "ARXIV:2104.12255"),
        ("ARXIV:hep-th/9901001", "ARXIV:hep-th/9901001"),
        ("PMID:0012345", "PMID:12345"),
        ("PMCID:PMC77", "PMCID:77"),
        ("CorpusID:42", "CorpusId:42"),
        ("A" * 40, "a" * 40),
        ("URL:https://arxiv.org/abs/2106.15928", "URL:https://arxiv.org/abs/2106.15928"),
        ("not an id", None),
        ("DOI:nonsense", None),
        ("CorpusId:x1", None),
    ],
)
def test_canonical_paper_id(raw: str, canonical: str | None) -> None:
    assert canonical_paper_id(raw) == canonical


# --- client ----------------------------------------------------------------------------------------


async def test_single_paper_request_shape_and_api_key() -> None:
    transport = FakeTransport(lambda call: fixture("paper_full.json"))
    client = SemanticScholarClient(transport, api_key="s2-secret", coalesce_window=0)
    found = await client.paper("doi:10.5555/JFOO.2019.0042")
    assert found is not None
    assert found.record.doi == "10.5555/jfoo.2019.0042"
    assert found.raw == fixture("paper_full.json")
    assert found.url == "https://fake.test/graph/v1/paper/DOI:10.5555/jfoo.2019.0042"
    [call] = transport.calls
    assert call.method == "get_json"
    assert call.path == "/graph/v1/paper/DOI:10.5555/jfoo.2019.0042"
    assert call.params == {"fields": FIELDS}
    assert call.headers == {"x-api-key": "s2-secret"}
    assert call.kind == "single"


async def test_no_key_no_header() -> None:
    transport = FakeTransport(lambda call: fixture("paper_full.json"))
    await SemanticScholarClient(transport, coalesce_window=0).paper("CorpusId:53311111")
    assert transport.calls[0].headers == {}


async def test_not_found_is_none_and_cached_negatively() -> None:
    transport = FakeTransport(lambda call: None)
    client = SemanticScholarClient(transport, cache=cache(), coalesce_window=0)
    assert await client.paper("PMID:1") is None
    assert await client.paper("pmid:0001") is None  # same canonical id: answered from the cache
    assert len(transport.calls) == 1
    assert transport.stats.cache_hits == 1


async def test_cache_hit_replays_the_raw_payload() -> None:
    transport = FakeTransport(lambda call: fixture("paper_full.json"))
    client = SemanticScholarClient(transport, cache=cache(), coalesce_window=0)
    first = await client.paper("ARXIV:1811.04521")
    second = await client.paper("arXiv:1811.04521v3")
    assert first is not None and second is not None
    assert not first.from_cache and second.from_cache
    assert second.record == first.record
    assert len(transport.calls) == 1


async def test_malformed_id_is_a_value_error_without_a_request() -> None:
    transport = FakeTransport(lambda call: None)
    with pytest.raises(ValueError, match="not a Semantic Scholar paper id"):
        await SemanticScholarClient(transport).paper("hello world")
    assert transport.calls == []


async def papers(client: SemanticScholarClient, ids: list[str]) -> dict[str, SourceRecord | None]:
    """The ids asked at once, as the references of a job ask them: each `paper`, coalesced."""
    return dict(zip(ids, await asyncio.gather(*(client.paper(i) for i in ids)), strict=True))


async def test_1200_concurrent_ids_are_three_posts() -> None:
    def answer(call: Call) -> Any:
        # Every third corpus id unknown to S2: a null in the aligned list.
        return [None if int(pid.split(":")[1]) % 3 == 0 else paper_for(pid) for pid in call.json["ids"]]

    transport = FakeTransport(answer)
    client = SemanticScholarClient(transport, api_key="k")
    ids = [f"CorpusId:{n}" for n in range(1, 1201)]
    results = await papers(client, ids)

    assert [len(call.json["ids"]) for call in transport.calls] == [MAX_BATCH_IDS, MAX_BATCH_IDS, 200]
    for call in transport.calls:
        assert call.method == "post_json"
        assert call.path == "/graph/v1/paper/batch"
        assert call.params == {"fields": FIELDS}
        assert call.headers == {"x-api-key": "k"}
        assert call.kind == "batch"
    assert list(results) == ids
    assert results["CorpusId:3"] is None
    second = results["CorpusId:2"]
    assert second is not None and second.record.title == "Paper CorpusId:2"
    assert sum(r is not None for r in results.values()) == 800


async def test_concurrent_ids_are_answered_as_given() -> None:
    transport = FakeTransport(lambda call: fixture("batch_response.json"))
    client = SemanticScholarClient(transport)
    results = await papers(client, ["10.5555/FIRST", "PMID:2", "arxiv:1905.00001", "doi:10.5555/first"])
    [call] = transport.calls
    assert call.json == {"ids": ["DOI:10.5555/first", "PMID:2", "ARXIV:1905.00001"]}  # deduplicated
    first = results["10.5555/FIRST"]
    assert first is not None and first.record.title == "First paper"
    assert results["doi:10.5555/first"] is first
    assert results["PMID:2"] is None
    third = results["arxiv:1905.00001"]
    assert third is not None and third.record.arxiv_id == "1905.00001"


async def test_misaligned_batch_answer_is_a_parse_error() -> None:
    transport = FakeTransport(lambda call: [paper_for("x")])
    with pytest.raises(SourceParseError):
        await papers(SemanticScholarClient(transport), ["PMID:1", "PMID:2"])


async def test_concurrent_paper_calls_coalesce_into_one_batch() -> None:
    def answer(call: Call) -> Any:
        return [paper_for(pid) for pid in call.json["ids"]]

    transport = FakeTransport(answer)
    client = SemanticScholarClient(transport, coalesce_window=0.01)
    ids = ["PMID:1", "PMID:2", "PMID:3", "pmid:3", "CorpusId:9"]
    found = await asyncio.gather(*(client.paper(pid) for pid in ids))
    [call] = transport.calls
    assert call.method == "post_json"
    assert call.json == {"ids": ["PMID:1", "PMID:2", "PMID:3", "CorpusId:9"]}
    assert [r.record.title if r else None for r in found] == [
        "Paper PMID:1",
        "Paper PMID:2",
        "Paper PMID:3",
        "Paper PMID:3",
        "Paper CorpusId:9",
    ]


async def test_search_request_shape() -> None:
    transport = FakeTransport(lambda call: fixture("search_response.json"))
    client = SemanticScholarClient(transport)
    hits = await client.search("Graph kernels: a state-of-the-art survey", year=2018, limit=2)
    [call] = transport.calls
    assert call.path == "/graph/v1/paper/search"
    # S2 finds nothing for hyphenated terms, so hyphens become spaces.
    assert call.params == {
        "query": "Graph kernels: a state of the art survey",
        "fields": FIELDS,
        "limit": 2,
        "year": "2018",
    }
    assert call.kind == "search"
    assert [h.record.title for h in hits] == ["Graph kernels revisited", "Graph kernels, a survey"]
    assert hits[1].record.venue == "ACM Computing Surveys"


async def test_empty_search_has_no_data_key() -> None:
    transport = FakeTransport(lambda call: {"total": 0, "offset": 0})
    assert await SemanticScholarClient(transport).search("n0 r3sult") == []


async def test_match_title() -> None:
    transport = FakeTransport(lambda call: fixture("match_response.json"))
    hit = await SemanticScholarClient(transport).match_title("Sparse attention for long documents")
    assert hit is not None and hit.record.score == pytest.approx(187.25)
    [call] = transport.calls
    assert call.path == "/graph/v1/paper/search/match"
    assert call.params == {"query": "Sparse attention for long documents", "fields": FIELDS}

    missing = FakeTransport(lambda call: None)  # S2 answers 404: "Title match not found"
    assert await SemanticScholarClient(missing).match_title("No such paper") is None


# --- the real transport, from settings ---------------------------------------------------------------


async def test_transport_from_settings_sends_the_key_and_spaces_requests() -> None:
    seen: list[tuple[httpx.Request, float]] = []
    clock = FakeClock()

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request, clock()))
        return httpx.Response(200, json=fixture("paper_full.json"))

    settings = Settings(
        _env_file=None, semantic_scholar_url="https://s2.test", SEMANTIC_SCHOLAR_API_KEY="key-123"
    )
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        limiter = LocalRateLimiter(clock=clock, sleep=clock.sleep)
        transport = semantic_scholar_transport(http, settings, limiter)
        client = SemanticScholarClient(transport, coalesce_window=0)
        await client.paper("DOI:10.1000/a")
        await client.paper("DOI:10.1000/b")
    first, second = seen
    assert first[0].headers["x-api-key"] == "key-123"
    assert first[0].url.path == "/graph/v1/paper/DOI:10.1000/a"
    assert first[0].url.params["fields"] == FIELDS
    assert second[1] - first[1] >= 1.0  # one request per second


async def test_disabled_source_is_unavailable() -> None:
    settings = Settings(_env_file=None, disabled_sources="semantic_scholar")
    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(500))) as http:
        transport = semantic_scholar_transport(http, settings, LocalRateLimiter())
        with pytest.raises(SourceUnavailableError):
            await SemanticScholarClient(transport, coalesce_window=0).paper("PMID:1")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@given(st.dictionaries(st.sampled_from([*PAPER_FIELDS, "paperId", "matchScore"]), JSON, max_size=8))
@hypothesis_settings(max_examples=200, deadline=None)
def test_any_payload_parses_or_is_a_parse_error(payload: dict[str, Any]) -> None:
    """Whatever S2 sends, the parser answers a record or a SourceParseError, never a crash."""
    try:
        record = parse_s2_paper(payload)
    except SourceParseError:
        return
    assert record.source is SourceName.SEMANTIC_SCHOLAR


def test_publication_venue_names_dblp_key_and_published_venue() -> None:
    record = parse_s2_paper(fixture("paper_venue_aliases.json"))
    # An arXiv id beside a venue: S2's merged record of a published paper, not a preprint.
    assert record.arxiv_id == "1706.03762"
    assert record.venue == "Neural Information Processing Systems" and not record.is_preprint
    assert record.work_type == "proceedings-article"
    assert record.venue_aliases == ("Neural Inf Process Syst", "NeurIPS", "NIPS")
    assert record.other_venues == ()  # journal.name "ArXiv" is the preprint server, no venue
    assert record.dblp_key == "conf/nips/VaswaniSPUJGKP17"
    assert record.urls["dblp"] == "https://dblp.org/rec/conf/nips/VaswaniSPUJGKP17"
    assert record.published_venue == "Neural Information Processing Systems"


def test_venue_forms_issns_and_preprint_only_papers() -> None:
    paper = fixture("paper_venue_aliases.json")
    paper["venue"] = "NeurIPS"
    paper["publicationVenue"]["issn"] = "1049-5258"
    paper["journal"] = {"name": "Advances in Neural Information Processing Systems 30"}
    record = parse_s2_paper(paper)
    assert record.venue == "NeurIPS"
    # publicationVenue.name is another form of `venue`; `venue` itself is not repeated.
    assert record.venue_aliases == (
        "Neural Information Processing Systems",
        "Neural Inf Process Syst",
        "NIPS",
    )
    assert record.other_venues == ("Advances in Neural Information Processing Systems 30",)
    assert record.issn == ("1049-5258",)

    preprint = fixture("paper_venue_aliases.json")
    preprint["venue"] = "arXiv.org"
    preprint["publicationVenue"] = {"name": "arXiv.org", "alternate_names": ["ArXiv"], "type": "journal"}
    preprint["externalIds"] = {"ArXiv": "2106.09685", "DBLP": "journals/corr/abs-2106-09685"}
    record = parse_s2_paper(preprint)
    assert record.published_venue is None and record.venue_aliases == ("ArXiv",)
    assert record.dblp_key == "journals/corr/abs-2106-09685"


def test_the_requested_fields_include_the_venue_objects() -> None:
    assert {"venue", "publicationVenue", "journal", "externalIds"} <= set(PAPER_FIELDS)
