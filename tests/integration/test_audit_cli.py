"""`aletheia audit-log verify|show` and `aletheia replay` on a job the embedded pipeline ran against
the simulator, with the database tampered with in plain SQL afterwards."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from aletheia.config.settings import reset_settings_cache
from aletheia.producers.cli import main
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer
from tests.integration.sim_pipeline import make_works, references, run_embedded, sim_settings, universe

WORKS = make_works(12)


@pytest.fixture
def job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """A finished embedded job (12 real works, 3 invented), and the SQLite file it lives in."""
    with SimulatorServer(universe(WORKS), SimulatorConfig.unlimited(seed=3)) as sim:
        # Some failures, so the trail holds failed answers too.
        sim.configure({"sources": {"crossref": {"faults": {"error_503": 0.3}}}})
        settings = sim_settings(tmp_path, sim)
        run = run_embedded(settings, references(WORKS, 3))
    assert run.summary.job_id is not None
    database = tmp_path / "aletheia.sqlite3"
    monkeypatch.setenv("ALETHEIA_DATABASE_URL", f"sqlite:///{database}")
    monkeypatch.setenv("ALETHEIA_DATA_DIR", str(tmp_path / "data"))
    reset_settings_cache()
    yield run.summary.job_id, database
    reset_settings_cache()


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def tamper(database: Path, statement: str, *params: object) -> None:
    with sqlite3.connect(database) as conn:
        conn.execute(statement, params)


def test_an_untouched_job_verifies_and_replays_the_same(job: tuple[str, Path]) -> None:
    job_id, _ = job
    result = cli("audit-log", "verify", job_id)
    assert result.exit_code == 0, result.output
    assert f"intact    job {job_id}" in result.output
    result = cli("audit-log", "verify")
    assert result.exit_code == 0 and "0 tampered" in result.output
    result = cli("replay", job_id)
    assert result.exit_code == 0, result.output
    assert "15 verdict(s) replayed" in result.output and "0 different" in result.output


def test_show_prints_every_event_and_the_commit(job: tuple[str, Path]) -> None:
    job_id, _ = job
    result = cli("audit-log", "show", job_id)
    lines = [json.loads(line) for line in result.output.splitlines()]
    events = [line for line in lines if "event" in line]
    kinds = {e["event"] for e in events}
    assert {"source_consulted", "field_comparison", "verdict"} <= kinds
    assert sum(e["event"] == "verdict" for e in events) == 15
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert lines[-1]["merkle_commit"]["events"] == len(events)


EDIT = "UPDATE audit_events SET body = json_set(body, '$.outcome', 'found') WHERE job_id = ? AND seq = 7"
REMOVE = "DELETE FROM audit_events WHERE job_id = ? AND seq = 7"
# SQLite checks the unique (job_id, seq) per row, so the swap of 7 and 9 goes through a spare number.
SWAP = (
    "UPDATE audit_events SET seq = -7 WHERE job_id = ? AND seq = 7",
    "UPDATE audit_events SET seq = 7 WHERE job_id = ? AND seq = 9",
    "UPDATE audit_events SET seq = 9 WHERE job_id = ? AND seq = -7",
)


@pytest.mark.parametrize(
    ("statements", "seq", "what"),
    [((EDIT,), 7, "edited"), ((REMOVE,), 8, "seq 7 missing"), (SWAP, 7, "")],
    ids=["edit", "remove", "reorder"],
)
def test_tampering_is_detected_and_the_first_bad_event_named(
    job: tuple[str, Path], statements: tuple[str, ...], seq: int, what: str
) -> None:
    job_id, database = job
    for statement in statements:
        tamper(database, statement, job_id)
    result = cli("audit-log", "verify", job_id)
    assert result.exit_code == 1, result.output
    first = result.output.splitlines()[0]
    assert first.startswith(f"TAMPERED  job {job_id}, event seq {seq}:"), first
    assert what in first
    assert cli("audit-log", "verify").exit_code == 1  # all jobs: still found


def test_an_edited_verdict_row_is_detected(job: tuple[str, Path]) -> None:
    job_id, database = job
    tamper(
        database,
        "UPDATE verdicts SET verdict = json_set(verdict, '$.status', 'verified'), status = 'verified' "
        "WHERE job_id = ? AND status != 'verified'",
        job_id,
    )
    result = cli("audit-log", "verify", job_id, "--json")
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert not report["intact"] and "stored verdict of item" in report["jobs"][0]["problems"][0]


def test_replay_lists_what_a_logic_change_would_decide_differently(
    job: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    job_id, _ = job
    import aletheia.core.works as works_module

    # A rule change: titles must now match exactly (and a little more). Since logic 2.0 the
    # threshold is read where a work is assessed (`works.Assessment.title_matches`).
    monkeypatch.setattr(works_module, "TITLE_THRESHOLD", 1.01)
    result = cli("replay", job_id, "--json")
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["differences"], report
    changed = report["differences"][0]
    assert changed["changes"]["status"]["stored"] == "verified"
    assert changed["changes"]["status"]["replayed"] != "verified"


def test_unknown_jobs_are_a_usage_error(job: tuple[str, Path]) -> None:
    assert cli("audit-log", "verify", "nosuchjob").exit_code == 2
    assert cli("replay", "nosuchjob").exit_code == 2
