"""Integrity signals in the reports (issue 13): the stored report.json of a job carries the
document's cohort in its summary, every summary says which signal data was loaded (an empty
predatory list reads "not loaded"), the HTML shows it and each reference's evidence with its
sources' trust, and a full-text input is itself checked for paper-mill signs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aletheia.config import Settings
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.evidence import Evidence
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import FieldEvidence, Verdict, VerdictStatus
from aletheia.pipeline import service
from aletheia.pipeline.document_signals import body_of, document_signal, reporting_documents
from aletheia.pipeline.evidence import ReferenceOutcome
from aletheia.pipeline.jobs import bibliography as bibliography_jobs
from aletheia.pipeline.report_html import render_html
from aletheia.pipeline.report_signals import evidence_trust, summary_with_signals
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.service import InlineDispatcher, InputDocument, ServiceContext

SMITH = Author(given="Alice", family="Smith")


def _read(documents: Any, max_bytes: int) -> Iterator[CitedReference | InputProblem]:
    for doc in documents:
        for line in doc.data.decode().splitlines():
            yield CitedReference(key=line, title=f"paper {line}")


async def _verify(cited: CitedReference) -> ReferenceOutcome:
    """Six verified works; the first three share Alice Smith: a cohort of 50%."""
    n = int(cited.key)
    authors = (SMITH,) if n < 3 else (Author(given="Bo", family=f"Other{n}"),)
    match = WorkRecord(source=SourceName.CROSSREF, title=cited.title, authors=authors, doi=f"10.9/{n}")
    field = FieldEvidence(cited=cited.title, found=cited.title, source=SourceName.CROSSREF, decisive=True)
    verdict = Verdict(status=VerdictStatus.VERIFIED, match=match, fields={"title": field})
    return ReferenceOutcome(cited=cited, verdict=verdict, evidence=Evidence(), raw=[])


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    monkeypatch.setattr(bibliography_jobs, "read_references", _read)
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    settings = Settings(
        data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", offline=True
    )
    return Runtime.open(settings)


def test_the_stored_report_json_carries_the_cohort_and_the_signal_data(runtime: Runtime) -> None:
    dispatcher = InlineDispatcher(concurrency=2, sleep=lambda _s: None)
    ctx = ServiceContext(
        runtime=runtime, dispatcher=dispatcher, runner=service.LoopThread(), verifier=_verify
    )
    try:
        job_id = service.submit_bibliography(
            runtime, dispatcher, [InputDocument(name="refs.txt", data=b"0\n1\n2\n3\n4\n5\n")]
        )
        dispatcher.drain(ctx)
    finally:
        ctx.close()
    folder = runtime.settings.reports_path() / job_id
    written = json.loads((folder / "report.json").read_text())
    [cohort] = written["summary"]["signals"]
    assert cohort["kind"] == "cohort_concentrated"
    assert cohort["evidence"]["references"] == ["0", "1", "2"]
    assert cohort["evidence"]["authors"] == [{"name": "Alice Smith", "references": 3}]
    assert written["summary"]["signal_data"]["predatory_list"] == {"state": "not loaded", "entries": 0}
    assert written["references"][0]["fields"]["title"]["trust"] == "doi_registry"
    page = (folder / "report.html").read_text()
    assert 'data-signal="cohort_concentrated"' in page and "Alice Smith" in page
    assert "predatory list <strong>not loaded</strong>" in page
    assert "Evidence from: Crossref (doi registry)" in page


def test_evidence_trust_lists_sources_most_trusted_first() -> None:
    ref = {
        "fields": {"title": {"source": "openalex"}, "year": {"source": "crossref"}},
        "match": {"sources": ["openalex", "crossref", "arxiv"]},
    }
    assert (
        evidence_trust(ref) == "Crossref (doi registry), arXiv (curated index), OpenAlex (aggregator index)"
    )
    assert evidence_trust({"fields": {}, "match": None}) == ""


SPUN_PAPER = (
    "# Bosom peril location utilizing profound learning\n\n## Introduction\n\n"
    + "We apply an irregular woodland and counterfeit consciousness to colossal information. " * 40
    + "\n\n## Discussion\n\nThe outcomes are promising.\n\n## Conclusion\n\nDone.\n\n## References\n\n"
    + "[1] A. Author. A title. 2020.\n"
)


def test_a_full_text_input_is_checked_and_reported_in_the_summary(tmp_path: Path) -> None:
    paper = tmp_path / "paper.md"
    paper.write_text(SPUN_PAPER, encoding="utf-8")
    signal = document_signal(paper, Settings(data_dir=tmp_path))
    assert signal is not None and signal["kind"] == "ai_generated_suspect"
    ev = signal["evidence"]
    assert ev["document"] == str(paper)
    assert set(ev["indicators"]) == {"tortured_phrases", "no_methods_section"}
    assert ev["sections"] == [
        "Bosom peril location utilizing profound learning",
        "Introduction",
        "Discussion",
        "Conclusion",
    ]
    with reporting_documents([signal]):
        summary = summary_with_signals({"total": 0}, [])
    assert [s["kind"] for s in summary["signals"]] == ["ai_generated_suspect"]
    page = render_html({"summary": {**summary, "by_verdict": {}, "sources": {}}, "references": []})
    assert 'data-signal="ai_generated_suspect"' in page and "irregular woodland" in page
    # Outside the block, no document signal leaks into another report.
    assert "signals" not in summary_with_signals({"total": 0}, [])


def test_bibliographies_and_genuine_papers_are_not_flagged(tmp_path: Path) -> None:
    refs = tmp_path / "refs.txt"
    refs.write_text("[1] A. Author. Irregular woodland and bosom peril. 2020.\n", encoding="utf-8")
    assert body_of(refs.read_text()) is None  # a reference list, not a paper
    assert document_signal(refs, Settings(data_dir=tmp_path)) is None
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{a, title={Irregular woodland and bosom peril}}\n", encoding="utf-8")
    assert document_signal(bib, Settings(data_dir=tmp_path)) is None
    genuine = tmp_path / "genuine.md"
    genuine.write_text(
        SPUN_PAPER.replace(
            "Bosom peril location utilizing profound", "Breast cancer detection using deep"
        ).replace(
            "an irregular woodland and counterfeit consciousness to colossal information",
            "a random forest and artificial intelligence to big data",
        ),
        encoding="utf-8",
    )
    assert document_signal(genuine, Settings(data_dir=tmp_path)) is None  # no methods alone: no signal
