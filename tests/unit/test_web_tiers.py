"""Tiers 4 and 5 in the evidence gatherer, end to end: a web reference verified against a local page
(the web tier on, 127.0.0.1 let through by the test-only allow-list), web search candidates from the
simulator looked up by identifier, and the LLM fallback with a fake; skipped tiers in the trail."""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from aletheia.config import Settings
from aletheia.config.settings import SourceLimits
from aletheia.core.evidence import Outcome, QueryKind
from aletheia.core.records import Author, CitedReference, SourceName
from aletheia.core.verdicts import Reason, Severity, VerdictStatus
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.pipeline.evidence.gather import verify_reference
from aletheia.pipeline.evidence.llm_fallback import ReferenceSuggester
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.llm.paced import PacedLLM
from aletheia.pipeline.reports.formats import reference_json
from aletheia.pipeline.reports.html import render_html
from aletheia.pipeline.reports.transparency import tier_trail
from aletheia.sources.cache import MemoryRawCache
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, SimWork, Universe
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from tests.unit.fake_llm import FakeLLM, tool_reply
from tests.unit.test_search_coverage_pipeline import FILLER, PUBMED_ONLY
from tests.unit.web_server import _Server, local_server

FAST = SourceLimits(rate=1000, burst=1000, concurrency=8, search_rate=1000)
# PUBMED_ONLY is held by PubMed only: a search of the general indexes does not find it, a web
# search does. FILLER: something for the sources to hold besides it.


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    works = [SimWork.model_validate(w) for w in (PUBMED_ONLY, FILLER)]
    with SimulatorServer(Universe(works), SimulatorConfig.unlimited(seed=2)) as server:
        yield server


@pytest.fixture(scope="module")
def web() -> Iterator[tuple[str, _Server]]:
    with local_server() as running:
        yield running


def settings_for(sim: SimulatorServer, tmp_path: Path, **overrides: Any) -> Settings:
    urls = {
        f"{name}_url": sim.url_for(source)
        for name, source in (
            ("crossref", "crossref"),
            ("openalex", "openalex"),
            ("semantic_scholar", "semantic_scholar"),
            ("arxiv_api", "arxiv_api"),
            ("arxiv", "arxiv"),
            ("pubmed", "pubmed"),
            ("dblp", "dblp"),
            ("tavily", "tavily"),
            ("brave_search", "brave_search"),
        )
    }
    limits = {
        f"{s}_limits": FAST for s in ("crossref", "openalex", "semantic_scholar", "arxiv", "pubmed", "dblp")
    }
    values: dict[str, Any] = {
        "data_dir": tmp_path,
        "http_timeout": 2.0,
        "http_attempts": 2,
        "coalesce_window_ms": 1.0,
        "tavily_limits": FAST,
        "web_tier_timeout_seconds": 5.0,
        **urls,
        **limits,
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=5.0) as client:
        yield client


async def verify(
    settings: Settings, http: httpx.AsyncClient, cited: CitedReference, *, resolver: Any = None, **gw: Any
) -> ReferenceOutcome:
    gateway = SourceGateway(settings, http, LocalRateLimiter())
    for name, value in gw.items():
        setattr(gateway.web_tiers, name, value)
    if resolver is not None:
        gateway.web_tiers.page.fetcher.resolver = resolver
    return await verify_reference(cited, gateway, current_year=2026)


def web_ref(url: str, title: str = "Scaling Laws for Widgets", **kw: Any) -> CitedReference:
    return CitedReference(key="w", entry_type="misc", title=title, url=url, **kw)


def _on(base: str) -> dict[str, Any]:
    """The web tier on, with the local server let through (tests only)."""
    return {
        "web_tier": True,
        "web_tier_allow_networks": "127.0.0.0/8",
        "web_tier_ports": f"80,443,{base.rsplit(':', 1)[1]}",
    }


