"""Every recorded Crossref response in ../shared/data/api-samples/crossref/ goes through the parsers.

habanero-sessions/ holds whole recorded sessions (`[{method, uri, status, content_type, json,
text}, ...]`): only work and work-list envelopes are works; every other envelope (funders,
journals, members, licenses, prefixes, types, agencies, validation failures) must be recognised
and refused explicitly, and non-JSON bodies (BibTeX, HTML redirects, plain-text 404s) are not
Crossref JSON at all. refchecker-cache/ holds lists of work items from searches.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.identifiers import clean_doi
from aletheia.core.records import WorkRecord
from aletheia.sources.base import SourceParseError
from aletheia.sources.crossref import (
    CROSSREF_WORK_MESSAGE_TYPES,
    crossref_message_type,
    parse_crossref_message,
    parse_crossref_work,
)
from tests.contract.precision_fields import assert_precision_fields_well_typed

pytestmark = pytest.mark.shared

# Envelopes Crossref documents that are not works.
NON_WORK_MESSAGE_TYPES = frozenset(
    {
        "funder",
        "funder-list",
        "member",
        "member-list",
        "journal",
        "journal-list",
        "license-list",
        "prefix",
        "type",
        "type-list",
        "work-agency",
        "validation-failure",
        "resource-failure",
    }
)
# Work types that legitimately have no title (a figure or table, an issue of a journal).
TITLE_LESS_TYPES = frozenset({"component", "journal-issue", "journal-volume"})
DATE_FIELDS = ("issued", "published", "published-print", "published-online", "posted", "created")
LATEST_PLAUSIBLE_YEAR = datetime.now(UTC).year + 2
INLINE_MARKUP = re.compile(r"</?(?:i|b|u|em|sub|sup|scp|jats:[a-z-]+|mml:[a-z]+)\b", re.IGNORECASE)


@pytest.fixture(scope="module")
def crossref_dir(shared_data: Path) -> Path:
    return shared_data / "api-samples" / "crossref"


def interactions(crossref_dir: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for path in sorted((crossref_dir / "habanero-sessions").glob("*.json")):
        for interaction in json.loads(path.read_text(encoding="utf-8")):
            yield path.name, interaction


def items_of(payload: dict[str, Any]) -> list[Any]:
    if "message" not in payload:
        return [payload]  # bare CSL-JSON from content negotiation
    if payload["message-type"] == "work":
        return [payload["message"]]
    items: list[Any] = payload["message"]["items"]
    return items


def check_record(record: WorkRecord, item: dict[str, Any]) -> None:
    label = item.get("DOI")
    assert record.title or record.work_type in TITLE_LESS_TYPES, label
    if record.year is None:
        assert not any(item.get(name) for name in DATE_FIELDS), label
    else:
        assert 1600 <= record.year <= LATEST_PLAUSIBLE_YEAR, label
    assert record.doi is not None and clean_doi(record.doi) == record.doi, label
    assert record.doi == clean_doi(item["DOI"]), label
    for author in record.authors:
        assert author.family or author.literal, (label, author)
    for related in record.related_dois:
        assert clean_doi(related) == related != record.doi, label
    assert record.abstract is None or "<jats:" not in record.abstract, label
    assert record.title is None or not INLINE_MARKUP.search(record.title), label
    assert record.notice_for == () or record.work_type == "notice", label
    assert_precision_fields_well_typed(record)
    titles = item.get("container-title")
    if isinstance(titles, list) and len(titles) > 1:
        assert record.venue and record.other_venues, label


def test_every_habanero_interaction_is_parsed_or_refused(crossref_dir: Path) -> None:
    parsed = refused = not_json = 0
    for name, interaction in interactions(crossref_dir):
        payload = interaction["json"]
        message_type = crossref_message_type(payload)
        if message_type in CROSSREF_WORK_MESSAGE_TYPES:
            records = parse_crossref_message(payload)
            items = items_of(payload)
            assert len(records) == len(items), name
            for record, item in zip(records, items, strict=True):
                check_record(record, item)
            parsed += len(records)
        elif message_type in NON_WORK_MESSAGE_TYPES:
            with pytest.raises(SourceParseError):
                parse_crossref_message(payload)
            refused += 1
        else:
            # Not Crossref JSON: a BibTeX/citation body, an HTML redirect, a plain-text 404.
            assert payload is None, (name, interaction["uri"])
            assert message_type is None
            not_json += 1
    assert parsed >= 600
    assert refused >= 40
    assert not_json >= 30


def test_the_recorded_corrections_are_read(crossref_dir: Path) -> None:
    corrected: dict[str, WorkRecord] = {}
    for _, interaction in interactions(crossref_dir):
        payload = interaction["json"]
        if crossref_message_type(payload) in CROSSREF_WORK_MESSAGE_TYPES:
            for record in parse_crossref_message(payload):
                if record.retraction_notices and record.doi:
                    corrected[record.doi] = record
    # PLOS deposits a correction as `updated-by`; its self-referencing `new_version` updates are
    # not notices and must not appear.
    assert {"10.1371/journal.pone.0033693", "10.1371/journal.pbio.0050002"} <= set(corrected)
    for record in corrected.values():
        assert all(notice.kind.value == "corrected" for notice in record.retraction_notices)
        assert all(notice.notice_doi != record.doi for notice in record.retraction_notices)


def test_the_recorded_preprint_relations_are_read(crossref_dir: Path) -> None:
    related: dict[str, tuple[str, ...]] = {}
    for _, interaction in interactions(crossref_dir):
        payload = interaction["json"]
        if crossref_message_type(payload) in CROSSREF_WORK_MESSAGE_TYPES:
            for record in parse_crossref_message(payload):
                if record.related_dois and record.doi:
                    related[record.doi] = record.related_dois
    assert related["10.7717/peerj.3811"] == ("10.7287/peerj.preprints.3020",)
    assert len(related) >= 10


def test_every_refchecker_search_item_parses(crossref_dir: Path) -> None:
    files = sorted((crossref_dir / "refchecker-cache").glob("*.json"))
    assert len(files) >= 70
    records: list[WorkRecord] = []
    for path in files:
        for item in json.loads(path.read_text(encoding="utf-8")):
            record = parse_crossref_work(item)
            check_record(record, item)
            records.append(record)
    assert len(records) >= 340
    preprints = [r for r in records if r.work_type == "preprint"]
    assert preprints and all(r.is_preprint for r in preprints)
    # Organisations deposited as `name` are kept whole, not split into given/family.
    assert any(author.literal == "Axioms Editorial Office" for r in records for author in r.authors)


def test_series_beside_the_proceedings_are_read(crossref_dir: Path) -> None:
    records = [
        parse_crossref_work(item)
        for path in sorted((crossref_dir / "refchecker-cache").glob("*.json"))
        for item in json.loads(path.read_text(encoding="utf-8"))
    ]
    with_series = [r for r in records if r.other_venues]
    assert len(with_series) >= 10
    assert any("Lecture Notes in Computer Science" in (r.venue, *r.other_venues) for r in with_series)
