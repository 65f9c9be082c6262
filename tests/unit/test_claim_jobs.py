"""Claim jobs stage by stage (issue 19, items 6 and 7), run by the inline dispatcher on SQLite
against the loopback simulator over the hand-written claims universe: the same stages the worker
pools run, each safe to run twice; every decision in the job's audit trail, replayable.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import update

from aletheia.config import Settings
from aletheia.config.settings import SourceLimits, reset_settings_cache
from aletheia.core.artifacts import parse_artifact
from aletheia.pipeline import service
from aletheia.pipeline.audit.claim_events import ClaimTrail
from aletheia.pipeline.audit.events import audit_log_for
from aletheia.pipeline.claims.verify_and_cite import verify_and_cite
from aletheia.pipeline.jobs import claims as claim_jobs
from aletheia.pipeline.jobs.inline import run_step
from aletheia.pipeline.runtime import Runtime
from aletheia.sources.base import RateLimitedError
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, Universe
from aletheia.storage.audit_verify import verify_job
from aletheia.storage.claim_store import ClaimStageStore
from aletheia.storage.models import AuditEvent, ClaimDocumentRow

UNIVERSE = Path(__file__).resolve().parents[1] / "fixtures" / "claims" / "universe.jsonl"
FAST = SourceLimits(rate=1000, burst=1000, concurrency=8)
HAPPY_CLAIM = "Trimmed median aggregation tolerates up to one third of Byzantine sensor nodes"
CONFLICT_CLAIM = (
    "Norm clipping defenses fail against coordinated gradient poisoning attacks in federated learning"
)
STAGES = [
    service.CLAIM_CANDIDATES,
    service.CLAIM_TEXT,
    service.CLAIM_DOCUMENTS,  # the arXiv HTML, converted on the parsing pool
    service.CLAIM_TEXT,
    service.CLAIM_JUDGE,
    service.CLAIM_IDENTITY,
    service.CLAIM_ARTIFACT,
    service.RENDER_REPORT,
]
CLAIM_EVENTS = [
    "claim_extracted",
    "claim_candidates",
    "claim_text",
    "claim_judgement",
    "claim_identity",
    "claim_decision",
]


@pytest.fixture(scope="module")
def simulator() -> Iterator[SimulatorServer]:
    with SimulatorServer(Universe.from_jsonl(UNIVERSE), SimulatorConfig.unlimited()) as server:
        yield server


def sim_settings(simulator: SimulatorServer, tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "data_dir": tmp_path / "data",
        "database_url": f"sqlite:///{tmp_path / 'aletheia.sqlite3'}",
        "crossref_url": simulator.url_for("crossref"),
        "openalex_url": simulator.url_for("openalex"),
        "semantic_scholar_url": simulator.url_for("s2"),
        "arxiv_api_url": simulator.url_for("arxiv_api"),
        "arxiv_url": simulator.url_for("arxiv"),
        "pubmed_url": simulator.url_for("pubmed"),
        **{f"{s}_limits": FAST for s in ("crossref", "openalex", "semantic_scholar", "arxiv", "pubmed")},
        "http_attempts": 2,
        "circuit_failure_threshold": 100,
        "oa_fulltext": False,  # the universe's open-access links name hosts outside the simulator
        "claim_judge": "rules",
    }
    return Settings(**(values | overrides))


@pytest.fixture
def runtime(simulator: SimulatorServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    simulator.configure(SimulatorConfig.unlimited())
    simulator.reset()
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return Runtime.open(sim_settings(simulator, tmp_path))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


class Recorder:
    """A dispatcher that only records: the test delivers each message itself (or twice, or never)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, tuple[Any, ...]]] = []

    def send(self, task: str, *args: Any) -> None:
        self.sent.append((task, args))


def context(runtime: Runtime, dispatcher: Any, **options: Any) -> service.ServiceContext:
    options.setdefault("defer_tokens", False)
    return service.ServiceContext(
        runtime=runtime, dispatcher=dispatcher, runner=service.LoopThread(), **options
    )


def run_inline(runtime: Runtime, claim: str, project: Path, **submit: Any) -> tuple[str, list[str]]:
    inline = service.InlineDispatcher(record_sends=True)
    ctx = context(runtime, inline)
    try:
        job_id = service.submit_claim(runtime, inline, claim, repository=project, **submit)
        inline.drain(ctx)
    finally:
        ctx.close()
    return job_id, [task for task, _args in inline.sent]


