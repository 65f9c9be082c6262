"""verify_and_cite end to end against the loopback simulator (no network, no real model).

The universe (tests/fixtures/claims/universe.jsonl) is hand-written: a paper with arXiv HTML full
text, an arXiv preprint whose Semantic Scholar record names the wrong first author, a DOI-only
paper (abstract-only fallback), a retracted paper and a distractor.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from aletheia.config import Settings
from aletheia.config.settings import SourceLimits
from aletheia.core.artifacts import parse_artifact
from aletheia.pipeline.artifact_checks.drift_check import audit_existing_citations
from aletheia.pipeline.audit.claim_events import ClaimTrail
from aletheia.pipeline.claims.judge import MAX_JUDGE_ROUNDS, ModelJudge, RuleJudge
from aletheia.pipeline.claims.model import (
    NoCandidates,
    NoSupportingExcerpts,
    RetractedWork,
    RetriesExhausted,
    TriangulationConflict,
)
from aletheia.pipeline.claims.reasoner import LexicalReasoner, ModelReasoner
from aletheia.pipeline.claims.verify_and_cite import ClaimTools, outcome_as_dict, verify_and_cite
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, Universe
from tests.unit.fake_llm import FakeLLM, tool_reply

UNIVERSE = Path(__file__).resolve().parents[1] / "fixtures" / "claims" / "universe.jsonl"
NOW = datetime(2026, 5, 23, 17, 42, tzinfo=UTC)
FAST = SourceLimits(rate=1000, burst=1000, concurrency=8)

HAPPY_CLAIM = "Trimmed median aggregation tolerates up to one third of Byzantine sensor nodes"
CONFLICT_CLAIM = (
    "Norm clipping defenses fail against coordinated gradient poisoning attacks in federated learning"
)


@pytest.fixture(scope="module")
def simulator() -> Iterator[SimulatorServer]:
    with SimulatorServer(Universe.from_jsonl(UNIVERSE), SimulatorConfig.unlimited()) as server:
        yield server


def _settings(simulator: SimulatorServer, data_dir: Path) -> Settings:
    return Settings(
        data_dir=data_dir,
        crossref_url=simulator.url_for("crossref"),
        openalex_url=simulator.url_for("openalex"),
        semantic_scholar_url=simulator.url_for("s2"),
        arxiv_api_url=simulator.url_for("arxiv_api"),
        arxiv_url=simulator.url_for("arxiv"),
        pubmed_url=simulator.url_for("pubmed"),
        crossref_limits=FAST,
        openalex_limits=FAST,
        semantic_scholar_limits=FAST,
        arxiv_limits=FAST,
        pubmed_limits=FAST,
        http_attempts=2,
        circuit_failure_threshold=100,
        # The universe's open-access links name hosts outside the simulator: never fetched here.
        oa_fulltext=False,
    )


@pytest.fixture
def settings(simulator: SimulatorServer, tmp_path: Path) -> Iterator[Settings]:
    simulator.configure(SimulatorConfig.unlimited())
    simulator.reset()
    yield _settings(simulator, tmp_path / "data")
    simulator.configure(SimulatorConfig.unlimited())


async def _cite(claim: str, gateway: SourceGateway, settings: Settings, project: Path, **options: Any) -> Any:
    options.setdefault("reasoner", LexicalReasoner())
    return await verify_and_cite(
        claim, project_root=project, gateway=gateway, settings=settings, now=NOW, **options
    )


async def test_happy_path_writes_the_artifact(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    citation, path = await _cite(HAPPY_CLAIM, gateway, settings, project)
    assert citation is not None, path
    assert path == project / "docs" / "citations" / "2304.01234-halvorsen-trimmed.md"
    artifact = parse_artifact(path.read_text(encoding="utf-8"))
    front = artifact.frontmatter
    # Identity verbatim from the source; the trail names both sources.
    assert front.title == "Trimmed Median Aggregation for Byzantine-Robust Sensor Fusion"
    assert front.authors == ["Ingrid Halvorsen", "Tomasz Wierzbicki"]
    assert (front.year, front.doi, front.arxiv_id) == (2023, "10.5555/jds.2023.0042", "2304.01234")
    assert [s.value for s in front.sources_consulted] == ["semantic_scholar", "openalex"]
    assert front.triangulation.decisive_fields_agreed
    assert "first_author_surname" in front.triangulation.decisive_fields_checked
    assert not front.single_source_verified and not front.human_overridden
    assert not front.text_excerpts_unavailable
    assert front.claim_supported == HAPPY_CLAIM
    assert front.verified_at == NOW
    excerpts = artifact.body.excerpts
    assert excerpts[0].location == "Section 3.1 Breakdown under attack, paragraph 1"
    assert excerpts[0].text.startswith("The trimmed median aggregation tolerates up to one third")
    assert citation.text.startswith("Ingrid Halvorsen, Tomasz Wierzbicki. *Trimmed Median")
    assert "@article{halvorsen2023trimmed," in artifact.body.bibtex
    assert outcome_as_dict((citation, path))["ok"] is True


async def test_wrong_first_author_at_s2_is_a_triangulation_conflict(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    citation, report = await _cite(CONFLICT_CLAIM, gateway, settings, project)
    assert citation is None
    assert isinstance(report, TriangulationConflict)
    (field,) = report.fields
    assert field.field == "first_author_surname"
    assert (field.primary_source.value, field.primary_value) == ("semantic_scholar", "Lindqvist")
    assert (field.secondary_source.value, field.secondary_value) == ("arxiv", "Tanaka")
    assert not (project / "docs" / "citations").exists()


async def test_human_override_records_the_reason(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    with pytest.raises(ValueError, match="override_reason"):
        await _cite(CONFLICT_CLAIM, gateway, settings, project, override=True)
    reason = "S2 has a stale author list; arXiv's listing is authoritative"
    citation, path = await _cite(
        CONFLICT_CLAIM, gateway, settings, project, override=True, override_reason=reason
    )
    assert citation is not None and citation.human_overridden
    front = parse_artifact(path.read_text(encoding="utf-8")).frontmatter
    assert front.human_overridden and front.override_reason == reason
    assert not front.triangulation.decisive_fields_agreed
    assert any(
        note.startswith("overridden_conflict: first_author_surname") for note in front.triangulation.notes
    )
    # The accepted disagreement is part of the artifact (issue 29) ...
    assert [(c.field, c.source.value, c.recorded, c.accepted) for c in front.overridden_conflicts] == [
        ("first_author_surname", "arxiv", "Lindqvist", "Tanaka")
    ]


async def test_an_overridden_artifact_is_not_drift_and_the_reason_is_in_the_trail(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    reason = "S2 has a stale author list; arXiv's listing is authoritative"
    trail = ClaimTrail()
    citation, path = await _cite(
        CONFLICT_CLAIM, gateway, settings, project, override=True, override_reason=reason, trail=trail
    )
    assert citation is not None, path
    events = dict(trail.events)
    assert events["claim_identity"]["overridden"] is True
    assert events["claim_identity"]["override_reason"] == reason
    assert events["claim_decision"]["human_overridden"] is True
    assert events["claim_decision"]["override_reason"] == reason
    # ... so every later audit asks arXiv again, hears "Tanaka" again, and reports no drift.
    report = await audit_existing_citations(project, gateway)
    assert [d.kind for a in report.artifacts for d in a.drifts] == [] and report.exit_code() == 0
    (audited,) = report.artifacts
    assert [(a.kind, a.source, a.current) for a in audited.accepted] == [
        ("first_author_changed", "arxiv", "Tanaka")
    ]
    assert reason in audited.accepted[0].detail


async def test_the_triangulate_tool_takes_a_human_override(gateway: SourceGateway) -> None:
    with pytest.raises(ValueError, match="override_reason"):
        ClaimTools(gateway, LexicalReasoner(), override_reason=" ")
    for reason in (None, "arXiv's listing is authoritative"):
        tools = ClaimTools(gateway, LexicalReasoner(), override_reason=reason)
        query = {"query": "gradient poisoning defenses federated learning"}
        found = await tools.dispatch("search_papers", query)
        paper_id = next(c["paper_id"] for c in found["candidates"] if "Poisoning Defenses" in c["title"])
        gate = await tools.dispatch("triangulate", {"paper_id": paper_id})
        assert [c["field"] for c in gate["conflicts"]] == ["first_author_surname"]
        assert gate["verified"] is (reason is not None)
        assert gate.get("override_reason") == reason and gate.get("human_overridden", False) is (
            reason is not None
        )


async def test_a_vague_claim_has_no_candidates(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    citation, report = await _cite("Things are good", gateway, settings, project)
    assert citation is None and isinstance(report, NoCandidates)
    assert "too vague" in report.detail


async def test_a_claim_no_paper_fits_has_no_candidates(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    citation, report = await _cite(
        "Quantum annealers factor semiprime integers faster than lattice sieves", gateway, settings, project
    )
    assert citation is None and isinstance(report, NoCandidates)
    assert report.queries and report.query == report.queries[0]


async def test_a_503_storm_exhausts_the_retries(
    simulator: SimulatorServer, gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    storm = {"faults": {"error_503": 1.0}}
    simulator.configure({"sources": dict.fromkeys(("semantic_scholar", "openalex"), storm)})
    citation, report = await _cite(HAPPY_CLAIM, gateway, settings, project)
    assert citation is None and isinstance(report, RetriesExhausted)
    assert report.source in ("semantic_scholar", "openalex")
    assert "503" in report.error
    # Each failing search was attempted `http_attempts` times, not once.
    assert simulator.source_stats("semantic_scholar")["requests"] >= 2


async def test_abstract_only_fallback(gateway: SourceGateway, settings: Settings, project: Path) -> None:
    citation, path = await _cite(
        "Soil moisture memory amplifies summer heatwaves in continental Europe", gateway, settings, project
    )
    assert citation is not None and citation.text_excerpts_unavailable
    artifact = parse_artifact(path.read_text(encoding="utf-8"))
    assert artifact.frontmatter.text_excerpts_unavailable
    # Issue 19: the abstract's own sentence is quoted, located in the abstract.
    assert [(e.text, e.location) for e in artifact.body.excerpts] == [
        (
            "We show that soil moisture memory amplifies summer heatwaves in continental Europe by"
            " reducing evaporative cooling over several weeks.",
            "Abstract",
        )
    ]
    assert artifact.body.excerpts[0].text in (artifact.body.abstract or "")
    assert "full_text: abstract" in artifact.frontmatter.triangulation.notes


async def test_full_text_failures_fall_back_to_the_abstract(
    simulator: SimulatorServer, gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    simulator.configure({"sources": {"arxiv": {"faults": {"error_503": 1.0}}}})
    citation, path = await _cite(
        "Sensor networks fuse readings from nodes that may be faulty or adversarial",
        gateway,
        settings,
        project,
    )
    assert citation is not None and citation.text_excerpts_unavailable
    assert parse_artifact(path.read_text(encoding="utf-8")).frontmatter.text_excerpts_unavailable


async def test_a_retracted_paper_is_refused(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    citation, report = await _cite(
        "Daily coffee consumption improves memory consolidation during sleep", gateway, settings, project
    )
    assert citation is None and isinstance(report, RetractedWork)
    assert report.status == "retracted"


async def test_model_path_with_a_fake_llm(gateway: SourceGateway, settings: Settings, project: Path) -> None:
    def quote_and_invent(request: dict[str, Any]) -> Any:
        assert "plain averaging fails" in request["messages"][0]["content"]  # it was sent the paper
        return tool_reply(
            "submit_excerpts",
            {
                "excerpts": [
                    "By contrast, plain averaging fails as soon as a single node reports an unbounded value.",
                    "Averaging always fails under any attack whatsoever.",  # not in the paper: dropped
                ]
            },
        )

    llm = FakeLLM(
        [
            tool_reply(
                "submit_claim",
                {
                    "assertion": "Plain averaging fails with one unbounded node",
                    "queries": ["averaging sensor"],
                },
            ),
            tool_reply("search_papers", {"query": "trimmed median Byzantine sensor fusion"}),
            tool_reply(
                "submit_ranking", {"paper_ids": ["doi:10.5555/jds.2023.0042", "doi:10.5555/invented.1"]}
            ),
            quote_and_invent,
        ]
    )
    citation, path = await _cite(
        "Averaging sensor readings breaks with one bad node",
        gateway,
        settings,
        project,
        reasoner=ModelReasoner(llm),
    )
    assert citation is not None, path
    artifact = parse_artifact(path.read_text(encoding="utf-8"))
    assert [e.text for e in artifact.body.excerpts] == [
        "By contrast, plain averaging fails as soon as a single node reports an unbounded value."
    ]
    assert artifact.frontmatter.claim_supported == "Plain averaging fails with one unbounded node"
    assert "ranker: anthropic:fake-claude" in artifact.frontmatter.triangulation.notes
    assert [r["tool_choice"] for r in llm.requests][:3] == [
        {"type": "tool", "name": "submit_claim"},
        {"type": "any"},
        {"type": "any"},
    ]


async def test_only_invented_quotes_means_no_supporting_excerpts(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    llm = FakeLLM(
        [
            tool_reply(
                "submit_claim", {"assertion": HAPPY_CLAIM, "queries": ["trimmed median Byzantine sensor"]}
            ),
            tool_reply("submit_ranking", {"paper_ids": ["doi:10.5555/jds.2023.0042"]}),
            tool_reply("submit_excerpts", {"excerpts": ["Trimmed medians tolerate half of all nodes."]}),
            # The model judge names no excerpt verbatim in three rounds: everything is not_enough.
            *[tool_reply("submit_judgements", {"judgements": []})] * MAX_JUDGE_ROUNDS,
        ]
    )
    citation, report = await _cite(
        HAPPY_CLAIM, gateway, settings, project, reasoner=ModelReasoner(llm), judge=ModelJudge(llm)
    )
    assert citation is None and isinstance(report, NoSupportingExcerpts)
    assert report.proposed == ("Trimmed medians tolerate half of all nodes.",)
    assert report.text_origin == "arxiv_html"
    assert report.judgements and {j["label"] for j in report.judgements} == {"not_enough"}
    assert report.judge == "anthropic:fake-claude"


async def test_an_invented_quote_never_reaches_the_artifact(
    gateway: SourceGateway, settings: Settings, project: Path
) -> None:
    """The model's quote is not in the paper: dropped. The paper's own sentence, judged by the
    offline rules, is what the artifact quotes."""
    invented = "Trimmed medians tolerate half of all nodes."
    llm = FakeLLM(
        [
            tool_reply("submit_claim", {"assertion": HAPPY_CLAIM, "queries": ["trimmed median Byzantine"]}),
            tool_reply("submit_ranking", {"paper_ids": ["doi:10.5555/jds.2023.0042"]}),
            tool_reply("submit_excerpts", {"excerpts": [invented]}),
        ]
    )
    trail = ClaimTrail()
    citation, path = await _cite(
        HAPPY_CLAIM, gateway, settings, project, reasoner=ModelReasoner(llm), judge=RuleJudge(), trail=trail
    )
    assert citation is not None, path
    text = path.read_text(encoding="utf-8")
    assert invented not in text and citation.excerpts
    judged = [body for kind, body in trail.events if kind == "claim_judgement"]
    assert judged[0]["proposed_not_found"] == [invented]


async def test_the_five_tools_dispatch(gateway: SourceGateway) -> None:
    tools = ClaimTools(gateway, LexicalReasoner())
    assert set(tools.definitions) == {
        "extract_claim",
        "search_papers",
        "fetch_paper_text",
        "match_evidence",
        "triangulate",
    }
    found = await tools.dispatch("search_papers", {"query": "trimmed median Byzantine sensor fusion"})
    paper_id = found["candidates"][0]["paper_id"]
    text = await tools.dispatch("fetch_paper_text", {"paper_id": paper_id})
    assert text["origin"] == "arxiv_html"
    evidence = await tools.dispatch(
        "match_evidence",
        {
            "paper_id": paper_id,
            "claim": HAPPY_CLAIM,
            "excerpts": ["Robust statistics offers aggregation rules", "made up"],
        },
    )
    assert [e["location"] for e in evidence["excerpts"]] == ["Section 1 Introduction, paragraph 2"]
    assert evidence["rejected"] == ["made up"]
    gate = await tools.dispatch("triangulate", {"paper_id": paper_id})
    assert gate["verified"] and gate["secondary_source"] == "openalex"
    assert (await tools.dispatch("triangulate", {"paper_id": "doi:10.1/none"}))["error"].startswith(
        "KeyError"
    )


def test_cli_cite_and_check(
    simulator: SimulatorServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aletheia.config.settings import reset_settings_cache
    from aletheia.producers.cli import main

    simulator.configure(SimulatorConfig.unlimited())
    env = {**simulator.env(), "ALETHEIA_DATA_DIR": str(tmp_path / "data"), "ALETHEIA_HTTP_ATTEMPTS": "2"}
    for name in ("SEMANTIC_SCHOLAR", "OPENALEX", "ARXIV", "CROSSREF", "PUBMED"):
        env[f"ALETHEIA_{name}_LIMITS"] = json.dumps({"rate": 1000, "burst": 1000, "concurrency": 8})
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    reset_settings_cache()
    project = tmp_path / "project"
    project.mkdir()
    runner = CliRunner()
    try:
        ok = runner.invoke(main, ["cite", HAPPY_CLAIM, "--project-root", str(project), "--format", "json"])
        assert ok.exit_code == 0, ok.output
        result = json.loads(ok.stdout)
        assert result["artifact"].endswith("docs/citations/2304.01234-halvorsen-trimmed.md")
        refused = runner.invoke(main, ["cite", CONFLICT_CLAIM, "--project-root", str(project)])
        assert refused.exit_code == 1
        assert refused.stdout.startswith("refused: TriangulationConflict:")
        (project / "code.py").write_text(
            "# research(2026-05): trimmed medians\n# see docs/citations/2304.01234-halvorsen-trimmed.md\n",
            encoding="utf-8",
        )
        checked = runner.invoke(main, ["check", str(project)])
        assert checked.exit_code == 0, checked.output
        (project / "more.py").write_text("# see docs/citations/1902.06156-baruch-alie.md\n", encoding="utf-8")
        assert runner.invoke(main, ["check", str(project)]).exit_code == 1
        # Issue 29: the artifact given to `verify` is one reference, the work it cites.
        verified = runner.invoke(main, ["verify", result["artifact"], "--format", "jsonl"])
        assert verified.exit_code == 0, verified.output
        lines = [json.loads(line) for line in verified.stdout.splitlines() if line.startswith("{")]
        (entry,) = [line for line in lines if "key" in line]
        assert entry["key"] == "2304.01234-halvorsen-trimmed" and entry["verdict"] == "verified", entry
        # An accepted override is not drift at the next audit; the reason is shown.
        reason = "S2 has a stale author list"
        overridden = runner.invoke(
            main, ["cite", CONFLICT_CLAIM, "--project-root", str(project), "--override-reason", reason]
        )
        assert overridden.exit_code == 0, overridden.output
        assert f"note: human override: {reason}" in overridden.stdout
        audited = runner.invoke(main, ["audit", str(project)])
        assert audited.exit_code == 0, audited.output
        assert "first_author_surname: artifact says 'Lindqvist', arxiv now says 'Tanaka'" in audited.stdout
        assert f"(accepted by override: {reason})" in audited.stdout
    finally:
        reset_settings_cache()


# --- Tier 0: the verified library before the APIs (issue 29) ---------------------------------------


def _library(tmp_path: Path) -> Any:
    from aletheia.storage.db import engine_for
    from aletheia.storage.library import SqlLibrary

    return SqlLibrary(engine_for(f"sqlite:///{tmp_path / 'library.sqlite3'}"))


def _searches(simulator: SimulatorServer) -> int:
    return sum(
        count
        for source in ("s2", "openalex")
        for kind, count in simulator.source_stats(source)["by_kind"].items()
        if "search" in kind
    )


async def test_a_claim_is_cited_from_the_library_without_a_search(
    simulator: SimulatorServer, gateway: SourceGateway, settings: Settings, project: Path, tmp_path: Path
) -> None:
    library = _library(tmp_path)
    known = await gateway.semantic_scholar.paper("DOI:10.5555/jds.2023.0042")
    assert known is not None
    library.remember_sync([known])
    gateway.library = library
    simulator.reset()
    trail = ClaimTrail()
    citation, path = await _cite(HAPPY_CLAIM, gateway, settings, project, trail=trail)
    assert citation is not None, path
    assert path.name == "2304.01234-halvorsen-trimmed.md"
    (candidates,) = [body for kind, body in trail.events if kind == "claim_candidates"]
    assert candidates["tier"] == "library" and candidates["queries"] == []
    assert _searches(simulator) == 0  # no API was searched; the text and the gate still were asked
    assert simulator.source_stats("openalex")["requests"] > 0


async def test_when_the_library_does_not_support_the_claim_the_apis_are_searched(
    simulator: SimulatorServer, gateway: SourceGateway, settings: Settings, project: Path, tmp_path: Path
) -> None:
    from aletheia.sources.base import SourceRecord
    from tests.unit.claims_library_fixtures import NEAR_MISS

    library = _library(tmp_path)
    library.remember_sync([SourceRecord(NEAR_MISS, None, NOW)])
    gateway.library = library
    trail = ClaimTrail()
    citation, path = await _cite(HAPPY_CLAIM, gateway, settings, project, trail=trail)
    assert citation is not None, path
    assert path.name == "2304.01234-halvorsen-trimmed.md"
    tiers = [body["tier"] for kind, body in trail.events if kind == "claim_candidates"]
    assert tiers == ["library", "sources"]
    assert _searches(simulator) > 0
    read = [body["candidate"] for kind, body in trail.events if kind == "claim_text"]
    assert read[0] == "doi:10.5555/notes.2020.1" and "doi:10.5555/notes.2020.1" not in read[1:]


async def test_a_cited_work_joins_the_library_for_the_next_claim(
    gateway: SourceGateway, settings: Settings, project: Path, tmp_path: Path
) -> None:
    library = _library(tmp_path)
    gateway.library = library
    first = ClaimTrail()
    citation, _ = await _cite(HAPPY_CLAIM, gateway, settings, project, trail=first)
    assert citation is not None
    assert [b["tier"] for k, b in first.events if k == "claim_candidates"] == ["sources"]
    assert library.count() == 2  # Semantic Scholar's record and OpenAlex's, which agreed
    again = ClaimTrail()
    citation, _ = await _cite(HAPPY_CLAIM, gateway, settings, project, trail=again)
    assert citation is not None
    assert [b["tier"] for k, b in again.events if k == "claim_candidates"] == ["library"]
