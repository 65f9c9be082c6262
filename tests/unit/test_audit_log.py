"""The audit trail in SQLite: idempotent, concurrent appends; every kind of tampering done with SQL
behind the application's back is found, and named by job and seq."""

from __future__ import annotations

import itertools
import json
import threading
from pathlib import Path

import pytest
from sqlalchemy import Engine, delete, select, text, update

from aletheia.core.audit_chain import GENESIS, merkle_root, seal
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import FieldEvidence, Reason, Verdict, VerdictStatus
from aletheia.pipeline.audit.events import decision_events, record_artifact_written
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.storage.audit_log import AuditChainBroken, AuditLog
from aletheia.storage.audit_verify import verify_all, verify_job
from aletheia.storage.db import engine_for
from aletheia.storage.models import AuditEvent, MerkleCommit
from aletheia.storage.stores import JobStore


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    return engine_for(f"sqlite:///{tmp_path / 'audit.sqlite3'}")


@pytest.fixture
def log(engine: Engine, tmp_path: Path) -> AuditLog:
    return AuditLog(engine, anchor_file=tmp_path / "anchor.jsonl")


def events(n: int, tag: str = "e") -> list[tuple[str, dict[str, object]]]:
    return [("source_consulted", {"item": f"{tag}{i}", "n": i, "outcome": "found"}) for i in range(n)]


def sql(engine: Engine, statement: str, **params: object) -> None:
    """Tampering as an attacker with database access would: plain SQL, no application code."""
    with engine.begin() as conn:
        conn.execute(text(statement), params)


def only_problem(log: AuditLog, job: str) -> tuple[int | None, str]:
    result = verify_job(log, job)
    assert not result.intact
    first = result.first_problem
    assert first is not None
    return first.seq, first.problem


def test_append_numbers_chains_and_skips_what_is_already_there(log: AuditLog) -> None:
    assert log.append("job1", events(5)) == 5
    assert log.append("job1", events(5)) == 0  # a task delivered twice logs nothing new
    assert log.append("job1", events(7)) == 2  # ...and only what is new
    entries = log.entries("job1")
    assert [e.seq for e in entries] == list(range(1, 8))
    assert entries[0].prev_hash == GENESIS
    assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(entries))
    assert verify_job(log, "job1").intact


def test_jobs_have_separate_chains(log: AuditLog) -> None:
    log.append("a", events(2))
    log.append("b", events(2))  # the same bodies in another job are other events
    assert [e.seq for e in log.entries("b")] == [1, 2]
    assert log.job_ids() == ["a", "b"]


def test_concurrent_appends_keep_one_gapless_chain(log: AuditLog) -> None:
    def writer(w: int) -> None:
        for batch in range(5):
            log.append("job1", events(4, tag=f"w{w}b{batch}-"))

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    entries = log.entries("job1")
    assert [e.seq for e in entries] == list(range(1, 6 * 5 * 4 + 1))
    assert verify_job(log, "job1").intact


def test_commits_are_idempotent_and_cover_new_events(log: AuditLog) -> None:
    log.append("job1", events(3))
    first = log.commit_job("job1")
    assert first is not None and first.event_count == 3
    assert first.root == merkle_root([e.hash for e in log.entries("job1")])
    assert log.commit_job("job1") is None
    log.append("job1", events(4))
    second = log.commit_job("job1")
    assert second is not None and second.prior == first.root and second.event_count == 4
    result = verify_job(log, "job1")
    assert result.intact and result.commits == 2 and result.committed_events == 4


def test_global_commits_chain_and_are_anchored(log: AuditLog, tmp_path: Path) -> None:
    for job in ("a", "b"):
        log.append(job, events(2, tag=job))
        log.commit_job(job)
    g1 = log.commit_global()
    assert g1 is not None and g1.event_count == 2 and g1.prior is None
    assert log.commit_global() is None  # nothing new to cover
    log.append("c", events(1))
    log.commit_job("c")
    g2 = log.commit_global()
    assert g2 is not None and g2.prior == g1.root and g2.event_count == 1
    lines = [json.loads(line) for line in (tmp_path / "anchor.jsonl").read_text().splitlines()]
    assert [(line["id"], line["root"]) for line in lines] == [(g1.id, g1.root), (g2.id, g2.root)]
    jobs, problems = verify_all(log)
    assert problems == [] and all(j.intact for j in jobs)


def test_commit_global_if_due_waits_for_the_interval(log: AuditLog) -> None:
    log.append("a", events(1))
    log.commit_job("a")
    assert log.commit_global_if_due(3600) is not None  # the first one is always due
    log.append("b", events(1))
    log.commit_job("b")
    assert log.commit_global_if_due(3600) is None
    assert log.commit_global_if_due(0) is not None


# --- tampering -------------------------------------------------------------------------------------


