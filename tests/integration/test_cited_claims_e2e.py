"""`aletheia claims` judges every cited sentence against the paper it cites (issue 19), end to end:
the CLI in process, its sources the loopback simulator over tests/fixtures/claims/cited_universe.jsonl
(a paper whose arXiv full text supports one sentence and contradicts another, and a retracted
paper), the offline judge (rules) and the lexical reasoner: no network, no model.

None of the sentences below holds a trigger word: each is a claim only because it cites.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, Universe

UNIVERSE = Path(__file__).resolve().parents[1] / "fixtures" / "claims" / "cited_universe.jsonl"

SUPPORTED = "Spectral warm starts reduce the edge cut of multilevel partitioners on road networks"
CONTRADICTED = (
    "Spectral embeddings help multilevel partitioners on social graphs with heavy-tailed degree distributions"
)
SUPPORTING_EXCERPT = (
    "Spectral warm starts reduce the edge cut of multilevel partitioners on road networks by 12 percent."
)
CONTRADICTING_EXCERPT = (
    "Spectral embeddings do not help multilevel partitioners on social graphs with heavy-tailed degree"
    " distributions."
)

BIB = """@article{virtanen2022,
  author  = {Virtanen, Aino and Mensah, Kwame},
  title   = {Spectral Warm Starts for Multilevel Graph Partitioning},
  journal = {Journal of Graph Algorithms Simulated},
  year    = {2022},
  doi     = {10.5555/jgas.2022.17},
}

@article{dubois2019,
  author  = {Dubois, Paul},
  title   = {Retracted Findings on Coffee Consumption and Memory Consolidation},
  journal = {Cognition Notes Simulated},
  year    = {2019},
  doi     = {10.5555/cns.2019.77},
}

@article{ghost2021,
  author  = {Nobody, Ann},
  title   = {Quantum Entanglement of Breakfast Cereals under Lunar Gravity},
  journal = {Journal of Things That Never Happened},
  year    = {2021},
  doi     = {10.5555/invented.9},
}
"""


def _tex(*sentences: str) -> str:
    body = "\n".join(sentences)
    return (
        "\\documentclass{article}\n\\begin{document}\n\\section{Introduction}\n"
        f"{body}\n\\bibliography{{refs}}\n\\end{{document}}\n"
    )


@pytest.fixture(scope="module")
def simulator() -> Iterator[SimulatorServer]:
    with SimulatorServer(Universe.from_jsonl(UNIVERSE), SimulatorConfig.unlimited()) as server:
        yield server


@pytest.fixture
def env(simulator: SimulatorServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The CLI's settings pointing at the simulator; a folder holding refs.bib."""
    from aletheia.config.settings import reset_settings_cache

    simulator.configure(SimulatorConfig.unlimited())
    values = {**simulator.env(), "ALETHEIA_DATA_DIR": str(tmp_path / "data"), "ALETHEIA_HTTP_ATTEMPTS": "2"}
    for name in ("SEMANTIC_SCHOLAR", "OPENALEX", "ARXIV", "CROSSREF", "PUBMED"):
        values[f"ALETHEIA_{name}_LIMITS"] = json.dumps({"rate": 1000, "burst": 1000, "concurrency": 8})
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    for name in ("ANTHROPIC_API_KEY", "ALETHEIA_DATABASE_URL", "ALETHEIA_BROKER_URL", "ALETHEIA_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ALETHEIA_CLAIM_JUDGE", "rules")
    reset_settings_cache()
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    try:
        yield tmp_path
    finally:
        reset_settings_cache()


def _claims(folder: Path, tex: str, *options: str) -> tuple[Result, dict[str, Any]]:
    from aletheia.producers.cli import main

    (folder / "paper.tex").write_text(tex, encoding="utf-8")
    out = folder / "claims.json"
    args = ["claims", str(folder / "paper.tex"), "--no-suggest", "--format", "json", "-o", str(out), *options]
    result = CliRunner().invoke(main, args)
    return result, json.loads(out.read_text(encoding="utf-8"))


