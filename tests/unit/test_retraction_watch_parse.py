"""Retraction Watch CSV parsing, the in-memory index, and loading from a path or a URL."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from aletheia.core.records import RetractionKind, SourceName
from aletheia.core.retraction import combine_retraction_status
from aletheia.sources.base import PermanentSourceError, SourceParseError, TransientSourceError
from aletheia.sources.retraction_watch import (
    RetractionIndex,
    RetractionWatchRow,
    load_retraction_watch,
    nature_kind,
    parse_retraction_watch_csv,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "retraction_watch"
FULL = FIXTURES / "full_export.csv"
COMPACT = FIXTURES / "compact.csv"


def test_every_fixture_is_used() -> None:
    assert {p.name for p in FIXTURES.iterdir()} == {FULL.name, COMPACT.name}


def test_the_full_export() -> None:
    with FULL.open(encoding="utf-8", newline="") as handle:
        rows = list(parse_retraction_watch_csv(handle))
    # Row 70004 names no original DOI or PMID: nothing could find it.
    assert [row.record_id for row in rows] == ["70001", "70002", "70003", "70005", "70006"]
    first, concern, no_doi, reinstated, _ = rows
    assert first == RetractionWatchRow(
        original_doi="10.5555/aletheia.retracted.3",
        original_pmid="26000001",
        natures=("Retraction",),
        record_id="70001",
        notice_doi="10.5555/aletheia.retracted.3-retr",
        notice_pmid="34000001",
        date="2021-06-03",
        original_date="2016-02-02",
        title="Eels navigate by starlight, revisited",
        journal="Journal of Shoreline Studies",
        reasons=("Falsification/Fabrication of Data", "Investigation by Journal/Publisher"),
    )
    assert (concern.notice_doi, concern.notice_pmid) == (None, None)  # "unavailable" and "0"
    assert (no_doi.original_doi, no_doi.original_pmid) == (None, "28000002")
    assert reinstated.natures == ("Reinstatement",)


def test_the_compact_form() -> None:
    rows = list(parse_retraction_watch_csv(COMPACT.read_text(encoding="utf-8").splitlines()))
    assert [(row.original_doi, row.natures) for row in rows] == [
        ("10.5555/aletheia.retracted.3", ("Retraction", "Expression of concern")),
        ("10.5555/aletheia.concern.4", ("Expression of concern",)),
        ("10.5555/aletheia.tides.9", ("Retraction", "Reinstatement")),
    ]


def test_an_unknown_header_is_a_parse_error() -> None:
    with pytest.raises(SourceParseError):
        list(parse_retraction_watch_csv(["title,year", "A paper,2020"]))
    assert list(parse_retraction_watch_csv([])) == []


def test_a_byte_order_mark_does_not_hide_the_header() -> None:
    rows = list(parse_retraction_watch_csv(["\ufeffDOI,RetractionWatch", "10.5555/x,Retraction"]))
    assert rows == [RetractionWatchRow(original_doi="10.5555/x", natures=("Retraction",))]


@pytest.mark.parametrize(
    ("nature", "kind"),
    [
        ("Retraction", RetractionKind.RETRACTED),
        ("Expression of concern", RetractionKind.EXPRESSION_OF_CONCERN),
        ("Expression of Concern", RetractionKind.EXPRESSION_OF_CONCERN),
        ("Correction", RetractionKind.CORRECTED),
        ("Reinstatement", RetractionKind.REINSTATED),
        ("Something new", None),
    ],
)
def test_natures(nature: str, kind: RetractionKind | None) -> None:
    assert nature_kind(nature) is kind


def test_lookup_by_doi_or_pmid() -> None:
    index = RetractionIndex.load(FULL)
    assert len(index) == 5
    by_doi = index.lookup(doi="https://doi.org/10.5555/Aletheia.Retracted.3")
    by_pmid = index.lookup(pmid="PMID: 26000001")
    assert by_doi == by_pmid
    assert [(n.kind, n.source, n.date) for n in by_doi] == [
        (RetractionKind.RETRACTED, SourceName.RETRACTION_WATCH, "2021-06-03"),
        (RetractionKind.EXPRESSION_OF_CONCERN, SourceName.RETRACTION_WATCH, "2019-11-20"),
    ]
    assert by_doi[0].detail == (
        "Retraction (record 70001): Falsification/Fabrication of Data; Investigation by Journal/Publisher"
    )
    both = index.lookup(doi="10.5555/aletheia.retracted.3", pmid="26000001")
    assert len(both) == 2  # one row found twice is one row
    assert [n.kind for n in index.lookup(pmid=28000002)] == [RetractionKind.CORRECTED]
    assert index.lookup(doi="10.5555/clean.paper") == []
    assert index.lookup() == []


def test_a_dated_reinstatement_after_the_retraction_lifts_it() -> None:
    index = RetractionIndex.load(FULL)
    status = combine_retraction_status(index.lookup(doi="10.5555/aletheia.tides.9"))
    assert status.kind is RetractionKind.NONE
    assert status.reinstated
    # The compact form has no dates: the retraction stands, and the status says it is contested.
    compact = RetractionIndex.load(COMPACT)
    undated = combine_retraction_status(compact.lookup(doi="10.5555/aletheia.tides.9"))
    assert undated.kind is RetractionKind.RETRACTED
    assert undated.reinstated


def test_the_storage_columns_rebuild_an_equivalent_index() -> None:
    index = RetractionIndex.load(FULL)
    stored = [row.as_storage_row() for row in index]
    assert stored[0] == {
        "doi": "10.5555/aletheia.retracted.3",
        "pmid": "26000001",
        "nature": "Retraction",
        "notice_doi": "10.5555/aletheia.retracted.3-retr",
        "date": "2021-06-03",
    }
    rebuilt = RetractionIndex.from_rows(stored)
    for doi in ("10.5555/aletheia.retracted.3", "10.5555/aletheia.tides.9"):
        before = combine_retraction_status(index.lookup(doi=doi))
        after = combine_retraction_status(rebuilt.lookup(doi=doi))
        assert (after.kind, after.reinstated) == (before.kind, before.reinstated)
    assert [n.kind for n in rebuilt.lookup(pmid="28000002")] == [RetractionKind.CORRECTED]
    compact = RetractionIndex.from_rows(row.as_storage_row() for row in RetractionIndex.load(COMPACT))
    assert [n.kind for n in compact.lookup(doi="10.5555/aletheia.tides.9")] == [
        RetractionKind.RETRACTED,
        RetractionKind.REINSTATED,
    ]


def test_rows_survive_a_json_round_trip() -> None:
    for row in RetractionIndex.load(FULL):
        stored = json.dumps(row.model_dump(mode="json"))
        assert RetractionWatchRow.model_validate(json.loads(stored)) == row


async def test_load_from_a_path() -> None:
    index = await load_retraction_watch(str(COMPACT), None)
    assert index.dois == 3


def _client(handler: Callable[[httpx.Request], httpx.Response]) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_load_from_the_configured_url() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=("\ufeff" + FULL.read_text(encoding="utf-8")).encode())

    async with _client(handler) as http:
        index = await load_retraction_watch("https://data.example/retractions.csv", http)
    assert [str(r.url) for r in seen] == ["https://data.example/retractions.csv"]
    assert len(index) == 5


@pytest.mark.parametrize(("status", "error"), [(503, TransientSourceError), (403, PermanentSourceError)])
async def test_a_failed_download_raises_the_error_tree(status: int, error: type[Exception]) -> None:
    async with _client(lambda _: httpx.Response(status)) as http:
        with pytest.raises(error):
            await load_retraction_watch("https://data.example/retractions.csv", http)


async def test_a_url_needs_a_client() -> None:
    with pytest.raises(ValueError, match="HTTP client"):
        await load_retraction_watch("https://data.example/retractions.csv", None)
