"""Issue 31: a new source is its client, its parser, its records and its simulator route.

A toy source, "Toy Index", is defined here and nowhere else: a client on the transport its record
builds, a pure parser, its core facts (`SOURCE_FACTS`), its registry record (`SOURCES`) and its
simulator route (`SIM_ROUTES`), each put in with `monkeypatch.setitem`. Without another line of
the product it is asked (a reference only it holds is verified by it, and a "not found" waits for
its answer), displayed, trusted, placed in a tier, counted in the gateway's stats, and served by
the simulator, whose counters see its requests. The files `docs/architecture.md` names for a new
source are the ones this toy needed (`test_the_architecture_table_names_the_toys_files`).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import httpx
import pytest

from aletheia.config.settings import Settings, SourceLimits
from aletheia.core import source_facts
from aletheia.core.evidence import Outcome
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.source_display import source_name
from aletheia.core.source_facts import SOURCE_FACTS, NotFound, SourceFacts, Tier
from aletheia.core.transparency import tier_of
from aletheia.core.trust import is_decisive, trust_of
from aletheia.core.verdicts import VerdictStatus
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.pipeline.evidence.gather import verify_reference
from aletheia.sources import registry
from aletheia.sources.base import SourceRecord, Transport
from aletheia.sources.registry import SOURCES, ClientParts, SourceSpec
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, SimWork, Universe, routes
from aletheia.sources.simulator.http import Request, Response, json_response, text_response
from aletheia.sources.simulator.routes import SIM_ROUTES, SimRoute
from aletheia.sources.transport.factory import transport_from_settings
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from tests.conftest import REPO_ROOT
from tests.unit.architecture_table import architecture_row, instantiated

TOY: Final = "toy_index"
HELD: Final = {"id": "T1", "title": "Registries Make Sources Cheap", "author": "Okafor", "year": 2021}
FAST = SourceLimits(rate=1000, burst=1000, concurrency=20)

# --- the toy source: a parser, a client, its records, its simulator route ----------------------------


def parse_toy(item: dict[str, Any]) -> WorkRecord:
    """The toy's pure parser: one item of its JSON in, a `WorkRecord` out."""
    return WorkRecord(
        source=SourceName(TOY),
        source_id=str(item["id"]),
        title=str(item["title"]),
        authors=(Author(family=str(item["author"])),),
        year=int(item["year"]),
        venue="Journal of Toy Sources",
    )


class ToyClient:
    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    @property
    def source(self) -> SourceName:
        return SourceName(TOY)

    def _record(self, item: dict[str, Any]) -> SourceRecord:
        url = f"{self.transport.base_url}/items/{item['id']}"
        return SourceRecord(record=parse_toy(item), raw=item, fetched_at=datetime.now(UTC), url=url)

    async def by_id(self, ident: str) -> SourceRecord | None:
        body = await self.transport.get_json(f"/items/{ident}")
        return None if body is None else self._record(body)

    async def search(self, title: str, author: str | None) -> list[SourceRecord]:
        body = await self.transport.get_json("/search", params={"q": title}, kind="search")
        return [self._record(item) for item in (body or {}).get("items", [])]


class ToySettings(Settings):
    # Its base URL from `ALETHEIA_TOY_INDEX_URL` (the real host by default), and its limits.
    toy_index_url: str = "https://api.toy-index.example"
    toy_index_limits: SourceLimits = SourceLimits(rate=2, burst=2, concurrency=1)


def _toy_client(parts: ClientParts) -> ToyClient:
    settings = parts.settings
    assert isinstance(settings, ToySettings)
    return ToyClient(
        transport_from_settings(
            SourceName(TOY),
            parts.http,
            settings,
            parts.limiter,
            parts.breaker,
            base_url=settings.toy_index_url,
        )
    )


FACTS: Final = SourceFacts(
    TOY,
    "Toy Index",
    "curated_index",
    Tier.SCHOLARLY,
    coverage="always",
    not_found=NotFound(frozenset({"single"}), "json_error"),
)
SPEC: Final = SourceSpec(
    FACTS,
    _toy_client,
    ("toy_index_url",),
    title_search=lambda client, title, author: client.search(title, author),
)


def _classify(request: Request, path: str) -> tuple[Any, list[str]]:
    if path.startswith("/items/"):
        return "single", [path.removeprefix("/items/")]
    return "search", []


def _answer(request: Request, path: str, _ctx: Any, _config: Any) -> Response:
    if path == "/search":
        words = set((request.param("q") or "").lower().split())
        hit = words and words <= set(str(HELD["title"]).lower().split())
        return json_response({"items": [HELD] if hit else []})
    if path == f"/items/{HELD['id']}":
        return json_response(HELD)
    if path.startswith("/items/"):
        return json_response({"error": "no such item"}, status=404)
    return text_response("Not Found", status=404)


ROUTE: Final = SimRoute(
    TOY,
    "/toy",
    _classify,
    _answer,
    lambda retry_after, _config, _request: text_response("slow down", status=429),
)


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(SOURCE_FACTS, TOY, FACTS)
    monkeypatch.setitem(SOURCES, TOY, SPEC)
    monkeypatch.setitem(SIM_ROUTES, TOY, ROUTE)


