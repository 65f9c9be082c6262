"""Issue 30, "Data loss and wrong answers" and "Outputs and exits", through the real command line
(a subprocess, its own data directory): an output never replaces an input, an outage is not a
refusal, Ctrl-C is 130, a bad universe line is one line. A database that is down is one line too:
tests/integration/test_database_down_cli.py (it needs a PostgreSQL to stop)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.e2e.test_cli_outputs import one_line_error, run  # the shared CLI subprocess

pytestmark = pytest.mark.slow

AUTHORED = (
    '@string{nips = "Advances in Neural Information Processing Systems"}\n'
    '@preamble{"\\newcommand{\\noop}[1]{}"}\n'
    "@comment{kept by hand}\n"
    "@article{vaswani2017, title={Attention Is All You Need}, author={Vaswani, Ashish}, "
    "journal=nips, year={2017}}\n"
)


def test_verify_refuses_to_write_its_report_over_an_input(tmp_path: Path) -> None:
    bib = tmp_path / "in.bib"
    bib.write_text(AUTHORED, encoding="utf-8")
    proc = run(tmp_path, "verify", str(bib), "-o", str(bib))
    assert proc.returncode == 2
    assert "refusing to write the report over the input" in one_line_error(proc)
    assert bib.read_text(encoding="utf-8") == AUTHORED
    # The same file by another name, and a file read from an input folder, are inputs too.
    proc = run(tmp_path, "verify", str(tmp_path), "-o", "./in.bib")
    assert proc.returncode == 2 and "in.bib" in one_line_error(proc)
    assert bib.read_text(encoding="utf-8") == AUTHORED
    # Any other output is written.
    proc = run(tmp_path, "verify", str(bib), "-o", str(tmp_path / "out.bib"))
    assert proc.returncode in (1, 3), proc.stderr
    assert (tmp_path / "out.bib").is_file() and bib.read_text(encoding="utf-8") == AUTHORED


NUMBERED = (
    "# Notes\n\n"
    "Transformers replaced recurrence in translation models [1]. Residual connections let very deep "
    "networks train [2]. Quantum attention halves the energy of every transformer [3].\n\n"
    "## References\n\n"
    "1. Vaswani, A., Shazeer, N. (2017). Attention Is All You Need. NeurIPS.\n"
    "2. He, K., Zhang, X. (2016). Deep Residual Learning for Image Recognition. CVPR.\n"
    "3. Smith, J. (2024). Quantum Attention Halves Transformer Energy. Journal of Imagined Results.\n"
)
UNRELATED_BIB = (
    "@article{lecun1998, title={Gradient-based learning applied to document recognition}, "
    "author={LeCun, Yann}, year={1998}}\n"
    "@article{graves2013, title={Speech recognition with deep recurrent neural networks}, "
    "author={Graves, Alex}, year={2013}}\n"
    "@article{hochreiter1997, title={Long Short-Term Memory}, author={Hochreiter, Sepp}, year={1997}}\n"
)


def test_claims_resolve_numbered_markers_against_the_documents_own_list(tmp_path: Path) -> None:
    import json

    (tmp_path / "num.md").write_text(NUMBERED, encoding="utf-8")
    (tmp_path / "refs.bib").write_text(UNRELATED_BIB, encoding="utf-8")
    proc = run(tmp_path, "claims", "num.md", "--no-check", "--no-suggest", "--format", "json")
    assert proc.returncode == 3, proc.stderr  # found and resolved, not checked
    report = json.loads(proc.stdout)
    assert report["bibliography"]["origins"] == ["num.md (its own reference list)"]
    assert report["bibliography"]["found_by"] == "own_list"
    keys = {c["key"]: c["reference_key"] for claim in report["claims"] for c in claim["citations"]}
    assert set(keys) == {"1", "2", "3"}
    assert all(key and "refs.bib" not in key for key in keys.values()), keys
    # Without a list of its own, the .bib beside the document is used, and the output names it.
    (tmp_path / "bare.md").write_text(NUMBERED.split("## References")[0], encoding="utf-8")
    proc = run(tmp_path, "claims", "bare.md", "--no-check", "--no-suggest", "--format", "text")
    assert proc.returncode == 3, proc.stderr
    assert "citations resolved against refs.bib (found beside the document" in proc.stdout


# Every source's base URL on a loopback port nobody listens on: the network is down, not off.
NO_NETWORK = {
    f"ALETHEIA_{name}_URL": "http://127.0.0.1:9"
    for name in (
        "CROSSREF", "OPENALEX", "SEMANTIC_SCHOLAR", "ARXIV_API", "ARXIV", "PUBMED", "DBLP", "ACL_ANTHOLOGY",
        "EUROPE_PMC", "OPEN_LIBRARY", "GOOGLE_BOOKS", "PERSEUS", "CCEL", "TAVILY", "BRAVE_SEARCH",
    )
}  # fmt: skip


def test_cite_without_network_is_an_outage_not_a_refusal(tmp_path: Path) -> None:
    proc = run(
        tmp_path,
        "cite",
        "Transformers dispense with recurrence entirely",
        "--project-root",
        str(tmp_path),
        ALETHEIA_OFFLINE="false",
        **NO_NETWORK,
    )
    assert proc.returncode == 4, (proc.returncode, proc.stdout, proc.stderr)
    assert "refused" not in proc.stdout + proc.stderr and proc.stdout == ""
    lines = [line for line in proc.stderr.splitlines() if line.strip() and not line.startswith("job: ")]
    assert len(lines) == 1 and "could not reach the sources" in lines[0], proc.stderr
    assert "http://" not in lines[0]


def _waits_on_stdin(pid: int) -> bool:
    """The process's main thread is blocked reading fd 0 (Linux: /proc/PID/syscall, `read` is 0)."""
    try:
        fields = Path(f"/proc/{pid}/syscall").read_text().split()
    except OSError:
        pytest.skip("/proc/PID/syscall is not readable here")
    return fields[:2] == ["0", "0x0"]


def test_ctrl_c_exits_130_not_the_flagged_code(tmp_path: Path) -> None:
    import signal
    import time

    environ = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "ALETHEIA_OFFLINE": "true"}
    with subprocess.Popen(
        [sys.executable, "-m", "aletheia.producers", "verify", "-", "--format", "json"],
        env=environ,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        deadline = time.monotonic() + 120
        while not _waits_on_stdin(proc.pid):  # the command is running, reading its input
            assert proc.poll() is None and time.monotonic() < deadline, proc.poll()
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (proc.returncode, err)
    assert err.strip() == "aletheia: interrupted" and out == ""


def test_a_bad_universe_line_is_one_line_naming_file_line_and_problem(tmp_path: Path) -> None:
    universe = tmp_path / "works.jsonl"
    good = (REPO_ROOT / "tests" / "fixtures" / "simulator" / "universe.jsonl").read_text(encoding="utf-8")
    first = next(line for line in good.splitlines() if line.startswith("{"))
    universe.write_text(
        first + "\n" + '{"title": "Bad", "arxiv_id": "not-an-id", "year": 2020}\n', encoding="utf-8"
    )
    proc = run(tmp_path, "simulator", "serve", "--universe", str(universe), "--port", "0")
    assert proc.returncode == 2, proc.stderr[-2000:]
    line = one_line_error(proc)
    assert f"{universe}:2:" in line and "not an arXiv id: 'not-an-id'" in line, line
    assert "errors.pydantic.dev" not in line and "input_value" not in line, line
