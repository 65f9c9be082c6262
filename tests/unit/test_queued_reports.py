"""A queued job's report reads as the in-process run's does (issue 22, item 6): which sources could
not be asked is in `summary.sources` ("Partial run", never "Every source answered."), `aletheia
report` exits as `aletheia verify` does, and each kind's formats come from its registry record —
an unsupported one is a clear error (exit 2), never JSON in an .html file or a template crash.
Also (item 7): the files the writer makes have the mode `open` would give, not mkstemp's 0600."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from aletheia.config import Settings
from aletheia.config.settings import reset_settings_cache
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import CitedReference, SourceName
from aletheia.core.verdicts import Reason, Verdict, VerdictStatus
from aletheia.pipeline import service
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.jobs import bibliography as bibliography_jobs
from aletheia.pipeline.reports.advice import attention
from aletheia.pipeline.reports.signals import summary_with_signals
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.service import InlineDispatcher, InputDocument, ServiceContext
from tests.unit.test_service import ScriptedVerifier, fake_read_references

UNASKED = (SourceName.CROSSREF, SourceName.OPENALEX)


async def nobody_answers(cited: CitedReference) -> ReferenceOutcome:
    """Every source down: the verdict is unverifiable and names the sources it could not ask."""
    answers = tuple(
        SourceAnswer(source=s, kind=QueryKind.DOI, query="x", outcome=Outcome.FAILED, error="HTTP 503")
        for s in UNASKED
    )
    verdict = Verdict(
        status=VerdictStatus.UNVERIFIABLE,
        reasons=(Reason.SOURCE_UNAVAILABLE,),
        sources_consulted=UNASKED,
        sources_unavailable=UNASKED,
    )
    return ReferenceOutcome(cited=cited, verdict=verdict, evidence=Evidence(answers=answers), raw=[])


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runtime]:
    monkeypatch.setattr(bibliography_jobs, "read_references", fake_read_references)
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    for name, value in {"ALETHEIA_DATABASE_URL": url, "ALETHEIA_DATA_DIR": str(tmp_path / "data")}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("ALETHEIA_OFFLINE", "1")
    monkeypatch.delenv("ALETHEIA_BROKER_URL", raising=False)
    reset_settings_cache()
    yield Runtime.open(Settings(data_dir=tmp_path / "data", database_url=url, offline=True))
    reset_settings_cache()


def run_job(runtime: Runtime, lines: str, verifier: Any) -> str:
    dispatcher = InlineDispatcher(sleep=lambda _s: None)
    ctx = ServiceContext(
        runtime=runtime, dispatcher=dispatcher, runner=service.LoopThread(), verifier=verifier
    )
    try:
        job_id = service.submit_bibliography(runtime, dispatcher, [InputDocument("refs.txt", lines.encode())])
        dispatcher.drain(ctx)
    finally:
        ctx.close()
    return job_id


def report(*args: str) -> Any:
    from aletheia.producers.service_cli import report as report_command

    return CliRunner().invoke(report_command, list(args))


def test_a_queued_report_with_no_source_answering_reads_as_a_partial_run(runtime: Runtime) -> None:
    job_id = run_job(runtime, "a|one\nb|two\n", nobody_answers)
    summary = service.job_summary(runtime, job_id)
    assert set(summary["sources"]) == {"crossref", "openalex"}
    crossref = summary["sources"]["crossref"]
    assert crossref["status"] == "unavailable"  # no request was sent: the scripted sources failed
    assert crossref["affected"] == 2 and crossref["affected_verdicts"] == {"unverifiable": 2}
    assert attention(summary, []).sources_line().startswith("Partial run")

    doc = service.job_document(runtime, job_id)
    html = service.report_files(runtime, job_id)["report.html"]
    assert "Partial run" in html and "Every source answered." not in html
    assert doc["summary"]["sources"] == summary["sources"]

    shown = report(job_id, "--format", "markdown")
    assert shown.exit_code == 3, shown.output  # as `aletheia verify`: nothing flagged, some unchecked
    assert "Partial run" in shown.output


def test_report_exits_as_verify_does(runtime: Runtime) -> None:
    flagged = run_job(runtime, "a|real\nb|invented\n", ScriptedVerifier())
    assert report(flagged, "--format", "json").exit_code == 1
    clean = run_job(runtime, "a|real\n", ScriptedVerifier())
    assert report(clean, "--format", "json").exit_code == 0


def test_each_kind_reports_in_its_own_formats(runtime: Runtime, tmp_path: Path) -> None:
    repository = tmp_path / "repo"
    repository.mkdir()
    (repository / "refs.bib").write_text("a|real\n")
    dispatcher = InlineDispatcher(sleep=lambda _s: None)
    ctx = ServiceContext(
        runtime=runtime, dispatcher=dispatcher, runner=service.LoopThread(), verifier=ScriptedVerifier()
    )
    try:
        sweep = service.submit_sweep(runtime, dispatcher, [repository])
        dispatcher.drain(ctx)
    finally:
        ctx.close()
    out = tmp_path / "x.html"
    refused = report(sweep, "--format", "html", "-o", str(out))
    assert refused.exit_code == 2
    assert "a sweep job's report comes as json, not html" in refused.output
    assert not out.exists()
    as_json = report(sweep, "-o", str(tmp_path / "x.json"))
    assert as_json.exit_code == 0, as_json.output
    assert json.loads((tmp_path / "x.json").read_text())["summary"]["kind"] == "sweep"


def test_the_writers_files_respect_the_umask(runtime: Runtime) -> None:
    previous = os.umask(0o022)
    try:
        job_id = run_job(runtime, "a|real\nb|invented\n", ScriptedVerifier())
        folder = runtime.settings.reports_path() / job_id
        modes = {p.name: p.stat().st_mode & 0o777 for p in folder.iterdir()}
        assert modes == {"report.json": 0o644, "report.html": 0o644, "corrected.bib": 0o644}
        os.umask(0o027)
        from aletheia.pipeline.atomic_files import current_umask, temporary_beside

        assert current_umask() == 0o027
        fd, name = temporary_beside(folder / "new.txt")
        os.close(fd)
        assert Path(name).stat().st_mode & 0o777 == 0o640
        existing = folder / "report.json"
        existing.chmod(0o600)  # a file the user made private stays private when rewritten
        fd, name = temporary_beside(existing)
        os.close(fd)
        assert Path(name).stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(previous)


def test_a_claims_text_job_renders_its_own_html(runtime: Runtime, tmp_path: Path) -> None:
    from aletheia.pipeline.jobs.claims_text import submit_claims_text
    from tests.unit.test_claims_text import BIB, PAPER

    dispatcher = InlineDispatcher(sleep=lambda _s: None)
    ctx = ServiceContext(
        runtime=runtime, dispatcher=dispatcher, runner=service.LoopThread(), defer_tokens=False
    )
    try:
        job_id = submit_claims_text(
            runtime, dispatcher, InputDocument("paper.md", PAPER.encode()),
            [InputDocument("refs.bib", BIB.encode())], suggest=False,
        )  # fmt: skip
        dispatcher.drain(ctx)
    finally:
        ctx.close()
    out = tmp_path / "claims.html"
    shown = report(job_id, "-o", str(out))  # was: the bibliography sink, UndefinedError 'by_verdict'
    assert shown.exit_code == service.job_summary(runtime, job_id)["summary"]["exit_code"], shown.output
    assert out.read_text().lstrip().lower().startswith("<!doctype html")
    assert report(job_id, "--format", "bibtex").exit_code == 2
    # Its trail is committed: every event it logged is under the job's Merkle root.
    from aletheia.pipeline.audit.events import audit_log_for
    from aletheia.storage.audit_verify import verify_job

    trail = verify_job(audit_log_for(runtime), job_id)
    assert trail.intact and trail.events > 0 and trail.committed_events == trail.events


class ListSink:
    def __init__(self) -> None:
        self.references: list[dict[str, Any]] = []
        self.summaries: list[dict[str, Any]] = []

    def reference(self, entry: dict[str, Any]) -> None:
        self.references.append(entry)

    def summary(self, summary: dict[str, Any]) -> None:
        self.summaries.append(summary)


def run_in_process(runtime: Runtime, refs: list[CitedReference]) -> tuple[ListSink, dict[str, Any]]:
    from aletheia.pipeline.verify import verify_to_sink

    sink = ListSink()
    run = verify_to_sink(runtime, refs, sink, input_description={"inputs": ["t"]})
    assert sink.summaries == [run.summary]
    return sink, run.summary


def test_aletheia_verify_is_a_job_whose_report_is_what_it_printed(runtime: Runtime) -> None:
    """Issue 22 (one engine): `aletheia verify` runs the job's steps in process (expand, one
    `verify_item` per reference, the writer), so `aletheia report JOB` reads back exactly what it
    printed: the references in input order and the summary, request counters included."""
    refs = [CitedReference(key=k, title=f"Paper {k}") for k in ("c", "a", "b", "d")]
    sink, in_process = run_in_process(runtime, refs)
    assert [r["key"] for r in sink.references] == ["c", "a", "b", "d"]
    assert in_process["status"] == "done" and in_process["total"] == 4
    assert "requests" in in_process and in_process["sources"]
    document = service.job_document(runtime, in_process["job_id"])
    assert document["references"] == sink.references
    # The sink adds the document-level signals from the references it was given, as the report's do.
    assert document["summary"] == summary_with_signals(in_process, sink.references)
    items = runtime.jobs.items(in_process["job_id"])
    verdicts = [row for _, row in runtime.jobs.verdicts(in_process["job_id"]) if row is not None]
    assert len(items) == len(verdicts) == 4  # expanded into items, every item verified
    job = runtime.jobs.job(in_process["job_id"])
    assert job is not None and job.summary is not None and job.status == "done"  # the writer ran
    assert job.summary["artifacts"] == []  # no files: the terminal had the report


def test_both_paths_tally_the_same_verdicts_alike(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same outcomes, in process and queued: the same summary (counts, transparency, affected
    sources), built by the same function from the same kind of rows."""

    async def scripted(cited: CitedReference, _gateway: Any, *, current_year: int) -> ReferenceOutcome:
        return await nobody_answers(cited)

    monkeypatch.setattr(bibliography_jobs, "verify_reference", scripted)
    _, in_process = run_in_process(
        runtime, [CitedReference(key="a", title="one"), CitedReference(key="b", title="two")]
    )
    # Queued through the same gateway (offline here, as the in-process run's) and the same scripted
    # `verify_reference`: the same summary, sources block included.
    queued = service.job_summary(runtime, run_job(runtime, "a|one\nb|two\n", None))
    for summary in (queued, in_process):
        summary.pop("job_id")
        summary.pop("artifacts", None)
    assert queued == in_process
