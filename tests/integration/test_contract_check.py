"""The nightly live-API contract check (issue 29, seed 000 §10.4) against the loopback simulator:
the same shape is no drift; a source whose answer renames a key is drift, stored and shown; the
check never raises."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from aletheia.config import Settings
from aletheia.config.settings import reset_settings_cache
from aletheia.pipeline.contracts import (
    check_contracts,
    contract_check,
    latest_contract_report,
    store_contract_report,
)
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.sources.contracts import load_contracts
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, Universe
from aletheia.sources.transport.ratelimit import build_rate_limiter
from tests.integration.sim_pipeline import sim_settings

UNIVERSE = Path(__file__).resolve().parents[1] / "fixtures" / "simulator" / "universe.jsonl"
# The simulator's works stand in for the real ones the shipped contracts ask for.
QUERIES = {
    "crossref": "10.5555/mat.2018.311",
    "openalex": "10.5555/mat.2018.311",
    "semantic_scholar": "DOI:10.5555/mat.2018.311",
    "arxiv": "2103.04512",
    "pubmed": "29876543",
}


def contracts() -> dict[str, Any]:
    return {source: {**c, "query": QUERIES[source]} for source, c in load_contracts().items()}


@pytest.fixture(scope="module")
def simulator() -> Iterator[SimulatorServer]:
    with SimulatorServer(Universe.from_jsonl(UNIVERSE), SimulatorConfig.unlimited()) as server:
        yield server


@pytest.fixture
def settings(simulator: SimulatorServer, tmp_path: Path) -> Iterator[Settings]:
    simulator.configure(SimulatorConfig.unlimited())
    yield sim_settings(tmp_path, simulator, http_attempts=1)
    simulator.configure(SimulatorConfig.unlimited())


@pytest.fixture
async def gateway(settings: Settings) -> AsyncIterator[SourceGateway]:
    async with httpx.AsyncClient() as http:
        yield SourceGateway(settings, http, build_rate_limiter(settings))


async def test_the_same_shape_is_no_drift(gateway: SourceGateway) -> None:
    report = await check_contracts(gateway, contracts())
    assert [(r.source, r.status) for r in report.results] == [(s, "ok") for s in QUERIES], report.as_json()
    assert report.exit_code() == 0


async def test_a_renamed_key_is_drift(
    simulator: SimulatorServer, gateway: SourceGateway, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulator.configure(
        SimulatorConfig.unlimited()
        .with_source("semantic_scholar", renamed_keys={"externalIds": "external_ids"})
        .with_source("arxiv_api", renamed_keys={"summary": "abstract"})
    )
    report = await check_contracts(gateway, contracts())
    status = {r.source: r.status for r in report.results}
    assert status == {
        "crossref": "ok",
        "openalex": "ok",
        "semantic_scholar": "drift",
        "arxiv": "drift",
        "pubmed": "ok",
    }
    s2 = next(r for r in report.results if r.source == "semantic_scholar")
    assert {
        "kind": "missing_key",
        "path": "externalIds",
        "detail": "externalIds: missing (recorded as object)",
    } in (s2.differences)
    assert any(d["kind"] == "new_key" and d["path"] == "external_ids" for d in s2.differences)
    arxiv = next(r for r in report.results if r.source == "arxiv")
    assert [d["path"] for d in arxiv.differences if d["kind"] == "missing_key"] == ["entry[].summary"]
    assert report.exit_code() == 1
    # Stored, and shown by `aletheia contract-check`.
    store_contract_report(settings, report)
    assert latest_contract_report(settings) is not None
    from aletheia.producers.cli import main

    monkeypatch.setenv("ALETHEIA_DATA_DIR", str(settings.data_dir))
    reset_settings_cache()
    try:
        shown = CliRunner().invoke(main, ["contract-check"])
        as_json = CliRunner().invoke(main, ["contract-check", "--format", "json"])
    finally:
        reset_settings_cache()
    assert shown.exit_code == 1, shown.output
    assert "semantic_scholar: drift (DOI:10.5555/mat.2018.311)" in shown.stdout
    assert "  missing_key: externalIds: missing (recorded as object)" in shown.stdout
    assert json.loads(as_json.stdout)["drifted"] == ["semantic_scholar", "arxiv"]


async def test_an_unreachable_source_is_not_drift(simulator: SimulatorServer, gateway: SourceGateway) -> None:
    simulator.configure(SimulatorConfig.unlimited().with_source("crossref", faults={"error_503": 1.0}))
    report = await check_contracts(gateway, contracts())
    crossref = next(r for r in report.results if r.source == "crossref")
    assert crossref.status == "unreachable" and crossref.error
    assert report.exit_code() == 3 and report.drifted == []


def test_the_beat_task_never_raises_and_stores_what_happened(tmp_path: Path) -> None:
    class Broken:
        settings = Settings(data_dir=tmp_path / "data")

        def source_gateway(self, *, fresh: bool = False) -> Any:
            raise RuntimeError("no network here")

    result = contract_check(Broken())  # type: ignore[arg-type]
    assert result["exit_code"] == 3 and "no network here" in result["results"][0]["error"]
    stored = latest_contract_report(Broken.settings)
    assert stored is not None and stored.results[0].status == "unreachable"


def test_beat_schedules_the_check_nightly() -> None:
    from aletheia.pipeline.jobs.kinds import CONTRACT_CHECK
    from aletheia.workers.app import LazyConfig

    schedule = LazyConfig().beat_schedule["contract-check"]
    assert schedule["task"] == CONTRACT_CHECK
    assert str(schedule["schedule"]).startswith("<crontab: 30 2 * * *")
