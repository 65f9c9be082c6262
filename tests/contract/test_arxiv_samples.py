"""Every recorded arXiv API response in ../shared (arxiv.py's fixtures) parses as documented.

Each fixture is `{"url", "status_code", "body"}` with the Atom feed as `body`. The feeds are also
replayed through `ArxivClient` to check that the answers map back onto the ids asked for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from aletheia.core.arxiv_ids import clean_arxiv_id
from aletheia.core.records import SourceName
from aletheia.sources.arxiv import ArxivClient
from aletheia.sources.arxiv_parse import parse_arxiv_atom
from tests.unit.source_fakes import Call, FakeTransport

pytestmark = pytest.mark.shared


def fixtures(shared_data: Path) -> list[tuple[str, dict[str, Any]]]:
    directory = shared_data / "api-samples" / "arxiv" / "arxivpy-tests" / "fixtures"
    found = [(p.name, json.loads(p.read_text(encoding="utf-8"))) for p in sorted(directory.glob("*.json"))]
    assert len(found) >= 20
    return found


def query_of(recorded: dict[str, Any]) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(recorded["url"]).query, keep_blank_values=True).items()}


def test_every_feed_parses(shared_data: Path) -> None:
    papers = 0
    for name, recorded in fixtures(shared_data):
        feed = parse_arxiv_atom(recorded["body"])
        query = query_of(recorded)
        if recorded["status_code"] == 400:
            # arXiv's answer to a malformed id: one "Error" entry, no paper.
            assert feed.entries == (), name
            assert feed.errors and "incorrect id format" in feed.errors[0]
            continue
        assert recorded["status_code"] == 200
        assert feed.errors == ()
        assert feed.total_results is not None and feed.start_index == int(query["start"])
        assert len(feed.entries) <= int(query["max_results"])
        requested = [i for i in query["id_list"].split(",") if i]
        for entry in feed.entries:
            record = entry.record
            papers += 1
            assert record.source is SourceName.ARXIV
            assert record.title, name
            assert record.year is not None and 1991 <= record.year <= 2030
            parsed = clean_arxiv_id(entry.entry_id)
            assert parsed is not None and (parsed.id, parsed.version) == (
                record.arxiv_id,
                record.arxiv_version,
            )
            assert record.arxiv_version is not None and record.arxiv_version >= 1
            assert record.authors and all(a.family or a.literal for a in record.authors)
            assert record.doi is None and record.is_preprint
            assert record.published_venue == record.venue  # the journal_ref, as the authors wrote it
            assert all(doi.startswith("10.") for doi in record.related_dois)
            assert record.urls["abs"].startswith("https://arxiv.org/abs/")
            assert entry.published is not None and entry.primary_category
            if requested:
                bare = [clean_arxiv_id(i) for i in requested]
                assert any(b is not None and b.id == record.arxiv_id for b in bare), (name, entry.entry_id)
        if requested:
            assert feed.total_results == len(feed.entries)
    assert papers > 100


def test_known_records(shared_data: Path) -> None:
    by_name = dict(fixtures(shared_data))

    def only(prefix: str) -> Any:
        [name] = [n for n in by_name if n.startswith(prefix)]
        [entry] = parse_arxiv_atom(by_name[name]["body"]).entries
        return entry

    zero = only("id_2104.12255v1_")
    assert (zero.record.title, zero.record.arxiv_version, zero.record.year) == ("0", 1, 2021)
    assert zero.record.authors[0].family == "Nguyen"
    assert zero.primary_category == "cs.CR"

    jupiters = only("id_astro-ph_0601001_")
    assert jupiters.record.arxiv_id == "astro-ph/0601001"
    assert jupiters.record.venue == "ActaAstron.56:1-50,2006"  # the journal ref, as the authors wrote it
    assert [a.family for a in jupiters.record.authors] == ["Gould", "Dorsher", "Gaudi", "Udalski"]

    assert (
        parse_arxiv_atom(by_name[next(n for n in by_name if n.startswith("id_0000.0000_"))]["body"]).entries
        == ()
    )


async def test_replayed_through_the_client(shared_data: Path) -> None:
    """Id lookups answered with the recorded feeds come back as the records asked for."""
    bodies = {query_of(r)["id_list"]: r["body"] for _, r in fixtures(shared_data) if r["status_code"] == 200}

    def answer(call: Call) -> str:
        body: str = bodies[call.params["id_list"]]
        return body

    api = FakeTransport(answer, source=SourceName.ARXIV)
    web = FakeTransport(answer, source=SourceName.ARXIV)
    client = ArxivClient(api, web, coalesce_window=0)
    versioned = await client.by_id("2104.12255v1")
    assert versioned is not None and versioned.record.arxiv_version == 1
    latest = await client.by_id("1707.08567")
    assert latest is not None and latest.record.arxiv_id == "1707.08567"
    assert len(latest.record.authors) == 34
    old_style = await client.by_id("astro-ph/0601001")
    assert old_style is not None and old_style.record.year == 2006
    assert await client.by_id("quant-ph/0201082v1") is not None
