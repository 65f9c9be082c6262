"""Repositories the service writes into and audits: their registrations, the files written there
(by repository and path), and the lock that serialises one repository's writes across hosts.

Every write is an idempotent upsert, as in `stores.py`: a step that runs twice leaves the rows of
one run.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, select, text, update

from aletheia.storage.db import session_factory, upsert
from aletheia.storage.models import ArtifactRow, Repository, utcnow

_LOCAL_REPOSITORY_LOCKS: dict[str, threading.Lock] = {}
_LOCAL_LOCKS_GUARD = threading.Lock()


class RepositoryStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessions = session_factory(engine)

    @contextmanager
    def lock(self, repository: str) -> Iterator[None]:
        """Serialise writes for one repository path: across hosts on PostgreSQL (an advisory lock
        held for the transaction), within the process otherwise (SQLite is single-host anyway)."""
        if self.engine.dialect.name == "postgresql":
            with self.engine.begin() as conn:
                conn.execute(
                    text("SELECT pg_advisory_xact_lock(hashtext(:repo))"),
                    {"repo": f"aletheia-writer:{repository}"},
                )
                yield
            return
        with _LOCAL_LOCKS_GUARD:
            lock = _LOCAL_REPOSITORY_LOCKS.setdefault(repository, threading.Lock())
        with lock:
            yield

    def register(self, paths: Iterable[str]) -> None:
        """Register repositories for the weekly audit (one registered twice stays one row)."""
        rows = [{"path": p, "registered_at": utcnow()} for p in paths]
        with self.sessions.begin() as s:
            upsert(s, Repository.__table__, rows, conflict=["path"], update=[])

    def audited_paths(self) -> set[str]:
        """What the weekly audit covers: every registered repository and every repository holding a
        stored citation artifact."""
        with self.sessions() as s:
            paths = set(s.scalars(select(Repository.path)))
            paths |= set(s.scalars(select(ArtifactRow.repository).where(ArtifactRow.kind == "citation")))
        return paths

    def mark_audited(self, paths: Iterable[str], job_id: str) -> None:
        with self.sessions.begin() as s:
            s.execute(
                update(Repository).where(Repository.path.in_(list(paths))).values(last_audit_job=job_id)
            )

    def record_artifact(self, job_id: str, repository: str, path: str, kind: str, digest: str) -> None:
        """A written file, by (repository, path): the last write wins."""
        with self.sessions.begin() as s:
            upsert(
                s,
                ArtifactRow.__table__,
                [{"job_id": job_id, "repository": repository, "path": path, "kind": kind,
                  "content_hash": digest, "written_at": utcnow()}],
                conflict=["repository", "path"],
                update=["job_id", "kind", "content_hash", "written_at"],
            )  # fmt: skip
