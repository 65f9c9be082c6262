"""A claim job across the worker pools (issue 19, items 6 and 7): real Redis, real PostgreSQL, one
Celery worker process per pool, the sources served by the loopback simulator over the hand-written
claims universe. The claim goes retrieval -> parsing -> retrieval -> evidence -> retrieval ->
writer, PostgreSQL holding its state between stages; every stage delivered again changes nothing.

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

from aletheia.pipeline.jobs.kinds import (
    CLAIM_ARTIFACT,
    CLAIM_CANDIDATES,
    CLAIM_DOCUMENTS,
    CLAIM_IDENTITY,
    CLAIM_JUDGE,
    CLAIM_TEXT,
)
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, Universe
from tests.integration.queue_stack import (
    REDIS_DB,
    Stack,
    flush_redis_db,
    queue_database,
    stack_env,
)
from tests.integration.test_queue_service import sql, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(300)]

UNIVERSE = Path(__file__).resolve().parents[1] / "fixtures" / "claims" / "universe.jsonl"
HAPPY_CLAIM = "Trimmed median aggregation tolerates up to one third of Byzantine sensor nodes"
CONFLICT_CLAIM = (
    "Norm clipping defenses fail against coordinated gradient poisoning attacks in federated learning"
)
CLAIM_EVENTS = [
    "claim_extracted",
    "claim_candidates",
    "claim_text",
    "claim_judgement",
    "claim_identity",
    "claim_decision",
]
# Which pool runs which stage (workers/app.py's ROUTES), as the pools' logs must show.
POOL_STAGES = {
    "retrieval": {"candidates", "text", "identity"},
    "parsing": {"parse"},
    "evidence": {"judge"},
    "writer": {"write"},
}
FAST = json.dumps({"rate": 1000, "burst": 1000, "concurrency": 8})
SOURCES = ("semantic_scholar", "openalex", "arxiv", "crossref", "pubmed")


@pytest.fixture(scope="module")
def database_url() -> str:
    return queue_database("aletheia_claim_pools_test")


@pytest.fixture(scope="module")
def simulator() -> Iterator[SimulatorServer]:
    with SimulatorServer(Universe.from_jsonl(UNIVERSE), SimulatorConfig.unlimited()) as server:
        yield server


@pytest.fixture
def stack(tmp_path: Path, database_url: str, simulator: SimulatorServer) -> Iterator[Stack]:
    broker = f"redis://127.0.0.1:6379/{REDIS_DB}"
    flush_redis_db(broker)
    env = stack_env(
        broker_url=broker,
        database_url=database_url,
        data_dir=tmp_path / "data",
        simulator_env=simulator.env(),
        claim_judge="rules",
        http_attempts=2,
        **{
            f"{source}_limits": FAST
            for source in ("semantic_scholar", "openalex", "arxiv", "crossref", "pubmed")
        },
    )
    env.pop("ANTHROPIC_API_KEY", None)  # the lexical reasoner and the rules judge: no model
    s = Stack(env=env, workdir=tmp_path)
    s.start_worker("retrieval", ["retrieval"], concurrency=4)
    s.start_worker(
        "parsing", ["parsing"], pool="prefork", concurrency=1, extra=["--prefetch-multiplier", "1"]
    )
    s.start_worker("evidence", ["evidence"], concurrency=2)
    s.start_worker("writer", ["writer"], concurrency=1)
    s.start_worker("control", ["control"], pool="solo", concurrency=1)
    s.wait_for_workers(["retrieval", "parsing", "evidence", "writer", "control"])
    yield s
    s.stop()
    flush_redis_db(broker)


def send(stack: Stack, *messages: tuple[str, str]) -> None:
    """Publish (task, job id) messages by name, as any producer does (routing picks the queue)."""
    script = (
        "import json, sys\n"
        "from aletheia.workers.dispatch import CeleryDispatcher\n"
        "d = CeleryDispatcher()\n"
        "for task, job in json.loads(sys.argv[1]):\n"
        "    d.send(task, job)\n"
    )
    subprocess.run(
        [sys.executable, "-c", script, json.dumps(messages)], env=stack.env, check=True, timeout=60
    )


def queues_idle(stack: Stack) -> bool:
    import redis

    client = redis.Redis.from_url(stack.env["ALETHEIA_BROKER_URL"])
    try:
        waiting = sum(int(client.llen(q)) for q in ("retrieval", "parsing", "evidence", "writer", "control"))
        unacked = int(client.hlen("unacked"))
        return waiting == 0 and unacked == 0
    finally:
        client.close()


def trail(database_url: str, job_id: str) -> list[tuple[str, Any]]:
    rows = sql(database_url, "SELECT event, body FROM audit_events WHERE job_id=:j ORDER BY seq", j=job_id)
    return [(event, body) for event, body in rows]


def stage_lines(stack: Stack, pool: str, job_id: str) -> set[str]:
    lines = []
    for line in (stack.workdir / f"{pool}.log").read_text(errors="replace").splitlines():
        if line.startswith("{"):
            lines.append(json.loads(line))
    return {
        line["stage"]
        for line in lines
        if line.get("msg") == "claim stage done" and line.get("job_id") == job_id
    }


def test_a_claim_job_runs_through_the_pools_to_its_artifact_and_trail(
    stack: Stack, database_url: str, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    job_id = stack.cli("submit", "--claim", HAPPY_CLAIM, "--into", str(project)).stdout.strip()
    # The first stage delivered three times at once: two of them find their work saved by another.
    send(stack, (CLAIM_CANDIDATES, job_id), (CLAIM_CANDIDATES, job_id))
    waited = stack.cli("wait", job_id, "--timeout", "150", timeout=180, check=False)
    assert waited.returncode == 0, waited.stdout + waited.stderr + stack.log_tail("retrieval")
    status = json.loads(stack.cli("status", job_id).stdout)
    assert (status["status"], status["stage"], status["done"]) == ("done", "done", 1)

    summary = json.loads(stack.cli("report", job_id, "--format", "json").stdout)["summary"]
    assert summary["verified"] is True
    artifact = Path(summary["artifact"])
    assert artifact == project / "docs" / "citations" / "2304.01234-halvorsen-trimmed.md"
    assert artifact.is_file()

    # Each stage ran on its pool.
    for pool, stages in POOL_STAGES.items():
        assert stage_lines(stack, pool, job_id) == stages, (pool, stack.log_tail(pool))

    # Every decision in the trail, once, in order; it verifies; a replay finds no difference.
    events = trail(database_url, job_id)
    assert [kind for kind, _ in events] == [*CLAIM_EVENTS, "artifact_written", "artifact_written"]
    assert stack.cli("audit-log", "verify", job_id, check=False).returncode == 0
    replayed = stack.cli("replay", job_id, check=False)
    assert replayed.returncode == 0 and "0 different" in replayed.stdout, replayed.stdout

    # Every stage delivered again once the job is done: nothing moves.
    [(version,)] = sql(database_url, "SELECT version FROM claim_states WHERE job_id=:j", j=job_id)
    written = artifact.stat().st_mtime_ns
    stages = (CLAIM_CANDIDATES, CLAIM_TEXT, CLAIM_DOCUMENTS, CLAIM_JUDGE, CLAIM_IDENTITY, CLAIM_ARTIFACT)
    send(stack, *((task, job_id) for task in stages))
    time.sleep(1.0)
    wait_for(lambda: queues_idle(stack), 60, "the repeated stages to be consumed")
    time.sleep(1.0)
    assert trail(database_url, job_id) == events
    assert sql(database_url, "SELECT version FROM claim_states WHERE job_id=:j", j=job_id) == [(version,)]
    assert artifact.stat().st_mtime_ns == written
    assert sql(database_url, "SELECT count(*) FROM claim_documents WHERE job_id=:j", j=job_id) == [(0,)]
    assert json.loads(stack.cli("status", job_id).stdout)["status"] == "done"


def test_cite_through_the_queue_keeps_its_outputs(stack: Stack, database_url: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    refused = stack.cli(
        "cite", CONFLICT_CLAIM, "--project-root", str(project), "--format", "json", "--timeout", "150",
        timeout=180, check=False,
    )  # fmt: skip
    assert refused.returncode == 1, refused.stderr
    report = json.loads(refused.stdout)
    assert report["kind"] == "TriangulationConflict" and report["ok"] is False
    assert refused.stderr.startswith(f"job: {report['job_id']}")
    assert [k for k, _ in trail(database_url, report["job_id"])][-2:] == [
        "claim_decision",
        "artifact_written",
    ]

    overridden = stack.cli(
        "cite", CONFLICT_CLAIM, "--project-root", str(project), "--override-reason", "arXiv is right",
        "--timeout", "150", timeout=180, check=False,
    )  # fmt: skip
    assert overridden.returncode == 0, overridden.stderr
    assert "artifact: " in overridden.stdout and "supported by: " in overridden.stdout
    job_id = overridden.stderr.strip().removeprefix("job: ")
    assert stack.cli("replay", job_id, "--json", check=False).returncode == 0
