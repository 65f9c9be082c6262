"""Requests per reference, per kind and per source (issue 11)."""

from __future__ import annotations

from aletheia.sources.base import SourceStats
from aletheia.sources.transport.figures import request_figures
from aletheia.sources.transport.request import reported_kind


def test_kinds_as_reported() -> None:
    assert reported_kind("single", None) == "lookup"
    assert reported_kind("search", {"filter": "doi:10.1/a,doi:10.1/b"}) == "batch"  # Crossref list query
    assert reported_kind("search", {"query.bibliographic": "x"}) == "search"
    assert reported_kind("batch", {}) == "batch"


def test_request_figures() -> None:
    crossref = SourceStats(requests=3, cache_hits=2, extra={"requests_search": 2, "requests_batch": 1})
    openalex = SourceStats(requests=1, extra={"requests_lookup": 1, "search_memo_hits": 4})
    f = request_figures({"crossref": crossref, "openalex": openalex}, 8)
    assert f["total"] == 4 and f["per_reference"] == 0.5
    assert f["by_kind"] == {"lookup": 1, "batch": 1, "search": 2}
    assert f["by_source"]["openalex"]["search_memo_hits"] == 4
    assert f["by_source"]["crossref"]["cache_hits"] == 2