def test_an_edited_body_is_named(log: AuditLog, engine: Engine) -> None:
    log.append("job1", events(6))
    sql(engine, "UPDATE audit_events SET body = :b WHERE job_id = 'job1' AND seq = 4", b='{"item": "forged"}')
    seq, problem = only_problem(log, "job1")
    assert seq == 4 and "edited" in problem


def test_an_edited_event_kind_or_timestamp_is_named(log: AuditLog, engine: Engine) -> None:
    log.append("job1", events(3))
    sql(engine, "UPDATE audit_events SET event = 'verdict' WHERE job_id = 'job1' AND seq = 2")
    assert only_problem(log, "job1")[0] == 2
    log.append("job2", events(3))
    sql(engine, "UPDATE audit_events SET ts = '2020-01-01 00:00:00.000000' WHERE job_id = 'job2' AND seq = 3")
    assert only_problem(log, "job2")[0] == 3


def test_a_removed_event_is_named(log: AuditLog, engine: Engine) -> None:
    log.append("job1", events(6))
    sql(engine, "DELETE FROM audit_events WHERE job_id = 'job1' AND seq = 3")
    seq, problem = only_problem(log, "job1")
    assert seq == 4 and "seq 3 missing" in problem


def test_two_swapped_events_are_named(log: AuditLog, engine: Engine) -> None:
    log.append("job1", events(6))
    # Through a spare number, since (job_id, seq) is unique.
    sql(engine, "UPDATE audit_events SET seq = -1 WHERE job_id = 'job1' AND seq = 2")
    sql(engine, "UPDATE audit_events SET seq = 2 WHERE job_id = 'job1' AND seq = 5")
    sql(engine, "UPDATE audit_events SET seq = 5 WHERE job_id = 'job1' AND seq = -1")
    seq, _ = only_problem(log, "job1")
    assert seq == 2


def test_a_removed_tail_is_caught_by_the_job_commit(log: AuditLog, engine: Engine) -> None:
    log.append("job1", events(6))
    log.commit_job("job1")
    sql(engine, "DELETE FROM audit_events WHERE job_id = 'job1' AND seq >= 5")
    seq, problem = only_problem(log, "job1")
    assert seq == 5 and "removed" in problem


def rewrite_from(engine: Engine, job: str, start: int, body: dict[str, object]) -> None:
    """A forger who knows the scheme: edit event `start` and recompute every hash after it."""
    with engine.begin() as conn:
        rows = conn.execute(select(AuditEvent).where(AuditEvent.job_id == job).order_by(AuditEvent.seq)).all()
        prev = GENESIS
        for row in rows:
            new_body = body if row.seq == start else row.body
            if row.seq >= start:
                entry = seal(
                    job_id=job, seq=row.seq, ts=row.ts, event=row.event, body=new_body, prev_hash=prev
                )
                conn.execute(
                    update(AuditEvent)
                    .where(AuditEvent.id == row.id)
                    .values(body=new_body, event_id=entry.event_id, prev_hash=prev, hash=entry.hash)
                )
                prev = entry.hash
            else:
                prev = row.hash


def test_a_consistently_rewritten_chain_is_caught_by_its_commit(log: AuditLog, engine: Engine) -> None:
    log.append("job1", events(6))
    log.commit_job("job1")
    rewrite_from(engine, "job1", 3, {"item": "forged"})
    result = verify_job(log, "job1")
    assert not result.intact
    assert "rewritten after it was committed" in str(result.first_problem)


def test_a_rewritten_chain_and_job_commit_are_caught_by_the_global_commit(
    log: AuditLog, engine: Engine
) -> None:
    log.append("job1", events(6))
    log.commit_job("job1")
    log.commit_global()
    rewrite_from(engine, "job1", 3, {"item": "forged"})
    root = merkle_root([e.hash for e in log.entries("job1")])
    with engine.begin() as conn:
        conn.execute(update(MerkleCommit).where(MerkleCommit.scope == "job1").values(root=root))
    result = verify_job(log, "job1")
    assert not result.intact
    assert "global commit" in str(result.first_problem) and "job1" in str(result.first_problem)


def test_a_rewritten_global_commit_is_caught_by_the_anchor_file(log: AuditLog, engine: Engine) -> None:
    log.append("job1", events(2))
    log.commit_job("job1")
    g = log.commit_global()
    assert g is not None
    with engine.begin() as conn:
        conn.execute(update(MerkleCommit).where(MerkleCommit.id == g.id).values(root="0" * 64))
    _, problems = verify_all(log)
    assert any("anchor" in p.problem for p in problems)
    # ...and a deleted one too.
    with engine.begin() as conn:
        conn.execute(delete(MerkleCommit).where(MerkleCommit.id == g.id))
    _, problems = verify_all(log)
    assert any("removed" in p.problem or "missing" in p.problem for p in problems)