def events(runtime: Runtime, job_id: str) -> list[tuple[str, dict[str, Any]]]:
    return [(e.event, e.body) for e in audit_log_for(runtime).entries(job_id)]


def test_a_claim_job_runs_on_the_pools_stages_to_its_artifact_and_trail(
    runtime: Runtime, project: Path, simulator: SimulatorServer
) -> None:
    job_id, sent = run_inline(runtime, HAPPY_CLAIM, project)
    assert sent == STAGES
    status = service.job_status(runtime, job_id)
    assert (status["status"], status["done"], status["stage"]) == ("done", 1, "done")
    summary = service.job_summary(runtime, job_id)
    assert summary["verified"] is True
    artifact = Path(summary["artifact"])
    assert artifact == project.resolve() / "docs" / "citations" / "2304.01234-halvorsen-trimmed.md"
    front = parse_artifact(artifact.read_text(encoding="utf-8")).frontmatter
    assert front.triangulation.decisive_fields_agreed and not front.human_overridden
    assert summary["citation"]["excerpts"][0]["location"] == "Section 3.1 Breakdown under attack, paragraph 1"
    assert summary["citation"]["judge"].startswith("rules:")

    # Every decision in the trail, in order, then the files the writer recorded; the trail verifies.
    trail = events(runtime, job_id)
    assert [kind for kind, _ in trail] == [*CLAIM_EVENTS, "artifact_written", "artifact_written"]
    assert [b["kind"] for k, b in trail if k == "artifact_written"] == ["citation", "report"]
    decision = trail[CLAIM_EVENTS.index("claim_decision")][1]
    assert decision["cited"] is True and decision["slug"] == "2304.01234-halvorsen-trimmed"
    assert verify_job(audit_log_for(runtime), job_id).intact
    assert audit_log_for(runtime).commits(job_id)  # committed under a Merkle root (render_report)
    # The fetched documents are gone once the job is done; its state row stays (the record).
    with runtime.jobs.sessions() as s:
        assert s.query(ClaimDocumentRow).count() == 0


def test_the_job_and_verify_and_cite_are_one_engine(runtime: Runtime, project: Path, tmp_path: Path) -> None:
    """The same stages in one process (`verify_and_cite`) record the same decision, event by event,
    and write the same artifact."""
    import asyncio

    job_id, _sent = run_inline(runtime, HAPPY_CLAIM, project)
    from_job = [(k, b) for k, b in events(runtime, job_id) if k.startswith("claim_")]
    trail = ClaimTrail()
    other = tmp_path / "other"
    other.mkdir()

    async def in_process() -> Any:
        async with runtime.gateway() as gateway:
            # The job's citation put the work in the library (Tier 0, issue 29): this run starts
            # where the job started, with no library work for the claim.
            gateway.library = None
            return await verify_and_cite(
                HAPPY_CLAIM, project_root=other, gateway=gateway, settings=runtime.settings, trail=trail
            )

    citation, path = asyncio.run(in_process())
    assert citation is not None
    assert [(k, json.loads(json.dumps(b))) for k, b in trail.events] == from_job
    job_artifact = Path(service.job_summary(runtime, job_id)["artifact"])
    assert path.name == job_artifact.name

    def without_time(text: str) -> str:
        return "\n".join(line for line in text.splitlines() if not line.startswith("verified_at:"))

    assert without_time(path.read_text(encoding="utf-8")) == without_time(
        job_artifact.read_text(encoding="utf-8")
    )


def deliver_twice(runtime: Runtime, ctx: service.ServiceContext, recorder: Recorder) -> list[str]:
    """Run every message the job sends twice, in order: a redelivery of each step. The duplicate
    finds its stage gone by: at most it asks again for what the first delivery asked for (the
    writer's last part re-sends the report step, which is idempotent too), never for more."""
    ran: list[str] = []
    while recorder.sent:
        task, args = recorder.sent.pop(0)
        ran.append(task)
        run_step(ctx, task, *args)
        first = list(recorder.sent)
        run_step(ctx, task, *args)
        again = recorder.sent[len(first) :]
        assert all(message in first for message in again), f"a second {task} asked for {again}"
        del recorder.sent[len(first) :]
    return ran


