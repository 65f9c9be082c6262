"""The service's steps as plain functions: SQLite, the inline dispatcher, a scripted verifier."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from aletheia.config import Settings
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import CitedReference, SourceName
from aletheia.core.verdicts import Reason, Verdict, VerdictStatus
from aletheia.pipeline import service
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.jobs import bibliography as bibliography_jobs
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.service import InlineDispatcher, InputDocument, ServiceContext
from aletheia.sources.base import RateLimitedError
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from aletheia.storage.models import ArtifactRow, Item, Job, VerdictRow


def fake_read_references(
    documents: Any, max_bytes: int, on_text: Any = None
) -> Iterator[CitedReference | InputProblem]:
    """One reference per non-empty line (`key|title`); a line `!` is an input problem."""
    for doc in documents:
        for lineno, line in enumerate(doc.data.decode().splitlines(), 1):
            if line.strip() == "!":
                yield InputProblem(origin=doc.name, line=lineno, message="unreadable entry")
            elif line.strip():
                key, title = line.split("|", 1)
                yield CitedReference(key=key, title=title, origin=f"{doc.name}:{lineno}")


class ScriptedVerifier:
    """Verified when the title says "real", not found otherwise; optional one-off deferrals/errors."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.defer_once: set[str] = set()
        self.fail_always: set[str] = set()

    async def __call__(self, cited: CitedReference) -> ReferenceOutcome:
        self.calls[cited.key] += 1
        if cited.key in self.fail_always:
            raise RuntimeError(f"boom on {cited.key}")
        if cited.key in self.defer_once:
            self.defer_once.discard(cited.key)
            error = RateLimitedError(
                "crossref", f"no token: {service.DEFERRED_MARK} for 0.010s", status_code=None
            )
            answer = SourceAnswer(
                source=SourceName.CROSSREF,
                kind=QueryKind.DOI,
                query="x",
                outcome=Outcome.FAILED,
                error=str(error),
            )
            verdict = Verdict(status=VerdictStatus.UNVERIFIABLE, reasons=(Reason.SOURCE_UNAVAILABLE,))
            return ReferenceOutcome(
                cited=cited, verdict=verdict, evidence=Evidence(answers=(answer,)), raw=[]
            )
        status = VerdictStatus.VERIFIED if "real" in (cited.title or "") else VerdictStatus.NOT_FOUND
        verdict = Verdict(status=status, reasons=(Reason.NO_MATCH_FOUND,) if status != "verified" else ())
        return ReferenceOutcome(cited=cited, verdict=verdict, evidence=Evidence(), raw=[])


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    # expand_items (aletheia.pipeline.jobs.bibliography) looks read_references up in its own module.
    monkeypatch.setattr(bibliography_jobs, "read_references", fake_read_references)
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    settings = Settings(
        data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", offline=True
    )
    return Runtime.open(settings)


@pytest.fixture
def verifier() -> ScriptedVerifier:
    return ScriptedVerifier()


@pytest.fixture
def inline(runtime: Runtime, verifier: ScriptedVerifier) -> Iterator[tuple[InlineDispatcher, ServiceContext]]:
    dispatcher = InlineDispatcher(concurrency=4, sleep=lambda _s: None, record_sends=True)
    ctx = ServiceContext(
        runtime=runtime, dispatcher=dispatcher, runner=service.LoopThread(), verifier=verifier
    )
    yield dispatcher, ctx
    ctx.close()


def job_of(runtime: Runtime, job_id: str) -> Job:
    job = runtime.jobs.job(job_id)
    assert job is not None
    return job


def bib(text: str, name: str = "refs.txt") -> list[InputDocument]:
    return [InputDocument(name=name, data=text.encode())]


def count(runtime: Runtime, model: Any, **where: Any) -> int:
    with runtime.jobs.sessions() as s:
        q = select(func.count()).select_from(model)
        for column, value in where.items():
            q = q.where(getattr(model, column) == value)
        return int(s.scalar(q) or 0)


