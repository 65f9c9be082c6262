"""arXiv: the Atom parser, the XML guard, and the client against a scripted transport."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
from typing import Any
from xml.sax.saxutils import escape

import httpx
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from aletheia.config.settings import Settings
from aletheia.core.records import Author, SourceName
from aletheia.sources.arxiv import MAX_IDS_PER_REQUEST, ArxivClient, arxiv_transports
from aletheia.sources.arxiv_parse import parse_arxiv_atom, parse_arxiv_feed
from aletheia.sources.base import PermanentSourceError, SourceParseError, SourceRecord, TransientSourceError
from aletheia.sources.cache import MemoryRawCache
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from tests.unit.fake_clock import FakeClock
from tests.unit.source_fakes import Call, FakeTransport, fixture_text

ATOM_HEAD = (
    '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
)


def entry(arxiv_id: str, title: str = "A title", published: str = "2020-01-02T00:00:00Z") -> str:
    return (
        f"<entry><id>http://arxiv.org/abs/{arxiv_id}</id><title>{title}</title>"
        f"<published>{published}</published><author><name>Ada Lovelace</name></author></entry>"
    )


def feed(*entries: str, total: int | None = None) -> str:
    count = len(entries) if total is None else total
    return f"{ATOM_HEAD}<opensearch:totalResults>{count}</opensearch:totalResults>{''.join(entries)}</feed>"


def transports(handler: Any) -> tuple[FakeTransport, FakeTransport]:
    api = FakeTransport(handler, source=SourceName.ARXIV, base_url="https://export.test")
    web = FakeTransport(handler, source=SourceName.ARXIV, base_url="https://arxiv.test")
    return api, web


def id_list_answer(call: Call) -> str:
    """Answer an id_list query as arXiv does: latest version v2 unless a version was asked for."""
    entries = []
    for requested in call.params["id_list"].split(","):
        versioned = requested if re.search(r"v\d+$", requested) else f"{requested}v2"
        entries.append(entry(versioned, title=f"Paper {requested}"))
    return feed(*entries)


# --- parser ----------------------------------------------------------------------------------------


def test_parse_feed_entries() -> None:
    parsed = parse_arxiv_atom(fixture_text("arxiv", "feed_two_entries.xml"))
    assert parsed.total_results == 2
    assert parsed.start_index == 0
    assert parsed.items_per_page == 2
    assert parsed.errors == ()
    first, second = parsed.entries

    record = first.record
    assert record.source is SourceName.ARXIV
    assert record.source_id == "1912.01234v2"
    assert (record.arxiv_id, record.arxiv_version) == ("1912.01234", 2)
    assert record.title == "Quantum walks on Schrödinger graphs"  # TeX rendered, whitespace collapsed
    assert record.authors == (Author(given="Björn", family="Nygård"), Author(given="Li", family="Wei"))
    assert record.year == 2019  # published (v1), not updated (2020)
    assert record.abstract == "We define quantum walks on graphs."
    # The published version's DOIs are related works, never this preprint's own DOI.
    assert record.doi is None
    assert record.related_dois == ("10.1103/physreva.101.000001", "10.5555/erratum.2020.7")
    assert record.venue == "Phys. Rev. A 101, 000001 (2020)"
    assert record.is_preprint is True
    assert record.work_type == "preprint"
    assert record.urls == {
        "abs": "https://arxiv.org/abs/1912.01234v2",
        "pdf": "https://arxiv.org/pdf/1912.01234v2",
        "doi": "https://doi.org/10.1103/PhysRevA.101.000001",
    }
    assert first.primary_category == "quant-ph"
    assert first.categories == ("quant-ph", "math-ph")
    assert first.published == "2019-12-03T09:00:00Z"
    assert first.updated == "2020-03-04T10:00:00Z"
    assert first.comment == "12 pages"

    assert (second.record.arxiv_id, second.record.arxiv_version) == ("hep-th/9712345", 3)
    assert second.record.venue is None
    assert second.record.related_dois == ()


def test_entry_raw_round_trips() -> None:
    for parsed in parse_arxiv_atom(fixture_text("arxiv", "feed_two_entries.xml")).entries:
        [again] = parse_arxiv_atom(parsed.raw).entries
        assert again.record == parsed.record


def test_error_entry_is_reported_not_returned() -> None:
    parsed = parse_arxiv_atom(fixture_text("arxiv", "error_entry.xml"))
    assert parsed.entries == ()
    assert parsed.errors == ("incorrect id format for xyz",)
    assert parse_arxiv_feed(fixture_text("arxiv", "error_entry.xml")) == []


def test_entity_bomb_is_refused() -> None:
    with pytest.raises(SourceParseError, match="entities"):
        parse_arxiv_atom(fixture_text("arxiv", "entity_bomb.xml"))
    with pytest.raises(SourceParseError, match="entities"):
        parse_arxiv_atom(fixture_text("arxiv", "entity_bomb.xml").encode("utf-8"))


def test_any_doctype_is_refused() -> None:
    with pytest.raises(SourceParseError, match="DOCTYPE"):
        parse_arxiv_atom('<!DOCTYPE feed SYSTEM "http://evil.test/x.dtd">' + feed())


@pytest.mark.parametrize(
    "body",
    [
        "<feed><unclosed></feed>",
        "<html><body>Service unavailable</body></html>",
        feed("<entry><id>http://arxiv.org/abs/not-an-id</id><title>x</title></entry>"),
        f"{ATOM_HEAD}<opensearch:totalResults>many</opensearch:totalResults></feed>",
    ],
)
def test_malformed_feeds_are_parse_errors(body: str) -> None:
    with pytest.raises(SourceParseError):
        parse_arxiv_atom(body)


# --- client ----------------------------------------------------------------------------------------


async def test_by_id_asks_for_the_cited_version() -> None:
    api, web = transports(id_list_answer)
    client = ArxivClient(api, web, coalesce_window=0)
    found = await client.by_id("arXiv:1912.01234v1")
    assert found is not None
    assert (found.record.arxiv_id, found.record.arxiv_version) == ("1912.01234", 1)
    [call] = api.calls
    assert call.method == "get_text"
    assert call.path == "/api/query"
    assert call.params == {"id_list": "1912.01234v1", "start": 0, "max_results": 1}
    assert found.url == "https://export.test/api/query?id_list=1912.01234v1"


async def test_by_id_without_version_takes_the_latest() -> None:
    def answer(call: Call) -> str:
        # A feed holding two versions of one paper: the unversioned request wants the newest.
        return feed(entry("1912.01234v1", "old"), entry("1912.01234v3", "new"))

    api, web = transports(answer)
    found = await ArxivClient(api, web, coalesce_window=0).by_id("1912.01234")
    assert found is not None and found.record.title == "new"
    assert api.calls[0].params["id_list"] == "1912.01234"


async def by_ids(client: ArxivClient, ids: list[str]) -> dict[str, SourceRecord | None]:
    """The ids asked at once, as the references of a job ask them: each `by_id`, coalesced."""
    return dict(zip(ids, await asyncio.gather(*(client.by_id(i) for i in ids)), strict=True))


async def test_concurrent_ids_batch_100_per_request() -> None:
    api, web = transports(id_list_answer)
    client = ArxivClient(api, web)
    ids = [f"2001.{n:05d}" for n in range(1, 251)]
    results = await by_ids(client, ids)
    sizes = [len(call.params["id_list"].split(",")) for call in api.calls]
    assert sizes == [MAX_IDS_PER_REQUEST, MAX_IDS_PER_REQUEST, 50]
    assert [call.params["max_results"] for call in api.calls] == sizes
    assert all(call.kind == "batch" for call in api.calls)
    assert list(results) == ids
    assert all(r is not None and r.record.arxiv_version == 2 for r in results.values())


async def test_concurrent_by_id_calls_coalesce() -> None:
    api, web = transports(id_list_answer)
    client = ArxivClient(api, web, coalesce_window=0.01)
    found = await asyncio.gather(
        client.by_id("2104.12255"), client.by_id("2104.12255v1"), client.by_id("hep-th/9901001")
    )
    [call] = api.calls
    assert call.params["id_list"] == "2104.12255,2104.12255v1,hep-th/9901001"
    assert [(r.record.arxiv_id, r.record.arxiv_version) if r else None for r in found] == [
        ("2104.12255", 2),
        ("2104.12255", 1),
        ("hep-th/9901001", 2),
    ]


async def test_error_entry_feed_is_none() -> None:
    api, web = transports(lambda call: fixture_text("arxiv", "error_entry.xml"))
    assert await ArxivClient(api, web, coalesce_window=0).by_id("2101.00001") is None


async def test_empty_feed_is_none_and_cached() -> None:
    api, web = transports(lambda call: fixture_text("arxiv", "empty_feed.xml"))
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=60)
    client = ArxivClient(api, web, cache=cache, coalesce_window=0)
    assert await client.by_id("2001.99999") is None
    assert await client.by_id("arXiv:2001.99999") is None
    assert len(api.calls) == 1


async def test_cache_keeps_one_entry_per_id() -> None:
    api, web = transports(id_list_answer)
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=60)
    client = ArxivClient(api, web, cache=cache)
    fetched = await by_ids(client, ["2001.00001", "2001.00002"])
    again = await client.by_id("2001.00002")
    assert len(api.calls) == 1
    assert again is not None and again.from_cache
    assert again.record == fetched["2001.00002"].record  # type: ignore[union-attr]


async def test_rejected_batch_is_halved_until_the_bad_id_stands_alone() -> None:
    bad = "2001.00007"

    def answer(call: Call) -> str:
        if bad in call.params["id_list"].split(","):
            raise PermanentSourceError("arxiv", "request refused", status_code=400)
        return id_list_answer(call)

    api, web = transports(answer)
    ids = [f"2001.{n:05d}" for n in range(1, 9)]
    results = await by_ids(ArxivClient(api, web), ids)
    assert results[bad] is None
    assert all(results[i] is not None for i in ids if i != bad)
    assert len(api.calls) <= 1 + 2 * 3  # log2(8) halvings, two requests each


async def test_other_permanent_errors_propagate() -> None:
    def answer(call: Call) -> str:
        raise PermanentSourceError("arxiv", "forbidden", status_code=403)

    api, web = transports(answer)
    with pytest.raises(PermanentSourceError):
        await ArxivClient(api, web, coalesce_window=0).by_id("2001.00001")


async def test_short_page_is_transient() -> None:
    api, web = transports(lambda call: feed(entry("2001.00001v1"), total=2))
    with pytest.raises(TransientSourceError):
        await by_ids(ArxivClient(api, web), ["2001.00001", "2001.00002"])


async def test_malformed_id_is_a_value_error() -> None:
    api, web = transports(id_list_answer)
    with pytest.raises(ValueError, match="not an arXiv identifier"):
        await ArxivClient(api, web).by_id("0808.05394")  # a five-digit number before 2015
    assert api.calls == []


async def test_search_query_shape() -> None:
    api, web = transports(lambda call: fixture_text("arxiv", "feed_two_entries.xml"))
    hits = await ArxivClient(api, web).search(
        title='Quantum walks: on "Schrödinger" graphs', author="de With", max_results=5
    )
    [call] = api.calls
    assert call.params == {
        "search_query": 'ti:"Quantum walks on Schrodinger graphs" AND au:de_With',
        "start": 0,
        "max_results": 5,
        "sortBy": "relevance",
        "sortOrder": "descending",
    }
    assert call.kind == "search"
    assert [h.record.source_id for h in hits] == ["1912.01234v2", "hep-th/9712345v3"]
    with pytest.raises(ValueError):
        await ArxivClient(api, web).search()


async def test_full_texts_come_from_the_web_transport() -> None:
    def answer(call: Call) -> Any:
        return b"%PDF-1.7" if call.method == "get_bytes" else "<html>paper</html>"

    api, web = transports(answer)
    client = ArxivClient(api, web)
    assert await client.fetch_html("arXiv:2104.12255v1") == "<html>paper</html>"
    assert await client.fetch_pdf("2104.12255") == b"%PDF-1.7"
    assert [(c.method, c.path, c.kind) for c in web.calls] == [
        ("get_text", "/html/2104.12255v1", "fulltext"),
        ("get_bytes", "/pdf/2104.12255", "fulltext"),
    ]
    assert api.calls == []


async def test_api_and_web_share_one_three_second_bucket() -> None:
    clock = FakeClock()
    stamps: list[tuple[str, float]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        stamps.append((request.url.host, clock()))
        if request.url.path.startswith("/pdf/"):
            return httpx.Response(200, content=b"%PDF")
        return httpx.Response(200, text=feed(entry("2104.12255v1")))

    settings = Settings(_env_file=None, arxiv_api_url="https://export.test", arxiv_url="https://web.test")
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        limiter = LocalRateLimiter(clock=clock, sleep=clock.sleep)
        api, web = arxiv_transports(http, settings, limiter)
        assert api.breaker is web.breaker  # one source, one breaker
        assert (api.base_url, web.base_url) == ("https://export.test", "https://web.test")
        client = ArxivClient(api, web, coalesce_window=0)
        await client.by_id("2104.12255v1")
        await client.fetch_pdf("2104.12255v1")
        await client.by_id("2104.12255")
    assert [host for host, _ in stamps] == ["export.test", "web.test", "export.test"]
    times = [t for _, t in stamps]
    assert all(later - earlier >= 3.0 - 1e-9 for earlier, later in itertools.pairwise(times))


PRINTABLE = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Cn")), max_size=40)


@given(title=PRINTABLE, name=PRINTABLE, summary=PRINTABLE)
@hypothesis_settings(max_examples=150, deadline=None)
def test_any_entry_text_parses(title: str, name: str, summary: str) -> None:
    """Whatever text an entry holds (TeX, markup-looking text, blanks), it parses to a record."""
    body = feed(
        "<entry><id>http://arxiv.org/abs/2101.00001v1</id>"
        f"<title>{escape(title)}</title><summary>{escape(summary)}</summary>"
        f"<published>2021-01-01T00:00:00Z</published><author><name>{escape(name)}</name></author></entry>"
    )
    [record] = parse_arxiv_feed(body)
    assert (record.arxiv_id, record.arxiv_version, record.year) == ("2101.00001", 1, 2021)
    assert record.title is None or record.title.strip() == record.title != ""
    assert all(a.family or a.given or a.literal for a in record.authors)


@given(st.text(max_size=200))
@hypothesis_settings(max_examples=150, deadline=None)
def test_any_body_parses_or_is_a_parse_error(body: str) -> None:
    with contextlib.suppress(SourceParseError):  # anything else escaping fails the test
        parse_arxiv_atom(body)


def test_journal_ref_is_the_published_venue() -> None:
    published = entry("1706.03762v5").replace(
        "</entry>",
        '<arxiv:journal_ref xmlns:arxiv="http://arxiv.org/schemas/atom">'
        "NeurIPS 2017</arxiv:journal_ref></entry>",
    )
    with_ref, without_ref = parse_arxiv_atom(feed(published, entry("2106.09685v2"))).entries
    assert with_ref.record.venue == with_ref.record.published_venue == "NeurIPS 2017"
    assert with_ref.record.is_preprint  # the arXiv record is the preprint, wherever it appeared
    assert without_ref.record.published_venue is None