def test_every_stage_delivered_twice_changes_nothing(runtime: Runtime, project: Path, tmp_path: Path) -> None:
    once, _sent = run_inline(runtime, HAPPY_CLAIM, project)
    recorder = Recorder()
    ctx = context(runtime, recorder)
    try:
        job_id = service.submit_claim(runtime, recorder, HAPPY_CLAIM, repository=project)
        assert deliver_twice(runtime, ctx, recorder) == STAGES
        trail = events(runtime, job_id)
        assert [k for k, _ in trail] == [k for k, _ in events(runtime, once)]
        row = ClaimStageStore(runtime.jobs.engine).load(job_id)
        assert row is not None and row.stage == "done"
        # Once more, every stage, after the job is done: nothing moves.
        artifact = Path(service.job_summary(runtime, job_id)["artifact"])
        written = artifact.stat().st_mtime_ns
        for task in dict.fromkeys(STAGES):
            run_step(ctx, task, job_id)
        assert recorder.sent == []
        assert events(runtime, job_id) == trail
        assert artifact.stat().st_mtime_ns == written
        again = ClaimStageStore(runtime.jobs.engine).load(job_id)
        assert again is not None and again.version == row.version
    finally:
        ctx.close()


def test_redrive_resends_a_claim_job_stuck_at_any_stage(runtime: Runtime, project: Path) -> None:
    recorder = Recorder()
    ctx = context(runtime, recorder)
    try:
        job_id = service.submit_claim(runtime, recorder, HAPPY_CLAIM, repository=project)
        recorder.sent.clear()  # the first message is lost
        seen = []
        while service.job_status(runtime, job_id)["status"] != "done":
            assert service.redrive(ctx, older_than=3600).jobs == []  # not stale yet: left alone
            report = service.redrive(ctx, older_than=0)
            assert report.jobs == [job_id]
            [(task, args)] = recorder.sent
            recorder.sent.clear()
            seen.append(task)
            run_step(ctx, task, *args)
            recorder.sent.clear()  # every message a stage sends is lost too
        assert seen == STAGES
        assert service.job_summary(runtime, job_id)["verified"] is True
        assert [k for k, _ in events(runtime, job_id)][:6] == CLAIM_EVENTS
    finally:
        ctx.close()


def test_a_refusal_is_recorded_and_the_override_goes_through_the_job(runtime: Runtime, project: Path) -> None:
    refused, _ = run_inline(runtime, CONFLICT_CLAIM, project)
    summary = service.job_summary(runtime, refused)
    assert summary["verified"] is False and summary["conflict"]["kind"] == "TriangulationConflict"
    decision = dict(events(runtime, refused))["claim_decision"]
    assert (decision["cited"], decision["refusal"]) == (False, "TriangulationConflict")
    assert not (project / "docs" / "citations").exists()

    with pytest.raises(ValueError, match="override_reason"):
        service.submit_claim(runtime, Recorder(), CONFLICT_CLAIM, override_reason="  ")
    reason = "S2 has a stale author list; arXiv's listing is authoritative"
    overridden, _ = run_inline(runtime, CONFLICT_CLAIM, project, override_reason=reason)
    summary = service.job_summary(runtime, overridden)
    assert summary["verified"] is True and summary["citation"]["human_overridden"] is True
    front = parse_artifact(Path(summary["artifact"]).read_text(encoding="utf-8")).frontmatter
    assert front.human_overridden and front.override_reason == reason