def test_a_bibliography_job_runs_to_a_report(
    runtime: Runtime, inline: Any, verifier: ScriptedVerifier
) -> None:
    dispatcher, ctx = inline
    job_id = service.submit_bibliography(
        runtime, dispatcher, bib("a|a real paper\nb|made up\n!\nc|real again\n")
    )
    assert job_of(runtime, job_id).status == "queued"  # nothing ran before the commit and the send
    assert dispatcher.sent == [(service.START_BIBLIOGRAPHY, (job_id,))]
    dispatcher.drain(ctx)

    status = service.job_status(runtime, job_id)
    assert status["status"] == "done"
    assert (status["total"], status["done"], status["failed"], status["pending"]) == (4, 3, 1, 0)
    assert status["by_verdict"] == {"verified": 2, "not_found": 1}
    assert verifier.calls == Counter({"a": 1, "b": 1, "c": 1})

    doc = service.job_document(runtime, job_id)
    assert [r["key"] for r in doc["references"]] == ["a", "b", "c"]
    assert doc["summary"]["problems"][0]["message"] == "unreadable entry"
    assert doc["summary"]["flagged"] == 1
    folder = runtime.settings.reports_path() / job_id
    assert sorted(p.name for p in folder.iterdir()) == ["corrected.bib", "report.html", "report.json"]
    written = json.loads((folder / "report.json").read_text())
    assert written["summary"]["status"] == "done" and len(written["references"]) == 3
    assert count(runtime, ArtifactRow, job_id=job_id) == 3


def test_a_real_run_keeps_no_record_of_its_messages(runtime: Runtime, verifier: ScriptedVerifier) -> None:
    dispatcher = InlineDispatcher(concurrency=2, sleep=lambda _s: None)  # as `aletheia verify` makes it
    ctx = ServiceContext(
        runtime=runtime, dispatcher=dispatcher, runner=service.LoopThread(), verifier=verifier
    )
    try:
        job_id = service.submit_bibliography(runtime, dispatcher, bib("a|real\nb|fake\n"))
        dispatcher.drain(ctx)
    finally:
        ctx.close()
    assert service.job_status(runtime, job_id)["status"] == "done"
    assert dispatcher.sent is None and not dispatcher.queue


def test_every_step_twice_changes_nothing(runtime: Runtime, inline: Any, verifier: ScriptedVerifier) -> None:
    dispatcher, ctx = inline
    job_id = service.submit_bibliography(runtime, dispatcher, bib("a|real\nb|fake\n"))
    dispatcher.drain(ctx)
    folder = runtime.settings.reports_path() / job_id
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    items = runtime.jobs.items(job_id)

    # Late acknowledgement: the broker hands every message out again.
    for task, args in list(dispatcher.sent):
        service.run_step(ctx, task, *args)
    for item in items:
        service.verify_item(ctx, item.id)
    service.expand_items(ctx, job_id)
    dispatcher.drain(ctx)

    assert count(runtime, Item, job_id=job_id) == 2
    assert count(runtime, VerdictRow, job_id=job_id) == 2
    assert count(runtime, ArtifactRow, job_id=job_id) == 3
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert verifier.calls == Counter({"a": 1, "b": 1})  # settled items are not verified again


def test_a_running_item_delivered_again_is_verified_once_more_without_a_second_row(
    runtime: Runtime, inline: Any, verifier: ScriptedVerifier
) -> None:
    dispatcher, ctx = inline
    job_id = service.submit_bibliography(runtime, dispatcher, bib("a|real\nb|real\n"))
    service.start_bibliography_job(ctx, job_id)
    first = runtime.jobs.items(job_id)[0]
    runtime.jobs.mark_item(first.id, "running")  # a worker took it, then died
    service.verify_item(ctx, first.id)  # the broker's redelivery takes it over
    service.verify_item(ctx, first.id)  # settled: nothing more
    assert verifier.calls["a"] == 1
    assert count(runtime, VerdictRow, item_id=first.id) == 1
    assert job_of(runtime, job_id).status == "running"  # the other item is still pending


def age_lease(runtime: Runtime, item_id: str, seconds: float = 3600) -> None:
    """As if the item's lease had last been renewed `seconds` ago."""
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import update

    with runtime.jobs.sessions.begin() as s:
        s.execute(
            update(Item)
            .where(Item.id == item_id)
            .values(updated_at=datetime.now(UTC) - timedelta(seconds=seconds))
        )


