"""`aletheia claims` and `aletheia fix` end to end: the console command in a subprocess, its sources
the loopback simulator over the claims universe (tests/fixtures/claims/universe.jsonl), no network,
no model (the lexical reasoner)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, Universe

UNIVERSE = Path(__file__).resolve().parents[1] / "fixtures" / "claims" / "universe.jsonl"

PAPER = """---
title: A small paper
---
# Introduction

Soil moisture memory amplifies summer heatwaves in continental Europe by up to 2 K [@carvalho2021].
Trimmed median aggregation has been shown to tolerate up to one third of Byzantine sensor nodes.
Coffee was the first to double memory consolidation in young adults [@ghost2020].
Our method outperforms every baseline by 12%.
"""

BIB = """% references of the small paper
@article{carvalho2021,
  author = {Carvalho, Beatriz and Weber, Jonas},
  title  = {Soil Moisture Memory Amplifies Summer Heatwaves in Continental Europe},
  journal = {Geophysical Letters Simulated},
  year   = {2021},
  doi    = {10.5555/gls.2021.314},
}

@article{ghost2020,
  author = {Nobody, Anne},
  title  = {Coffee Doubles Memory Consolidation in Everyone},
  journal = {Journal of Things That Never Happened},
  year   = {2020},
}
"""


@pytest.fixture(scope="module")
def simulator() -> Iterator[SimulatorServer]:
    with SimulatorServer(Universe.from_jsonl(UNIVERSE), SimulatorConfig.unlimited()) as server:
        yield server


def _run(simulator: SimulatorServer, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        **simulator.env(),
        "ALETHEIA_DATA_DIR": str(tmp_path / "data"),
        "ALETHEIA_HTTP_ATTEMPTS": "2",
    }
    for name in ("SEMANTIC_SCHOLAR", "OPENALEX", "ARXIV", "CROSSREF", "PUBMED"):
        env[f"ALETHEIA_{name}_LIMITS"] = json.dumps({"rate": 1000, "burst": 1000, "concurrency": 8})
    for name in ("ALETHEIA_DATABASE_URL", "ALETHEIA_BROKER_URL", "ANTHROPIC_API_KEY", "ALETHEIA_OFFLINE"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "aletheia.producers", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )


def test_claims_finds_checks_and_suggests(simulator: SimulatorServer, tmp_path: Path) -> None:
    (tmp_path / "paper.md").write_text(PAPER, encoding="utf-8")
    (tmp_path / "paper.bib").write_text(BIB, encoding="utf-8")
    project = tmp_path / "project"
    proc = _run(
        simulator,
        tmp_path,
        "claims",
        "paper.md",
        "--format",
        "json",
        "-o",
        "claims.json",
        "--project-root",
        str(project),
    )
    assert proc.returncode == 1, proc.stderr  # an unsupported claim and a flagged citation
    report = json.loads((tmp_path / "claims.json").read_text(encoding="utf-8"))
    assert report["bibliography"]["origins"] == ["paper.bib"]
    by_line = {c["line"]: c for c in report["claims"]}
    assert sorted(by_line) == [6, 7, 8, 9]
    # The reference is right, but the paper (its abstract: no full text) never says "up to 2 K":
    # judged against it, the sentence is not supported (issue 19).
    assert by_line[6]["citations"][0]["verdict"] == "verified"
    assert by_line[6]["status"] == "unsupported_by_paper"
    judgement = by_line[6]["judgement"]
    assert (judgement["status"], judgement["paper"]) == ("unsupported", "10.5555/gls.2021.314")
    assert "number_not_stated: 2" in judgement["checks"][0]["judgements"][0]["reasons"]
    assert by_line[8]["status"] == "flagged"
    assert by_line[8]["citations"][0]["verdict"] in ("not_found", "fabricated")
    assert by_line[9]["status"] == "own_work" and by_line[9]["suggestion"] is None
    unsupported = by_line[7]
    assert unsupported["status"] == "unsupported"
    suggestion = unsupported["suggestion"]
    # The suggestion is a citation the pipeline proved (excerpts, triangulation), with its artifact.
    # (A paper the search found must name every word of the claim (judge 1.3.0): the sentence
    # says what the paper's results section says, nothing more, such as "which is optimal".)
    assert suggestion["verified"] is True
    assert Path(suggestion["artifact"]).is_file() and str(project) in suggestion["artifact"]
    assert "Halvorsen" in suggestion["citation"]
    assert report["summary"]["unsupported"] == 1 and report["summary"]["exit_code"] == 1

    html = _run(
        simulator, tmp_path, "claims", "paper.md", "--format", "html", "--no-suggest", "-o", "claims.html"
    )
    assert html.returncode == 1, html.stderr
    page = (tmp_path / "claims.html").read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and 'id="unsupported-count">1<' in page


def test_claims_input_errors_exit_2(simulator: SimulatorServer, tmp_path: Path) -> None:
    (tmp_path / "blob.md").write_bytes(b"\x00\x01binary")
    proc = _run(simulator, tmp_path, "claims", "blob.md", "--format", "json")
    assert proc.returncode == 2 and "binary" in proc.stderr


def test_fix_replaces_contradicted_values_and_marks_the_unverified(
    simulator: SimulatorServer, tmp_path: Path
) -> None:
    wrong = BIB.replace("year   = {2021}", "year   = {2019}").replace(
        "title  = {Soil Moisture Memory Amplifies Summer Heatwaves in Continental Europe}",
        "title  = {Soil Moisture Memory Amplifies Winter Heatwaves in Continental Europe}",
    )
    source = tmp_path / "refs.bib"
    source.write_bytes(wrong.encode("utf-8"))
    refused = _run(simulator, tmp_path, "fix", "refs.bib", "-o", "refs.bib")
    assert refused.returncode == 2 and source.read_bytes() == wrong.encode("utf-8")
    (tmp_path / "notes.md").write_text(PAPER, encoding="utf-8")
    not_bibtex = _run(simulator, tmp_path, "fix", "notes.md", "-o", "out.bib")
    assert not_bibtex.returncode == 2 and "not a BibTeX file" in not_bibtex.stderr
    assert not (tmp_path / "out.bib").exists()

    proc = _run(simulator, tmp_path, "fix", "refs.bib", "-o", "fixed.bib", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    changed = {c["field"]: c for c in report["changes"]}
    assert changed["year"]["cited"] == 2019 and changed["year"]["new"] == 2021
    assert changed["year"]["source"]
    fixed = (tmp_path / "fixed.bib").read_text(encoding="utf-8")
    assert "year   = {2021}" in fixed
    assert [m["key"] for m in report["marked"]] == ["ghost2020"]
    assert "% aletheia: NOT VERIFIED (" in fixed.split("@article{ghost2020")[0].splitlines()[-1]
    assert source.read_bytes() == wrong.encode("utf-8")  # the input is untouched

    again = _run(simulator, tmp_path, "fix", "fixed.bib", "--in-place", "--format", "json")
    assert json.loads(again.stdout)["changes"] == []
    assert (tmp_path / "fixed.bib").read_text(encoding="utf-8") == fixed  # the mark is not repeated
