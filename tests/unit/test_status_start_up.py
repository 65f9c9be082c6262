"""`aletheia status` starts fast (issue 22; docs/benchmarks.md, "CLI start-up"), kept so by
structure, not by a timed assertion: the command reads the job's row and counts through the
storage layer's Core read path (`storage/job_reads.py`), and loads neither the ORM and the models,
nor the runtime's stores, nor the pipeline, the sources, the queue or Alembic; the `aletheia`
group imports a subcommand's module only when that subcommand runs. What it prints is what the
client's status (the runtime's) says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import TableClause, create_engine

from aletheia.config import Settings
from aletheia.pipeline import service
from aletheia.pipeline.jobs.kinds import JobKind
from aletheia.pipeline.jobs.status import job_status, status_from_engine
from aletheia.pipeline.runtime import Runtime
from aletheia.storage import job_reads
from aletheia.storage.db import at_head
from aletheia.storage.models import Base, JobStatus
from tests.conftest import REPO_ROOT

# What `aletheia status` must not import (each was once part of its start, or is what the other
# commands need): the ORM and the models, the runtime's stores, the step context, the evidence
# pipeline, the sources and their HTTP client, the queue, the migrations, the other commands.
HEAVY = (
    "sqlalchemy.orm",
    "aletheia.storage.models",
    "aletheia.storage.stores",
    "aletheia.pipeline.runtime",
    "aletheia.pipeline.jobs.context",
    "aletheia.pipeline.evidence",
    "aletheia.pipeline.reports",
    "aletheia.sources",
    "aletheia.producers.client",
    "aletheia.producers.claims_cli",
    "aletheia.producers.text_cli",
    "aletheia.producers.bench_cli",
    "httpx",
    "celery",
    "redis",
    "alembic",
)

# What `aletheia report --format json` must not import: the formats it does not render (the BibTeX
# writer with the artifacts' YAML, the CI formats), the queue, the migrations, the other commands.
NOT_FOR_A_JSON_REPORT = (
    "aletheia.pipeline.reports.bibtex",
    "aletheia.pipeline.reports.ci",
    "aletheia.core.render",
    "yaml",
    "aletheia.producers.claims_cli",
    "aletheia.producers.text_cli",
    "aletheia.producers.bench_cli",
    "celery",
    "redis",
    "alembic",
)

# Runs an `aletheia` command line as the console script does, then names the modules of a list it
# loaded.
COMMAND_THEN_MODULES = """
import json, sys
from aletheia.producers.cli import main
try:
    main(json.loads(sys.argv[1]))
except SystemExit as exit:
    code = exit.code