async def test_a_web_page_answering_with_the_cited_title_is_verified_as_a_web_resource(
    sim: SimulatorServer, web: tuple[str, _Server], http: httpx.AsyncClient, tmp_path: Path
) -> None:
    base, _ = web
    out = await verify(settings_for(sim, tmp_path, **_on(base)), http, web_ref(f"{base}/redirect?to=/page"))
    v = out.verdict
    assert v.status is VerdictStatus.VERIFIED and Reason.WEB_PAGE_TITLE_MATCHES in v.reasons
    assert v.match is not None and v.match.source is SourceName.WEB and v.match.work_type == "web_page"
    assert v.match.urls["final"] == f"{base}/page"
    assert any(n.startswith("content type: web_page") for n in v.notes)
    assert [a.kind for a in out.evidence.answers] == [QueryKind.URL]  # no scholarly source was asked
    assert out.raw[0].raw["status"] == 200 and out.raw[0].raw["address"] == "127.0.0.1"


async def test_every_http_request_of_a_fetch_is_counted(
    sim: SimulatorServer, web: tuple[str, _Server], http: httpx.AsyncClient, tmp_path: Path
) -> None:
    base, _ = web
    gateway = SourceGateway(settings_for(sim, tmp_path, **_on(base)), http, LocalRateLimiter())
    await verify_reference(web_ref(f"{base}/redirect?to=/page"), gateway, current_year=2026)
    # HEAD /redirect, HEAD /page, GET /page (the GET starts where HEAD ended)
    assert gateway.stats()["web"].requests == 3
    assert "web" not in SourceGateway(settings_for(sim, tmp_path), http, LocalRateLimiter()).stats()


async def test_with_the_tier_off_a_web_reference_stays_out_of_scope(
    sim: SimulatorServer, web: tuple[str, _Server], http: httpx.AsyncClient, tmp_path: Path
) -> None:
    base, srv = web
    before = len(srv.hosts)
    out = await verify(settings_for(sim, tmp_path), http, web_ref(f"{base}/page"))
    assert out.verdict.status is VerdictStatus.OUT_OF_SCOPE and out.evidence.answers == ()
    assert len(srv.hosts) == before  # nothing was fetched


async def test_pages_that_do_not_answer_or_answer_otherwise(
    sim: SimulatorServer, web: tuple[str, _Server], http: httpx.AsyncClient, tmp_path: Path
) -> None:
    base, _ = web
    settings = settings_for(sim, tmp_path, **_on(base))
    for path in ("/gone", "/error"):
        v = (await verify(settings, http, web_ref(base + path))).verdict
        assert v.status is VerdictStatus.UNVERIFIABLE and Reason.WEB_PAGE_UNREACHABLE in v.reasons, path
    v = (await verify(settings, http, web_ref(f"{base}/other"))).verdict
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MINOR
    assert Reason.WEB_PAGE_TITLE_DIFFERS in v.reasons and not v.flagged
    # without the allow-list the local server is refused: unverifiable, never an accusation
    refused = settings_for(sim, tmp_path, **{**_on(base), "web_tier_allow_networks": ""})
    out = await verify(refused, http, web_ref(f"{base}/page"))
    assert out.verdict.status is VerdictStatus.UNVERIFIABLE
    assert "refused" in (out.evidence.answers[0].error or "")


