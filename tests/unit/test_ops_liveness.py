"""ops/liveness.sh: a pid file's process counts as running only when it is alive, not a zombie, and
one that ops/start started for that pool (issue 22: after a SIGKILL the zombie passed `kill -0`, so
ops/start said "already running" and never restarted the pool)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

LIVENESS = Path(__file__).resolve().parents[2] / "ops" / "liveness.sh"

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def pid_alive(pidfile: Path, name: str) -> bool:
    result = subprocess.run(
        ["bash", "-c", f'. "{LIVENESS}"; pid_alive "$1" "$2"', "liveness", str(pidfile), name],
        capture_output=True,
        check=False,
        timeout=10,
    )
    return result.returncode == 0


def kill_zero(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def pool(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """A stand-in for a pool as ops/start starts it: its own session, ALETHEIA_POOL in its env."""
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        env={**os.environ, "ALETHEIA_POOL": "retrieval"},
        start_new_session=True,
    )
    pidfile = tmp_path / "retrieval.pid"
    pidfile.write_text(f"{process.pid}\n")
    yield process, pidfile
    if process.poll() is None:
        process.kill()
    process.wait(timeout=10)


def test_a_running_pool_is_alive(pool: tuple[subprocess.Popen[bytes], Path]) -> None:
    _process, pidfile = pool
    assert pid_alive(pidfile, "retrieval")


def test_a_pool_killed_and_not_reaped_is_dead_though_kill_0_succeeds(
    pool: tuple[subprocess.Popen[bytes], Path],
) -> None:
    process, pidfile = pool
    os.kill(process.pid, signal.SIGKILL)
    # Not reaped (no wait()): a zombie, as under an init that does not reap orphans.
    deadline = time.monotonic() + 10
    while "Z" not in Path(f"/proc/{process.pid}/stat").read_text().rsplit(") ", 1)[1][:1]:
        assert time.monotonic() < deadline, "the child did not become a zombie"
        time.sleep(0.02)
    assert kill_zero(process.pid), "a zombie passes kill -0: the old check said 'already running'"
    assert not pid_alive(pidfile, "retrieval")


def test_a_pid_that_belongs_to_another_program_or_pool_is_not_ours(
    pool: tuple[subprocess.Popen[bytes], Path], tmp_path: Path
) -> None:
    _process, pidfile = pool
    assert not pid_alive(pidfile, "writer")  # the pid of another pool
    other = tmp_path / "beat.pid"
    other.write_text(f"{os.getpid()}\n")  # this test process: alive, but no ALETHEIA_POOL=beat
    assert not pid_alive(other, "beat")


@pytest.mark.parametrize("content", [None, "", "not-a-pid\n", "999999999\n"])
def test_a_missing_empty_or_stale_pid_file_is_not_alive(tmp_path: Path, content: str | None) -> None:
    pidfile = tmp_path / "control.pid"
    if content is not None:
        pidfile.write_text(content)
    assert not pid_alive(pidfile, "control")
