"""Faults that must heal by themselves, with default settings (no short visibility timeout, no
beat, no manual re-drive), on real Redis, PostgreSQL and Celery workers (issue 22):

- PostgreSQL stopped for 10 seconds mid-job: every task that met the outage waits in its slot
  until the database answers and is then retried (workers/retry.py, workers/outage_wait.py), and
  the job completes with every verdict, none twice;
- `aletheia submit` while Redis is down: one line naming the broker, exit 3, no job id, and the
  job it had created is failed ("never enqueued"), so no re-drive runs it behind the user's back;
- `aletheia wait` on a job no worker will pick up says so, and gives up at --timeout.

A Redis and a PostgreSQL of their own (free ports), so stopping them disturbs nobody else.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from aletheia.sources.simulator import SimulatorConfig
from aletheia.sources.simulator.server import SimulatorServer
from aletheia.sources.simulator.universe import Universe
from tests.integration.job_checks import assert_complete_without_duplicates, count, sql, wait_for
from tests.integration.private_postgres import PrivatePostgres
from tests.integration.queue_stack import (
    PrivateRedis,
    Stack,
    bibtex_for,
    make_universe,
    stack_env,
)

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(420)]

WORKS = make_universe(80, seed="o")
ALL_QUEUES = ["control", "parsing", "retrieval", "evidence", "writer"]


@pytest.fixture(scope="module")
def simulator() -> Iterator[SimulatorServer]:
    # Some latency, so the job is still running when PostgreSQL goes away.
    config = SimulatorConfig.unlimited().merged(
        {"sources": {s: {"latency_ms": 40} for s in ("crossref", "openalex", "semantic_scholar")}}
    )
    with SimulatorServer(Universe.from_records(WORKS), config) as server:
        yield server


@pytest.fixture
def stack(
    tmp_path: Path, postgres: PrivatePostgres, simulator: SimulatorServer, redis: PrivateRedis
) -> Iterator[Stack]:
    database = postgres.create_database(f"heal_{uuid.uuid4().hex[:8]}")
    # Default settings: the visibility timeout (an hour) and the re-drive are not what heals here.
    env = stack_env(
        broker_url=redis.url, database_url=database, data_dir=tmp_path / "data", simulator_env=simulator.env()
    )
    s = Stack(env=env, workdir=tmp_path)
    try:
        yield s
    finally:
        s.stop()


def log_text(stack: Stack, name: str) -> str:
    path = stack.workdir / f"{name}.log"
    return path.read_text(errors="replace") if path.exists() else ""


def test_a_ten_second_postgres_outage_heals_by_itself(
    stack: Stack, postgres: PrivatePostgres, tmp_path: Path
) -> None:
    stack.start_worker("retrieval", ["retrieval"], concurrency=4)
    stack.start_worker("control", ["control", "parsing", "evidence", "writer"], concurrency=2)
    stack.wait_for_workers(["retrieval", "control"])
    bib = tmp_path / "refs.bib"
    bib.write_text(bibtex_for(WORKS, fabricated=2))
    entries = len(WORKS) + 2
    job_id = stack.cli("submit", str(bib)).stdout.strip()

    wait_for(lambda: count(stack, job_id, "done") >= 10, 120, "the first verdicts")
    assert count(stack, job_id, "done") < entries, "the job finished before the outage"
    postgres.stop()
    try:
        time.sleep(10)
    finally:
        postgres.start()

    done = stack.cli("wait", job_id, "--timeout", "240", timeout=270)
    assert json.loads(done.stdout)["status"] == "done"
    assert_complete_without_duplicates(stack, job_id, entries)
    logs = log_text(stack, "retrieval") + log_text(stack, "control")
    assert "database or broker was unreachable" in logs, "no task met the outage: it proves nothing"
    # The tasks waited in their slots for PostgreSQL and were retried once it answered (issue 33),
    # rather than each sleeping out a countdown that had grown to 8-16 s by the outage's end.
    assert "and answers again; retrying in" in logs
    assert '"outage_retries": 3' not in logs
    assert "raised unexpected: OperationalError" not in logs
    # Nothing was settled because of the outage: every reference has its own verdict.
    failed = sql(stack, "SELECT count(*) FROM items WHERE job_id=:j AND status='failed'", j=job_id)[0][0]
    assert failed == 0
    assert all(p.poll() is None for p in stack.workers.values())


def test_submit_with_the_broker_down_then_a_wait_nobody_answers(
    stack: Stack, redis: PrivateRedis, tmp_path: Path
) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(bibtex_for(WORKS[:5]))
    redis.kill()
    refused = stack.cli("submit", str(bib), check=False, timeout=120)
    assert refused.returncode == 3, refused.stderr
    assert refused.stdout == ""
    lines = refused.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"aletheia: the broker at {redis.url} does not answer")
    never = lines[0].split("; job ")[1].split()[0]
    assert sql(stack, "SELECT status, error FROM jobs WHERE id=:j", j=never)[0][0] == "failed"

    redis.start()  # the same port: the broker is back, but no worker runs yet
    job_id = stack.cli("submit", str(bib)).stdout.strip()
    waited = stack.cli("wait", job_id, "--timeout", "8", "--notice-after", "2", check=False, timeout=60)
    assert waited.returncode == 124, waited.stderr
    assert f"job {job_id} has not moved for" in waited.stderr
    assert f"no worker has picked it up; no worker answers on the broker at {redis.url}" in waited.stderr
    assert "1 message(s) waiting" in waited.stderr

    stack.start_worker("all", ALL_QUEUES, concurrency=4)
    stack.wait_for_workers(["all"])
    redriven = json.loads(stack.cli("redrive", "--older-than", "0").stdout)
    assert never not in redriven["jobs"]  # failed, never enqueued: never run later
    done = stack.cli("wait", job_id, "--timeout", "120", timeout=150)
    assert json.loads(done.stdout)["status"] == "done"
    assert sql(stack, "SELECT status FROM jobs WHERE id=:j", j=never)[0][0] == "failed"
    assert sql(stack, "SELECT count(*) FROM items WHERE job_id=:j", j=never)[0][0] == 0
    assert sql(stack, "SELECT count(*) FROM jobs WHERE status='done'")[0][0] == 1
