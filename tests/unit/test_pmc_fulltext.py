"""The full-text chain with PubMed Central (issue 12): arXiv HTML, then PMC's open-access JATS, then
the PDF, then the abstract; and a claim on a biomedical paper proved against its PMC text. Against
the loopback simulator (Europe PMC serves the works' `pmc_body` as JATS)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from aletheia.config import Settings
from aletheia.config.settings import SourceLimits
from aletheia.core.artifacts import parse_artifact
from aletheia.core.records import SourceName, WorkRecord
from aletheia.pipeline.claims.model import NoCandidates
from aletheia.pipeline.claims.reasoner import LexicalReasoner
from aletheia.pipeline.claims.verify_and_cite import outcome_as_dict, verify_and_cite
from aletheia.pipeline.documents.fulltext import fetch_paper_text
from aletheia.pipeline.documents.pmc_fulltext import wants_pmc
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, SimWork, Universe
from aletheia.sources.transport.ratelimit import build_rate_limiter
from tests.unit.test_europe_pmc_client import CLOSED, OPEN

FAST = SourceLimits(rate=1000, burst=1000, concurrency=8)
NOW = datetime(2026, 5, 23, 17, 42, tzinfo=UTC)
DOI_ONLY: dict[str, Any] = {
    "title": "Gut microbiome diversity after neonatal antibiotic exposure",
    "authors": [{"given": "Kofi", "family": "Adeyemi"}, {"given": "Lea", "family": "Moreau"}],
    "year": 2021,
    "venue": "Pediatric Microbiology Reports",
    "doi": "10.5555/gut.2021.8",
    "pmid": "33000777",
    "pmcid": "PMC8000777",
    "abstract": "We followed the gut microbiome of neonates who received antibiotics in their first week.",
    "pmc_body": [
        {
            "title": "Results",
            "paragraphs": [
                "Shannon diversity of the gut microbiome remained lower at six months in neonates who "
                "received antibiotics during the first week of life than in unexposed neonates."
            ],
        }
    ],
}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    works = [SimWork.model_validate(w) for w in (OPEN, CLOSED, DOI_ONLY)]
    with SimulatorServer(Universe(works), SimulatorConfig.unlimited()) as server:
        yield server


@pytest.fixture
def settings(sim: SimulatorServer, tmp_path: Path) -> Settings:
    sim.configure(SimulatorConfig.unlimited())
    sim.reset()
    urls = {
        f"{name}_url": sim.url_for(source)
        for name, source in (
            ("crossref", "crossref"),
            ("openalex", "openalex"),
            ("semantic_scholar", "s2"),
            ("arxiv_api", "arxiv_api"),
            ("arxiv", "arxiv"),
            ("pubmed", "pubmed"),
            ("europe_pmc", "europe_pmc"),
        )
    }
    limits = {f"{s}_limits": FAST for s in ("crossref", "openalex", "semantic_scholar", "arxiv", "pubmed")}
    return Settings(
        data_dir=tmp_path / "data",
        **urls,
        **limits,
        europe_pmc_limits=FAST,
        http_attempts=2,
        circuit_failure_threshold=100,
        # The universe's open-access links name hosts outside the simulator: never fetched here.
        oa_fulltext=False,
    )


@pytest.fixture
async def gateway(settings: Settings) -> AsyncIterator[SourceGateway]:
    async with httpx.AsyncClient() as http:
        yield SourceGateway(settings, http, build_rate_limiter(settings))


def record(**fields: Any) -> WorkRecord:
    return WorkRecord(source=SourceName.SEMANTIC_SCHOLAR, abstract="An abstract of the paper.", **fields)


def europe_pmc_requests(sim: SimulatorServer) -> int:
    return int(sim.source_stats("europe_pmc")["requests"])


async def test_a_pmid_leads_to_the_open_access_text(gateway: SourceGateway) -> None:
    fetched = await fetch_paper_text(gateway, record(title=OPEN["title"], pmid="31000001"))
    assert fetched.paper is not None and fetched.paper.origin == "pmc_jats"
    assert fetched.attempts == ["pmc: PMC7000001, pmc_jats, 3 blocks"]
    assert not fetched.abstract_only


async def test_a_doi_in_a_life_science_venue_is_located_by_europe_pmc(gateway: SourceGateway) -> None:
    fetched = await fetch_paper_text(
        gateway, record(title=DOI_ONLY["title"], doi="10.5555/gut.2021.8", venue=DOI_ONLY["venue"])
    )
    assert fetched.paper is not None and fetched.paper.origin == "pmc_jats"


async def test_no_open_access_text_falls_through_to_the_abstract(gateway: SourceGateway) -> None:
    fetched = await fetch_paper_text(gateway, record(title=CLOSED["title"], pmid="32000042"))
    assert fetched.abstract_only
    assert fetched.attempts == ["pmc: PMC7100042, not in the open-access subset", "abstract_only"]
    # Known PMCID, not open access: the 404 is the answer.
    fetched = await fetch_paper_text(gateway, record(pmcid="PMC7100042"))
    assert fetched.attempts[0] == "pmc: PMC7100042 has no open-access full text"


async def test_pmc_comes_after_arxiv_html_and_before_the_pdf(
    gateway: SourceGateway, sim: SimulatorServer
) -> None:
    # arXiv has no such paper (its HTML and PDF answer 404): PMC is asked after the HTML, and once
    # it has the text the PDF is never fetched.
    fetched = await fetch_paper_text(gateway, record(arxiv_id="2101.99999", pmid="31000001"))
    assert fetched.paper is not None and fetched.paper.origin == "pmc_jats"
    assert [a.split(":")[0] for a in fetched.attempts] == ["arxiv_html", "pmc"]
    assert sim.source_stats("arxiv")["requests"] == 1


async def test_a_failing_europe_pmc_is_noted_and_the_chain_goes_on(
    gateway: SourceGateway, sim: SimulatorServer
) -> None:
    sim.configure(SimulatorConfig.unlimited().with_source("europe_pmc", faults={"error_500": 1.0}))
    fetched = await fetch_paper_text(gateway, record(pmid="31000001"))
    assert fetched.abstract_only
    assert fetched.attempts[0].startswith("pmc: ") and "500" in fetched.attempts[0]


async def test_other_papers_never_ask_europe_pmc(gateway: SourceGateway, sim: SimulatorServer) -> None:
    cs_paper = record(doi="10.5555/cs.2020.1", venue="Conference on Neural Information Processing Systems")
    assert not wants_pmc(cs_paper)
    fetched = await fetch_paper_text(gateway, cs_paper)
    assert fetched.abstract_only and europe_pmc_requests(sim) == 0
    assert wants_pmc(record(pmcid="PMC1")) and wants_pmc(record(doi="10.1/x", venue="The Lancet"))


async def test_a_claim_on_a_biomedical_paper_is_proved_against_its_pmc_text(
    gateway: SourceGateway, settings: Settings, tmp_path: Path
) -> None:
    claim = "Gut microbiome diversity remained lower at six months after neonatal antibiotics"
    citation, path = await verify_and_cite(
        claim, project_root=tmp_path, gateway=gateway, settings=settings, reasoner=LexicalReasoner(), now=NOW
    )
    assert citation is not None, path
    artifact = parse_artifact(await asyncio.to_thread(Path(path).read_text, encoding="utf-8"))
    assert not artifact.frontmatter.text_excerpts_unavailable
    assert "full_text: pmc_jats" in artifact.frontmatter.triangulation.notes
    assert artifact.body.excerpts and artifact.body.excerpts[0].location.startswith("Section 1 Results")
    shown = outcome_as_dict((citation, path))
    assert (shown["content_type"], shown["tier"]) == ("exact_quote", 2)
    assert shown["verification_status"] == (
        "partially_verified" if citation.single_source_verified else "verified"
    )


def test_a_refusal_is_unverified_content() -> None:
    refusal = NoCandidates(claim="anything", detail="no candidate")
    shown = outcome_as_dict((None, refusal))
    assert (shown["verification_status"], shown["content_type"]) == ("unverified", "unverified_content")
