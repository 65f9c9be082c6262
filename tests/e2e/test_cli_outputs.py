"""Issue 20, "Errors and outputs", through the real command line (a subprocess, offline, its own
data directory): every failure is one line and an exit code, never a traceback; stdout holds a
whole document or nothing; the format follows the `-o` extension."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.slow

SAMPLE = REPO_ROOT / "examples" / "sample.bib"


def run(tmp_path: Path, *args: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "ALETHEIA_OFFLINE": "true", **env}
    for name in ("ALETHEIA_DATABASE_URL", "ALETHEIA_BROKER_URL"):
        environ.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "aletheia.producers", *args],
        env=environ,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=tmp_path,
    )


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_output_into_a_missing_folder_is_one_line_and_exit_2(tmp_path: Path) -> None:
    proc = run(tmp_path, "verify", str(SAMPLE), "-o", str(tmp_path / "no" / "such" / "report.json"))
    assert proc.returncode == 2
    assert "no/such" in one_line_error(proc)


def test_the_format_follows_the_output_extension(tmp_path: Path) -> None:
    for name, start in (("report.html", "<!doctype html"), ("refs.bib", "% aletheia"), ("r.sarif", "{")):
        proc = run(tmp_path, "verify", str(SAMPLE), "-o", str(tmp_path / name))
        assert proc.returncode in (1, 3), proc.stderr
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert text.lower().startswith(start), (name, text[:80])
    assert json.loads((tmp_path / "r.sarif").read_text(encoding="utf-8"))["version"] == "2.1.0"


def test_an_input_error_leaves_no_partial_document(tmp_path: Path) -> None:
    (tmp_path / "binary.bib").write_bytes(b"\x00\x01\x02")
    for bad in (str(tmp_path / "missing.bib"), str(tmp_path / "binary.bib")):
        proc = run(tmp_path, "verify", str(SAMPLE), bad, "--format", "json")
        assert proc.returncode == 2 and proc.stdout == "", proc.stdout[:200]
        assert "input error" in one_line_error(proc)
        out = tmp_path / "report.json"
        proc = run(tmp_path, "verify", str(SAMPLE), bad, "-o", str(out))
        assert proc.returncode == 2 and not out.exists()


def test_duplicate_keys_with_a_flagged_reference_exit_1(tmp_path: Path) -> None:
    bib = tmp_path / "dup.bib"
    bib.write_text(
        "@article{x, title={Capsule Transformers Are Universal}, author={Hinton, Geoffrey}, year={2031}}\n"
        "@article{x, title={Another Capsule Paper Nobody Wrote}, author={Hinton, Geoffrey}, year={2031}}\n",
        encoding="utf-8",
    )
    proc = run(tmp_path, "verify", str(bib), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert len(doc["references"]) == 2 and doc["summary"]["problems"]


def test_library_retractions_reads_the_header_its_help_names(tmp_path: Path) -> None:
    helptext = run(tmp_path, "library", "retractions", "--help").stdout
    assert "doi,nature" in " ".join(helptext.split())
    csv = tmp_path / "rw.csv"
    csv.write_text("doi,nature\n10.1016/S0140-6736(97)11096-0,Retraction\n", encoding="utf-8")
    proc = run(tmp_path, "library", "retractions", str(csv))
    assert proc.returncode == 0 and "1 retraction rows loaded" in proc.stdout, proc.stderr
    bad = tmp_path / "bad.csv"
    bad.write_text("title,year\nx,2020\n", encoding="utf-8")
    proc = run(tmp_path, "library", "retractions", str(bad))
    assert proc.returncode == 2 and "not a Retraction Watch CSV" in one_line_error(proc)


def test_library_import_refuses_a_record_without_a_work(tmp_path: Path) -> None:
    lines = tmp_path / "records.jsonl"
    lines.write_text('{"source":"crossref","raw":{"foo":"bar"}}\n', encoding="utf-8")
    proc = run(tmp_path, "library", "import", str(lines))
    assert proc.returncode == 2 and "0 records imported" in proc.stdout, (proc.stdout, proc.stderr)
    assert "records.jsonl:1" in proc.stderr


def test_simulator_serve_prints_its_address() -> None:
    universe = REPO_ROOT / "tests" / "fixtures" / "simulator" / "universe.jsonl"
    command = [sys.executable, "-m", "aletheia.producers", "simulator", "serve", "--universe", str(universe)]
    with subprocess.Popen(
        [*command, "--port", "0"],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as proc:
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()  # the server prints as soon as it listens
            assert first.startswith("http://127.0.0.1:"), first
            assert proc.stdout.readline().startswith("ALETHEIA_")
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)


def test_cite_and_claims_offline_say_so_in_one_line(tmp_path: Path) -> None:
    proc = run(
        tmp_path, "cite", "Transformers dispense with recurrence entirely", "--project-root", str(tmp_path)
    )
    assert proc.returncode == 2 and "needs the network (offline)" in one_line_error(proc)
    text = tmp_path / "claim.md"
    text.write_text(
        "Transformers outperform all recurrent models by 30% on every benchmark.\n", encoding="utf-8"
    )
    proc = run(tmp_path, "claims", str(text), "--format", "text")
    assert proc.returncode == 2 and "needs the network (offline)" in one_line_error(proc)
    # Finding claims needs no network.
    assert run(tmp_path, "claims", str(text), "--no-check", "--no-suggest").returncode in (0, 1)


def test_a_title_nested_past_a_sane_depth_is_refused(tmp_path: Path) -> None:
    bib = tmp_path / "deep.bib"
    bib.write_text(
        "@article{deep, title={" + "{" * 100_000 + "x" + "}" * 100_000 + "}, year={2020}}\n", encoding="utf-8"
    )
    proc = run(tmp_path, "verify", str(bib), "--format", "json")
    assert proc.returncode == 2, proc.stderr[-500:]
    assert "nested more than 32 deep" in one_line_error(proc) and proc.stdout == ""


def test_an_offline_table_names_only_what_could_not_be_asked(tmp_path: Path) -> None:
    proc = run(tmp_path, "verify", str(SAMPLE), "--format", "markdown")
    assert "0 verdicts affected" not in proc.stdout, proc.stdout[:2000]
    assert "offline" in proc.stdout.lower()
