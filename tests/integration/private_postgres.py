"""A PostgreSQL cluster of our own, in a temporary directory on a free port, that a test may stop
and start at will without touching the machine's cluster (other test runs may be using it).

Needs the PostgreSQL server binaries (`initdb`, `pg_ctl`); as root they run as the `postgres` user.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.integration.queue_stack import Unavailable, free_port


def _bindir() -> Path | None:
    # Debian keeps the real binaries per version; what is on PATH may be a wrapper script.
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    if candidates:
        return candidates[-1].parent
    found = shutil.which("pg_ctl")
    return Path(found).parent if found else None


class PrivatePostgres:
    def __init__(self) -> None:
        bindir = _bindir()
        if bindir is None:
            raise Unavailable("no PostgreSQL server binaries (pg_ctl, initdb)")
        self.bindir = bindir
        # A directory of its own under the system temp dir: pytest's are private to the test user,
        # and the server runs as `postgres` when the tests run as root.
        self.root = Path(tempfile.mkdtemp(prefix="aletheia-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.running = False

    def _run(self, *args: str) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if os.geteuid() == 0:  # initdb and postgres refuse to run as root
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        )
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w", "start")
        self.running = True

    def stop(self) -> None:
        if self.running:
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
            self.running = False

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(
            f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True
        ) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"