async def test_an_archived_copy_is_dated(
    sim: SimulatorServer, web: tuple[str, _Server], http: httpx.AsyncClient, tmp_path: Path
) -> None:
    """web.archive.org is the local server here (a resolver that answers 127.0.0.1 for it)."""
    base, _ = web
    port = base.rsplit(":", 1)[1]

    async def archive_is_local(host: str, port: int) -> list[Any]:
        assert host == "web.archive.org"
        return [ipaddress.ip_address("127.0.0.1")]

    settings = settings_for(sim, tmp_path, **_on(base))
    archived = f"http://web.archive.org:{port}/web/2025/https://widgets.example/"
    asked = web_ref(archived, fields={"urldate": "2025-03-10"})
    v = (await verify(settings, http, asked, resolver=archive_is_local)).verdict
    assert v.status is VerdictStatus.VERIFIED
    # cited as accessed in 2023; the archive has only a 2025 snapshot: a minor difference
    old = web_ref(
        f"http://web.archive.org:{port}/web/20230105/https://widgets.example/",
        fields={"urldate": "2023-01-10"},
    )
    v = (await verify(settings, http, old, resolver=archive_is_local)).verdict
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MINOR
    assert Reason.ARCHIVE_DATE_DIFFERS in v.reasons
    assert any("archived copy of 2025-06-01" in n for n in v.notes)


def pubmed_only_cited() -> CitedReference:
    return CitedReference(
        key="ribeiro2018",
        entry_type="article",
        title=PUBMED_ONLY["title"],
        authors=(Author(given="Ana", family="Ribeiro"),),
        year=2018,
        venue="Proceedings of the Field Methods Workshop",  # not a life-science venue: PubMed not searched
    )


async def test_without_keys_the_web_search_and_the_llm_are_recorded_as_skipped(
    sim: SimulatorServer, http: httpx.AsyncClient, tmp_path: Path
) -> None:
    out = await verify(settings_for(sim, tmp_path), http, pubmed_only_cited())
    v = out.verdict
    assert v.status is VerdictStatus.NOT_FOUND
    skipped = {
        a.kind: a for a in out.evidence.answers if a.kind in (QueryKind.WEB_SEARCH, QueryKind.SUGGESTION)
    }
    assert skipped[QueryKind.WEB_SEARCH].outcome is Outcome.FAILED
    assert "TAVILY_API_KEY" in (skipped[QueryKind.WEB_SEARCH].error or "")
    assert "ANTHROPIC_API_KEY" in (skipped[QueryKind.SUGGESTION].error or "")
    assert not {SourceName.TAVILY, SourceName.LLM} & set(v.sources_unavailable)
    assert "web search skipped: no key (TAVILY_API_KEY or BRAVE_SEARCH_API_KEY)" in v.notes
    assert "LLM suggestion skipped: no key (ANTHROPIC_API_KEY)" in v.notes


async def test_a_web_search_candidate_is_verified_by_its_identifier(
    sim: SimulatorServer, http: httpx.AsyncClient, tmp_path: Path
) -> None:
    settings = settings_for(sim, tmp_path, tavily_api_key="tvly-test")
    out = await verify(settings, http, pubmed_only_cited())
    v = out.verdict
    # found through the candidate's PMID, then judged like any search hit: the venue cited is not
    # PubMed's (minor), and nothing else differs
    assert v.status is VerdictStatus.METADATA_ERROR and v.severity is Severity.MINOR, v.notes
    assert Reason.MATCHED_BY_SEARCH in v.reasons and Reason.VENUE_UNRESOLVED in v.reasons
    assert v.match is not None and v.match.source is SourceName.PUBMED and v.match.pmid == "29999001"
    kinds = [(a.source, a.kind, a.query) for a in out.evidence.answers]
    assert (SourceName.PUBMED, QueryKind.SEARCH, "web search candidate PMID:29999001") in kinds
    assert any(a.source is SourceName.TAVILY and a.kind is QueryKind.WEB_SEARCH for a in out.evidence.answers)
    # found, so no LLM was asked
    assert all(a.kind is not QueryKind.SUGGESTION for a in out.evidence.answers)


