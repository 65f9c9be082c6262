"""The writer's files: written atomically (the mode `open` would give, `atomic_files.py`), recorded
by (repository, path) with an `artifact_written` event in the job's trail, one repository's writes
serialised by its lock (across hosts on PostgreSQL).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aletheia.pipeline.atomic_files import write_atomically
from aletheia.pipeline.audit.events import audit_log_for, record_artifact_written
from aletheia.pipeline.runtime import Runtime


@contextmanager
def repository_lock(runtime: Runtime, repository: str) -> Iterator[None]:
    """Serialise writes for one repository path (the store's lock: advisory on PostgreSQL)."""
    with runtime.repositories.lock(repository):
        yield


def write_artifact(
    runtime: Runtime, job_id: str, repository: str, path: Path, content: str, kind: str
) -> str:
    """Write `content` atomically (unchanged content is not rewritten) and record it by path."""
    data = content.encode("utf-8")
    digest = hashlib.sha256(data).hexdigest()
    path.parent.mkdir(parents=True, exist_ok=True)
    if not (path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == digest):
        write_atomically(path, data)
    record_artifact(runtime, job_id, repository, path, kind, digest)
    return digest


def record_artifact(
    runtime: Runtime, job_id: str, repository: str, path: Path, kind: str, digest: str
) -> None:
    """Record a written file by path (idempotent) and append `artifact_written` to the job's trail."""
    runtime.repositories.record_artifact(job_id, repository, str(path), kind, digest)
    record_artifact_written(
        audit_log_for(runtime),
        job_id,
        repository=repository,
        path=str(path),
        kind=kind,
        content_sha256=digest,
    )
