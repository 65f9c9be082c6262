"""Issue 28: the real-records benchmark. The copy rule is checked on its own; the run itself reads
`../shared/data/benchmarks/iclr2026-real-records` and skips where it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from aletheia.bench.realrecords_bench import copies_without_witness, run


def test_a_copy_carries_no_author_list_and_no_year_but_arxiv_keeps_its_year() -> None:
    work = {
        "title": "T",
        "year": 2022,
        "sources": ["semantic_scholar", "arxiv", "pubmed"],
        "native": {"semantic_scholar": {"paperId": "x"}},
        "overrides": {"pubmed": {"title": "T."}},
    }
    out = copies_without_witness(work)
    assert out["overrides"]["arxiv"] == {"authors": []}
    assert out["overrides"]["pubmed"] == {"title": "T.", "authors": [], "year": None}
    assert "semantic_scholar" not in out["overrides"]
    # A work every source recorded is served as it is.
    recorded = {"title": "T", "sources": ["crossref"], "native": {"crossref": {"DOI": "10.1/x"}}}
    assert copies_without_witness(recorded) is recorded


@pytest.mark.shared
def test_at_most_three_percent_of_the_valid_references_are_flagged(shared_data: Path) -> None:
    figures = run(base=shared_data / "benchmarks" / "iclr2026-real-records")
    assert figures["valid"] == 190
    # Three of the flags read by hand are real citation errors (docs/benchmarks.md); the bar of
    # the issue excludes them, this guard does not.
    assert figures["valid_flagged_rate"] <= 0.03, figures["valid_flagged_by_reason"]
