"""Secrets (API keys, database and broker passwords) never appear in logs, reports, stored rows,
the audit trail or error messages, even when every source fails and connections are refused."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect, select, text

from aletheia.config import Settings
from aletheia.pipeline.joblog import JobIdFilter, JsonLineFormatter
from aletheia.pipeline.runtime import Runtime
from aletheia.sources.simulator import SIM_SOURCES, SimulatorConfig, SimulatorServer
from tests.integration.sim_pipeline import make_works, references, run_embedded, sim_settings, universe

OPENALEX_KEY = "oa-SECRET-5e1f0c9a2b7d"
S2_KEY = "s2-SECRET-8c3d4e5f6a7b"
NCBI_KEY = "ncbi-SECRET-1a2b3c4d5e6f"
DB_PASSWORD = "pg-SECRET-hunter2-9f8e"
REDIS_PASSWORD = "redis-SECRET-7d6c5b4a"
SECRETS = (OPENALEX_KEY, S2_KEY, NCBI_KEY, DB_PASSWORD, REDIS_PASSWORD)
ALETHEIA = str(Path(sys.executable).parent / "aletheia")


def leaked(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def database_text(runtime: Runtime) -> str:
    """Every row of every table, as text."""
    engine = runtime.jobs.engine
    parts = []
    with engine.connect() as conn:
        for table in inspect(engine).get_table_names():
            for row in conn.execute(text(f'SELECT * FROM "{table}"')):  # noqa: S608 - our own table names
                parts.append(repr(tuple(row)))
    return "\n".join(parts)


@pytest.fixture
def all_logs() -> Any:
    """Every record of every logger at DEBUG, formatted as the workers format them (JSON lines)."""
    records: list[str] = []
    formatter = JsonLineFormatter(process_role="test")

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(formatter.format(record))

    handler = Keep(logging.DEBUG)
    handler.addFilter(JobIdFilter())
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield records
    root.removeHandler(handler)
    root.setLevel(old_level)


def test_api_keys_stay_out_of_logs_reports_rows_and_the_trail(tmp_path: Path, all_logs: list[str]) -> None:
    works = make_works(25)
    faults = {"error_500": 0.3, "error_503": 0.2, "reset": 0.1, "malformed": 0.1}
    with SimulatorServer(universe(works), SimulatorConfig.unlimited(seed=5)) as sim:
        sim.configure({"sources": {s: {"faults": faults} for s in SIM_SOURCES}})
        settings = sim_settings(
            tmp_path,
            sim,
            openalex_api_key=OPENALEX_KEY,
            semantic_scholar_api_key=S2_KEY,
            ncbi_api_key=NCBI_KEY,
            http_attempts=2,
        )
        run = run_embedded(settings, references(works, 5))
        requests = sim.stats()["sources"]
    # The keys were really sent (so there was something to leak)...
    assert requests["openalex"]["requests"] > 0 and requests["pubmed"]["requests"] > 0
    # ...and failures really happened, with their messages recorded.
    errors = [t["error"] for r in run.references for t in r["trace"] if t["error"]]
    assert errors
    assert leaked("\n".join(all_logs)) == []
    assert leaked(json.dumps(run.document)) == []
    assert leaked(database_text(run.runtime)) == []
    assert leaked(repr(settings)) == [] and leaked(str(settings.model_dump())) == []


def run_cli(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
    return subprocess.run(
        [ALETHEIA, *args], env=clean | env, cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def test_a_database_password_is_not_in_the_error(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text("@article{a, title = {A title}, year = {2020}}\n")
    env = {
        "ALETHEIA_DATABASE_URL": f"postgresql://aletheia:{DB_PASSWORD}@127.0.0.1:9/aletheia",
        "ALETHEIA_DATA_DIR": str(tmp_path / "data"),
    }
    done = run_cli("verify", "refs.bib", "--offline", env=env, cwd=tmp_path)
    assert done.returncode != 0
    assert "127.0.0.1" in done.stdout + done.stderr  # it did say what failed
    assert leaked(done.stdout + done.stderr) == []


def test_a_broker_password_is_not_in_the_error(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text("@article{a, title = {A title}, year = {2020}}\n")
    env = {
        "ALETHEIA_BROKER_URL": f"redis://:{REDIS_PASSWORD}@127.0.0.1:9/0",
        "ALETHEIA_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "ALETHEIA_DATA_DIR": str(tmp_path / "data"),
    }
    done = run_cli("submit", "refs.bib", env=env, cwd=tmp_path)
    assert done.returncode != 0
    assert leaked(done.stdout + done.stderr) == []


def test_settings_never_show_their_secrets() -> None:
    settings = Settings(
        openalex_api_key=OPENALEX_KEY,
        database_url=f"postgresql://u:{DB_PASSWORD}@db/x",
        broker_url=f"redis://:{REDIS_PASSWORD}@r/0",
        flower_password=REDIS_PASSWORD,
    )
    assert leaked(repr(settings)) == []
    assert leaked(settings.model_dump_json()) == []


def test_sqlalchemy_errors_hide_the_url_password(tmp_path: Path) -> None:
    from aletheia.storage.db import make_engine

    engine = make_engine(f"postgresql://aletheia:{DB_PASSWORD}@127.0.0.1:9/aletheia")
    with pytest.raises(Exception) as caught, engine.connect() as conn:
        conn.execute(select(1))
    import traceback

    assert leaked("".join(traceback.format_exception(caught.value))) == []
    assert leaked(repr(engine)) == []


def test_json_log_lines_scrub_credentials_whatever_logs_them() -> None:
    formatter = JsonLineFormatter()
    try:
        raise ConnectionError(f"cannot reach postgresql://aletheia:{DB_PASSWORD}@db:5432/aletheia")
    except ConnectionError as exc:
        record = logging.LogRecord(
            "kombu",
            logging.ERROR,
            __file__,
            1,
            "GET /works?api_key=%s failed",
            (OPENALEX_KEY,),
            (type(exc), exc, None),
        )
    line = formatter.format(record)
    assert leaked(line) == []
    assert "REDACTED" in line and "db:5432" in line
