"""ops/start right after a pool was killed with SIGKILL restarts it (issue 22: the killed pool,
a zombie nobody reaped, passed ops/start's `kill -0` check: "retrieval is already running", then
"only 4 of 5 workers answered", exit 1).

The zombie needs a parent that does not reap, as in a container whose init does not: ops/start
and its pools run under a small supervisor that makes itself their subreaper
(PR_SET_CHILD_SUBREAPER) and never waits for them. Redis is a private one on a free port;
PostgreSQL is the machine's, with a database of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.queue_stack import PrivateRedis, Unavailable, fresh_database, unavailable

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.timeout(600),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_CHILD_SUBREAPER is Linux"),
]

OPS = Path(__file__).resolve().parents[2] / "ops"

SUPERVISOR = r"""
import ctypes, json, os, signal, subprocess, sys, time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("prctl(PR_SET_CHILD_SUBREAPER) refused")
ops, state = Path(sys.argv[1]), Path(sys.argv[2])

def run(name):
    done = subprocess.run([str(ops / name)], capture_output=True, text=True, timeout=400)
    return {"code": done.returncode, "stderr": done.stderr}

out = {}
try:
    out["first"] = run("start")
    pidfile = state / "run" / "retrieval.pid"
    old = int(pidfile.read_text())
    os.killpg(old, signal.SIGKILL)  # the pool and its threads, as `kill -9`
    time.sleep(1.0)
    stat = Path(f"/proc/{old}/stat")
    out["killed_state"] = stat.read_text().rsplit(") ", 1)[1][:1] if stat.exists() else "gone"
    out["second"] = run("start")
    out["restarted"] = int(pidfile.read_text()) != old
finally:
    out["stop"] = run("stop")
print(json.dumps(out))
"""


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    redis = PrivateRedis(tmp_path)
    try:
        redis.start()
        database = fresh_database(f"ops_start_{uuid.uuid4().hex[:8]}")
    except (OSError, Unavailable) as exc:
        redis.kill()
        unavailable(str(exc))
    base = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
    yield base | {
        "ALETHEIA_STATE_DIR": str(tmp_path / "state"),
        "ALETHEIA_BROKER_URL": redis.url,
        "ALETHEIA_DATABASE_URL": database,
        "ALETHEIA_DATA_DIR": str(tmp_path / "data"),
        "ALETHEIA_PYTHON": sys.executable,
        "ALETHEIA_RETRIEVAL_CONCURRENCY": "2",
        "ALETHEIA_PARSING_CONCURRENCY": "1",
        "ALETHEIA_EVIDENCE_CONCURRENCY": "1",
        "ALETHEIA_START_TIMEOUT": "90",
        "ALETHEIA_STOP_TIMEOUT": "20",
    }
    redis.kill()


def test_ops_start_restarts_a_pool_killed_with_sigkill(env: dict[str, str], tmp_path: Path) -> None:
    try:
        result = subprocess.run(
            [sys.executable, "-c", SUPERVISOR, str(OPS), env["ALETHEIA_STATE_DIR"]],
            env=env,
            capture_output=True,
            text=True,
            timeout=560,
            check=False,
        )
    finally:
        subprocess.run([str(OPS / "stop")], env=env, capture_output=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["first"]["code"] == 0, out["first"]["stderr"]
    assert out["killed_state"] == "Z", "the killed pool should be a zombie here, as in the issue"
    second = out["second"]
    assert second["code"] == 0, second["stderr"]
    assert "retrieval is already running" not in second["stderr"]
    assert "retrieval is not running (stale pid" in second["stderr"]
    assert "control is already running" in second["stderr"]  # the live pools are left alone
    assert "ready: 5 pools answering" in second["stderr"]
    assert out["restarted"]
    assert out["stop"]["code"] == 0, out["stop"]["stderr"]
