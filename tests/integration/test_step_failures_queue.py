"""One failure policy for the queue and in process, against a real Celery worker (issue 31): each
step of a bibliography job made to fail — once, then always — on a worker (Redis 127.0.0.1:6379,
PostgreSQL 127.0.0.1:5432) and in this process through the inline dispatcher (SQLite), the same
faults (`tests/step_faults.py`) and the same references against the same simulator: the job, its
items, their verdicts and the audit trail's decisions end the same.

The unit test (`tests/unit/test_step_failures.py`) covers every step of the registry, the
Celery tasks run eagerly; this one runs the tasks as the service does, in a worker process.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aletheia.config import Settings
from aletheia.pipeline import service
from aletheia.pipeline.audit.events import SOURCE_CONSULTED, audit_log_for
from aletheia.pipeline.jobs.kinds import RENDER_REPORT, START_BIBLIOGRAPHY, VERIFY_ITEM
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.service import InlineDispatcher, InputDocument, ServiceContext
from aletheia.sources.simulator import SimulatorConfig
from aletheia.sources.simulator.server import SimulatorServer
from aletheia.sources.simulator.universe import Universe
from tests.integration.job_checks import sql
from tests.integration.queue_stack import (
    Stack,
    bibtex_for,
    flush_redis_db,
    make_universe,
    queue_database,
    stack_env,
)
from tests.step_faults import FAULT_ENV, MODES, fast_backoff, install

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(600)]

WORKS = make_universe(3, seed="f")
BIBTEX = bibtex_for(WORKS, fabricated=1)
FAULTY_CELERY = [sys.executable, "-m", "tests.integration.faulty_worker", "-A", "aletheia.workers.app"]
REPO_ROOT = Path(__file__).resolve().parents[2]
# A Redis database of its own on the machine's server: the other queue tests use 14, and a worker
# of theirs (another checkout's run on the same machine) would take this test's messages.
REDIS_DB = 12


@pytest.fixture(scope="module")
def simulator() -> Iterator[SimulatorServer]:
    with SimulatorServer(Universe.from_records(WORKS), SimulatorConfig.unlimited()) as server:
        yield server


def decisions(entries: list[Any]) -> Counter[str]:
    """The trail's events but the sources consulted (how many lookups a batch or a coalescing
    window makes differs between one process and a worker; what was decided does not)."""
    return Counter(entry.event for entry in entries if entry.event != SOURCE_CONSULTED)


def queued(tmp_path: Path, simulator: SimulatorServer, step: str, mode: str) -> dict[str, Any]:
    """The job on the queue: a worker for every pool with the fault installed, submitted by the
    CLI; its state once it has settled (or, when the policy raises, once the worker gave up)."""
    database = queue_database(f"step_faults_{uuid.uuid4().hex[:8]}")
    broker = f"redis://127.0.0.1:6379/{REDIS_DB}"
    flush_redis_db(broker)
    env = stack_env(
        broker_url=broker, database_url=database, data_dir=tmp_path / "queue", simulator_env=simulator.env()
    )
    stack = Stack(env=env | {FAULT_ENV: f"{step}={mode}", "PYTHONPATH": _pythonpath()}, workdir=tmp_path)
    try:
        stack.start_worker(
            "all",
            ["control", "parsing", "retrieval", "evidence", "writer"],
            concurrency=4,
            command=FAULTY_CELERY,
        )
        stack.wait_for_workers(["all"])
        bib = tmp_path / "refs.bib"
        bib.write_text(BIBTEX)
        job_id = stack.cli("submit", str(bib)).stdout.strip()
        gives_up = mode == "permanent" and step == RENDER_REPORT  # the policy raises in the end
        deadline = time.monotonic() + 120
        while True:
            (status,) = sql(stack, "SELECT status FROM jobs WHERE id=:j", j=job_id)[0]
            if (status in ("done", "failed") and not gives_up) or (
                gives_up and "retries exhausted" in stack.log_tail("all", 400)
            ):
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"job {job_id} still {status}: {stack.log_tail('all')}")
            time.sleep(0.2)
        time.sleep(1.0)  # nothing more may happen: the state is read after a pause
        settings = Settings(database_url=database, data_dir=tmp_path / "queue")
        return _state(Runtime.open(settings), job_id)
    finally:
        stack.stop()
        flush_redis_db(broker)


def inline(tmp_path: Path, simulator: SimulatorServer, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The same job in this process: the inline dispatcher on SQLite, the stack's settings."""
    env = stack_env(
        broker_url="", database_url="", data_dir=tmp_path / "inline", simulator_env=simulator.env()
    )
    for name, value in env.items():
        if name.startswith("ALETHEIA_") and name not in ("ALETHEIA_BROKER_URL", "ALETHEIA_REDIS_URL"):
            monkeypatch.setenv(name, value)
    monkeypatch.delenv("ALETHEIA_BROKER_URL", raising=False)
    monkeypatch.delenv("ALETHEIA_REDIS_URL", raising=False)
    monkeypatch.setenv("ALETHEIA_DATABASE_URL", f"sqlite:///{tmp_path / 'inline.sqlite3'}")
    runtime = Runtime.open(Settings())
    dispatcher = InlineDispatcher(concurrency=4)
    ctx = ServiceContext(
        runtime=runtime, dispatcher=dispatcher, runner=service.LoopThread(), defer_tokens=False
    )
    try:
        job_id = service.submit_bibliography(
            runtime, dispatcher, [InputDocument(name="refs.bib", data=BIBTEX.encode())]
        )
        # The writer's retries exhausted: raised, the job left for the re-drive.
        with contextlib.suppress(OSError):
            dispatcher.drain(ctx)
    finally:
        ctx.close()
    return _state(runtime, job_id)


def _state(runtime: Runtime, job_id: str) -> dict[str, Any]:
    job = runtime.jobs.job(job_id)
    assert job is not None
    items = [
        (item.position, item.key, item.status, item.attempts, item.error, row and row.verdict["status"])
        for item, row in runtime.jobs.verdicts(job_id)
    ]
    return {
        "job": (job.status, job.error),
        "items": items,
        "decisions": decisions(audit_log_for(runtime).entries(job_id)),
    }


def _pythonpath() -> str:
    return os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("step", [START_BIBLIOGRAPHY, VERIFY_ITEM, RENDER_REPORT])
def test_a_failing_step_ends_the_same_on_a_worker_and_in_process(
    tmp_path: Path, simulator: SimulatorServer, monkeypatch: pytest.MonkeyPatch, step: str, mode: str
) -> None:
    on_queue = queued(tmp_path, simulator, step, mode)
    with monkeypatch.context() as patch:
        install(step, mode, setter=patch.setattr)
        fast_backoff(setter=patch.setattr)
        in_process = inline(tmp_path, simulator, patch)
    assert on_queue == in_process
    status = on_queue["job"][0]
    verdicts = [item[5] for item in on_queue["items"]]
    if mode == "transient":
        assert status == "done" and verdicts.count("verified") == len(WORKS)
    elif step == START_BIBLIOGRAPHY:
        assert status == "failed" and verdicts == []
    elif step == VERIFY_ITEM:
        assert status == "done" and verdicts == ["unverifiable"] * (len(WORKS) + 1)
    else:
        assert status == "running" and len(verdicts) == len(WORKS) + 1