def test_a_token_deferral_is_retried_not_recorded(
    runtime: Runtime, inline: Any, verifier: ScriptedVerifier
) -> None:
    dispatcher, ctx = inline
    verifier.defer_once.add("a")
    job_id = service.submit_bibliography(runtime, dispatcher, bib("a|real\n"))
    service.start_bibliography_job(ctx, job_id)
    item = runtime.jobs.items(job_id)[0]
    with pytest.raises(service.TokenDeferred) as deferred:
        service.verify_item(ctx, item.id)
    assert deferred.value.wait == pytest.approx(0.01)
    assert 0.01 <= deferred.value.countdown() <= 0.1
    after = runtime.jobs.item(item.id)
    assert after is not None
    assert (after.status, after.attempts) == ("pending", 0)  # a deferral is not an attempt
    assert count(runtime, VerdictRow, item_id=item.id) == 0
    dispatcher.drain(ctx)  # the inline dispatcher retries after the wait
    assert job_of(runtime, job_id).status == "done"
    assert verifier.calls["a"] == 2


def test_an_item_that_keeps_failing_is_settled_unverifiable(
    runtime: Runtime, inline: Any, verifier: ScriptedVerifier
) -> None:
    dispatcher, ctx = inline
    verifier.fail_always.add("b")
    job_id = service.submit_bibliography(runtime, dispatcher, bib("a|real\nb|real\n"))
    service.start_bibliography_job(ctx, job_id)
    item = next(i for i in runtime.jobs.items(job_id) if i.key == "b")
    retries = 0
    while True:
        try:
            service.verify_item(ctx, item.id)
        except RuntimeError as exc:
            if not service.item_failed(ctx, item.id, exc, final=False):
                break
            retries += 1
    assert retries == service.MAX_ITEM_ATTEMPTS - 1
    dispatcher.drain(ctx)
    doc = service.job_document(runtime, job_id)
    failed = next(r for r in doc["references"] if r["key"] == "b")
    assert failed["verdict"] == "unverifiable"  # default-deny: never passed
    assert "boom on b" in failed["notes"][0]
    assert job_of(runtime, job_id).status == "done"


def test_redrive_resends_only_stale_unsettled_work(runtime: Runtime, verifier: ScriptedVerifier) -> None:
    recorder = InlineDispatcher(record_sends=True)
    ctx = ServiceContext(runtime=runtime, dispatcher=recorder, runner=service.LoopThread(), verifier=verifier)
    try:
        job_id = service.submit_bibliography(runtime, recorder, bib("a|real\nb|real\n"))
        queued_only = service.submit_bibliography(runtime, recorder, bib("c|real\n"))
        service.start_bibliography_job(ctx, job_id)
        items = runtime.jobs.items(job_id)
        service.verify_item(ctx, items[0].id)
        recorder.sent.clear()

        assert service.redrive(ctx, older_than=3600).as_json() == {"jobs": [], "items": 0, "reports": 0}
        report = service.redrive(ctx, older_than=0)
        assert set(report.jobs) == {job_id, queued_only}
        assert (service.VERIFY_ITEM, (items[1].id,)) in recorder.sent
        assert (service.START_BIBLIOGRAPHY, (queued_only,)) in recorder.sent
        assert all(args != (items[0].id,) for _task, args in recorder.sent)  # settled: left alone
    finally:
        ctx.close()


