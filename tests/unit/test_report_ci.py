"""The reports for the places people already look: SARIF (validated against the structure SARIF
2.1.0 requires), JUnit XML (read back by a parser), GitHub annotations (file and line of the .bib
entry) and the Markdown pull-request comment; and `aletheia verify --format ...` writing each.

The official SARIF 2.1.0 JSON schema cannot be downloaded here (no network), so SARIF_REQUIRED
below is a minimal JSON schema written from the spec's required properties (sarifLog.version and
runs, run.tool.driver.name, result.message, and the location fields code scanning needs to place a
result: physicalLocation.artifactLocation.uri and region.startLine >= 1)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from aletheia.pipeline.reports.formats import FORMATS, make_sink
from tests.conftest import verify_sample
from tests.unit.test_explain import _unmatched, wrong_year_ref

SARIF_REQUIRED = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["tool", "results"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "name": {"type": "string", "minLength": 1},
                                    "rules": {
                                        "type": "array",
                                        "items": {"type": "object", "required": ["id"]},
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["ruleId", "message", "locations"],
                            "properties": {
                                "ruleId": {"type": "string"},
                                "level": {"enum": ["none", "note", "warning", "error"]},
                                "message": {
                                    "type": "object",
                                    "required": ["text"],
                                    "properties": {"text": {"type": "string", "minLength": 1}},
                                },
                                "locations": {
                                    "type": "array",
                                    "minItems": 1,
                                    "items": {
                                        "type": "object",
                                        "required": ["physicalLocation"],
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "required": ["artifactLocation", "region"],
                                                "properties": {
                                                    "artifactLocation": {
                                                        "type": "object",
                                                        "required": ["uri"],
                                                        "properties": {
                                                            "uri": {"type": "string", "minLength": 1}
                                                        },
                                                    },
                                                    "region": {
                                                        "type": "object",
                                                        "required": ["startLine"],
                                                        "properties": {
                                                            "startLine": {"type": "integer", "minimum": 1}
                                                        },
                                                    },
                                                },
                                            }
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}


def validate_sarif(doc: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(doc, SARIF_REQUIRED)
    for run in doc["runs"]:
        rule_ids = [r["id"] for r in run["tool"]["driver"].get("rules", [])]
        for result in run["results"]:
            assert result["ruleId"] in rule_ids
            assert rule_ids[result["ruleIndex"]] == result["ruleId"]


def _refs() -> list[dict[str, Any]]:
    return [
        wrong_year_ref(),
        _unmatched("not_found", ["no_match_found"]) | {"key": "ghost", "origin": "refs/paper.bib:60"},
        _unmatched("verified", ["doi_resolved", "triangulated"])
        | {"key": "fine", "origin": "refs/paper.bib:70"},
        _unmatched("ambiguous", ["several_candidates"]) | {"key": "twin", "origin": "refs/paper.bib:80"},
    ]


SUMMARY = {
    "total": 4,
    "by_verdict": {"metadata_error": 1, "not_found": 1, "verified": 1, "ambiguous": 1},
    "logic_version": "2.0.0",
    "sources": {"crossref": {"status": "ok"}, "arxiv": {"status": "unavailable", "affected": 1}},
}


def render(fmt: str) -> str:
    out = io.StringIO()
    sink = make_sink(fmt, out)
    for ref in _refs():
        sink.reference(ref)
    sink.summary(SUMMARY)
    return out.getvalue()


def test_sarif_has_the_required_structure_and_points_at_the_bib_lines() -> None:
    doc = json.loads(render("sarif"))
    validate_sarif(doc)
    results = doc["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("metadata_error", "error"),
        ("not_found", "error"),
        ("ambiguous", "warning"),
    ]
    location = results[0]["locations"][0]["physicalLocation"]
    assert location == {"artifactLocation": {"uri": "refs/paper.bib"}, "region": {"startLine": 47}}
    assert "cited 2019; Semantic Scholar and arXiv say 2014" in results[0]["message"]["text"]
    assert results[0]["properties"]["correctedEntry"].startswith("@inproceedings{kingma2017adam")
    notifications = doc["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert "arXiv (unavailable" in notifications[0]["message"]["text"]  # a partial run says so


def test_the_sarif_check_rejects_what_code_scanning_cannot_place() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    doc = json.loads(render("sarif"))
    del doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    with pytest.raises(jsonschema.ValidationError):
        validate_sarif(doc)


def test_junit_reads_back_with_one_case_per_reference() -> None:
    root = ET.fromstring(render("junit"))  # noqa: S314 - our own output, read back by a parser
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    cases = {c.get("name"): c for c in suites["refs/paper.bib"].findall("testcase")}
    assert set(cases) == {"kingma2017adam", "ghost", "fine", "twin"}
    assert cases["kingma2017adam"].get("line") == "47"
    failure = cases["kingma2017adam"].find("failure")
    assert failure is not None and failure.get("type") == "metadata_error"
    assert "What to change: replace the entry" in (failure.text or "")
    assert cases["ghost"].find("failure") is not None
    assert cases["twin"].find("skipped") is not None  # check by hand: visible, not failing
    assert cases["fine"].find("failure") is None and cases["fine"].find("skipped") is None
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("5", "2", "2")
    assert suites["aletheia sources"].find("testcase/skipped") is not None  # the partial run


ANNOTATION = re.compile(r"^::(error|warning|notice) ([^:]*)::(.*)$")


def test_github_annotations_point_at_the_entry_line_and_escape_newlines() -> None:
    lines = render("github").splitlines()
    parsed = [ANNOTATION.match(line) for line in lines]
    assert all(parsed), lines
    props = [dict(p.split("=", 1) for p in m.group(2).split(",")) for m in parsed if m]
    assert props[0] == {"file": "refs/paper.bib", "line": "47", "title": "kingma2017adam%3A wrong year"}
    assert [p.get("line") for p in props[:3]] == ["47", "60", "80"]
    assert "%0AWhat to change:" in lines[0] and "\n" not in lines[0]
    assert lines[-2].startswith("::warning title=Aletheia partial run::")
    assert (
        lines[-1] == "::error title=Aletheia::3 of 4 references need attention: "
        "1 to remove, 1 to correct, 1 to check by hand."
    )


def test_markdown_comment_leads_with_the_summary_and_carries_the_corrected_entry() -> None:
    text = render("markdown")
    assert text.startswith("## Aletheia: 3 of 4 references need attention")
    assert "> [!WARNING]" in text  # the partial run
    assert "### To correct (1)" in text and "```bibtex" in text
    assert "`refs/paper.bib:47`" in text
    assert "remove: no source knows this work (asked: OpenAlex and Crossref)" in text


def test_the_table_says_the_same_in_fewer_words() -> None:
    text = " ".join(render("table").split())
    assert "3 of 4 references need attention" in text
    assert "the year is wrong: cited 2019; Semantic Scholar and arXiv say 2014".capitalize()[:20] in text
    assert "arXiv (unavailable; 1 verdicts affected" in text  # display names, as every format (issue 20)


@pytest.mark.parametrize("fmt", ["sarif", "junit", "github"])
def test_verify_writes_each_ci_format_for_the_sample(tmp_path: Path, fmt: str) -> None:
    assert fmt in FORMATS
    code, path = verify_sample(tmp_path, fmt)
    text = path.read_text(encoding="utf-8")
    assert code == 1
    if fmt == "sarif":
        doc = json.loads(text)
        validate_sarif(doc)
        uris = {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in doc["runs"][0]["results"]
        }
        assert uris == {"examples/sample.bib"}  # relative to the checkout
        lines = sorted(
            r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in doc["runs"][0]["results"]
        )
        assert lines == [38, 47, 57, 66, 75, 83]  # the @entry lines of the flagged references
    elif fmt == "junit":
        root = ET.fromstring(text)  # noqa: S314 - our own output
        assert root.get("failures") == "6"
    else:
        assert "::error file=examples/sample.bib,line=47,title=kingma2017adam%3A wrong year::" in text
