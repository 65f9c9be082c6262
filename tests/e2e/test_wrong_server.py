"""Issue 20, end to end: a run with the source URLs pointing at a wrong server (the simulator
without its per-source prefixes), then a normal run on the same data directory.

Before: both runs said "likely invented" (`fabricated`) — the wrong server's 404s read as "no such
work", were cached under the work's key, and the second run read them back — and the report said
"Every source answered". Now the wrong run is `unverifiable` and names the sources that did not
answer, and the normal run asks the right server (a cached answer belongs to its base URL).
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

BIB = """@article{zebra,
  author = {Okonkwo, Maria and Pettersson, Lars Erik},
  title = {Circadian Regulation of Hepatic Lipid Metabolism in Zebrafish},
  journal = {Journal of Comparative Physiology}, year = {2019}, doi = {10.5555/JCP.2019.0417},
}
"""


def _verify(bib: Path, env: dict[str, str], fmt: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aletheia.producers", "verify", str(bib), "--format", fmt],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=REPO_ROOT,
    )


def test_a_wrong_server_is_a_failed_source_and_its_answers_are_not_reused(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB, encoding="utf-8")
    with SimulatorServer(Universe.from_jsonl(SIMULATOR_UNIVERSE), SimulatorConfig.unlimited()) as sim:
        right = env_for(sim.base_url)
        wrong = {k: (sim.base_url if k.endswith("_URL") else v) for k, v in right.items()}
        base = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
        for name in ("ALETHEIA_DATABASE_URL", "ALETHEIA_BROKER_URL", "ALETHEIA_OFFLINE"):
            base.pop(name, None)

        first = _verify(bib, {**base, **wrong}, "json")
        assert first.returncode == 3, first.stderr  # unverifiable, nothing flagged
        doc = json.loads(first.stdout)
        [ref] = doc["references"]
        assert ref["verdict"] == "unverifiable", ref["reasons"]
        assert {"crossref", "openalex"} <= set(ref["sources_unavailable"])
        assert doc["summary"]["sources"]["crossref"]["status"] != "ok"
        table = _verify(bib, {**base, **wrong}, "markdown")
        assert "Every source answered" not in table.stdout and "Crossref" in table.stdout

        second = _verify(bib, {**base, **right}, "json")
        assert second.returncode == 0, second.stderr
        [ref] = json.loads(second.stdout)["references"]
        assert ref["verdict"] == "verified", ref["reasons"]
