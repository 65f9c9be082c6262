"""Issue 22 (an honest storage boundary): the SQL of the job steps, the in-process run and the replay
lives in the stores (`storage/`), and the raw cache and the works library never hold the sources'
event loop while the database answers."""

from __future__ import annotations

import asyncio
import re
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine

from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.sources.base import SourceRecord
from aletheia.storage.db import engine_for
from aletheia.storage.library import SqlLibrary
from aletheia.storage.models import ItemStatus, JobStatus
from aletheia.storage.repositories import RepositoryStore
from aletheia.storage.stores import JobStore, SqlRawCache

PIPELINE = Path(__file__).resolve().parents[2] / "pipeline" / "aletheia" / "pipeline"
# What a module that talks to the database itself shows: a query, a session, an engine's SQL.
SQL_SHAPES = re.compile(
    r"(?<![.\w])(select|update|insert|delete)\(|\.execute\(|\bsessions\b|from sqlalchemy import (?!Engine\n)"
)


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    return engine_for(f"sqlite:///{tmp_path / 'db.sqlite3'}")


@pytest.mark.parametrize(
    "module",
    [PIPELINE / "verify.py", PIPELINE / "audit" / "replay.py", *sorted((PIPELINE / "jobs").glob("*.py"))],
    ids=lambda p: p.name,
)  # fmt: skip
def test_no_sql_outside_the_stores(module: Path) -> None:
    text = module.read_text(encoding="utf-8")
    found = [m.group(0) for m in SQL_SHAPES.finditer(text)]
    assert not found, f"{module.name} talks to the database itself: {found}"


def test_the_cache_and_the_library_run_off_the_event_loop(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = SqlRawCache(engine, ttl=3600, negative_ttl=3600)
    library = SqlLibrary(engine)
    threads: dict[str, threading.Thread] = {}

    def spy(name: str, call: object) -> object:
        def spied(*args: object, **kwargs: object) -> object:
            threads[name] = threading.current_thread()
            return call(*args, **kwargs)  # type: ignore[operator]

        return spied

    for obj, name in (
        (cache, "get_sync"),
        (cache, "put_sync"),
        (library, "lookup_sync"),
        (library, "remember_sync"),
    ):
        monkeypatch.setattr(obj, name, spy(name, getattr(obj, name)))
    record = WorkRecord(source=SourceName.CROSSREF, doi="10.1/x", title="A paper")

    async def use() -> threading.Thread:
        await cache.put("crossref", "doi:10.1/x", {"a": 1}, found=True)
        assert (await cache.get("crossref", "doi:10.1/x")) is not None
        await library.remember([SourceRecord(record=record, raw=None, fetched_at=datetime.now(UTC))])
        assert await library.lookup(CitedReference(key="k", doi="10.1/x"))
        return threading.current_thread()

    loop_thread = asyncio.run(use())
    assert set(threads) == {"get_sync", "put_sync", "lookup_sync", "remember_sync"}
    assert all(thread is not loop_thread for thread in threads.values())


def test_job_steps_sql_in_the_job_store(engine: Engine) -> None:
    jobs = JobStore(engine)
    job_id = jobs.create_job("bibliography", {})
    assert jobs.transition(job_id, JobStatus.QUEUED, JobStatus.RUNNING)
    assert not jobs.transition(job_id, JobStatus.QUEUED, JobStatus.FAILED)  # compare-and-set: lost
    assert jobs.job(job_id).status == JobStatus.RUNNING  # type: ignore[union-attr]

    jobs.add_items(job_id, [(1, "a", "reference", {"key": "a"}), (2, "problem-2", "problem", {})])
    jobs.settle_problem_items(job_id)
    by_position = {item.position: item.id for item in jobs.items(job_id)}
    assert jobs.item(by_position[2]).status == ItemStatus.FAILED  # type: ignore[union-attr]

    jobs.mark_item(by_position[1], ItemStatus.RUNNING)
    jobs.requeue_item(by_position[1])  # a deferral gives its attempt back
    item = jobs.item(by_position[1])
    assert item is not None and item.status == ItemStatus.PENDING and item.attempts == 0

    claim = jobs.claim_item(by_position[1])
    assert claim == 1 and jobs.claim_item(by_position[2]) is None  # a settled item is not taken
    with jobs.sessions.begin() as session:
        assert jobs.settle(
            session,
            job_id,
            by_position[1],
            claim=claim,
            verdict={"status": "verified"},
            evidence={},
            counters=None,
        )
    newest = jobs.newest_verdicts(job_id)
    assert [it.position for it, _ in newest] == [1, 2]
    assert newest[0][1] is not None and newest[1][1] is None

    child = jobs.create_job("bibliography", {}, parent_id=job_id)
    assert [kid.id for kid in jobs.children(job_id)] == [child]


def test_repositories_in_their_store(engine: Engine, tmp_path: Path) -> None:
    repositories = RepositoryStore(engine)
    repositories.register([str(tmp_path / "a")])
    repositories.register([str(tmp_path / "a")])  # twice: one row
    job_id = JobStore(engine).create_job("audit", {})
    for _ in range(2):
        repositories.record_artifact(
            job_id, str(tmp_path / "b"), str(tmp_path / "b" / "x.md"), "citation", "0" * 64
        )
    assert repositories.audited_paths() == {str(tmp_path / "a"), str(tmp_path / "b")}
    repositories.mark_audited([str(tmp_path / "a")], job_id)
    with repositories.lock(str(tmp_path / "a")):
        pass
