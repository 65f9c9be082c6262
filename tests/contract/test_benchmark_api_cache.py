"""The real answers recorded for the ICLR 2026 bibliography benchmark parse, with their venue names.

`../shared/data/benchmarks/iclr2026-real-bibliographies/api_cache/{crossref,openalex,semantic_scholar}`
holds one JSON answer per file: a list of work items (a search) or one item. Every item parses,
its precision fields are well typed, and the data the payloads carry (S2 alternate names and DBLP
keys, OpenAlex repository locations and ISSNs) is read. Skipped where ../shared is absent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.records import WorkRecord
from aletheia.sources.crossref import parse_crossref_work
from aletheia.sources.openalex import parse_openalex_work
from aletheia.sources.semantic_scholar_parse import parse_s2_paper
from tests.contract.precision_fields import assert_precision_fields_well_typed

pytestmark = pytest.mark.shared


def records(
    shared_data: Path, source: str, parse: Callable[[Mapping[str, Any]], WorkRecord]
) -> list[tuple[dict[str, Any], WorkRecord]]:
    directory = shared_data / "benchmarks" / "iclr2026-real-bibliographies" / "api_cache" / source
    files = sorted(directory.glob("*.json"))
    if not files:
        pytest.skip(f"no recorded {source} answers")
    parsed = []
    for path in files:
        body = json.loads(path.read_text(encoding="utf-8"))
        for item in body if isinstance(body, list) else [body]:
            record = parse(item)
            assert_precision_fields_well_typed(record)
            parsed.append((item, record))
    return parsed


def test_semantic_scholar(shared_data: Path) -> None:
    parsed = records(shared_data, "semantic_scholar", parse_s2_paper)
    assert len(parsed) >= 20
    assert any(record.venue_aliases for _, record in parsed)
    assert any(record.dblp_key for _, record in parsed)
    for item, record in parsed:
        assert record.dblp_key == ((item.get("externalIds") or {}).get("DBLP") or None)
        if record.arxiv_id and record.published_venue:
            assert not record.is_preprint and record.venue


def test_openalex(shared_data: Path) -> None:
    parsed = records(shared_data, "openalex", parse_openalex_work)
    assert len(parsed) >= 100
    assert sum(1 for _, record in parsed if record.issn) >= 50
    assert sum(1 for _, record in parsed if record.other_venues) >= 50


def test_crossref(shared_data: Path) -> None:
    parsed = records(shared_data, "crossref", parse_crossref_work)
    assert len(parsed) >= 100
    for item, record in parsed:
        titles = item.get("container-title") or []
        if isinstance(titles, list) and len(titles) > 1:
            assert record.other_venues, item.get("DOI")
