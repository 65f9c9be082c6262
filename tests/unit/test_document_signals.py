"""The paper given as input is itself checked for paper-mill signs (issue 13), from the text the
input parsers extracted for its references: the PDF is read once, the check runs in the
bibliography job's expansion (so queued jobs carry it too), and the stored report.json's summary
lists it under `signals`."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from aletheia.config import Settings
from aletheia.core.evidence import Evidence
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import Verdict, VerdictStatus
from aletheia.pipeline import service
from aletheia.pipeline.documents import pdf_references, sandbox
from aletheia.pipeline.documents.inputs import iter_references
from aletheia.pipeline.documents.signals import DocumentCheck, body_of, document_signal
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.reports.html import render_html
from aletheia.pipeline.reports.signals import summary_with_signals
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.service import InlineDispatcher, InputDocument, ServiceContext
from tests.unit.test_bibliography_inputs import _pdf

SPUN_LINE = "We apply an irregular woodland and counterfeit consciousness to colossal information."
SPUN_PAPER = (
    "# Bosom peril location utilizing profound learning\n\n## Introduction\n\n"
    + (SPUN_LINE + " ") * 40
    + "\n\n## Discussion\n\nThe outcomes are promising.\n\n## Conclusion\n\nDone.\n\n## References\n\n"
    + "[1] Alice Author. 2020. A title of a cited work. Journal of Tests, 1:1-2.\n"
)


def spun_pdf() -> bytes:
    """A paper whose body (40 lines of spun text under three headings) precedes its References."""
    body = [(72.0, 740.0, "1 Introduction")]
    body += [(72.0, 726.0 - 14 * i, SPUN_LINE) for i in range(40)]
    body += [(72.0, 150.0, "2 Discussion"), (72.0, 136.0, "3 Conclusion")]
    references = [
        (72.0, 740.0, "References"),
        (72.0, 720.0, "Chidi Okafor and Astrid Lindqvist. 2019. Sparse attention for long"),
        (84.0, 708.0, "documents. In Proceedings of the Workshop on Efficient Models, pages 12-20."),
    ]
    return _pdf([body, references])


@pytest.fixture
def pdf_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every PDF text extraction, sandboxed or not (run in process here)."""
    reads: list[str] = []
    real = pdf_references.pdf_text

    def counted(data: bytes, *, origin: str, **options: Any) -> str:
        reads.append(origin)
        return real(data, origin=origin, max_pages=options.get("max_pages"), timeout=options.get("timeout"))

    monkeypatch.setattr(pdf_references, "pdf_text", counted)
    monkeypatch.setattr(sandbox, "pdf_text_isolated", counted)
    return reads


def test_the_parsers_hand_over_each_named_documents_text(tmp_path: Path, pdf_reads: list[str]) -> None:
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(spun_pdf())
    md = tmp_path / "paper.md"
    md.write_text(SPUN_PAPER, encoding="utf-8")
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{a, title={A title}, author={Smith, Alice}, year={2020}}\n", encoding="utf-8")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "inner.md").write_text(SPUN_PAPER, encoding="utf-8")
    seen: list[tuple[str, str]] = []
    refs = list(
        iter_references(
            [str(pdf), str(md), str(bib), str(folder), "-"],
            stdin=io.StringIO(SPUN_PAPER),
            max_bytes=10**7,
            on_text=lambda name, text: seen.append((name, text)),
        )
    )
    assert refs  # the references were read as before
    # Named files read whole only: not the streamed .bib, not a directory's files, not stdin.
    assert [name for name, _ in seen] == [str(pdf), str(md)]
    assert "irregular woodland" in seen[0][1] and "References" in seen[0][1]
    assert pdf_reads == [str(pdf)]  # the PDF's text was extracted once, for both uses


