"""Checks on a queued job, read from the stack's PostgreSQL: its rows, its files and its trail,
for the fault and recovery tests."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from tests.integration.queue_stack import Stack


def sql(stack: Stack, query: str, **params: Any) -> list[Any]:
    url = stack.env["ALETHEIA_DATABASE_URL"].replace("postgresql://", "postgresql+psycopg://")
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(query), params).all())
    finally:
        engine.dispose()


def wait_for(predicate: Any, timeout: float, what: str, step: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(step)


def count(stack: Stack, job_id: str, status: str | None = None) -> int:
    where = " AND status=:s" if status else ""
    return int(sql(stack, f"SELECT count(*) FROM items WHERE job_id=:j{where}", j=job_id, s=status)[0][0])  # noqa: S608


def job_status(stack: Stack, job_id: str) -> str:
    return str(sql(stack, "SELECT status FROM jobs WHERE id=:j", j=job_id)[0][0])


def assert_complete_without_duplicates(stack: Stack, job_id: str, entries: int) -> None:
    assert job_status(stack, job_id) == "done"
    items = sql(stack, "SELECT position, kind, status FROM items WHERE job_id=:j ORDER BY position", j=job_id)
    assert [p for p, _k, _s in items] == list(range(1, entries + 1)), "items lost or duplicated"
    assert all(s == "done" for _p, k, s in items if k == "reference")
    references = sum(1 for _p, k, _s in items if k == "reference")
    per_item = sql(stack, "SELECT item_id, count(*) FROM verdicts WHERE job_id=:j GROUP BY item_id", j=job_id)
    assert len(per_item) == references and {n for _i, n in per_item} == {1}, "verdicts lost or duplicated"
    artifacts = sql(stack, "SELECT path FROM artifacts WHERE job_id=:j ORDER BY path", j=job_id)
    assert [Path(p).name for (p,) in artifacts] == ["corrected.bib", "report.html", "report.json"]
    folder = Path(artifacts[0][0]).parent
    assert sorted(p.name for p in folder.iterdir()) == ["corrected.bib", "report.html", "report.json"]
    report = json.loads((folder / "report.json").read_text())
    assert len(report["references"]) == entries
    # The trail, as the service recorded it, is intact, and replays to the same verdicts.
    audit = stack.cli("audit-log", "verify", job_id, check=False)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    replay = stack.cli("replay", job_id, check=False)
    assert replay.returncode == 0, replay.stdout
