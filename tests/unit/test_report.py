"""Report sinks: the JSON document, JSON lines, and the corrected BibTeX bibliography."""

from __future__ import annotations

import io
import json

import bibtexparser

from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.reports.formats import BibtexSink, JsonlSink, JsonSink, reference_json

REAL = WorkRecord(
    source=SourceName.CROSSREF,
    title="Deep Residual Learning for Image Recognition",
    authors=(Author(given="Kaiming", family="He"), Author(given="Xiangyu", family="Zhang")),
    year=2016,
    doi="10.1109/cvpr.2016.90",
    venue="CVPR",
)


def outcome(key: str, cited: CitedReference, *answers: SourceAnswer) -> ReferenceOutcome:
    evidence = Evidence(answers=answers)
    return ReferenceOutcome(
        cited=cited, verdict=decide(cited, evidence, current_year=2026), evidence=evidence, raw=[]
    )


def bib_cited(key: str, **fields: str) -> CitedReference:
    return CitedReference(
        key=key,
        entry_type="inproceedings",
        fields=fields,
        title="Deep Residual Learning for Image Recognition",
        authors=(Author(given="Kaiming", family="He"), Author(given="Xiangyu", family="Zhang")),
        year=int(fields.get("year", "2016")),
        doi="10.1109/cvpr.2016.90",
    )


FOUND = SourceAnswer(
    source=SourceName.CROSSREF, kind=QueryKind.DOI, query="q", outcome=Outcome.FOUND, records=(REAL,)
)
NOTHING = SourceAnswer(
    source=SourceName.CROSSREF, kind=QueryKind.SEARCH, query="q", outcome=Outcome.NOT_FOUND
)


def test_corrected_bibtex_keeps_every_entry_and_lists_each_change() -> None:
    good = bib_cited(
        "good",
        title=r"Deep {R}esidual Learning for Image Recognition",
        author="He, K. and Zhang, X.",
        year="2016",
    )
    wrong_year = bib_cited(
        "wrong", title="Deep Residual Learning for Image Recognition", author="He, Kaiming", year="2019"
    )
    unknown = CitedReference(
        key="ghost", entry_type="article", fields={"title": r"Ghosts \& Co."}, title="Ghosts & Co."
    )
    out = io.StringIO()
    sink = BibtexSink(out)
    sink.reference(reference_json(outcome("good", good, FOUND)))
    sink.reference(reference_json(outcome("wrong", wrong_year.model_copy(update={"year": 2019}), FOUND)))
    sink.reference(reference_json(outcome("ghost", unknown, NOTHING)))
    sink.summary({"total": 3, "logic_version": "x"})
    text = out.getvalue()
    library = bibtexparser.parse_string(text)
    assert [e.key for e in library.entries] == ["good", "wrong", "ghost"]  # nothing dropped
    assert not library.failed_blocks
    by_key = {e.key: e for e in library.entries}
    assert by_key["wrong"]["year"] == "2016"
    assert "year changed from '2019' to '2016'" in text
    assert (
        by_key["good"]["title"] == r"Deep {R}esidual Learning for Image Recognition"
    )  # LaTeX kept as written
    assert by_key["ghost"]["title"] == r"Ghosts \& Co."
    assert "NOT VERIFIED" in text.split("@article{ghost")[0].rsplit("@inproceedings", 1)[-1]
    assert by_key["good"].entry_type == "inproceedings"


def test_plain_reference_becomes_an_entry_from_the_matched_record() -> None:
    cited = CitedReference(
        key="1",
        raw="He K, Zhang X. Deep residual learning. CVPR 2016.",
        title="Deep residual learning",
        year=2016,
        authors=(Author(given="K", family="He"),),
    )
    out = io.StringIO()
    sink = BibtexSink(out)
    obj = reference_json(outcome("1", cited, FOUND))
    sink.reference(obj)
    library = bibtexparser.parse_string(out.getvalue())
    (entry,) = library.entries
    assert entry.key == "he2016"  # author-year, not the position (issue 20)


def test_json_document_and_jsonl_stream_agree() -> None:
    objs = [reference_json(outcome(k, bib_cited(k, year="2016"), FOUND)) for k in ("a", "b")]
    summary = {"total": 2, "by_verdict": {"verified": 2}, "logic_version": "x"}
    doc_out, lines_out = io.StringIO(), io.StringIO()
    for sink in (JsonSink(doc_out), JsonlSink(lines_out)):
        for obj in objs:
            sink.reference(obj)
        sink.summary(summary)
    doc = json.loads(doc_out.getvalue())
    lines = [json.loads(line) for line in lines_out.getvalue().splitlines()]
    assert doc["summary"] == lines[-1]["summary"]
    # The sinks add the state of the signals' data (docs/report-schema.md `signal_data`).
    assert doc["summary"] == {**summary, "signal_data": doc["summary"]["signal_data"]}
    assert doc["references"] == lines[:-1]
    assert [r["verdict"] for r in doc["references"]] == ["verified", "verified"]
    assert set(doc["references"][0]) >= {
        "key",
        "input",
        "verdict",
        "severity",
        "reasons",
        "fields",
        "match",
        "retraction",
        "corrected",
        "p_valid",
    }