async def test_the_llm_suggestion_is_recorded_and_never_decides(
    sim: SimulatorServer, http: httpx.AsyncClient, tmp_path: Path
) -> None:
    invented = CitedReference(
        key="x",
        entry_type="article",
        title="Quantum entanglement of breakfast cereals under lunar gravity",
        authors=(Author(given="Ann", family="Nobody"),),
        year=2015,
        venue="Journal of Field Observations",
    )
    llm = FakeLLM(
        [tool_reply("suggest_reference", {"title": invented.title, "authors": ["Ann Nobody"], "year": 2015})]
    )
    out = await verify(settings_for(sim, tmp_path), http, invented, suggester=ReferenceSuggester(llm))
    v = out.verdict
    assert v.status is VerdictStatus.NOT_FOUND and v.match is None
    answer = next(a for a in out.evidence.answers if a.kind is QueryKind.SUGGESTION)
    assert answer.outcome is Outcome.FOUND and answer.records[0].title == invented.title
    assert any(n.startswith("LLM suggestion (not evidence") and invented.title in n for n in v.notes)
    assert len(llm.requests) == 1


def _shown(out: ReferenceOutcome) -> tuple[dict[str, Any], str]:
    """The reference's JSON object and the HTML report's row for it."""
    ref = reference_json(out)
    page = render_html({"summary": {"total": 1, "by_verdict": {}, "sources": {}}, "references": [ref]})
    return ref, page


async def test_skipped_tiers_and_suggestions_are_said_in_the_json_and_the_html(
    sim: SimulatorServer, http: httpx.AsyncClient, tmp_path: Path
) -> None:
    skipped, page = _shown(await verify(settings_for(sim, tmp_path), http, pubmed_only_cited()))
    assert "web search skipped: no key (TAVILY_API_KEY or BRAVE_SEARCH_API_KEY)" in skipped["notes"]
    assert "LLM suggestion skipped: no key (ANTHROPIC_API_KEY)" in skipped["notes"]
    assert tier_trail(skipped) == [
        "web search skipped: no key (TAVILY_API_KEY or BRAVE_SEARCH_API_KEY)",
        "LLM suggestion skipped: no key (ANTHROPIC_API_KEY)",
    ]
    assert 'data-trail="web_search">web search skipped: no key (TAVILY_API_KEY' in page
    assert 'data-trail="llm">LLM suggestion skipped: no key (ANTHROPIC_API_KEY)' in page
    assert "could not ask" not in page  # a tier that is off is skipped, not a source that failed
    llm = FakeLLM([tool_reply("suggest_reference", {"title": "Sleep spindles after cardiac surgery"})])
    suggested, page = _shown(
        await verify(
            settings_for(sim, tmp_path), http, pubmed_only_cited(), suggester=ReferenceSuggester(llm)
        )
    )
    line = "LLM suggestion (not evidence; check it by hand): 'Sleep spindles after cardiac surgery'"
    assert line in suggested["notes"] and suggested["verdict"] == "not_found"
    assert f'data-trail="llm">{line.replace(chr(39), "&#39;")}</div>' in page
    # a verified web page asked neither tier: no trail line
    assert tier_trail({"notes": ["content type: web_page (a web resource answered)"]}) == []


async def test_the_gateway_caches_web_answers_and_paces_the_model(
    sim: SimulatorServer, web: tuple[str, _Server], http: httpx.AsyncClient, tmp_path: Path
) -> None:
    base, srv = web
    settings = settings_for(sim, tmp_path, **_on(base), anthropic_api_key="sk-test")
    cache = MemoryRawCache.from_settings(settings)
    first = SourceGateway(settings, http, LocalRateLimiter(), cache=cache)
    assert isinstance(first.web_tiers.suggester.llm, PacedLLM)
    out = await verify_reference(web_ref(f"{base}/redirect?to=/page"), first, current_year=2026)
    before = len(srv.hosts)
    second = SourceGateway(settings, http, LocalRateLimiter(), cache=cache)  # a second run
    again = await verify_reference(web_ref(f"{base}/redirect?to=/page"), second, current_year=2026)
    assert len(srv.hosts) == before and second.stats()["web"].requests == 0
    assert again.verdict.status is VerdictStatus.VERIFIED and again.verdict == out.verdict
