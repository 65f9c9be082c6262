"""Every recorded OpenAlex work in ../shared/data/api-samples/openalex/refchecker-cache/ parses.

Each file is one recorded answer: a list of work objects (a search) or a single work object.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.arxiv_ids import clean_arxiv_id
from aletheia.core.identifiers import clean_doi
from aletheia.core.records import WorkRecord
from aletheia.sources.openalex import parse_openalex_list, parse_openalex_work
from tests.contract.precision_fields import assert_precision_fields_well_typed

pytestmark = pytest.mark.shared

LATEST_PLAUSIBLE_YEAR = datetime.now(UTC).year + 2


@pytest.fixture(scope="module")
def works(shared_data: Path) -> list[tuple[dict[str, Any], WorkRecord]]:
    files = sorted((shared_data / "api-samples" / "openalex" / "refchecker-cache").glob("*.json"))
    assert len(files) >= 70

    def each() -> Iterator[dict[str, Any]]:
        for path in files:
            payload = json.loads(path.read_text(encoding="utf-8"))
            yield from payload if isinstance(payload, list) else [payload]

    return [(work, parse_openalex_work(work)) for work in each()]


def test_every_work_parses_into_a_plausible_record(works: list[tuple[dict[str, Any], WorkRecord]]) -> None:
    assert len(works) >= 270
    for work, record in works:
        label = work["id"]
        assert record.source_id == work["id"].rsplit("/", 1)[-1]
        assert record.title, label
        assert record.year is not None and 1600 <= record.year <= LATEST_PLAUSIBLE_YEAR, label
        if work.get("doi"):
            assert record.doi == clean_doi(work["doi"]) and record.doi is not None, label
        else:
            assert record.doi is None, label
        assert len(record.authors) == len(
            [a for a in work["authorships"] if a.get("raw_author_name") or a["author"].get("display_name")]
        ), label
        for author in record.authors:
            assert author.family or author.literal, (label, author)
        for related in record.related_dois:
            assert clean_doi(related) == related != record.doi, label
        for arxiv_id in (*record.related_arxiv_ids, *([record.arxiv_id] if record.arxiv_id else [])):
            parsed = clean_arxiv_id(arxiv_id)
            assert parsed is not None and parsed.id == arxiv_id, label
        assert record.arxiv_id is None or record.is_preprint or record.published_venue, label
        assert_precision_fields_well_typed(record)


def test_arxiv_preprints_are_recognised(works: list[tuple[dict[str, Any], WorkRecord]]) -> None:
    by_id = {record.source_id: record for _, record in works}
    thompson = by_id["W2141645258"]  # "Further Optimal Regret Bounds for Thompson Sampling"
    assert thompson.is_preprint and thompson.work_type == "preprint"
    assert thompson.arxiv_id == "1209.3353"
    assert thompson.doi == "10.48550/arxiv.1209.3353"
    assert thompson.related_arxiv_ids == ()
    assert [(a.given, a.family) for a in thompson.authors] == [("Shipra", "Agrawal"), ("Navin", "Goyal")]
    preprints = [record for _, record in works if record.is_preprint]
    assert len(preprints) >= 40


def test_published_works_know_their_arxiv_versions(works: list[tuple[dict[str, Any], WorkRecord]]) -> None:
    published_with_arxiv = [
        record for _, record in works if not record.is_preprint and record.related_arxiv_ids
    ]
    assert len(published_with_arxiv) >= 5
    for record in published_with_arxiv:
        assert record.work_type != "preprint"
        assert record.doi is None or not record.doi.startswith("10.48550/")


def test_team_bylines_stay_whole(works: list[tuple[dict[str, Any], WorkRecord]]) -> None:
    literals = {author.literal for _, record in works for author in record.authors if author.literal}
    assert {"Gemini Team", "R Core Team"} <= literals


def test_a_results_envelope_of_recorded_works(works: list[tuple[dict[str, Any], WorkRecord]]) -> None:
    raw = [work for work, _ in works[:25]]
    assert parse_openalex_list({"meta": {"count": 25}, "results": raw}) == [r for _, r in works[:25]]


def test_locations_issns_and_repositories_are_read(works: list[tuple[dict[str, Any], WorkRecord]]) -> None:
    assert sum(1 for _, r in works if r.issn) >= 100
    assert sum(1 for _, r in works if r.other_venues) >= 100
    for work, record in works:
        source = (work.get("primary_location") or {}).get("source") or {}
        if source.get("issn_l") and record.published_venue is None:
            assert source["issn_l"] in record.issn, work["id"]
    # Works whose primary location is a repository while another is a journal or book: that venue
    # is the record's (the repository among the other venues), and the work is published, unless
    # its own DOI is the arXiv preprint's.
    moved = [(w, r) for w, r in works if r.published_venue is not None]
    assert len(moved) >= 3
    for work, record in moved:
        primary = (work["primary_location"].get("source") or {}).get("display_name")
        if record.doi and record.doi.startswith("10.48550/"):
            assert record.is_preprint and record.venue == primary, work["id"]
        else:
            assert not record.is_preprint and record.venue == record.published_venue, work["id"]
            assert primary in record.other_venues, work["id"]


def test_open_access_copies_are_kept(works: list[tuple[dict[str, Any], WorkRecord]]) -> None:
    """The recorded works select no `best_oa_location`: the PDF is the first open location's, the
    page OpenAlex's `open_access.oa_url` when it is not that PDF; a closed location gives none."""
    for work, record in works:
        label = work["id"]
        assert "best_oa_location" not in work, label  # else the rule below is not the one applied
        open_pdfs = [loc["pdf_url"] for loc in work["locations"] if loc.get("is_oa") and loc.get("pdf_url")]
        assert record.urls.get("oa_pdf") == (open_pdfs[0] if open_pdfs else None), label
        oa_url = (work.get("open_access") or {}).get("oa_url")
        expected_page = oa_url if oa_url and oa_url != record.urls.get("oa_pdf") else None
        assert record.urls.get("oa_html") == expected_page, label
    assert sum("oa_pdf" in record.urls for _, record in works) >= 200
    assert sum("oa_html" in record.urls for _, record in works) >= 30