def test_a_sentence_its_paper_contradicts_exits_1_with_the_excerpt(env: Path) -> None:
    result, report = _claims(
        env, _tex(f"{SUPPORTED}~\\cite{{virtanen2022}}.", f"{CONTRADICTED} \\cite{{virtanen2022}}.")
    )
    assert result.exit_code == 1, result.output
    supported, contradicted = report["claims"]
    assert supported["triggers"] == [] and contradicted["triggers"] == []  # claims because they cite
    assert [c["verdict"] for c in supported["citations"]] == ["verified"]
    assert supported["status"] == "verified"
    judgement = supported["judgement"]
    assert judgement["status"] == "supported" and judgement["claim"] == f"{SUPPORTED}."
    assert judgement["paper"] == "10.5555/jgas.2022.17"
    assert judgement["excerpt"]["text"] == SUPPORTING_EXCERPT
    assert judgement["excerpt"]["location"] == "Section 4.1 Road networks, paragraph 1"

    assert contradicted["status"] == "contradicted"
    against = contradicted["judgement"]
    assert against["status"] == "contradicted" and against["judge"].startswith("rules:")
    assert against["excerpt"]["text"] == CONTRADICTING_EXCERPT  # verbatim, the paper's own words
    assert against["excerpt"]["location"] == "Section 4.2 Social graphs, paragraph 1"
    assert "negates" in against["excerpt"]["why"]
    assert [check["status"] for check in against["checks"]] == ["contradicted"]

    summary = report["summary"]
    assert summary["judged"] == {"contradicted": 1, "supported": 1}
    assert summary["by_status"] == {"contradicted": 1, "verified": 1}
    assert summary["judgements_checked"] == 2 and summary["max_judgements"] == 50
    assert summary["exit_code"] == 1

    # On a terminal (text): the status, the excerpt verbatim with its location, and why.
    from aletheia.producers.cli import main

    text = CliRunner().invoke(main, ["claims", str(env / "paper.tex"), "--no-suggest", "--format", "text"])
    assert text.exit_code == 1
    assert f": contradicted: {CONTRADICTED} \\cite{{virtanen2022}}." in text.output
    assert f'excerpt: "{CONTRADICTING_EXCERPT}" (Section 4.2 Social graphs, paragraph 1)' in text.output
    assert "why: the excerpt negates" in text.output
    assert f'excerpt: "{SUPPORTING_EXCERPT}"' in text.output
    assert 'cited claims by judgement {"contradicted": 1, "supported": 1}' in text.output

    # The HTML page shows the same judgement, escaped.
    page = CliRunner().invoke(main, ["claims", str(env / "paper.tex"), "--no-suggest", "--format", "html"])
    assert page.exit_code == 1
    assert 'data-judgement="contradicted"' in page.output and CONTRADICTING_EXCERPT in page.output


def test_a_sentence_its_paper_supports_exits_0(env: Path) -> None:
    result, report = _claims(env, _tex(f"{SUPPORTED} \\cite{{virtanen2022}}."))
    assert result.exit_code == 0, result.output
    (claim,) = report["claims"]
    assert claim["status"] == "verified" and claim["judgement"]["status"] == "supported"
    assert claim["judgement"]["excerpt"]["text"] == SUPPORTING_EXCERPT


def test_a_sentence_its_paper_does_not_state_exits_1(env: Path) -> None:
    unstated = (
        "Spectral warm starts halve the memory footprint of multilevel partitioners on mesh graphs"
        " with billions of vertices"
    )
    result, report = _claims(env, _tex(f"{unstated} \\cite{{virtanen2022}}."))
    assert result.exit_code == 1, result.output
    (claim,) = report["claims"]
    assert claim["status"] == "unsupported_by_paper"
    judgement = claim["judgement"]
    assert judgement["status"] == "unsupported" and judgement["excerpt"] is None
    assert judgement["closest"]["text"] == SUPPORTING_EXCERPT  # what the paper says instead


def test_retracted_missing_key_and_invented_citations_are_claims_and_exit_1(env: Path) -> None:
    """The bug: "0 claim(s)" and exit 0 for a paper citing a retracted paper, a key its bibliography
    lacks and an invented paper, because no sentence held a trigger word."""
    from aletheia.producers.cli import main

    tex = _tex(
        "Daily coffee consumption improves memory consolidation during sleep \\cite{dubois2019}.",
        "Calibration drift in cheap sensors comes mostly from offset errors \\cite{nokey2020}.",
        "Breakfast cereals become entangled under lunar gravity \\cite{ghost2021}.",
    )
    result, report = _claims(env, tex)
    assert result.exit_code == 1, result.output
    retracted, missing, invented = report["claims"]
    assert report["summary"]["claims"] == 3 and report["summary"]["with_citation"] == 3
    assert (retracted["status"], retracted["citations"][0]["verdict"]) == ("flagged", "retracted")
    assert missing["status"] == "unresolved"
    assert missing["citations"][0]["unresolved_reason"] == "no entry with key 'nokey2020' in the bibliography"
    assert missing["judgement"] is None  # nothing to judge against: the marker is what to fix
    assert invented["status"] == "flagged"
    assert invented["citations"][0]["verdict"] in ("not_found", "fabricated")
    assert invented["judgement"]["status"] == "not_judged"
    assert invented["judgement"]["checks"][0]["detail"].startswith("the reference check found no work")

    text = CliRunner().invoke(main, ["claims", str(env / "paper.tex"), "--no-suggest", "--format", "text"])
    assert text.exit_code == 1
    assert "aletheia claims: 3 claim(s)" in text.output
    assert ": flagged: Daily coffee consumption" in text.output and "dubois2019: retracted" in text.output
    assert ": unresolved: Calibration drift" in text.output
    assert ": flagged: Breakfast cereals" in text.output


