"""Two hosts on one Redis and one PostgreSQL (issue 33): two `ops/start`s on this machine, each with
its own pool set, state folder and host name, both with a beat, as an operator would start them on
two machines (docs/operations.md).

- host A: retrieval, parsing, evidence, writer, control, beat;
- host B: retrieval, writer, control, beat.

The weekly audit is scheduled every minute here, over one registered repository, so both beats
find it due again and again: every minute has at most one audit, the waiting beat says that
another holds the lock, and the hand-over when A dies neither repeats nor skips one. A
500-reference job runs across both hosts; every process of host A is killed with SIGKILL after
the first 100 verdicts, and host B alone finishes the job within 3 minutes of the kill with every
verdict once. Leases, the re-drive interval and the visibility timeout are the defaults.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from aletheia.sources.simulator import SimulatorConfig
from aletheia.sources.simulator.server import SimulatorServer
from aletheia.sources.simulator.universe import Universe
from tests.integration.job_checks import assert_complete_without_duplicates, count, sql, wait_for
from tests.integration.private_postgres import PrivatePostgres
from tests.integration.queue_stack import PrivateRedis, Stack, bibtex_for, make_universe, stack_env

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.timeout(1200),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ops/start reads /proc"),
]

OPS = Path(__file__).resolve().parents[2] / "ops"
WORKS = make_universe(500, seed="h")
THREE_MINUTES = 180
HOST_POOLS = {
    "host-a": "retrieval,parsing,evidence,writer,control,beat",
    "host-b": "retrieval,writer,control,beat",
}


@pytest.fixture(scope="module")
def simulator() -> Iterator[SimulatorServer]:
    config = SimulatorConfig.unlimited().merged(
        {"sources": {s: {"latency_ms": 30} for s in ("crossref", "openalex", "semantic_scholar")}}
    )
    with SimulatorServer(Universe.from_records(WORKS), config) as server:
        yield server


class Host:
    def __init__(self, name: str, env: dict[str, str]) -> None:
        self.name = name
        self.env = env
        self.state = Path(env["ALETHEIA_STATE_DIR"])

    def start(self) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(OPS / "start"), "--pools", HOST_POOLS[self.name]],
            env=self.env, capture_output=True, text=True, timeout=400, check=False,
        )  # fmt: skip

    def stop(self) -> None:
        subprocess.run([str(OPS / "stop")], env=self.env, capture_output=True, timeout=180, check=False)

    def kill_everything(self) -> list[int]:
        """SIGKILL to every process group this host's ops/start started: the host is gone."""
        killed = []
        for pidfile in sorted((self.state / "run").glob("*.pid")):
            pid = int(pidfile.read_text())
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
                killed.append(pid)
        return killed

    def log(self, pool: str) -> str:
        path = self.state / "log" / f"{pool}.log"
        return path.read_text(errors="replace") if path.exists() else ""


@pytest.fixture
def hosts(
    tmp_path: Path, postgres: PrivatePostgres, simulator: SimulatorServer, redis: PrivateRedis
) -> Iterator[dict[str, Host]]:
    database = postgres.create_database(f"two_hosts_{uuid.uuid4().hex[:8]}")
    shared = stack_env(
        broker_url=redis.url, database_url=database, data_dir=tmp_path / "data", simulator_env=simulator.env()
    )  # the defaults: lease 120 s, re-drive every 30 s, visibility timeout 3,600 s, beat lock 30 s
    shared |= {
        "ALETHEIA_PYTHON": sys.executable,
        "ALETHEIA_AUDIT_SCHEDULE": "* * * * *",  # both beats find the audit due every minute
        "ALETHEIA_RETRIEVAL_CONCURRENCY": "4",
        "ALETHEIA_PARSING_CONCURRENCY": "1",
        "ALETHEIA_EVIDENCE_CONCURRENCY": "1",
        "ALETHEIA_START_TIMEOUT": "240",
        "ALETHEIA_STOP_TIMEOUT": "20",
    }
    made = {
        name: Host(name, shared | {"ALETHEIA_STATE_DIR": str(tmp_path / name), "ALETHEIA_HOSTNAME": name})
        for name in HOST_POOLS
    }
    try:
        yield made
    finally:
        for host in made.values():
            host.stop()


