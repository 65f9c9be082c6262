"""ADR 004's fields in the reports: on every REFERENCE object, as badges in the HTML page, and in
words in Markdown and SARIF."""

from __future__ import annotations

import io
import json

from aletheia.core.evidence import SourceAnswer
from aletheia.core.records import Author, CitedReference
from aletheia.pipeline.reports.formats import JsonSink, make_sink, reference_json
from aletheia.pipeline.reports.transparency import transparency_badges, transparency_phrase
from tests.unit.test_report import FOUND, NOTHING, REAL, outcome


def cited(key: str, year: int) -> CitedReference:
    return CitedReference(
        key=key,
        entry_type="inproceedings",
        title=REAL.title,
        authors=REAL.authors,
        year=year,
        doi=REAL.doi,
        origin=f"refs.bib:{year - 2000}",
    )


def invented() -> CitedReference:
    return CitedReference(
        key="ghost",
        title="Quantum entanglement of breakfast cereals under lunar gravity",
        authors=(Author(given="Ann", family="Nobody"),),
        year=2015,
        origin="refs.bib:40",
    )


def references() -> list[dict[str, object]]:
    answers: tuple[SourceAnswer, ...] = (FOUND,)
    return [
        reference_json(outcome("good", cited("good", 2016), *answers)),
        reference_json(outcome("late", cited("late", 2019), *answers)),
        reference_json(outcome("ghost", invented(), NOTHING)),
    ]


def test_every_reference_carries_the_three_fields() -> None:
    good, late, ghost = references()
    assert (good["verdict"], good["verification_status"], good["tier"], good["tier_name"]) == (
        "verified",
        "verified",
        2,
        "scholarly",
    )
    assert good["content_type"] is None  # a bibliography entry: no quote or claim was checked
    assert late["verdict"] == "metadata_error" and late["verification_status"] != "verified"
    assert ghost["verification_status"] == "unverified"


def test_json_document_holds_them() -> None:
    out = io.StringIO()
    sink = JsonSink(out)
    for ref in references():
        sink.reference(ref)
    sink.summary({"total": 3})
    doc = json.loads(out.getvalue())
    assert doc["references"][0]["verification_status"] == "verified"
    assert all(
        {"verification_status", "content_type", "tier", "tier_name"} <= set(r) for r in doc["references"]
    )


def test_badges_and_words() -> None:
    good = references()[0]
    badges = transparency_badges(good)
    assert [(b["kind"], b["value"]) for b in badges] == [("verification", "verified"), ("tier", "2")]
    assert transparency_phrase(good) == "verified · tier 2 scholarly"
    quoted = {**good, "content_type": "exact_quote"}
    assert transparency_phrase(quoted) == "verified · tier 2 scholarly · exact quote"
    # A report stored before the fields existed shows none.
    assert transparency_badges({"verdict": "verified"}) == [] and transparency_phrase({}) is None


def render(fmt: str) -> str:
    out = io.StringIO()
    sink = make_sink(fmt, out)
    for ref in references():
        sink.reference(ref)
    sink.summary({"total": 3, "by_verdict": {}, "sources": {}, "logic_version": "x", "job_id": "j"})
    return out.getvalue()


def test_html_shows_badges() -> None:
    page = render("html")
    assert page.count('data-badge="verification"') == 3
    assert 'data-badge="tier" data-value="2"' in page
    assert ">partially verified<" in page or ">unverified<" in page


def test_markdown_and_sarif_say_it_in_words() -> None:
    assert "tier 2 scholarly" in render("markdown")
    sarif = json.loads(render("sarif"))
    props = [r["properties"] for r in sarif["runs"][0]["results"]]
    assert props and all("transparency" in p for p in props)