class DenySecond:
    """A limiter that has no token for the second request of one bucket (once): what the workers'
    limiter says when a source's next token is further away than they may wait in a slot."""

    def __init__(self, inner: Any, bucket: str) -> None:
        self.inner, self.bucket, self.asked = inner, bucket, 0
        self.send_delays = inner.send_delays

    async def acquire(self, bucket: str, rate: float, burst: float, *, max_wait: float | None = None) -> Any:
        if bucket == self.bucket:
            self.asked += 1
            if self.asked == 2:
                raise RateLimitedError(bucket.split(":")[0], "no token", status_code=None, retry_after=0.05)
        return await self.inner.acquire(bucket, rate, burst, max_wait=max_wait)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_deferred_lookup_sends_the_stage_back_to_the_queue(
    runtime: Runtime, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source with no token soon enough (the workers' deferring limiter) is no answer: the stage
    goes back to the queue whole and the claim is decided as if nothing had been deferred. Here
    arXiv serves the paper's HTML (text stage), then has no token for its record (identity)."""
    from aletheia.pipeline.jobs import context as job_context

    real = job_context.build_rate_limiter
    monkeypatch.setattr(
        job_context, "build_rate_limiter", lambda *a, **k: DenySecond(real(*a, **k), "arxiv:single")
    )
    waits: list[float] = []
    inline = service.InlineDispatcher(sleep=waits.append, record_sends=True)
    ctx = context(runtime, inline, defer_tokens=True)
    try:
        job_id = service.submit_claim(runtime, inline, CONFLICT_CLAIM, repository=project)
        inline.drain(ctx)
    finally:
        ctx.close()
    assert len(waits) == 1 and 0.05 <= waits[0] < 1
    assert [t for t, _ in inline.sent].count(service.CLAIM_IDENTITY) == 2  # deferred once, then run
    summary = service.job_summary(runtime, job_id)
    # Decided on arXiv's answer (it disagrees with Semantic Scholar), not on a deferral.
    assert summary["conflict"]["kind"] == "TriangulationConflict", summary
    assert service.DEFERRED_MARK not in json.dumps(events(runtime, job_id))


def test_replay_and_audit_log_of_a_claim_job(
    runtime: Runtime, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aletheia.producers.cli import main

    job_id, _ = run_inline(runtime, HAPPY_CLAIM, project)
    monkeypatch.setenv("ALETHEIA_DATABASE_URL", runtime.settings.sqlalchemy_url())
    reset_settings_cache()
    runner = CliRunner()
    try:
        replayed = runner.invoke(main, ["replay", job_id])
        assert replayed.exit_code == 0, replayed.output
        assert "0 different" in replayed.stdout and "1 claim decision(s) checked" in replayed.stdout
        as_json = json.loads(runner.invoke(main, ["replay", job_id, "--json"]).stdout)
        assert as_json["excerpts_judged"] >= 1 and as_json["same"] == as_json["excerpts_judged"]
        assert as_json["differences"] == [] and as_json["decisions_checked"] == 1
        shown = runner.invoke(main, ["audit-log", "show", job_id]).stdout
        assert all(f'"event": "{kind}"' in shown for kind in CLAIM_EVENTS)

        # A stored judgement that today's rules would not give: replay names it and exits 1.
        with runtime.jobs.sessions.begin() as s:
            row = s.query(AuditEvent).filter_by(job_id=job_id, event="claim_judgement").one()
            body = json.loads(json.dumps(row.body))
            for judged in body["judgements"]:
                judged["label"] = "contradicts" if judged["label"] == "supports" else "supports"
            s.execute(update(AuditEvent).where(AuditEvent.id == row.id).values(body=body))
        tampered = runner.invoke(main, ["replay", job_id])
        assert tampered.exit_code == 1
        assert tampered.stdout.startswith("DIFFERS")
    finally:
        reset_settings_cache()


def test_cite_runs_as_a_job_and_names_it(
    simulator: SimulatorServer, tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`aletheia cite` is a claim job on the embedded default: same outputs, the job id on stderr,
    `replay` and `audit-log show` work on it."""
    from aletheia.producers.cli import main

    env = {**simulator.env(), "ALETHEIA_DATA_DIR": str(tmp_path / "data"), "ALETHEIA_HTTP_ATTEMPTS": "2"}
    for name in ("SEMANTIC_SCHOLAR", "OPENALEX", "ARXIV", "CROSSREF", "PUBMED"):
        env[f"ALETHEIA_{name}_LIMITS"] = json.dumps({"rate": 1000, "burst": 1000, "concurrency": 8})
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in ("ANTHROPIC_API_KEY", "ALETHEIA_BROKER_URL", "ALETHEIA_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    reset_settings_cache()
    runner = CliRunner()
    root = ["--project-root", str(project)]
    try:
        text = runner.invoke(main, ["cite", HAPPY_CLAIM, *root])
        assert text.exit_code == 0, text.output
        lines = text.stdout.splitlines()
        assert lines[0].startswith("Ingrid Halvorsen, Tomasz Wierzbicki. *Trimmed Median")
        assert lines[1].endswith("docs/citations/2304.01234-halvorsen-trimmed.md")
        assert lines[2].startswith('supported by: "The trimmed median aggregation tolerates')
        assert "judge rules:" in lines[2]
        job_id = text.stderr.strip().removeprefix("job: ")
        assert len(job_id) == 32

        as_json = runner.invoke(
            main, ["cite", HAPPY_CLAIM, "--project-root", str(project), "--format", "json"]
        )
        result = json.loads(as_json.stdout)
        assert result["ok"] is True and result["excerpts"] and result["job_id"] != job_id
        assert as_json.stderr == f"job: {result['job_id']}\n"

        refused = runner.invoke(main, ["cite", CONFLICT_CLAIM, *root])
        assert refused.exit_code == 1
        assert refused.stdout.startswith("refused: TriangulationConflict:")
        assert "  fields: " in refused.stdout
        refused_json = runner.invoke(
            main, ["cite", CONFLICT_CLAIM, "--project-root", str(project), "--format", "json"]
        )
        assert json.loads(refused_json.stdout)["kind"] == "TriangulationConflict"
        overridden = runner.invoke(
            main,
            ["cite", CONFLICT_CLAIM, "--project-root", str(project), "--override-reason", "arXiv is right"],
        )
        assert overridden.exit_code == 0, overridden.output
        assert runner.invoke(main, ["cite", HAPPY_CLAIM, "--override-reason", ""]).exit_code == 2
        assert runner.invoke(main, ["cite", HAPPY_CLAIM, "--paper", "not an id"]).exit_code == 2

        assert runner.invoke(main, ["replay", job_id]).exit_code == 0
        shown = runner.invoke(main, ["audit-log", "show", job_id])
        assert shown.exit_code == 0 and '"event": "claim_decision"' in shown.stdout
    finally:
        reset_settings_cache()


def test_a_symlinked_citations_folder_fails_the_job(runtime: Runtime, project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / "docs").mkdir()
    (project / "docs" / "citations").symlink_to(elsewhere)
    job_id, _ = run_inline(runtime, HAPPY_CLAIM, project)
    status = service.job_status(runtime, job_id)
    assert status["status"] == "failed" and status["error"].startswith("ArtifactPathError:")
    assert list(elsewhere.iterdir()) == []


def test_the_claim_stages_are_routed_to_their_pools() -> None:
    from aletheia.workers.app import ROUTES

    assert {t: ROUTES[t]["queue"] for t in service.CLAIM_STAGE_TASKS} == {
        service.CLAIM_CANDIDATES: "retrieval",
        service.CLAIM_TEXT: "retrieval",
        service.CLAIM_DOCUMENTS: "parsing",
        service.CLAIM_JUDGE: "evidence",
        service.CLAIM_IDENTITY: "retrieval",
        service.CLAIM_ARTIFACT: "writer",
    }
    assert set(claim_jobs.STAGE_TASKS.values()) == set(service.CLAIM_STAGE_TASKS)


def test_a_claim_job_goes_back_to_the_apis_when_the_library_does_not_support_it(
    runtime: Runtime, project: Path
) -> None:
    """Tier 0 (issue 29) on the pools: a library work that fits but does not support the claim is
    read, then the candidates stage runs again and the APIs' paper is cited."""
    from datetime import UTC, datetime

    from aletheia.sources.base import SourceRecord
    from tests.unit.claims_library_fixtures import NEAR_MISS

    runtime.library.remember_sync([SourceRecord(NEAR_MISS, None, datetime.now(UTC))])
    job_id, sent = run_inline(runtime, HAPPY_CLAIM, project)
    assert sent[:4] == [
        service.CLAIM_CANDIDATES,
        service.CLAIM_TEXT,
        service.CLAIM_JUDGE,
        service.CLAIM_CANDIDATES,
    ]
    summary = service.job_summary(runtime, job_id)
    assert summary["verified"] is True
    assert Path(summary["artifact"]).name == "2304.01234-halvorsen-trimmed.md"
    tiers = [b["tier"] for k, b in events(runtime, job_id) if k == "claim_candidates"]
    assert tiers == ["library", "sources"]
    assert verify_job(audit_log_for(runtime), job_id).intact
