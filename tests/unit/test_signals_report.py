"""Integrity signals in the reports (issue 13): the stored report.json of a job carries the
document's cohort in its summary, every summary says which signal data was loaded (an empty
predatory list reads "not loaded"), the HTML shows it and each reference's evidence with its
sources' trust. (A full-text input's own check: tests/unit/test_document_signals.py.)"""

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
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.jobs import bibliography as bibliography_jobs
from aletheia.pipeline.reports.signals import evidence_trust
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.service import InlineDispatcher, InputDocument, ServiceContext

SMITH = Author(given="Alice", family="Smith")


def _read(documents: Any, max_bytes: int, on_text: Any = None) -> Iterator[CitedReference | InputProblem]:
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
