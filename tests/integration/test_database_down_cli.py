"""Issue 30: while PostgreSQL is down, `aletheia status`, `report` and `audit-log verify` say so
in one line and exit 5 (not ~140 lines of traceback and 1, "job failed"), and `aletheia wait`
says it once and keeps waiting through the restart, then ends as the job does.

A PostgreSQL of its own (free port), stopped and started by the test; no broker: the job is
submitted in process, then set running again, as a job still in the pools would be."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.integration.private_postgres import PrivatePostgres

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(300)]


def _env(tmp_path: Path, url: str) -> dict[str, str]:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "ALETHEIA_OFFLINE": "true"}
    env["ALETHEIA_DATABASE_URL"] = url
    env.pop("ALETHEIA_BROKER_URL", None)
    return env


def _aletheia(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aletheia.producers", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=REPO_ROOT,
    )


def _set_status(url: str, job_id: str, status: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE jobs SET status = %s WHERE id = %s", (status, job_id))


@pytest.fixture
def running_job(tmp_path: Path, postgres: PrivatePostgres) -> Iterator[tuple[dict[str, str], str, str]]:
    url = postgres.create_database(f"down_{uuid.uuid4().hex[:8]}")
    env = _env(tmp_path, url)
    submitted = _aletheia(env, "submit", str(REPO_ROOT / "examples" / "sample.bib"))
    assert submitted.returncode == 0, submitted.stderr
    job_id = submitted.stdout.strip()
    _set_status(url, job_id, "running")
    try:
        yield env, url, job_id
    finally:
        if not postgres.running:
            postgres.start()


def test_commands_say_the_database_is_down_in_one_line(
    running_job: tuple[dict[str, str], str, str], postgres: PrivatePostgres
) -> None:
    env, _url, job_id = running_job
    postgres.stop()
    for command in (("status", job_id), ("report", job_id), ("audit-log", "verify", job_id)):
        proc = _aletheia(env, *command)
        assert proc.returncode == 5, (command, proc.returncode, proc.stderr[-2000:])
        assert "Traceback" not in proc.stderr
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and "does not answer" in lines[0], (command, proc.stderr)
        assert f"127.0.0.1:{postgres.port}" in lines[0]


def test_wait_keeps_waiting_through_a_database_restart(
    running_job: tuple[dict[str, str], str, str], postgres: PrivatePostgres
) -> None:
    env, url, job_id = running_job
    postgres.stop()
    with subprocess.Popen(
        [sys.executable, "-m", "aletheia.producers", "wait", job_id, "--quiet", "--notice-after", "600"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
    ) as proc:
        assert proc.stderr is not None
        notice = proc.stderr.readline()  # said once, as soon as a poll fails
        assert "does not answer" in notice and "still waiting" in notice, notice
        time.sleep(2)
        assert proc.poll() is None  # still waiting, not failed
        postgres.start()
        _set_status(url, job_id, "done")
        _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, (proc.returncode, err)
    assert "Traceback" not in err


def test_submit_with_the_database_down_exits_5_not_the_brokers_3(tmp_path: Path) -> None:
    """README "Exit codes": 5 is the database, 3 (for `submit`) the broker; `submit` said 3 for both."""
    from tests.integration.queue_stack import free_port

    env = _env(tmp_path, f"postgresql+psycopg://aletheia:s3cret@127.0.0.1:{free_port()}/aletheia")
    proc = _aletheia(env, "submit", str(REPO_ROOT / "examples" / "sample.bib"))
    assert proc.returncode == 5, (proc.returncode, proc.stderr[-2000:])
    assert proc.stdout == ""  # no job id: nothing was queued
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "does not answer" in lines[0] and "nothing was queued" in lines[0], lines
    assert "s3cret" not in lines[0]
