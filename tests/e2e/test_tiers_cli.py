"""`aletheia verify` end to end on a bibliography of books and classical references (issue 12,
Tiers 1 and 3), every source at the loopback simulator: no network, a real subprocess, the real
parsers, the JSON report read back.

The simulator serves four books (two catalogues, one catalogue only) and a few canonical passages
(`sources/simulator/books.py`, `classical.py`); the bibliography cites them, a book nobody has,
a passage beyond the Iliad's 24 books and a Platonic work the table does not hold.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, Universe, env_for
from tests.conftest import REPO_ROOT, SIMULATOR_UNIVERSE

pytestmark = pytest.mark.slow

BIB = REPO_ROOT / "tests" / "fixtures" / "bibliographies" / "books_and_classics.bib"
EXPECTED = {
    "goodfellow2016": ("verified", "isbn_resolved"),  # ISBN-10 cited, both catalogues agree
    "sutton2018": ("verified", "triangulated"),  # no ISBN: found by title in both catalogues
    "kuhn1962": ("unverifiable", "book_single_catalogue"),  # only Open Library has it
    "nobody2020": ("unverifiable", "book_not_in_catalogues"),
    "iliad": ("verified", "quote_in_passage"),  # Perseus CTS, the Greek quoted verbatim
    "iliad25": ("metadata_error", "passage_out_of_range"),  # the Iliad has 24 books
    "confessions": ("verified", "canonical_passage_verified"),  # CCEL
    "timaeus": ("unverifiable", "unknown_canonical_work"),
}


def test_verify_books_and_classical_references_offline(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    with SimulatorServer(Universe.from_jsonl(SIMULATOR_UNIVERSE), SimulatorConfig.unlimited()) as sim:
        env = {**os.environ, **env_for(sim.base_url), "XDG_DATA_HOME": str(tmp_path / "data")}
        for name in (
            "ALETHEIA_DATABASE_URL",
            "ALETHEIA_BROKER_URL",
            "ALETHEIA_OFFLINE",
            "GOOGLE_BOOKS_API_KEY",
        ):
            env.pop(name, None)
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "aletheia.producers",
                "verify",
                str(BIB),
                "--format",
                "json",
                "-o",
                str(out),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            cwd=REPO_ROOT,
        )
        asked = {
            s: sim.source_stats(s)["requests"] for s in ("open_library", "google_books", "perseus", "ccel")
        }
    assert proc.returncode == 1, proc.stderr  # the passage beyond the Iliad is a major error
    doc = json.loads(out.read_text(encoding="utf-8"))
    got = {r["key"]: (r["verdict"], r["reasons"]) for r in doc["references"]}
    for key, (verdict, reason) in EXPECTED.items():
        assert got[key][0] == verdict and reason in got[key][1], (key, got[key])
    assert all(n > 0 for n in asked.values()), asked
    sources = doc["summary"]["sources"]
    assert sources["perseus"]["requests"] == 1 and sources["ccel"]["requests"] == 1
    # The canonical references were asked of no scholarly index, and never searched.
    for ref in doc["references"]:
        if ref["key"] in ("iliad", "iliad25", "confessions", "timaeus"):
            assert {t["source"] for t in ref["trace"]} <= {"perseus", "ccel"}, ref["trace"]