def register_repository(env: dict[str, str], root: Path) -> None:
    from aletheia.storage.db import make_engine
    from aletheia.storage.repositories import RepositoryStore

    root.mkdir()
    (root / "refs.bib").write_text(bibtex_for(WORKS[:2]))
    engine = make_engine(env["ALETHEIA_DATABASE_URL"])
    try:
        RepositoryStore(engine).register([str(root)])
    finally:
        engine.dispose()


def audit_jobs(stack: Stack) -> list[datetime]:
    rows = sql(stack, "SELECT created_at FROM jobs WHERE kind='audit' ORDER BY created_at")
    return [row[0] for row in rows]


SENT_AUDIT = "Sending due task weekly-audit"
# The minute a log line was written: a JSON line's "ts", or Celery's own "[2026-11-28 21:59:00,123".
MINUTE = re.compile(r'"ts": ?"(\d{4}-\d\d-\d\dT\d\d:\d\d)|^\[(\d{4}-\d\d-\d\d \d\d:\d\d)')


def audit_sends(*logs: str) -> list[str]:
    """The minute of every weekly-audit send in the beats' logs."""
    minutes = []
    for log in logs:
        for line in log.splitlines():
            if SENT_AUDIT in line:
                found = MINUTE.search(line)
                assert found, f"no time on the beat's line: {line}"
                minutes.append((found.group(1) or found.group(2)).replace(" ", "T"))
    return minutes


def test_two_hosts_one_beat_and_a_dead_host(hosts: dict[str, Host], tmp_path: Path) -> None:
    a, b = hosts["host-a"], hosts["host-b"]
    started = a.start()
    assert started.returncode == 0, started.stderr[-3000:]
    assert "ready: 5 pools answering" in started.stderr and "beat@host-a" in started.stderr
    started = b.start()
    assert started.returncode == 0, started.stderr[-3000:]
    assert "ready: 3 pools answering" in started.stderr and "beat@host-b" in started.stderr
    assert not (b.state / "run" / "parsing.pid").exists(), "host B starts only its own pools"
    both_up = datetime.now().astimezone()
    stack = Stack(env=b.env, workdir=tmp_path)  # the producer and the checks, from host B's settings
    register_repository(b.env, tmp_path / "repository")

    # One beat sends, the other says so and waits.
    wait_for(lambda: "another beat holds the lock" in a.log("beat") + b.log("beat"), 60, "a waiting beat")
    # Both beats find the audit due at the next minute: one audit job, not two.
    wait_for(lambda: any(at > both_up for at in audit_jobs(stack)), 150, "an audit, both beats up", step=1)

    bib = tmp_path / "refs.bib"
    bib.write_text(bibtex_for(WORKS))
    job_id = stack.cli("submit", str(bib)).stdout.strip()
    wait_for(lambda: count(stack, job_id, "done") >= 100, 300, "the first 100 verdicts", step=0.5)
    assert count(stack, job_id, "done") < len(WORKS), "the job finished before the kill"

    killed_at = time.monotonic()
    assert len(a.kill_everything()) == 6  # five pools and its beat
    left = THREE_MINUTES - (time.monotonic() - killed_at)
    done = stack.cli("wait", job_id, "--timeout", str(int(left)), timeout=left + 30, check=False)
    finished_after = time.monotonic() - killed_at
    assert done.returncode == 0, (
        f"host B did not finish the job within 3 minutes of host A's death: {done.stdout[-1500:]}\n"
        f"{b.log('control')[-3000:]}"
    )
    assert json.loads(done.stdout)["status"] == "done"
    assert_complete_without_duplicates(stack, job_id, len(WORKS))
    print(f"host B finished the job {finished_after:.0f} s after host A was killed")

    # Let at least one more audit fall due after the hand-over, then count them.
    after_kill = datetime.now().astimezone()
    wait_for(lambda: any(at > after_kill for at in audit_jobs(stack)), 150, "an audit after it", step=1)
    audits = audit_jobs(stack)
    minutes = [at.replace(second=0, microsecond=0) for at in audits]
    assert len(minutes) == len(set(minutes)), f"two audits in one minute: {audits}"
    sends = audit_sends(a.log("beat"), b.log("beat"))
    assert len(sends) == len(set(sends)), f"both beats sent the audit in one minute: {sends}"
    assert len(sends) >= len(audits) >= 2
    assert "holds the lock and sends the schedule" in b.log("beat"), "host B's beat took over"
