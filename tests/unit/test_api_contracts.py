"""The nightly contract check's shapes (issue 29, seed 000 §10.4): recording, merging, comparing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aletheia.pipeline.contracts import ContractReport, ContractResult
from aletheia.sources.contracts import compare_shapes, json_shape, load_contracts, merge_shapes, xml_shape


def test_a_json_shape_is_keys_and_types() -> None:
    payload = {
        "title": "T",
        "year": 2020,
        "score": 0.5,
        "oa": False,
        "abstract": None,
        "authors": [{"name": "A", "id": "1"}, {"name": "B", "orcid": None}, {"name": "C", "orcid": "x"}],
        "tags": [],
    }
    assert json_shape(payload) == {
        "title": "string",
        "year": "number",
        "score": "number",
        "oa": "boolean",
        "abstract": "null",
        "authors": [{"name": "string", "id": "string", "orcid": "string"}],
        "tags": [],
    }
    assert merge_shapes("string", "number") == "any"
    assert merge_shapes([], ["string"]) == ["string"]


def test_an_xml_shape_is_elements_by_local_name() -> None:
    atom = (
        '<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x</id><title>T</title>'
        "<author><name>A</name></author><author><name>B</name></author>"
        '<link href="h" rel="alternate"/></entry></feed>'
    )
    assert xml_shape(atom) == {
        "entry": [
            {
                "id": ["string"],
                "title": ["string"],
                "author": [{"name": ["string"]}],
                "link": [{"@href": "string", "@rel": "string"}],
            }
        ]
    }
    assert xml_shape('<PMID Version="1">123</PMID>') == {"@Version": "string", "#text": "string"}


def test_an_xml_answer_declaring_entities_is_refused_as_the_clients_refuse_it() -> None:
    from aletheia.sources.base import SourceParseError

    laughs = '<!DOCTYPE r [<!ENTITY a "ha"><!ENTITY b "&a;&a;">]><r>&b;</r>'
    with pytest.raises(SourceParseError, match="entities"):
        xml_shape(laughs)
    # A plain DOCTYPE line, as NCBI sends, is read.
    assert xml_shape('<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD" "x.dtd"><PMID>1</PMID>') == "string"


def test_drift_is_a_key_gone_or_a_type_changed() -> None:
    recorded = {"message": {"title": ["string"], "author": [{"family": "string"}], "year": "number"}}
    same = {
        "message": {"title": ["string"], "author": [{"family": "string", "given": "string"}], "year": "null"}
    }
    differences = compare_shapes(recorded, same)
    assert [(d.kind, d.path, d.drift) for d in differences] == [("new_key", "message.author[].given", False)]
    changed = {"message": {"titles": ["string"], "author": "string", "year": "string"}}
    assert [(d.kind, d.path) for d in compare_shapes(recorded, changed)] == [
        ("missing_key", "message.title"),
        ("type_changed", "message.author"),
        ("type_changed", "message.year"),
        ("new_key", "message.titles"),
    ]
    assert compare_shapes(recorded, [])[0].describe() == "(root): was object, now array"
    # XML text that now holds markup is still text; an empty array says nothing of its items.
    assert (
        compare_shapes({"ArticleTitle": ["string"]}, {"ArticleTitle": [{"i": ["string"], "#text": "string"}]})
        == []
    )
    assert compare_shapes({"authors": [{"name": "string"}]}, {"authors": []}) == []


def test_the_recorded_contracts_name_a_lookup_of_each_client() -> None:
    from aletheia.sources.arxiv import ArxivClient
    from aletheia.sources.crossref import CrossrefClient
    from aletheia.sources.openalex import OpenAlexClient
    from aletheia.sources.pubmed import PubMedClient
    from aletheia.sources.semantic_scholar import SemanticScholarClient

    clients = {
        "crossref": CrossrefClient,
        "openalex": OpenAlexClient,
        "semantic_scholar": SemanticScholarClient,
        "arxiv": ArxivClient,
        "pubmed": PubMedClient,
    }
    contracts = load_contracts()
    assert set(contracts) == set(clients)
    for source, contract in contracts.items():
        assert callable(getattr(clients[source], contract["lookup"])), source
        assert contract["query"] and isinstance(contract["shape"], dict)


@pytest.mark.shared
def test_the_semantic_scholar_recording_fits_real_answers(shared_data: Path) -> None:
    """The recorded shape is written by hand; a real answer of the API (shared data) has it."""
    samples = shared_data / "api-samples" / "semantic-scholar"
    recorded = load_contracts()["semantic_scholar"]["shape"]
    checked = 0
    for path in sorted(samples.rglob("*.json"))[:50]:
        data = json.loads(path.read_text(encoding="utf-8"))
        # The recording is of a paper asked for by its DOI (a paper without one has no DOI key).
        if isinstance(data, dict) and "title" in data and "DOI" in (data.get("externalIds") or {}):
            assert [d.describe() for d in compare_shapes(recorded, json_shape(data)) if d.drift] == [], path
            checked += 1
    assert checked > 0


def test_the_report_says_drift_unreachable_and_ok_apart() -> None:
    report = ContractReport(
        "2026-11-28T02:30:00+00:00",
        [
            ContractResult("crossref", "10.1/x", "ok"),
            ContractResult("arxiv", "1", "unreachable", error="503"),
        ],
    )
    assert report.exit_code() == 3 and report.drifted == []
    report.results.append(ContractResult("openalex", "10.1/x", "drift", [{"kind": "missing_key"}]))
    assert report.exit_code() == 1 and [r.source for r in report.drifted] == ["openalex"]
    assert ContractReport.from_json(json.loads(json.dumps(report.as_json()))).as_json() == report.as_json()