def test_a_spun_paper_fires_with_its_evidence_and_a_bibliography_does_not() -> None:
    signal = document_signal("paper.md", SPUN_PAPER)
    assert signal is not None and signal["kind"] == "ai_generated_suspect"
    assert signal["evidence"]["document"] == "paper.md"
    assert set(signal["evidence"]["indicators"]) == {"tortured_phrases", "no_methods_section"}
    assert document_signal("refs.bib", SPUN_PAPER) is None  # a bibliography file is no paper
    assert body_of("[1] A. Author. Irregular woodland and bosom peril. 2020.\n") is None
    check = DocumentCheck()
    check.observe("paper.md", SPUN_PAPER)
    genuine = SPUN_PAPER
    for spun, term in (
        ("irregular woodland", "random forest"),
        ("counterfeit consciousness", "artificial intelligence"),
        ("colossal information", "big data"),
        ("Bosom peril location utilizing profound", "Breast cancer detection using deep"),
    ):
        genuine = genuine.replace(spun, term)
    check.observe("genuine.md", genuine)  # no methods section alone: no signal
    assert [s["evidence"]["document"] for s in check.signals] == ["paper.md"]


def test_the_stored_signals_join_the_summarys_signals_once() -> None:
    signal = document_signal("paper.md", SPUN_PAPER)
    summary = summary_with_signals({"total": 0, "document_signals": [signal]}, [])
    assert [s["kind"] for s in summary["signals"]] == ["ai_generated_suspect"]
    assert "document_signals" not in summary
    assert summary_with_signals(summary, []) == summary  # a second pass adds nothing
    page = render_html({"summary": {**summary, "by_verdict": {}, "sources": {}}, "references": []})
    assert 'data-signal="ai_generated_suspect"' in page and "irregular woodland" in page
    assert "signals" not in summary_with_signals({"total": 0}, [])


async def _verify(cited: CitedReference) -> ReferenceOutcome:
    match = WorkRecord(source=SourceName.CROSSREF, title=cited.title, doi="10.9/1")
    verdict = Verdict(status=VerdictStatus.VERIFIED, match=match)
    return ReferenceOutcome(cited=cited, verdict=verdict, evidence=Evidence(), raw=[])


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    settings = Settings(
        data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", offline=True
    )
    return Runtime.open(settings)


@pytest.mark.parametrize("name", ["paper.pdf", "paper.md"])
def test_a_bibliography_job_reports_the_papers_signal(
    runtime: Runtime, pdf_reads: list[str], name: str
) -> None:
    data = spun_pdf() if name.endswith(".pdf") else SPUN_PAPER.encode()
    dispatcher = InlineDispatcher(concurrency=2, sleep=lambda _s: None)
    ctx = ServiceContext(
        runtime=runtime, dispatcher=dispatcher, runner=service.LoopThread(), verifier=_verify
    )
    try:
        job_id = service.submit_bibliography(runtime, dispatcher, [InputDocument(name=name, data=data)])
        dispatcher.drain(ctx)
    finally:
        ctx.close()
    written = json.loads((runtime.settings.reports_path() / job_id / "report.json").read_text())
    assert written["summary"]["total"] >= 1
    [signal] = written["summary"]["signals"]
    assert signal["kind"] == "ai_generated_suspect"
    assert signal["evidence"]["document"] == name  # the submitted name, not the job's temporary copy
    assert "document_signals" not in written["summary"]
    assert len(pdf_reads) == (1 if name.endswith(".pdf") else 0)
    # The job's summary row keeps them too (the status API, a later re-render).
    job = runtime.jobs.job(job_id)
    assert job is not None and job.summary is not None
    assert [s["kind"] for s in job.summary["document_signals"]] == ["ai_generated_suspect"]


def test_a_plain_bibliography_job_has_no_document_signal(runtime: Runtime) -> None:
    dispatcher = InlineDispatcher(concurrency=2, sleep=lambda _s: None)
    ctx = ServiceContext(
        runtime=runtime, dispatcher=dispatcher, runner=service.LoopThread(), verifier=_verify
    )
    bib = b"@article{a, title={Irregular woodland and bosom peril}, author={Smith, Alice}, year={2020}}\n"
    try:
        job_id = service.submit_bibliography(runtime, dispatcher, [InputDocument(name="refs.bib", data=bib)])
        dispatcher.drain(ctx)
    finally:
        ctx.close()
    written = json.loads((runtime.settings.reports_path() / job_id / "report.json").read_text())
    assert "signals" not in written["summary"]