def test_commit_refuses_a_broken_chain(log: AuditLog, engine: Engine) -> None:
    log.append("job1", events(3))
    sql(engine, "UPDATE audit_events SET body = '{}' WHERE job_id = 'job1' AND seq = 2")
    with pytest.raises(AuditChainBroken, match="seq 2"):
        log.commit_job("job1")


# --- the decision events and the verdict rows ---------------------------------------------------


def outcome_for(cited: CitedReference) -> ReferenceOutcome:
    record = WorkRecord(
        source=SourceName.CROSSREF, title=cited.title, doi=cited.doi, authors=cited.authors, year=2020
    )
    doi = cited.doi or ""
    answers = (
        SourceAnswer(
            source=SourceName.CROSSREF,
            kind=QueryKind.DOI,
            query=doi,
            outcome=Outcome.FOUND,
            records=(record,),
        ),
        SourceAnswer(
            source=SourceName.OPENALEX,
            kind=QueryKind.DOI,
            query=doi,
            outcome=Outcome.FAILED,
            error="openalex: GET ...: server error (HTTP 503)",
        ),
    )
    verdict = Verdict(
        status=VerdictStatus.VERIFIED,
        reasons=(Reason.DOI_RESOLVED, Reason.SINGLE_SOURCE, Reason.SOURCE_UNAVAILABLE),
        fields={"title": FieldEvidence(cited=cited.title, found=record.title, source=SourceName.CROSSREF,
                                       similarity=1.0, threshold=0.92, decisive=True, agrees=True)},
        match=record,
        sources_consulted=(SourceName.CROSSREF,),
        sources_unavailable=(SourceName.OPENALEX,),
    )  # fmt: skip
    return ReferenceOutcome(cited=cited, verdict=verdict, evidence=Evidence(answers=answers), raw=[])


def test_decision_events_say_what_each_source_said(log: AuditLog) -> None:
    cited = CitedReference(
        key="smith2020", title="A study", authors=(Author(family="Smith"),), doi="10.5555/x"
    )
    evs = decision_events("smith2020", outcome_for(cited), position=1)
    assert [name for name, _ in evs] == [
        "source_consulted",
        "source_consulted",
        "field_comparison",
        "verdict",
    ]
    consulted = evs[0][1]
    assert consulted["source"] == "crossref" and consulted["outcome"] == "found"
    assert consulted["records"][0]["doi"] == "10.5555/x" and len(consulted["records"][0]["sha256"]) == 64
    assert evs[1][1]["error"].startswith("openalex") and evs[1][1]["outcome"] == "failed"
    assert evs[2][1]["field"] == "title" and evs[2][1]["agrees"] is True
    assert evs[3][1]["status"] == "verified" and evs[3][1]["sources_unavailable"] == ["openalex"]
    assert log.append("j", decision_events("smith2020", outcome_for(cited), position=1)) == 4
    assert log.append("j", decision_events("smith2020", outcome_for(cited), position=1)) == 0
    assert record_artifact_written(log, "j", repository="/r", path="docs/citations/a.md", kind="citation",
                                   content_sha256="ab" * 32) == 1  # fmt: skip


def test_an_edited_verdict_row_is_caught_against_its_verdict_event(log: AuditLog, engine: Engine) -> None:
    jobs = JobStore(engine)
    job = jobs.create_job("bibliography", {})
    cited = CitedReference(
        key="smith2020", title="A study", authors=(Author(family="Smith"),), doi="10.5555/x"
    )
    outcome = outcome_for(cited)
    jobs.add_items(job, [(1, cited.key, "reference", cited.model_dump(mode="json"))])
    (item,) = jobs.items(job)
    claim = jobs.claim_item(item.id)
    assert claim is not None
    # As the verify step records a decision: its events and its verdict row in one transaction.
    assert log.append_if(
        job,
        decision_events(cited.key, outcome, position=1),
        lambda session: jobs.settle(
            session,
            job,
            item.id,
            claim=claim,
            verdict=outcome.verdict.model_dump(mode="json"),
            evidence=outcome.evidence.model_dump(mode="json"),
            counters=None,
        ),
    )
    assert verify_job(log, job).intact
    forged = {**outcome.verdict.model_dump(mode="json"), "status": "not_found"}
    sql(
        engine,
        "UPDATE verdicts SET verdict = :v, status = 'not_found' WHERE item_id = :i",
        v=json.dumps(forged),
        i=item.id,
    )
    seq, problem = only_problem(log, job)
    assert seq == 4 and "stored verdict of item 1 (smith2020)" in problem
    sql(
        engine,
        "UPDATE verdicts SET verdict = :v WHERE item_id = :i",
        v=json.dumps(outcome.verdict.model_dump(mode="json")),
        i=item.id,
    )
    assert verify_job(log, job).intact
    sql(
        engine,
        "UPDATE verdicts SET evidence = :e WHERE item_id = :i",
        v=None,
        e=json.dumps(Evidence().model_dump(mode="json")),
        i=item.id,
    )
    assert "stored evidence of item 1" in only_problem(log, job)[1]
