"""A queued job's request counters are measured: each reference's own counters (`item_stats`) are
stored beside its verdict (`verdicts.counters`, migration 0005) and the summary adds them up, so
`summary.sources` and `summary.requests` say what was sent, not 0 (the worker's gateway serves
every job at once and cannot say which job a request was for)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, inspect, text, update

from aletheia.config import Settings
from aletheia.config.settings import SourceLimits, reset_settings_cache
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import Author, CitedReference, SourceName
from aletheia.core.verdicts import Reason, Verdict, VerdictStatus
from aletheia.pipeline import service
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.jobs import bibliography as bibliography_jobs
from aletheia.pipeline.jobs.reports import bibliography_summary, measured_counters
from aletheia.pipeline.runtime import Runtime
from aletheia.pipeline.service import InlineDispatcher, InputDocument, ServiceContext
from aletheia.sources.base import SourceStats
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, SimWork, Universe
from aletheia.sources.transport import item_stats
from aletheia.sources.transport.figures import requests_by_kind
from aletheia.storage.db import MIGRATIONS_DIR, engine_for
from aletheia.storage.models import ItemStatus, VerdictRow
from aletheia.storage.stores import JobStore

COUNTED = {"crossref": {"requests": 3, "errors": 1, "rate_limited": 1, "cache_hits": 0, "extra": {"x": 3}}}


def _figures(entry: dict[str, Any]) -> tuple[int, int, int, int, dict[str, int]]:
    """A `summary.sources` entry's counters: requests, errors, 429s, cache hits, kinds sent."""
    kinds = {k: n for k, n in entry["requests_by_kind"].items() if n}
    return entry["requests"], entry["errors"], entry["rate_limited"], entry["cache_hits"], kinds


# --- storage ---------------------------------------------------------------------------------------


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    return engine_for(f"sqlite:///{tmp_path / 'db.sqlite3'}")


def _settle(
    jobs: JobStore, job_id: str, item_id: str, verdict: dict[str, Any], *, counters: dict[str, Any] | None
) -> None:
    """As the verify step records an item's verdict: under the claim its delivery took."""
    claim = jobs.claim_item(item_id)
    assert claim is not None
    with jobs.sessions.begin() as session:
        assert jobs.settle(
            session, job_id, item_id, claim=claim, verdict=verdict, evidence={}, counters=counters
        )


def test_the_counters_are_stored_beside_the_verdict_and_replaced_with_it(engine: Engine) -> None:
    jobs = JobStore(engine)
    job_id = jobs.create_job("bibliography", {})
    jobs.add_items(job_id, [(1, "a", "reference", {"key": "a"}), (2, "b", "reference", {"key": "b"})])
    first, second = (item.id for item in jobs.items(job_id))
    _settle(jobs, job_id, first, {"status": "verified"}, counters=COUNTED)
    _settle(jobs, job_id, second, {"status": "verified"}, counters=None)  # not counted: None
    rows = [row for _, row in jobs.verdicts(job_id)]
    assert rows[0] is not None and rows[0].counters == COUNTED
    assert rows[1] is not None and rows[1].counters is None

    again = {"openalex": {"requests": 1, "errors": 0, "rate_limited": 0, "cache_hits": 2, "extra": {}}}
    jobs.mark_item(first, ItemStatus.PENDING)  # a re-run: its verdict replaced
    _settle(jobs, job_id, first, {"status": "not_found"}, counters=again)
    (_, row), _ = jobs.verdicts(job_id)
    assert row is not None and row.counters == again and row.status == "not_found"
    assert [r.counters for _, r in jobs.newest_verdicts(job_id) if r is not None] == [again, None]


def _alembic(conn: Any) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = conn
    return config