def test_the_cap_leaves_the_rest_unchecked(env: Path) -> None:
    result, report = _claims(
        env,
        _tex(f"{SUPPORTED} \\cite{{virtanen2022}}.", f"{CONTRADICTED} \\cite{{virtanen2022}}."),
        "--max-judgements",
        "1",
    )
    first, second = report["claims"]
    assert first["judgement"]["status"] == "supported"
    assert second["status"] == "unchecked" and second["judgement"]["status"] == "unchecked"
    assert "--max-judgements" in second["judgement"]["detail"]
    assert report["summary"]["judgements_checked"] == 1
    assert result.exit_code == 3  # nothing flagged, one claim left unjudged


def test_the_job_logs_each_judgement_once(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The claims-text job appends every claim's trail to its audit log before the summary is
    stored and commits it; a re-run decides the same and logs nothing new."""
    from aletheia.config import get_settings
    from aletheia.pipeline.audit.events import audit_log_for
    from aletheia.pipeline.jobs.kinds import CHECK_CLAIMS_TEXT
    from aletheia.pipeline.runtime import Runtime
    from aletheia.pipeline.service import InlineDispatcher, LoopThread, ServiceContext, run_step
    from aletheia.producers.client import AletheiaClient
    from aletheia.storage.audit_verify import verify_job
    from aletheia.storage.models import JobStatus

    monkeypatch.setattr(Runtime, "ensure_bundled_snapshot", lambda self: None)
    client = AletheiaClient(get_settings(), submitted_by="tester")
    tex = _tex(f"{SUPPORTED} \\cite{{virtanen2022}}.", f"{CONTRADICTED} \\cite{{virtanen2022}}.")
    report = client.validate_research(tex, name="paper.tex", bibliography=BIB, suggest=False, timeout=120)
    assert report["summary"]["judged"] == {"contradicted": 1, "supported": 1}
    job_id = report["job_id"]
    log = audit_log_for(client.runtime)
    entries = log.entries(job_id)
    claim_events = [(e.event, e.body["item"]) for e in entries if e.event.startswith("claim_")]
    assert ("claim_judgement", "claim 1") in claim_events and ("claim_judgement", "claim 2") in claim_events
    decisions = [e.body for e in entries if e.event == "claim_decision"]
    assert [(d["item"], d["refusal"]) for d in decisions] == [("claim 1", None), ("claim 2", "contradicted")]
    # The trail comes before the report files it explains, and the job's root is committed.
    kinds = [e.event for e in entries]
    assert kinds.index("claim_decision") < kinds.index("artifact_written")
    assert log.commits(job_id) and verify_job(log, job_id).intact

    # A redelivery of the same job (here: put back in the queue) recomputes and logs no new
    # decision. The cited references went through the engine, which kept the verified works in
    # the Tier-0 library (as `aletheia verify` does): the second run's evidence names the library,
    # so the rewritten claims.json is logged once more, and nothing else is.
    client.runtime.jobs.set_job_status(job_id, JobStatus.QUEUED)
    ctx = ServiceContext(runtime=client.runtime, dispatcher=InlineDispatcher(), runner=LoopThread())
    try:
        run_step(ctx, CHECK_CLAIMS_TEXT, job_id)
    finally:
        ctx.close()
    again = log.entries(job_id)
    assert again[: len(entries)] == entries
    assert [(e.event, Path(e.body["path"]).name) for e in again[len(entries) :]] == [
        ("artifact_written", "claims.json")
    ]
    assert client.result(job_id)["summary"] == report["summary"]