@pytest.fixture
def sim(toy: None) -> Iterator[SimulatorServer]:
    filler = SimWork.model_validate(
        {
            "id": "filler",
            "title": "An Unrelated Study of Filler Works",
            "authors": [{"given": "Ada", "family": "Filler"}],
            "year": 2019,
            "venue": "Journal of Fillers",
            "doi": "10.5555/filler.1",
        }
    )
    with SimulatorServer(Universe([filler]), SimulatorConfig.unlimited(seed=1)) as server:
        yield server


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=5.0) as client:
        yield client


def settings_for(sim: SimulatorServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ToySettings:
    # Every source at the simulator through its `ALETHEIA_*_URL`, the toy's included.
    for name, value in sim.env().items():
        monkeypatch.setenv(name, value)
    limits = {f"{name}_limits": FAST for name in SOURCES if name != "pubmed"}
    return ToySettings(
        _env_file=None,
        data_dir=tmp_path,
        http_timeout=2.0,
        http_attempts=2,
        coalesce_window_ms=1.0,
        pubmed_limits=FAST,
        **limits,
    )


def cited(title: str) -> CitedReference:
    return CitedReference(
        key="toy",
        entry_type="article",
        title=title,
        authors=(Author(given="Ngozi", family="Okafor"),),
        year=2021,
        venue="Journal of Toy Sources",
    )


# --- what the records alone give it --------------------------------------------------------------------


def test_it_is_displayed_trusted_and_placed_in_a_tier(toy: None) -> None:
    assert source_name(TOY) == "Toy Index"
    assert trust_of(TOY) == "curated_index" and is_decisive(TOY)
    assert tier_of(TOY) is Tier.SCHOLARLY
    assert SourceName(TOY) == TOY  # records naming it validate
    assert WorkRecord(source=TOY, title="x").source == TOY


def test_without_its_records_it_is_no_source() -> None:
    with pytest.raises(ValueError):
        SourceName(TOY)
    assert trust_of(TOY) == "model_output" and tier_of(TOY) is None and source_name(TOY) == TOY


async def test_it_is_built_from_its_record_and_simulated(
    sim: SimulatorServer, http: httpx.AsyncClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = settings_for(sim, tmp_path, monkeypatch)
    assert settings.toy_index_url == sim.url_for(TOY)  # from ALETHEIA_TOY_INDEX_URL
    gateway = SourceGateway(settings, http, LocalRateLimiter())
    client = gateway.clients[TOY]
    assert isinstance(client, ToyClient)
    found = await client.by_id(str(HELD["id"]))
    assert found is not None and found.record.title == HELD["title"]
    # Its documented 404 (a JSON `error`) is "no such item"; any other 404 is a wrong route.
    assert await client.by_id("T404") is None
    assert gateway.stats()[TOY].requests == 2
    assert sim.source_stats(TOY)["requests"] == 2


async def test_a_work_only_it_holds_is_verified_by_it(
    sim: SimulatorServer, http: httpx.AsyncClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gateway = SourceGateway(settings_for(sim, tmp_path, monkeypatch), http, LocalRateLimiter())
    outcome = await verify_reference(cited(str(HELD["title"])), gateway, current_year=2026)
    toy_answers = [a for a in outcome.evidence.answers if a.source == TOY]
    assert [a.outcome for a in toy_answers] == [Outcome.FOUND]
    assert outcome.verdict.match is not None and outcome.verdict.match.source == TOY
    assert outcome.verdict.status is VerdictStatus.VERIFIED
    assert sim.source_stats(TOY)["by_kind"]["search"] >= 1


async def test_not_found_waits_for_its_answer(
    sim: SimulatorServer, http: httpx.AsyncClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gateway = SourceGateway(settings_for(sim, tmp_path, monkeypatch), http, LocalRateLimiter())
    outcome = await verify_reference(cited("Nobody Ever Wrote This Toy Paper"), gateway, current_year=2026)
    toy_answers = [a for a in outcome.evidence.answers if a.source == TOY]
    assert [a.outcome for a in toy_answers] == [Outcome.NOT_FOUND]
    assert outcome.verdict.status in {VerdictStatus.NOT_FOUND, VerdictStatus.FABRICATED}


def test_the_architecture_table_names_the_toys_files() -> None:
    """docs/architecture.md's row for a new source names exactly what the toy needed: its client,
    its parser and its simulator answers (here, in this test: `NAME.py`, `NAME_parse.py`,
    `simulator/NAME.py`), the modules of the three tables it was put in (`SOURCE_FACTS`,
    `SOURCES`, `SIM_ROUTES`), and the settings it subclassed for its URL and limits."""
    files = architecture_row("a new source")
    tables = (source_facts, registry, routes)
    assert SOURCE_FACTS is source_facts.SOURCE_FACTS and SOURCES is registry.SOURCES
    assert SIM_ROUTES is routes.SIM_ROUTES
    assert files == {
        "sources/aletheia/sources/NAME.py",
        "sources/aletheia/sources/NAME_parse.py",
        "sources/aletheia/sources/simulator/NAME.py",
        *(_repo_path(inspect.getfile(module)) for module in tables),
        _repo_path(inspect.getfile(Settings)),
    }
    assert all((REPO_ROOT / instantiated(f, NAME="europe_pmc")).is_file() for f in files)


def _repo_path(path: str) -> str:
    return Path(path).resolve().relative_to(REPO_ROOT.resolve()).as_posix()