heavy = json.loads(sys.argv[2])
loaded = sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))
print(json.dumps({"exit": code, "loaded": loaded}), file=sys.stderr)
"""

BIB = (
    "@article{k1, title={A title nobody wrote}, author={Doe, Jane}, year={2020}, doi={10.1000/none.1}}\n"
    "@article{k2, title={Another one}, author={Roe, Rich}, year={2021}}\n"
    "@article{k3, title={}}\n"
)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", offline=True
    )


@pytest.fixture
def runtime(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    return Runtime.open(settings)


def _finished_job(runtime: Runtime) -> str:
    """A bibliography job run in this process (offline): items, verdicts, a stored summary."""
    inline = service.InlineDispatcher()
    ctx = service.ServiceContext(
        runtime=runtime, dispatcher=inline, runner=service.LoopThread(), defer_tokens=False
    )
    try:
        doc = service.InputDocument(name="refs.bib", data=BIB.encode())
        job_id: str = service.submit_bibliography(runtime, inline, [doc])
        inline.drain(ctx)
    finally:
        ctx.close()
    return job_id


def _run_status(settings: Settings, job_id: str, cwd: Path) -> tuple[dict[str, object], str]:
    return _run(settings, ["status", job_id], HEAVY, cwd)


def _run(
    settings: Settings, argv: list[str], heavy: tuple[str, ...], cwd: Path
) -> tuple[dict[str, object], str]:
    env = {
        **os.environ,
        "ALETHEIA_DATABASE_URL": settings.sqlalchemy_url(),
        "ALETHEIA_DATA_DIR": str(settings.data_dir),
        "ALETHEIA_OFFLINE": "true",
    }
    env.pop("ALETHEIA_BROKER_URL", None)
    proc = subprocess.run(
        [sys.executable, "-c", COMMAND_THEN_MODULES, json.dumps(argv), json.dumps(heavy)],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report: dict[str, object] = json.loads(proc.stderr.strip().splitlines()[-1])
    return report, proc.stdout


def test_aletheia_status_loads_none_of_the_heavy_modules_and_prints_the_clients_status(
    runtime: Runtime, settings: Settings, tmp_path: Path
) -> None:
    job_id = _finished_job(runtime)
    report, stdout = _run_status(settings, job_id, tmp_path)
    assert report == {"exit": 0, "loaded": []}
    printed = json.loads(stdout)
    assert printed == job_status(runtime, job_id)
    assert printed["status"] == JobStatus.DONE and printed["total"] == 3
    assert printed["artifacts"]  # from the stored summary


def test_a_json_report_loads_only_its_format(runtime: Runtime, settings: Settings, tmp_path: Path) -> None:
    job_id = _finished_job(runtime)
    report, stdout = _run(settings, ["report", job_id, "--format", "json"], NOT_FOR_A_JSON_REPORT, tmp_path)
    assert report["loaded"] == []
    assert len(json.loads(stdout)["references"]) == 3


def test_no_job_and_a_new_database(settings: Settings, tmp_path: Path) -> None:
    """A new database is created and brought to the newest migration first (by Alembic), as every
    command that opens it does; then no such job is exit 2, without the heavy modules."""
    report, stdout = _run_status(settings, "nosuchjob", tmp_path)
    assert report["exit"] == 2 and "alembic" in report["loaded"]  # type: ignore[operator]
    assert at_head(create_engine(settings.sqlalchemy_url()))
    report, stdout = _run_status(settings, "nosuchjob", tmp_path)
    assert report == {"exit": 2, "loaded": []}
    assert stdout == ""


def test_the_core_read_path_counts_as_the_job_store_does(runtime: Runtime) -> None:
    job_id = _finished_job(runtime)
    status = status_from_engine(runtime.jobs.engine, job_id)
    job, progress = runtime.jobs.job(job_id), runtime.jobs.progress(job_id)
    assert status is not None and job is not None
    assert (status["total"], status["done"], status["failed"], status["pending"]) == (
        progress.total, progress.done, progress.failed, progress.pending,
    )  # fmt: skip
    assert status["by_verdict"] == progress.by_verdict and sum(progress.by_verdict.values()) > 0
    for name in ("created_at", "started_at", "finished_at"):
        value = getattr(job, name)
        assert status[name] == (value.isoformat() if value else None)
    assert status_from_engine(runtime.jobs.engine, "nosuchjob") is None
    with pytest.raises(service.JobNotFound):
        job_status(runtime, "nosuchjob")


def test_children_and_claim_stage_on_the_read_path(runtime: Runtime) -> None:
    sweep = runtime.jobs.create_job(JobKind.SWEEP, {"repositories": []})
    kids = [runtime.jobs.create_job(JobKind.BIBLIOGRAPHY, {}, parent_id=sweep) for _ in range(3)]
    runtime.jobs.set_job_status(kids[0], JobStatus.DONE)
    runtime.jobs.set_job_status(kids[1], JobStatus.FAILED)
    assert job_status(runtime, sweep)["children"] == {"total": 3, "finished": 2}
    assert "children" not in job_status(runtime, kids[0])

    claim = runtime.jobs.create_job(JobKind.CLAIM, {"claim": "x"})
    assert job_status(runtime, claim)["stage"] is None  # before its first stage
    runtime.claim_stages.create(claim, "judge", {})
    assert job_status(runtime, claim)["stage"] == "judge"


@pytest.mark.parametrize(
    "table", [job_reads.JOBS, job_reads.ITEMS, job_reads.VERDICTS, job_reads.CLAIM_STATES], ids=str
)
def test_the_read_path_names_the_models_columns_with_their_types(table: TableClause) -> None:
    model = Base.metadata.tables[table.name]
    for col in table.columns:
        assert col.name in model.c, f"{table.name}.{col.name} is not a column of the models"
        stored = model.c[col.name].type
        assert isinstance(col.type, type(stored)) or isinstance(stored, type(col.type)), (
            f"{table.name}.{col.name}: read as {col.type!r}, stored as {stored!r}"
        )
        assert getattr(col.type, "timezone", None) == getattr(stored, "timezone", None)


def test_the_cli_imports_its_subcommands_when_they_run() -> None:
    code = (
        "import sys; import aletheia.producers.cli; "
        "print(sorted(m for m in sys.modules if m.startswith('aletheia.producers.') and m.endswith('_cli')))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT, timeout=60
    )
    assert proc.stdout.strip() == "[]"

    from click.testing import CliRunner

    from aletheia.producers.cli import COMMAND_PATHS, main

    for name in COMMAND_PATHS:
        command = main.get_command(None, name)  # type: ignore[arg-type]
        assert command is not None and command.name == name
    listed = CliRunner().invoke(main, ["--help"]).output
    for name in (*COMMAND_PATHS, "verify"):
        assert f"\n  {name} " in listed, name


def test_the_spelled_out_states_are_the_models() -> None:
    """`jobs/status.py` names the states without importing the ORM: they must stay the models'."""
    from aletheia.pipeline.jobs import status
    from aletheia.storage.models import UNSETTLED_ITEMS, JobStatus

    assert set(status._UNSETTLED) == {s.value for s in UNSETTLED_ITEMS}
    assert set(status._FINISHED) == {JobStatus.DONE.value, JobStatus.FAILED.value}
