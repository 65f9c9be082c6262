"""The queue-backed service end to end: real Redis, real PostgreSQL, real Celery worker processes,
sources served by the loopback simulator, jobs submitted through the `aletheia` CLI.

Skipped when Redis (127.0.0.1:6379) or PostgreSQL (127.0.0.1:5432) is unreachable, unless CI is
set: then it fails.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from aletheia.sources.simulator import SimulatorConfig
from aletheia.sources.simulator.server import SimulatorServer
from aletheia.sources.simulator.universe import Universe
from tests.integration.queue_stack import (
    ALETHEIA,
    REDIS_DB,
    PrivateRedis,
    Stack,
    Unavailable,
    bibtex_for,
    flush_redis_db,
    make_universe,
    queue_database,
    stack_env,
)
from tests.unit.test_document_signals import spun_pdf

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(300)]

WORKS = make_universe(30)
VISIBILITY = 8  # seconds: a killed worker's messages come back quickly


@pytest.fixture(scope="module")
def database_url() -> str:
    return queue_database("aletheia_test")


@pytest.fixture(scope="module")
def simulator() -> Iterator[SimulatorServer]:
    # Some latency, so that a job is still running when a test breaks something.
    config = SimulatorConfig.unlimited().merged(
        {"sources": {s: {"latency_ms": 40} for s in ("crossref", "openalex", "semantic_scholar")}}
    )
    server = SimulatorServer(Universe.from_records(WORKS), config)
    server.start()
    yield server
    server.stop()


def sql(database_url: str, query: str, **params: Any) -> list[Any]:
    engine = create_engine(database_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(query), params).all())
    finally:
        engine.dispose()


def sql_write(database_url: str, *statements: str) -> None:
    engine = create_engine(database_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.begin() as conn:
            for statement in statements:
                conn.execute(text(statement))
    finally:
        engine.dispose()


def make_stack(tmp_path: Path, database_url: str, simulator: SimulatorServer, broker_url: str) -> Stack:
    env = stack_env(
        broker_url=broker_url,
        database_url=database_url,
        data_dir=tmp_path / "data",
        simulator_env=simulator.env(),
        visibility_timeout_seconds=VISIBILITY,
        redrive_interval_seconds=2,
    )
    return Stack(env=env, workdir=tmp_path)


@pytest.fixture
def stack(tmp_path: Path, database_url: str, simulator: SimulatorServer) -> Iterator[Stack]:
    broker = f"redis://127.0.0.1:6379/{REDIS_DB}"
    flush_redis_db(broker)
    s = make_stack(tmp_path, database_url, simulator, broker)
    yield s
    s.stop()
    flush_redis_db(broker)


def start_pools(stack: Stack, *, retrieval_concurrency: int = 8) -> None:
    stack.start_worker("retrieval", ["retrieval"], concurrency=retrieval_concurrency)
    # The other pools share one process here (the machine running the tests is small); ops/start
    # and docker-compose.yml run one process per pool.
    stack.start_worker("control", ["control", "parsing", "evidence", "writer"], concurrency=2)
    stack.wait_for_workers(["retrieval", "control"])


def wait_for(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def done_items(database_url: str, job_id: str) -> int:
    return int(
        sql(database_url, "SELECT count(*) FROM items WHERE job_id=:j AND status='done'", j=job_id)[0][0]
    )


def assert_complete_without_duplicates(database_url: str, job_id: str, references: int) -> None:
    items = sql(database_url, "SELECT id, status FROM items WHERE job_id=:j", j=job_id)
    assert len(items) == references
    assert {status for _id, status in items} == {"done"}
    per_item = sql(
        database_url, "SELECT item_id, count(*) FROM verdicts WHERE job_id=:j GROUP BY item_id", j=job_id
    )
    assert len(per_item) == references
    assert {n for _item, n in per_item} == {1}
    artifacts = sql(
        database_url, "SELECT path, content_hash FROM artifacts WHERE job_id=:j ORDER BY path", j=job_id
    )
    assert [Path(p).name for p, _h in artifacts] == ["corrected.bib", "report.html", "report.json"]
    for path, _hash in artifacts:
        assert Path(path).is_file()
        # Only the three files, no leftovers of an interrupted write.
        assert sorted(p.name for p in Path(path).parent.iterdir()) == [
            "corrected.bib",
            "report.html",
            "report.json",
        ]


def test_a_bibliography_submitted_from_the_cli_reaches_a_report(
    stack: Stack, database_url: str, tmp_path: Path
) -> None:
    start_pools(stack)
    bib = tmp_path / "refs.bib"
    bib.write_text(bibtex_for(WORKS[:6], fabricated=1))

    submitted = stack.cli("submit", str(bib))
    job_id = submitted.stdout.strip()
    assert len(job_id) == 32 and submitted.stdout == job_id + "\n"  # the id alone on stdout

    waited = stack.cli("wait", job_id, "--timeout", "120", timeout=150)
    assert json.loads(waited.stdout)["status"] == "done"
    status = json.loads(stack.cli("status", job_id).stdout)
    assert (status["total"], status["done"], status["pending"]) == (7, 7, 0)
    assert status["by_verdict"].get("verified") == 6

    shown = stack.cli("report", job_id, "--format", "json", check=False)
    assert shown.returncode == 1, shown.stderr  # as `aletheia verify`: a flagged reference (fake0)
    report = json.loads(shown.stdout)
    verdicts = {r["key"]: r["verdict"] for r in report["references"]}
    assert {k: v for k, v in verdicts.items() if k.startswith("ref")} == {
        f"ref{i}": "verified" for i in range(6)
    }
    assert verdicts["fake0"] in {"not_found", "fabricated"}
    assert "{ref0,\n" in stack.cli("report", job_id, "--format", "bibtex", check=False).stdout
    assert "<html" in stack.cli("report", job_id, "--format", "html", check=False).stdout.lower()
    assert_complete_without_duplicates(database_url, job_id, 7)

    # The workers wrote the job's decision trail, hash-chained and committed: it verifies intact,
    # and a replay of every verdict from the stored evidence finds no difference.
    shown = stack.cli("audit-log", "show", job_id).stdout
    assert "verdict" in shown and "source_consulted" in shown and "artifact_written" in shown
    verified = stack.cli("audit-log", "verify", job_id, check=False)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert stack.cli("replay", job_id, check=False).returncode == 0

    # Every worker log line is JSON, and the lines about this job carry its id.
    lines = [
        json.loads(line)
        for line in (tmp_path / "retrieval.log").read_text().splitlines()
        if line.startswith("{")
    ]
    assert any(line["job_id"] == job_id for line in lines)

    # A paper given as input (a PDF: the parsing pool reads it) is itself checked for paper-mill
    # signs from the text read for its references, and the stored report.json carries the signal.
    paper = tmp_path / "paper.pdf"
    paper.write_bytes(spun_pdf())
    paper_job = stack.cli("submit", str(paper)).stdout.strip()
    waited = stack.cli("wait", paper_job, "--timeout", "120", timeout=150)
    assert json.loads(waited.stdout)["status"] == "done"
    [(stored,)] = sql(
        database_url, "SELECT path FROM artifacts WHERE job_id=:j AND path LIKE '%report.json'", j=paper_job
    )
    signals = json.loads(Path(stored).read_text())["summary"]["signals"]
    assert [s["kind"] for s in signals] == ["ai_generated_suspect"]
    assert signals[0]["evidence"]["document"].endswith("paper.pdf")


def test_a_claim_submitted_from_the_cli_settles(stack: Stack, database_url: str) -> None:
    start_pools(stack)
    job_id = stack.cli("submit", "--claim", "Glacier retreat accelerated after 2000.").stdout.strip()
    stack.cli("wait", job_id, "--timeout", "180", timeout=210)
    status = json.loads(stack.cli("status", job_id).stdout)
    assert status["status"] == "done" and status["pending"] == 0
    shown = stack.cli("report", job_id, "--format", "json", check=False)
    summary = json.loads(shown.stdout)["summary"]
    assert shown.returncode == (0 if summary["verified"] else 1)  # a refusal is no clean result
    # Proven (with its artifact) or refused with the reason: never a bare "yes".
    if summary["verified"]:
        assert Path(summary["artifact"]).is_file()
    else:
        assert summary["conflict"]["kind"]


def test_a_research_text_enqueued_by_the_python_client_settles(
    stack: Stack, database_url: str, tmp_path: Path
) -> None:
    """`validate_research` through the queue: the Python client puts a claims-text job on Redis,
    the worker pools check the cited reference and the fabricated one, the report is read back."""
    start_pools(stack)
    (tmp_path / "refs.bib").write_text(bibtex_for(WORKS[:1], fabricated=1))
    (tmp_path / "paper.md").write_text(
        "# Introduction\n\nThis method is optimal and runs in O(n log n) time [@ref0].\n\n"
        "It outperforms every earlier approach by 30% on all benchmarks [@fake0].\n"
    )
    script = (
        "import json, pathlib, sys\n"
        "from aletheia.producers.client import AletheiaClient\n"
        "client = AletheiaClient()\n"
        "assert client.queued\n"
        "d = pathlib.Path(sys.argv[1])\n"
        "report = client.validate_research((d / 'paper.md').read_text(), name='paper.md',\n"
        "    bibliography=(d / 'refs.bib').read_text(), suggest=False, timeout=150)\n"
        "print(json.dumps(report))\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        env=stack.env,
        capture_output=True,
        text=True,
        timeout=200,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    report = json.loads(ran.stdout)
    assert report["status"] == "done", report
    job_id = report["job_id"]
    kind = sql(database_url, "SELECT kind FROM jobs WHERE id=:j", j=job_id)[0][0]
    assert kind == "claims_text"
    # Both citations were resolved and checked by the pools: the genuine one verified, the
    # fabricated one flagged.
    verdicts = {c["key"]: c["verdict"] for claim in report["claims"] for c in claim["citations"]}
    assert verdicts["ref0"] == "verified"
    assert verdicts["fake0"] in {"not_found", "fabricated"}


def test_a_worker_killed_mid_job_still_ends_in_a_complete_job(
    stack: Stack, database_url: str, tmp_path: Path
) -> None:
    start_pools(stack, retrieval_concurrency=2)
    bib = tmp_path / "many.bib"
    bib.write_text(bibtex_for(WORKS, fabricated=0))
    job_id = stack.cli("submit", str(bib)).stdout.strip()

    wait_for(lambda: done_items(database_url, job_id) >= 3, 90, "the first verdicts")
    assert done_items(database_url, job_id) < len(WORKS), "the job finished before the kill"
    stack.kill("retrieval")  # SIGKILL: no acknowledgement, no clean-up
    stack.start_worker("retrieval", ["retrieval"], concurrency=4)
    stack.wait_for_workers(["retrieval"])

    assert json.loads(stack.cli("wait", job_id, "--timeout", "150", timeout=180).stdout)["status"] == "done"
    assert_complete_without_duplicates(database_url, job_id, len(WORKS))


def test_a_redis_restart_loses_messages_but_not_the_job(
    tmp_path: Path, database_url: str, simulator: SimulatorServer
) -> None:
    redis = PrivateRedis(tmp_path)
    try:
        redis.start()
    except (OSError, Unavailable) as exc:
        pytest.skip(f"no redis-server binary to run a private broker: {exc}")
    stack = make_stack(tmp_path, database_url, simulator, redis.url)
    try:
        start_pools(stack, retrieval_concurrency=2)
        stack.start_beat()  # re-drives unfinished work every 2 s (items idle for the visibility timeout)
        bib = tmp_path / "restart.bib"
        bib.write_text(bibtex_for(WORKS, fabricated=0))
        job_id = stack.cli("submit", str(bib)).stdout.strip()

        wait_for(lambda: done_items(database_url, job_id) >= 3, 90, "the first verdicts")
        assert done_items(database_url, job_id) < len(WORKS), "the job finished before the restart"
        redis.kill()  # every queued and unacknowledged message is gone
        time.sleep(1.0)
        redis.start()
        # A Celery worker sometimes dies on the lost broker connection (kombu's redis transport
        # raises "NoneType has no attribute hostname" while restoring unacked messages). In the
        # service a supervisor brings it back (docker-compose `restart: unless-stopped`); here the
        # test plays that part. What is under test is that no work is lost or duplicated.
        time.sleep(3.0)
        for name, queues in (
            ("retrieval", ["retrieval"]),
            ("control", ["control", "parsing", "evidence", "writer"]),
        ):
            if stack.workers[name].poll() is not None:
                stack.workers.pop(name)
                stack.logs.pop(name).close()
                stack.start_worker(name, queues, concurrency=2)

        # Generous: on a loaded machine the workers' reconnection backoff and the re-drive period
        # both stretch; the assertion is that the job completes, not how fast.
        waited = stack.cli("wait", job_id, "--timeout", "300", timeout=330, check=False)
        if waited.returncode != 0:
            logs = {name: stack.log_tail(name) for name in ("retrieval", "control", "writer", "beat")}
            pytest.fail(f"job not done after the restart: {waited.stderr}\n{logs}")
        assert json.loads(waited.stdout)["status"] == "done"
        assert_complete_without_duplicates(database_url, job_id, len(WORKS))
    finally:
        stack.stop()
        redis.kill()


# What may differ between two runs of the same input: the job's identity and files, and how the
# requests were spread (one process batching every reference, or workers each with a gateway).
RUN_SPECIFIC = ("job_id", "artifacts", "requests")
RUN_COUNTERS = ("requests", "cache_hits", "rate_limited", "requests_by_kind")


def comparable(document: dict[str, Any]) -> dict[str, Any]:
    summary = {k: v for k, v in document["summary"].items() if k not in RUN_SPECIFIC}
    summary["sources"] = {
        name: {k: v for k, v in counters.items() if k not in RUN_COUNTERS}
        for name, counters in summary.get("sources", {}).items()
    }
    return {"summary": summary, "references": document["references"]}


def test_aletheia_verify_and_the_queued_service_give_the_same_json(
    stack: Stack, simulator: SimulatorServer, database_url: str, tmp_path: Path
) -> None:
    """Issue 22, one engine: the embedded `aletheia verify` (the job's steps in process, SQLite) and
    `aletheia submit` + `aletheia report` (Celery workers, PostgreSQL) give the same report for the
    same input: every reference entry, and the summary but for the job's id, files and counters of
    requests."""
    # Both runs start from nothing learned: earlier tests of this module put these works in the
    # queued database's library and cache, which a fresh embedded database does not have.
    sql_write(database_url, "DELETE FROM library_works", "DELETE FROM source_records")
    start_pools(stack)
    bib = tmp_path / "refs.bib"
    bib.write_text(bibtex_for(WORKS[6:14], fabricated=2))
    embedded_env = {
        k: v
        for k, v in stack.env.items()
        if k not in {"ALETHEIA_BROKER_URL", "ALETHEIA_REDIS_URL", "ALETHEIA_DATABASE_URL"}
    } | {"ALETHEIA_DATA_DIR": str(tmp_path / "embedded")}
    verified = subprocess.run(
        [*ALETHEIA, "verify", str(bib), "--format", "json"],
        env=embedded_env, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert verified.returncode == 1, verified.stderr[-2000:]  # two fabricated references
    job_id = stack.cli("submit", str(bib)).stdout.strip()
    stack.cli("wait", job_id, "--timeout", "120", timeout=150)
    reported = stack.cli("report", job_id, "--format", "json", check=False)
    assert reported.returncode == verified.returncode, reported.stderr[-2000:]
    in_process, queued = json.loads(verified.stdout), json.loads(reported.stdout)
    assert len(in_process["references"]) == 10
    assert [r["key"] for r in in_process["references"]] == [r["key"] for r in queued["references"]]
    assert comparable(in_process) == comparable(queued)
