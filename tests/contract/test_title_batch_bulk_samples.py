"""Issue 23: recorded Semantic Scholar bulk searches and DBLP answers, read as title batches, and the
simulator's bulk search against them.

A recorded `paper/search/bulk` page holds 1,000 papers and a continuation token (2,674 matched
"kubernetes"): such an answer is never complete, so no title it lacks is proved absent. The
recorded call sent `offset=0&limit=100` and got 1,000 papers: the endpoint ignores both, and the
simulator does too. The simulator's bulk answer has the recorded keys, and its refusal of an
unknown field the recorded body. A recorded DBLP answer's hits hold their words in the title, the
authors and the venue, all of which DBLP's search matches: a title the answer holds is never proved
absent. Skipped when ../shared is absent; nothing is copied from it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import yaml

from aletheia.sources.dblp import dblp_query
from aletheia.sources.dblp_titles import batch_answer as dblp_batch_answer
from aletheia.sources.dblp_titles import share_absence
from aletheia.sources.s2_titles import bulk_answer, share_halves, title_batchable, title_words
from aletheia.sources.simulator import SimulatorServer

pytestmark = pytest.mark.shared


def _cassette(shared_data: Path, name: str) -> Iterator[tuple[str, int, Any]]:
    path = shared_data / "api-samples" / "semantic-scholar" / "semanticscholar-tests" / "data" / name
    for interaction in yaml.safe_load(path.read_text(encoding="utf-8"))["interactions"]:
        response = interaction["response"]
        if "body" in response:
            text, status = response["body"]["string"], int(response["status"]["code"])
        else:
            text, status = response["content"], int(response["status_code"])
        yield interaction["request"]["uri"], status, json.loads(text)


def _recorded_bulk(shared_data: Path) -> tuple[str, Any]:
    uri, status, body = next(_cassette(shared_data, "test_search_paper_bulk_retrieval.yaml"))
    assert status == 200 and urlsplit(uri).path == "/graph/v1/paper/search/bulk"
    return uri, body


def test_a_recorded_bulk_page_is_never_complete(shared_data: Path) -> None:
    uri, body = _recorded_bulk(shared_data)
    answer = bulk_answer(body)
    assert not answer.complete and len(answer.items) == 1000 < body["total"]
    # The endpoint ignored `limit=100`.
    assert parse_qs(urlsplit(uri).query)["limit"] == ["100"]
    invented = title_words("Kubernetes Operators for Invented Quantum Scheduling of Lunar Clusters")
    assert share_halves([invented], answer, limit=1)[invented] is None  # a miss, never absent
    # A title on the page, asked with others, is found, or asked alone; never absent.
    titles = [t for t, _ in answer.items if title_batchable(title_words(t))]
    assert titles
    for title in titles[:50]:
        words = title_words(title)
        assert share_halves([words], answer, limit=1)[words] != []


def test_the_simulator_s_bulk_answer_has_the_recorded_shape(
    shared_data: Path, sim: SimulatorServer, client: httpx.Client
) -> None:
    _, recorded = _recorded_bulk(shared_data)
    response = client.get(
        sim.url_for("semantic_scholar") + "/graph/v1/paper/search/bulk",
        params={"query": "attention", "fields": "title", "offset": 0, "limit": 100},
    )
    simulated = response.json()
    assert response.status_code == 200 and simulated["data"]
    # The simulator's page is complete, so it has no token; every other key is recorded.
    assert set(simulated) <= set(recorded) and set(recorded) - set(simulated) == {"token"}
    assert {frozenset(p) for p in simulated["data"]} <= {frozenset(p) for p in recorded["data"]}


def test_the_simulator_refuses_an_unknown_field_with_the_recorded_body(
    shared_data: Path, sim: SimulatorServer, client: httpx.Client
) -> None:
    uri, status, body = next(_cassette(shared_data, "test_bad_query_parameters.yaml"))
    assert status == 400 and parse_qs(urlsplit(uri).query)["fields"] == ["unknown"]
    response = client.get(
        sim.url_for("semantic_scholar") + "/graph/v1/paper/search/bulk",
        params={"query": "attention", "fields": "unknown"},
    )
    assert response.status_code == status and response.json() == body


def test_a_title_in_a_recorded_dblp_answer_is_never_proved_absent(shared_data: Path) -> None:
    directory = shared_data / "api-samples" / "dblp" / "refchecker-cache"
    answers = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.json"))]
    hits = [hit for answer in answers if isinstance(answer, list) for hit in answer]
    assert hits
    for hit in hits:
        title = hit["info"].get("title")
        if not isinstance(title, str):
            continue
        query = dblp_query(title)
        # A recorded answer is a bare list of hits: complete only as far as it goes, so the
        # rule is read on it as if it were complete, the strictest case.
        envelope = {"result": {"hits": {"@total": "1", "hit": [hit]}}}
        assert share_absence([query], dblp_batch_answer(envelope), 5) == {query: None}
