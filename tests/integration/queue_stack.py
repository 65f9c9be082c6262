"""A real queue stack for tests and the benchmark: Redis, PostgreSQL, the loopback simulator and
Celery worker processes started from this interpreter's environment.

Redis and PostgreSQL are the ones on the machine (127.0.0.1:6379, 127.0.0.1:5432 with trust
authentication), on a dedicated Redis database number and a dedicated PostgreSQL database that is
created afresh; nothing else on either server is touched. A private `redis-server` on a free port
can be started instead (`PrivateRedis`), for the test that restarts the broker.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NoReturn

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
REDIS_HOST, REDIS_PORT, REDIS_DB = "127.0.0.1", 6379, 14
PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
CELERY = [sys.executable, "-m", "celery", "-A", "aletheia.workers.app"]
ALETHEIA = [str(Path(sys.executable).parent / "aletheia")]


class Unavailable(RuntimeError):
    """Redis or PostgreSQL is not there: tests skip (or fail in CI)."""


def unavailable(reason: str) -> NoReturn:
    """Skip the test, or fail it in CI, where every service must be there."""
    import pytest

    if IN_CI:
        pytest.fail(reason)
    pytest.skip(reason)


def check_redis(host: str = REDIS_HOST, port: int = REDIS_PORT) -> None:
    import redis

    client = redis.Redis(host=host, port=port, socket_connect_timeout=0.5)
    try:
        client.ping()
    except redis.RedisError as exc:
        raise Unavailable(f"Redis at {host}:{port} is unreachable: {exc}") from exc
    finally:
        client.close()


def flush_redis_db(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    try:
        client.flushdb()
    finally:
        client.close()


def fresh_database(name: str) -> str:
    """Drop and create database `name`; returns its URL."""
    import psycopg

    try:
        conn = psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=2)
    except psycopg.Error as exc:
        raise Unavailable(f"PostgreSQL at 127.0.0.1:5432 is unreachable: {exc}") from exc
    with conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql://postgres@127.0.0.1:5432/{name}"


def queue_database(name: str) -> str:
    """The machine's Redis answers and a fresh PostgreSQL database `name` is there; the test skips
    (fails in CI) otherwise."""
    try:
        check_redis()
        return fresh_database(name)
    except Unavailable as exc:
        unavailable(f"the queue tests need Redis and PostgreSQL in CI: {exc}" if IN_CI else str(exc))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PrivateRedis:
    """A `redis-server` of our own (no persistence: a restart loses every queued message)."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while True:
            try:
                check_redis(port=self.port)
                return
            except Unavailable:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None