def test_migration_0005_adds_the_column_and_keeps_the_older_verdicts(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    with engine.begin() as conn:
        command.upgrade(_alembic(conn), "0004")
        conn.execute(
            text(
                "INSERT INTO jobs (id, kind, status, input, logic_version, created_at) "
                "VALUES ('j1', 'bibliography', 'done', '{}', 'v', '2026-11-01 00:00:00')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO items (id, job_id, position, key, kind, status, payload, attempts, updated_at) "
                "VALUES ('i1', 'j1', 1, 'a', 'reference', 'done', '{}', 1, '2026-11-01 00:00:00')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO verdicts (item_id, job_id, status, logic_version, verdict, evidence, "
                "decided_at) VALUES ('i1', 'j1', 'verified', 'v', '{}', '{}', '2026-11-01 00:00:00')"
            )
        )
    assert "counters" not in {c["name"] for c in inspect(engine).get_columns("verdicts")}
    with engine.begin() as conn:
        command.upgrade(_alembic(conn), "0005")
    column = {c["name"]: c for c in inspect(engine).get_columns("verdicts")}["counters"]
    assert column["nullable"]
    with engine.connect() as conn:
        assert conn.execute(text("SELECT item_id, counters FROM verdicts")).all() == [("i1", None)]
    with engine.begin() as conn:
        command.downgrade(_alembic(conn), "0004")
    assert "counters" not in {c["name"] for c in inspect(engine).get_columns("verdicts")}
    with engine.connect() as conn:
        assert conn.execute(text("SELECT item_id FROM verdicts")).all() == [("i1",)]


# --- the summary of a queued job -----------------------------------------------------------------

CROSSREF = SourceStats(source="crossref")  # the worker's gateway's stats of Crossref, in the scripted runs
UNASKED = (SourceName.CROSSREF,)


async def counting_verifier(cited: CitedReference) -> ReferenceOutcome:
    """Crossref fails each reference after a 429 and a retry; the second reference's answer also
    came once from the cache. The evidence has one failed answer per reference."""
    item_stats.count(CROSSREF, "rate_limited")
    for _ in range(2):
        item_stats.count(CROSSREF, "requests")
        item_stats.count_extra(CROSSREF, "requests_lookup")
    item_stats.count(CROSSREF, "errors", 2)
    if cited.key == "b":
        item_stats.count(CROSSREF, "cache_hits")
    answer = SourceAnswer(
        source=SourceName.CROSSREF, kind=QueryKind.DOI, query="x", outcome=Outcome.FAILED, error="HTTP 503"
    )
    verdict = Verdict(
        status=VerdictStatus.UNVERIFIABLE,
        reasons=(Reason.SOURCE_UNAVAILABLE,),
        sources_consulted=UNASKED,
        sources_unavailable=UNASKED,
    )
    return ReferenceOutcome(cited=cited, verdict=verdict, evidence=Evidence(answers=(answer,)), raw=[])


def _lines(documents: Any, max_bytes: int, on_text: Any = None) -> Iterator[CitedReference]:
    for doc in documents:
        for line in doc.data.decode().splitlines():
            key, title = line.split("|", 1)
            yield CitedReference(key=key, title=title)


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runtime]:
    monkeypatch.setattr(bibliography_jobs, "read_references", _lines)
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    for name, value in {"ALETHEIA_DATABASE_URL": url, "ALETHEIA_DATA_DIR": str(tmp_path / "data")}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ALETHEIA_OFFLINE", raising=False)  # the scripted verifier opens no gateway
    monkeypatch.delenv("ALETHEIA_BROKER_URL", raising=False)
    reset_settings_cache()
    yield Runtime.open(Settings(data_dir=tmp_path / "data", database_url=url, disabled_sources="pubmed"))
    reset_settings_cache()


def run_job(runtime: Runtime, lines: str, verifier: Any = None, ctx: ServiceContext | None = None) -> str:
    dispatcher = InlineDispatcher(sleep=lambda _s: None)
    own = ctx is None
    ctx = ctx or ServiceContext(runtime, dispatcher, service.LoopThread(), verifier=verifier)
    ctx.dispatcher = dispatcher
    try:
        job_id = service.submit_bibliography(runtime, dispatcher, [InputDocument("refs.txt", lines.encode())])
        dispatcher.drain(ctx)
    finally:
        if own:
            ctx.close()
    return job_id


