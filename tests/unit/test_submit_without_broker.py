"""A submission the broker refuses, and a wait nobody will end (issue 22: `aletheia submit` with
Redis down printed a 144-line traceback and left a hidden `queued` job that the next re-drive ran;
`aletheia wait` with no worker waited silently for ever)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from celery import Celery

from aletheia.config import Settings
from aletheia.pipeline import service
from aletheia.pipeline.jobs.enqueue import NEVER_ENQUEUED, BrokerUnavailable
from aletheia.pipeline.runtime import Runtime
from aletheia.producers.client import AletheiaClient, JobTimeout
from aletheia.storage.models import JobStatus
from aletheia.workers.dispatch import CeleryDispatcher
from aletheia.workers.pool_presence import PoolsSeen, stall_notice
from tests.integration.queue_stack import free_port

BIB = "@article{k1, title={A title nobody wrote}, author={Doe, Jane}, year={2020}, doi={10.1000/none.1}}\n"


class RefusingDispatcher:
    def __init__(self) -> None:
        self.sent: list[tuple[str, tuple[Any, ...]]] = []

    def send(self, task: str, *args: Any) -> None:
        raise BrokerUnavailable("redis://127.0.0.1:6379/0", "Error 111 connecting. Connection refused.")


class RecordingDispatcher:
    def __init__(self) -> None:
        self.sent: list[tuple[str, tuple[Any, ...]]] = []

    def send(self, task: str, *args: Any) -> None:
        self.sent.append((task, args))


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    settings = Settings(
        data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", offline=True
    )
    return Runtime.open(settings)


def test_a_refused_submission_is_failed_not_left_queued_for_the_redrive(runtime: Runtime) -> None:
    doc = service.InputDocument(name="refs.bib", data=BIB.encode())
    with pytest.raises(BrokerUnavailable) as refused:
        service.submit_bibliography(runtime, RefusingDispatcher(), [doc])
    job_id = refused.value.job_id
    assert job_id is not None
    job = runtime.jobs.job(job_id)
    assert job is not None and job.status == JobStatus.FAILED
    assert job.error is not None and job.error.startswith(f"{NEVER_ENQUEUED}: the broker at redis://")
    assert runtime.jobs.unfinished_jobs() == []
    # The re-drive (which the old code left it to) sends nothing for it.
    ctx = service.ServiceContext(
        runtime=runtime, dispatcher=RecordingDispatcher(), runner=service.LoopThread()
    )
    try:
        report = service.redrive(ctx, older_than=0)
    finally:
        ctx.close()
    assert job_id not in report.as_json()["jobs"]
    assert ctx.dispatcher.sent == []  # type: ignore[attr-defined]


def test_claims_and_sweeps_refused_by_the_broker_are_failed_too(runtime: Runtime, tmp_path: Path) -> None:
    with pytest.raises(BrokerUnavailable) as claim:
        service.submit_claim(runtime, RefusingDispatcher(), "Aspirin lowers the risk of colorectal cancer.")
    with pytest.raises(BrokerUnavailable) as sweep:
        service.submit_sweep(runtime, RefusingDispatcher(), [tmp_path], register=False)
    for refused in (claim.value, sweep.value):
        job = runtime.jobs.job(refused.job_id or "")
        assert job is not None and job.status == JobStatus.FAILED


def test_a_sweeps_child_refused_stays_queued_for_its_parents_retry(runtime: Runtime) -> None:
    parent = runtime.jobs.create_job("sweep", {"repositories": []})
    doc = service.InputDocument(name="refs.bib", data=BIB.encode())
    with pytest.raises(BrokerUnavailable):
        service.submit_bibliography(runtime, RefusingDispatcher(), [doc], parent_id=parent, job_id="c" * 32)
    child = runtime.jobs.job("c" * 32)
    assert child is not None and child.status == JobStatus.QUEUED


def test_the_celery_dispatcher_names_the_broker_without_its_password() -> None:
    port = free_port()  # nothing listens there
    app = Celery("refused", broker=f"redis://:s3cret@127.0.0.1:{port}/0", set_as_current=False)
    with pytest.raises(BrokerUnavailable) as refused:
        CeleryDispatcher(app).send("aletheia.control.start_bibliography_job", "0" * 32)
    message = str(refused.value)
    assert message.startswith(f"the broker at redis://:**@127.0.0.1:{port}/0 does not answer (")
    assert "s3cret" not in message and "\n" not in message


def test_aletheia_submit_with_the_broker_down_says_one_line_and_exits_3(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
    env |= {
        "ALETHEIA_BROKER_URL": f"redis://127.0.0.1:{port}/0",
        "ALETHEIA_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "ALETHEIA_DATA_DIR": str(tmp_path / "data"),
    }
    aletheia = [sys.executable, "-m", "aletheia.producers"]
    result = subprocess.run(
        [*aletheia, "submit", str(bib)], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 3, result.stderr
    assert result.stdout == ""  # no job id: nothing was queued
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"aletheia: the broker at redis://127.0.0.1:{port}/0 does not answer")
    assert "nothing was queued; job " in lines[0] and lines[0].endswith("is marked failed (never enqueued)")
    job_id = lines[0].split("; job ")[1].split()[0]
    status = subprocess.run(
        [*aletheia, "status", job_id], env=env, capture_output=True, text=True, timeout=120, check=True
    )
    assert '"status": "failed"' in status.stdout and "never enqueued" in status.stdout


def test_wait_tells_when_the_job_has_not_moved_and_honours_the_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    settings = Settings(
        data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", broker_url=None
    )
    client = AletheiaClient(settings)
    job_id = client.runtime.jobs.create_job("bibliography", {"documents": []})  # queued; nobody runs it
    stalls: list[float] = []
    with pytest.raises(JobTimeout):
        client.wait(
            job_id, timeout=1.2, poll=0.05, on_stall=lambda _s, idle: stalls.append(idle), stall_after=0.3
        )
    assert 2 <= len(stalls) <= 4 and all(idle >= 0.3 for idle in stalls)


def test_the_notice_names_what_is_missing() -> None:
    broker = "redis://127.0.0.1:6379/0"
    nobody = stall_notice("j1", 12.3, PoolsSeen(broker=broker, waiting={"control": 1}))
    assert nobody == (
        "job j1 has not moved for 12s: no worker has picked it up; no worker answers on the broker at "
        "redis://127.0.0.1:6379/0 (1 message(s) waiting). Start the pools (ops/start)"
    )
    some = PoolsSeen(
        broker=broker,
        consumers={q: ["w@h"] for q in ("retrieval", "parsing", "evidence", "control")},
        waiting={"writer": 2},
    )
    assert stall_notice("j1", 10, some) == (
        "job j1 has not moved for 10s: no worker consumes writer (2 waiting) on the broker at "
        "redis://127.0.0.1:6379/0"
    )
    everyone = PoolsSeen(broker=broker, consumers={q: ["w@h"] for q in some.consumers | {"writer": []}})
    assert stall_notice("j1", 10, everyone) is None  # just slow: say nothing
    down = stall_notice("j1", 10, PoolsSeen(broker=broker, unreachable="Connection refused"))
    assert down is not None and down.endswith(
        "the broker at redis://127.0.0.1:6379/0 does not answer (Connection refused)"
    )


def test_aletheia_wait_says_nobody_will_run_the_job_then_times_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from aletheia.config import reset_settings_cache
    from aletheia.producers.cli import main

    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    monkeypatch.delenv("ALETHEIA_BROKER_URL", raising=False)
    monkeypatch.setenv("ALETHEIA_DATABASE_URL", f"sqlite:///{tmp_path / 'db.sqlite3'}")
    monkeypatch.setenv("ALETHEIA_DATA_DIR", str(tmp_path / "data"))
    reset_settings_cache()
    try:
        job_id = AletheiaClient().runtime.jobs.create_job("bibliography", {"documents": []})
        result = CliRunner().invoke(main, ["wait", job_id, "--timeout", "1.5", "--notice-after", "0.5"])
    finally:
        reset_settings_cache()
    assert result.exit_code == 124
    notices = [line for line in result.stderr.splitlines() if "has not moved" in line]
    assert len(notices) == 1, result.stderr  # said once, not at every check
    assert "ALETHEIA_BROKER_URL is not set, no worker can run it; still waiting" in notices[0]
    assert f"job {job_id} is still queued" in result.stderr