def test_a_claim_job_fails_with_a_clear_error_when_the_pipeline_is_missing(
    runtime: Runtime, inline: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import builtins

    real_import = builtins.__import__

    def no_claims(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "aletheia.pipeline.claims.verify_and_cite":
            raise ModuleNotFoundError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_claims)
    dispatcher, ctx = inline
    job_id = service.submit_claim(runtime, dispatcher, "Aspirin reduces the risk of colorectal cancer.")
    dispatcher.drain(ctx)
    job = job_of(runtime, job_id)
    assert job.status == "failed"
    assert job.error == service.CLAIM_PIPELINE_MISSING
    assert service.job_status(runtime, job_id)["failed"] == 1


def test_a_sweep_reports_per_repository(runtime: Runtime, inline: Any, tmp_path: Path) -> None:
    dispatcher, ctx = inline
    with_bib = tmp_path / "repo-a"
    (with_bib / "paper").mkdir(parents=True)
    (with_bib / "paper" / "refs.bib").write_text("a|real\nb|fake\n")
    (with_bib / ".git").mkdir()
    (with_bib / ".git" / "ignored.bib").write_text("z|never read\n")
    empty = tmp_path / "repo-b"
    empty.mkdir()

    job_id = service.submit_sweep(runtime, dispatcher, [with_bib, empty])
    dispatcher.drain(ctx)
    summary = service.job_summary(runtime, job_id)
    assert job_of(runtime, job_id).status == "done"
    by_repo = {Path(r["repository"]).name: r for r in summary["repositories"]}
    assert by_repo["repo-a"]["by_verdict"] == {"not_found": 1, "verified": 1}
    assert by_repo["repo-b"]["total"] == 0
    assert summary["total"] == 2

    # The fan-out is idempotent: a second delivery finds the children it made.
    service.start_sweep(ctx, job_id)
    assert len(service.children(runtime, job_id)) == 2
    # Both repositories are now registered for the weekly audit.
    audit = service.start_audit(ctx)
    dispatcher.drain(ctx)
    assert audit is not None and job_of(runtime, audit).status == "done"


def test_deferring_limiter_turns_a_long_wait_into_a_marked_error() -> None:
    import asyncio

    async def scenario() -> str:
        limiter = service.DeferringLimiter(LocalRateLimiter(), max_wait=0.0)
        await limiter.acquire("crossref:single", 1.0, 1)  # the burst token
        try:
            await limiter.acquire("crossref:single", 1.0, 1)
        except RateLimitedError as exc:
            assert exc.status_code is None and exc.retry_after is not None
            return str(exc)
        raise AssertionError("a second token within a second was granted")

    message = asyncio.run(scenario())
    answer = SourceAnswer(
        source=SourceName.CROSSREF, kind=QueryKind.DOI, query="q", outcome=Outcome.FAILED, error=message
    )
    wait = service.deferral_wait(Evidence(answers=(answer,)))
    assert wait is not None and 0.9 <= wait <= 1.0
    assert service.deferral_wait(Evidence()) is None


def test_documents_are_read_by_the_real_parsers_under_their_own_names() -> None:
    bibtex = b"@article{k1, title={A real title}, author={Doe, Jane}, year={2020}, doi={10.1000/xyz}}\n"
    artifact_problem = InputDocument(name="docs/citations/broken.md", data=b"no frontmatter", role="artifact")
    entries = list(
        service.read_references(
            [
                InputDocument(name="paper/refs.bib", data=bibtex),
                artifact_problem,
                InputDocument(name="x.bib", data=b"\xff\xfe\x00"),
            ],
            max_bytes=10_000,
        )
    )
    ref = entries[0]
    assert isinstance(ref, CitedReference)
    assert (ref.key, ref.doi, ref.year) == ("k1", "10.1000/xyz", 2020)
    assert ref.origin is not None and ref.origin.startswith("paper/refs.bib")
    problems = [e for e in entries if isinstance(e, InputProblem)]
    assert [p.origin for p in problems] == ["docs/citations/broken.md", "x.bib"]


def test_the_inline_dispatcher_settles_a_reference_that_always_fails(
    runtime: Runtime, inline: Any, verifier: ScriptedVerifier
) -> None:
    """As the Celery task does (the step's failure policy in the registry, one runner): retried,
    then settled as unverifiable after its attempts; the other references and the report are not
    lost."""
    dispatcher, ctx = inline
    verifier.fail_always.add("b")
    job_id = service.submit_bibliography(runtime, dispatcher, bib("a|real\nb|real\n"))
    dispatcher.drain(ctx)
    assert verifier.calls["b"] == service.MAX_ITEM_ATTEMPTS
    verdicts = {r["key"]: r["verdict"] for r in service.job_document(runtime, job_id)["references"]}
    assert verdicts == {"a": "verified", "b": "unverifiable"}
    assert job_of(runtime, job_id).status == "done"
