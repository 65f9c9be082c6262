"""`aletheia admin clear-database` on SQLite (embedded default) and on a real PostgreSQL: a job the
embedded pipeline ran against the simulator is deleted; the library, the retraction data and the
audit trail stay; a running job or a missing confirmation leaves everything as it was."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import Engine, func, select

from aletheia.config.settings import reset_settings_cache
from aletheia.producers.cli import main
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer
from aletheia.storage.admin import ADMIN_SCOPE, DATABASE_CLEARED
from aletheia.storage.audit_log import AuditLog
from aletheia.storage.db import dispose_engines, engine_for, session_factory
from aletheia.storage.library import SqlLibrary
from aletheia.storage.lists import PredatoryStore, RetractionStore
from aletheia.storage.models import ArtifactRow, Item, Job, JobStatus, VerdictRow
from aletheia.storage.stores import JobStore
from tests.integration.queue_stack import IN_CI, Unavailable, fresh_database
from tests.integration.sim_pipeline import make_works, references, run_embedded, sim_settings, universe

WORKS = make_works(6)


def _database_url(kind: str, tmp_path: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'aletheia.sqlite3'}"
    try:
        return fresh_database("aletheia_test_admin")
    except Unavailable as exc:
        if IN_CI:
            raise
        pytest.skip(str(exc))


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    """A database holding one finished job (6 real works, 2 invented), retraction rows and a
    report folder, with the CLI's settings pointed at it."""
    url = _database_url(request.param, tmp_path)
    dispose_engines()  # the PostgreSQL database was dropped and created again: migrate it
    with SimulatorServer(universe(WORKS), SimulatorConfig.unlimited(seed=5)) as sim:
        run = run_embedded(sim_settings(tmp_path, sim, database_url=url), references(WORKS, 2))
    assert run.summary.job_id is not None
    eng = engine_for(url)
    RetractionStore(eng).replace(
        [{"doi": "10.1234/retracted", "pmid": None, "nature": "Retraction", "notice_doi": None, "date": None}]
    )
    (tmp_path / "data" / "reports" / run.summary.job_id).mkdir(parents=True)
    (tmp_path / "data" / "reports" / run.summary.job_id / "report.json").write_text("{}")
    monkeypatch.setenv("ALETHEIA_DATABASE_URL", url)
    monkeypatch.setenv("ALETHEIA_DATA_DIR", str(tmp_path / "data"))
    reset_settings_cache()
    yield eng
    reset_settings_cache()
    eng.dispose()
    dispose_engines()


def cli(*args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def rows(engine: Engine) -> dict[str, int]:
    with session_factory(engine)() as s:
        return {
            t.__tablename__: int(s.scalar(select(func.count()).select_from(t)) or 0)
            for t in (Job, Item, VerdictRow, ArtifactRow)
        }


def test_typing_delete_clears_the_work_and_keeps_what_was_learned(engine: Engine, tmp_path: Path) -> None:
    before = rows(engine)
    assert before["jobs"] == 1 and before["items"] == 8 and before["verdicts"] == 8
    library = SqlLibrary(engine).count()
    assert library > 0
    listed = tmp_path / "listed.csv"
    listed.write_text(
        "issn,title,source,date\n1234-5679,Journal of Invented Results,fixture,2024\n9999-9999,,x,\n"
    )
    loaded = cli("library", "predatory", str(listed))
    assert loaded.exit_code == 0 and "1 predatory or delisted venues loaded" in loaded.output
    assert "invalid ISSN 9999-9999" in loaded.output
    job_id = JobStore(engine).unfinished_jobs() or None
    assert job_id is None

    result = cli("admin", "clear-database", input="DELETE\n")
    assert result.exit_code == 0, result.output
    assert "cleared: 1 jobs, 8 items, 8 verdicts" in result.output
    assert rows(engine) == {"jobs": 0, "items": 0, "verdicts": 0, "artifacts": 0}
    assert SqlLibrary(engine).count() == library
    assert RetractionStore(engine).count() == 1
    assert PredatoryStore(engine).count() == 1
    assert not any((tmp_path / "data" / "reports").iterdir())

    log = AuditLog(engine)
    events = log.entries(ADMIN_SCOPE)
    assert [e.event for e in events] == [DATABASE_CLEARED]
    assert events[0].body["deleted"] == {"jobs": 1, "items": 8, "verdicts": 8, "artifacts": 0}
    assert events[0].body["confirmed"] == "typed"
    # The deleted job's trail is kept and still verifies, and so does the admin scope.
    verified = cli("audit-log", "verify")
    assert verified.exit_code == 0, verified.output
    assert "2 job(s) checked, 0 tampered" in verified.output


def test_anything_but_delete_changes_nothing(engine: Engine) -> None:
    before = rows(engine)
    for answer in ("delete\n", "yes\n", ""):
        result = cli("admin", "clear-database", input=answer)
        assert result.exit_code == 2, result.output
        assert "nothing deleted" in result.output
    assert rows(engine) == before
    assert AuditLog(engine).entries(ADMIN_SCOPE) == []


def test_a_running_job_refuses_even_with_yes(engine: Engine) -> None:
    store = JobStore(engine)
    running = store.create_job("bibliography", {"inputs": ["x.bib"]})
    store.set_job_status(running, JobStatus.RUNNING)
    before = rows(engine)
    result = cli("admin", "clear-database", "--yes")
    assert result.exit_code == 1
    assert running in result.output and "queued or running" in result.output
    assert rows(engine) == before
    store.set_job_status(running, JobStatus.DONE)
    result = cli("admin", "clear-database", "--yes")
    assert result.exit_code == 0, result.output
    assert rows(engine)["jobs"] == 0
    assert AuditLog(engine).entries(ADMIN_SCOPE)[0].body["confirmed"] == "--yes"
