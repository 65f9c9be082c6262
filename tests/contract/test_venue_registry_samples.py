"""Crossref's journal answers recorded by habanero (`../shared/data/api-samples/crossref/
habanero-sessions/test-journals__*.json`) through the venue registry's parser: every `journal`
and `journal-list` envelope reads into venues with a title and well-formed ISSNs; every other
answer of those sessions (work lists, validation failures, plain-text 404s) is refused or is not
Crossref JSON at all. Skipped where ../shared is absent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.identifiers import clean_issn
from aletheia.core.records import SourceName
from aletheia.sources.base import SourceParseError
from aletheia.sources.venue_registry_parse import parse_crossref_journals

pytestmark = pytest.mark.shared

JOURNAL_TYPES = frozenset({"journal", "journal-list"})


@pytest.fixture(scope="module")
def exchanges(shared_data: Path) -> list[tuple[str, dict[str, Any]]]:
    folder = shared_data / "api-samples" / "crossref" / "habanero-sessions"
    files = sorted(folder.glob("test-journals__*.json"))
    if not files:
        pytest.skip("no recorded Crossref journal sessions")
    return [(f"{path.name} {ex.get('uri')}", ex) for path in files for ex in _session(path)]


def _session(path: Path) -> Iterator[dict[str, Any]]:
    recorded = json.loads(path.read_text(encoding="utf-8"))
    yield from (ex for ex in recorded if isinstance(ex, dict))


def test_every_journal_envelope_reads_into_venues(exchanges: list[tuple[str, dict[str, Any]]]) -> None:
    read = 0
    for label, exchange in exchanges:
        payload = exchange.get("json")
        if not isinstance(payload, dict) or payload.get("message-type") not in JOURNAL_TYPES:
            continue
        venues = parse_crossref_journals(payload)
        message = payload["message"]
        expected = len(message["items"]) if payload["message-type"] == "journal-list" else 1
        assert len(venues) == expected, label
        for venue in venues:
            assert venue.source is SourceName.CROSSREF and venue.name.strip(), label
            assert venue.issn and all(clean_issn(i) == i for i in venue.issn), label
            assert venue.source_id == venue.issn[0] and venue.kind == "journal", label
        read += len(venues)
    assert read >= 4  # the list of one, the search of two, and the journals asked by ISSN


def test_the_recorded_query_finds_what_crossref_ranked(exchanges: list[tuple[str, dict[str, Any]]]) -> None:
    found = [ex for label, ex in exchanges if "journals?query=ecology" in label]
    assert found, "the recorded `/journals?query=ecology` answer"
    names = [v.name for v in parse_crossref_journals(found[0]["json"])]
    assert names and all("ecology" in n.casefold() for n in names)


def test_other_answers_are_refused(exchanges: list[tuple[str, dict[str, Any]]]) -> None:
    for label, exchange in exchanges:
        payload = exchange.get("json")
        if isinstance(payload, dict) and payload.get("message-type") in JOURNAL_TYPES:
            continue
        if isinstance(payload, dict):  # work lists of a journal, validation failures
            with pytest.raises(SourceParseError):
                parse_crossref_journals(payload)
        else:  # the plain-text 404 "Resource not found.": the transport's, never a payload
            assert (exchange.get("text") or "").strip() == "Resource not found.", label
