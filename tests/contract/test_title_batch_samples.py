"""Issue 23: a recorded arXiv search feed read as a title batch's answer.

A real `search_query` feed states how many entries matched (`opensearch:totalResults`); a batch
answer is complete, and may prove a title absent, only when every one of them came back. The
recorded searches for "testing" match far more than a page, so they are never complete, and
every title they do not clearly hold is a miss (asked alone), never "not found".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aletheia.sources.arxiv_parse import parse_arxiv_atom
from aletheia.sources.arxiv_titles import batch_answer, feed_of
from aletheia.sources.title_batches import share_out

pytestmark = pytest.mark.shared


def test_a_recorded_search_page_is_an_incomplete_batch(shared_data: Path) -> None:
    directory = shared_data / "api-samples" / "arxiv" / "arxivpy-tests" / "fixtures"
    pages = sorted(directory.glob("q_testing_*.json"))
    assert pages
    for path in pages:
        recorded = json.loads(path.read_text(encoding="utf-8"))
        feed = parse_arxiv_atom(recorded["body"])
        assert feed.entries and feed.total_results is not None
        answer = batch_answer([(e.record.title or "", e.raw) for e in feed.entries], feed.total_results)
        assert not answer.complete, path.name
        invented = "An Invented Title About Nothing Recorded Anywhere"
        first = feed.entries[0].record.title or ""
        out = share_out([invented, first], answer, limit=5)
        assert out[invented] is None  # a miss, asked alone: never "not found"
        assert out[first] is not None and feed.entries[0].raw in out[first]
        # What a reference gets is re-read as the single search's feed, entry for entry.
        again = parse_arxiv_atom(feed_of(out[first]))
        assert [e.record for e in again.entries][:1] == [feed.entries[0].record]