def test_the_queued_summary_adds_up_the_references_counters(runtime: Runtime) -> None:
    job_id = run_job(runtime, "a|one\nb|two\n", counting_verifier)
    summary = service.job_summary(runtime, job_id)
    crossref = summary["sources"]["crossref"]
    assert _figures(crossref) == (4, 4, 2, 1, {"lookup": 4})
    assert crossref["requests_by_kind"] == {"lookup": 4, "batch": 0, "search": 0}
    assert crossref["status"] == "unavailable" and crossref["affected"] == 2  # status: the evidence's
    assert summary["requests"]["total"] == 4 and summary["requests"]["per_reference"] == 2.0
    assert summary["requests"]["by_source"]["crossref"]["cache_hits"] == 1
    rows = [row for _, row in runtime.jobs.verdicts(job_id) if row is not None]
    assert [r.counters["crossref"]["cache_hits"] for r in rows] == [0, 1]  # type: ignore[index]


def test_rows_without_counters_fall_back_to_the_evidence(runtime: Runtime) -> None:
    job_id = run_job(runtime, "a|one\nb|two\n", counting_verifier)
    with runtime.jobs.engine.begin() as conn:  # verdicts recorded before 0005: nothing counted
        conn.execute(update(VerdictRow).where(VerdictRow.job_id == job_id).values(counters=None))
    job = runtime.jobs.job(job_id)
    assert job is not None
    job.summary = {}  # as the summary is built before the writer stores it
    summary = bibliography_summary(runtime, job)
    crossref = summary["sources"]["crossref"]
    assert (crossref["requests"], crossref["errors"], crossref["rate_limited"]) == (2, 2, 0)  # answers
    assert summary["requests"] == {}


# --- measured against the simulator: what it was sent is what the jobs' summaries say ------------

FAST = SourceLimits(rate=2000, burst=200, concurrency=32, search_rate=2000)
WORKS: list[dict[str, Any]] = [
    {
        "title": "Seasonal variation in glacier retreat: evidence from the northern survey",
        "authors": [{"given": "Imani", "family": "Okafor"}],
        "year": 2011,
        "venue": "Journal of Field Observations",
        "doi": "10.5555/counters.1",
    },
    {
        "title": "Tidal energy yields across a decade of coastal measurements",
        "authors": [{"given": "Jonas", "family": "Lindqvist"}],
        "year": 2019,
        "venue": "Workshop on Field Methods",
        "type": "proceedings-article",
        "sources": ["openalex", "semantic_scholar"],
    },
]


def _cite(work: dict[str, Any], key: str) -> CitedReference:
    authors = tuple(Author(**a) for a in work["authors"])
    fields = {name: work.get(name) for name in ("title", "year", "venue", "doi")}
    return CitedReference(key=key, authors=authors, **fields)


REFS = [
    _cite(WORKS[0], "glacier"),
    _cite(WORKS[1], "tidal"),
    CitedReference(key="fake", title="Quantum entanglement of breakfast cereals on the moon", year=2015),
]


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    universe = Universe([SimWork.model_validate(w) for w in WORKS])
    with SimulatorServer(universe, SimulatorConfig.unlimited()) as server:
        yield server


@pytest.fixture
def sim_runtime(sim: SimulatorServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runtime]:
    sim.configure(SimulatorConfig.unlimited())
    sim.reset()
    monkeypatch.setattr(bibliography_jobs, "read_references", lambda *_a, **_k: iter(REFS))
    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    for name, value in {"ALETHEIA_DATABASE_URL": url, "ALETHEIA_DATA_DIR": str(tmp_path / "data")}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ALETHEIA_OFFLINE", raising=False)
    monkeypatch.delenv("ALETHEIA_BROKER_URL", raising=False)
    reset_settings_cache()
    sources = ("crossref", "openalex", "semantic_scholar", "arxiv", "pubmed", "dblp", "acl_anthology")
    books = ("open_library", "google_books", "perseus", "ccel")
    settings: dict[str, Any] = dict(
        data_dir=tmp_path / "data",
        database_url=url,
        crossref_url=sim.url_for("crossref"),
        openalex_url=sim.url_for("openalex"),
        semantic_scholar_url=sim.url_for("semantic_scholar"),
        arxiv_api_url=sim.url_for("arxiv_api"),
        arxiv_url=sim.url_for("arxiv"),
        pubmed_url=sim.url_for("pubmed"),
        europe_pmc_url=sim.url_for("europe_pmc"),
        dblp_url=sim.url_for("dblp"),
        acl_anthology_url=sim.url_for("acl_anthology"),
        **{f"{s}_url": sim.url_for(s) for s in books},
        **{f"{s}_limits": FAST for s in (*sources, *books)},
        europe_pmc_limits=FAST,
        pubmed_limits_with_key=FAST,
        mailto="tests@example.org",
        http_timeout=2.0,
        http_attempts=2,
        circuit_failure_threshold=100,
        coalesce_window_ms=2.0,
        oa_fulltext=False,
    )
    yield Runtime.open(Settings(**settings))
    reset_settings_cache()