def _die_with_this_process() -> None:
    """In a worker's child before exec: SIGTERM when the test process dies. A run killed before its
    teardown (a timeout, a second ^C) would otherwise leave its workers consuming the same Redis
    database, and they would take the next run's messages with the old run's settings."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG (linux/prctl.h)


# prctl is Linux's: elsewhere a worker outlives a killed run, as before.
_DIE_WITH_THIS_PROCESS = _die_with_this_process if sys.platform == "linux" else None


@dataclass
class Stack:
    """The environment every process of the stack shares, and the worker processes it started."""

    env: dict[str, str]
    workdir: Path
    workers: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    logs: dict[str, IO[bytes]] = field(default_factory=dict)

    def start_worker(
        self,
        name: str,
        queues: Iterable[str],
        *,
        pool: str = "threads",
        concurrency: int = 4,
        extra: Iterable[str] = (),
        command: Iterable[str] = CELERY,
    ) -> subprocess.Popen[bytes]:
        """`command`: the Celery command line up to its subcommand (a wrapper that installs faults
        first: `tests/integration/faulty_worker.py`)."""
        node = f"{name}-{uuid.uuid4().hex[:6]}@localhost"
        log = (self.workdir / f"{name}.log").open("ab")
        process = subprocess.Popen(
            [*command, "worker", "-Q", ",".join(queues), "-P", pool, "-c", str(concurrency), "-n", node,
             "--without-gossip", "--without-mingle", "-l", "INFO", *extra],
            env=self.env | {"ALETHEIA_POOL": name}, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True, preexec_fn=_DIE_WITH_THIS_PROCESS,
        )  # fmt: skip
        process.node = node  # type: ignore[attr-defined]
        self.workers[name] = process
        self.logs[name] = log
        return process

    def start_beat(self) -> subprocess.Popen[bytes]:
        log = (self.workdir / "beat.log").open("ab")
        process = subprocess.Popen(
            [*CELERY, "beat", "-s", str(self.workdir / "beat-schedule"), "-l", "INFO"],
            env=self.env | {"ALETHEIA_POOL": "beat"}, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True, preexec_fn=_DIE_WITH_THIS_PROCESS,
        )  # fmt: skip
        self.workers["beat"] = process
        self.logs["beat"] = log
        return process

    def wait_for_workers(self, names: Iterable[str], timeout: float = 90.0) -> None:
        """Until every named worker answers a ping through the broker."""
        from celery import Celery

        wanted = {self.workers[n].node for n in names}  # type: ignore[attr-defined]
        probe = Celery("probe", broker=self.env["ALETHEIA_BROKER_URL"])
        try:
            deadline = time.monotonic() + timeout
            while True:
                for name in names:
                    code = self.workers[name].poll()
                    if code is not None:
                        raise RuntimeError(f"worker {name} exited with {code}: {self.log_tail(name)}")
                answered = {node for reply in probe.control.ping(timeout=0.5) or [] for node in reply}
                if wanted <= answered:
                    return
                if time.monotonic() > deadline:
                    raise TimeoutError(f"workers {sorted(wanted - answered)} did not answer in {timeout}s")
        finally:
            probe.close()

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        process = self.workers.pop(name)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        process.wait(timeout=30)
        self.logs.pop(name).close()

    def stop(self) -> None:
        for name in list(self.workers):
            process = self.workers[name]
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=20)
            except ProcessLookupError:
                pass
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
            self.workers.pop(name)
            self.logs.pop(name).close()

    def restart_exited(self, pools: dict[str, list[str]]) -> None:
        """Start again each named worker that has exited, as a supervisor (compose `restart:
        unless-stopped`) would; retrieval with 4 threads, the others with 2."""
        for name, queues in pools.items():
            if self.workers[name].poll() is not None:
                self.workers.pop(name)
                self.logs.pop(name).close()
                self.start_worker(name, queues, concurrency=4 if name == "retrieval" else 2)

    def log_tail(self, name: str, lines: int = 40) -> str:
        path = self.workdir / f"{name}.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

    def cli(self, *args: str, timeout: float = 180.0, check: bool = True) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [*ALETHEIA, *args], env=self.env, capture_output=True, text=True, timeout=timeout, check=False
        )
        if check and result.returncode != 0:
            raise AssertionError(
                f"aletheia {' '.join(args)} exited {result.returncode}:\n{result.stderr[-3000:]}"
            )
        return result


def stack_env(
    *, broker_url: str, database_url: str, data_dir: Path, simulator_env: dict[str, str], **settings: Any
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
    env |= simulator_env
    env |= {
        "ALETHEIA_BROKER_URL": broker_url,
        "ALETHEIA_REDIS_URL": broker_url,
        "ALETHEIA_DATABASE_URL": database_url,
        "ALETHEIA_DATA_DIR": str(data_dir),
        "ALETHEIA_MAILTO": "tests@example.org",
        "ALETHEIA_HTTP_TIMEOUT": "5",
        "PYTHONUNBUFFERED": "1",
    }
    env |= {f"ALETHEIA_{k.upper()}": str(v) for k, v in settings.items()}
    return env


def make_universe(count: int, *, seed: str = "q") -> list[dict[str, Any]]:
    """`count` works, each known to Crossref, OpenAlex and Semantic Scholar by its DOI."""
    topics = [
        "glacier retreat",
        "protein folding",
        "urban heat islands",
        "coral bleaching",
        "soil microbiomes",
    ]
    works = []
    for i in range(count):
        works.append(
            {
                "title": f"A longitudinal study of {topics[i % len(topics)]} number {seed}{i}",
                "authors": [{"given": "Ada", "family": f"Quill{i}"}, {"given": "Bo", "family": "Marsh"}],
                "year": 2000 + i % 20,
                "venue": "Journal of Simulated Results",
                "doi": f"10.5555/aletheia.{seed}{i}",
            }
        )
    return works


def bibtex_for(works: list[dict[str, Any]], *, fabricated: int = 0, with_doi: bool = True) -> str:
    """BibTeX citing the works correctly; `with_doi=False` leaves the DOIs out (found by search)."""
    entries = []
    for i, work in enumerate(works):
        authors = " and ".join(f"{a['family']}, {a['given']}" for a in work["authors"])
        doi = f",\n  doi = {{{work['doi']}}}" if with_doi else ""
        entries.append(
            f"@article{{ref{i},\n  title = {{{work['title']}}},\n  author = {{{authors}}},\n"
            f"  year = {{{work['year']}}},\n  journal = {{{work['venue']}}}{doi}\n}}\n"
        )
    for j in range(fabricated):
        entries.append(
            f"@article{{fake{j},\n  title = {{Quantum entanglement of breakfast cereals {j}}},\n"
            f"  author = {{Nobody, Ann}},\n  year = {{2019}},\n  journal = {{Annals of Nothing}},\n"
            f"  doi = {{10.5555/does-not-exist.{j}}}\n}}\n"
        )
    return "\n".join(entries)