def test_queued_jobs_report_what_the_simulator_was_sent(sim: SimulatorServer, sim_runtime: Runtime) -> None:
    dispatcher = InlineDispatcher(sleep=lambda _s: None)
    ctx = ServiceContext(runtime=sim_runtime, dispatcher=dispatcher, runner=service.LoopThread())
    try:
        first = run_job(sim_runtime, "", ctx=ctx)
        sent_first = sim.stats()["totals"]["requests"]
        second = run_job(sim_runtime, "", ctx=ctx)  # the same references: the cache and library answer
        sent = sim.stats()["totals"]["requests"]
        assert ctx.gateway is not None
        stats = ctx.gateway.stats()
        gateway = {name: st for name, st in stats.items() if st.requests or st.cache_hits or st.extra}
    finally:
        ctx.close()
    one, two = (service.job_summary(sim_runtime, j) for j in (first, second))
    assert one["total"] == two["total"] == 3
    assert sent_first > 0 and one["requests"]["total"] == sent_first
    assert two["requests"]["total"] == sent - sent_first
    # The two jobs' counters, summed, are the one gateway's that served them both.
    for name, st in gateway.items():
        both = [s["sources"].get(name) for s in (one, two)]
        summed = [sum(e[c] for e in both if e) for c in ("requests", "errors", "rate_limited", "cache_hits")]
        assert summed == [st.requests, st.errors, st.rate_limited, st.cache_hits], name
        kinds: Counter[str] = Counter()
        for entry in both:
            kinds.update(entry["requests_by_kind"] if entry else {})
        assert +kinds == +Counter(requests_by_kind(st)), name
    for name in ("crossref", "openalex"):
        assert one["sources"][name]["requests"] > 0 and one["sources"][name]["status"] == "ok"
    # The second job's searches were answered by the gateway's memo of the first's: no request.
    memo = {name: e["search_memo_hits"] for name, e in two["requests"]["by_source"].items()}
    assert sum(memo.values()) > 0
    assert memo == {name: st.extra.get("search_memo_hits", 0) for name, st in gateway.items()}

    # A new worker (a new gateway, an empty memo): the raw cache answers, counted for the job.
    ctx = ServiceContext(runtime=sim_runtime, dispatcher=dispatcher, runner=service.LoopThread())
    try:
        third = run_job(sim_runtime, "", ctx=ctx)
    finally:
        ctx.close()
    three = service.job_summary(sim_runtime, third)
    assert three["requests"]["total"] == sim.stats()["totals"]["requests"] - sent
    assert sum(e["cache_hits"] for e in three["sources"].values()) > 0


def test_a_source_the_settings_turned_off_reads_as_such() -> None:
    """As the in-process gateway's stats said it: a source that failed because it was turned off is
    `disabled` or `offline`, not `unavailable`; one that answered stays `ok`."""
    counted = {
        "pubmed": {"status": "unavailable"},
        "crossref": {"status": "degraded"},
        "library": {"status": "ok"},
    }
    totals = {
        "crossref": SourceStats(requests=2, errors=1, extra={"requests_search": 2}),
        # what a reference's counters said: its process had turned PubMed off
        "pubmed": item_stats.summed([{"pubmed": {"status": "disabled"}}])["pubmed"],
    }

    out = measured_counters(totals, counted)
    assert {name: e["status"] for name, e in out.items()} == {
        "crossref": "degraded",
        "library": "ok",
        "pubmed": "disabled",
    }
    assert out["crossref"]["requests_by_kind"] == {"lookup": 0, "batch": 0, "search": 2}
    assert out["pubmed"]["requests"] == 0
    stored = [{"crossref": {"requests": 2, "errors": 1, "status": "offline"}}, {"library": {}}]
    offline = measured_counters(item_stats.summed(stored), counted)
    assert offline["library"]["status"] == "ok" and offline["crossref"]["status"] == "offline"
