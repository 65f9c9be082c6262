"""Issue 31: a new report format is its sink and one record; a new input format its reader and one
record. A toy of each is defined here and put in with `monkeypatch.setitem`, touching no other
file: the CLI offers and writes the toy report, `-o out.toy` chooses it; the toy input is detected
by its own signature and by its extension, read from a file, a folder and `aletheia verify`. The
docs' table of formats is the records' (`formats_table`), and docs/architecture.md's "where a change
goes" rows name exactly the files these toys needed.
"""

from __future__ import annotations

import inspect
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from click.testing import CliRunner

from aletheia.core.bibliography import InputFormat, detect_format, parse_text
from aletheia.core.bibliography import input_formats as input_registry
from aletheia.core.bibliography.formats import extension_format
from aletheia.core.bibliography.input_formats import INPUT_FORMATS, InputFormatRecord, supported
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.records import Author, CitedReference
from aletheia.pipeline import report_formats as report_registry
from aletheia.pipeline.documents.inputs import files_in_folder
from aletheia.pipeline.report_formats import REPORT_FORMATS, ReportFormat, formats_table, make_sink
from aletheia.producers.cli import ReportFormatChoice, main
from aletheia.producers.report_output import format_for
from tests.conftest import REPO_ROOT
from tests.unit.architecture_table import architecture_row, instantiated

SAMPLE = REPO_ROOT / "examples" / "sample.bib"

# --- a toy report format: a sink and its record ---------------------------------------------------------


class ToySink:
    """One line a reference (`TOY key verdict`), then `TOY-END n`."""

    def __init__(self, out: Any) -> None:
        self.out = out
        self.count = 0

    def reference(self, obj: dict[str, Any]) -> None:
        self.count += 1
        self.out.write(f"TOY {obj['key']} {obj['verdict']}\n")

    def summary(self, obj: dict[str, Any]) -> None:
        self.out.write(f"TOY-END {self.count}\n")


TOY_REPORT: Final = ReportFormat(
    "toy", f"{__name__}:ToySink", "one line a reference, for a toy", (".toy",), "text/x-toy", streamed=True
)


@pytest.fixture
def toy_report(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(REPORT_FORMATS, "toy", TOY_REPORT)


def test_the_toy_report_format_is_offered_chosen_and_built(toy_report: None, tmp_path: Path) -> None:
    assert "toy" in ReportFormatChoice().choices
    assert format_for(None, tmp_path / "OUT.TOY", tty=False) == "toy"
    assert isinstance(make_sink("toy", io.StringIO()), ToySink)
    assert "| `toy` | one line a reference, for a toy | `.toy` | `text/x-toy` | yes |" in formats_table()


def test_aletheia_verify_writes_the_toy_report(toy_report: None, tmp_path: Path) -> None:
    out = tmp_path / "report.toy"
    result = CliRunner().invoke(main, ["verify", str(SAMPLE), "--offline", "-o", str(out)])
    assert result.exit_code in (0, 1, 3), result.output
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[-1] == f"TOY-END {len(lines) - 1}" and len(lines) > 1
    assert all(line.startswith("TOY ") for line in lines[:-1])


def test_without_its_record_the_toy_report_is_no_format(tmp_path: Path) -> None:
    assert "toy" not in ReportFormatChoice().choices
    with pytest.raises(ValueError, match="unknown format 'toy'"):
        make_sink("toy", io.StringIO())


def test_the_docs_table_of_report_formats_is_the_records() -> None:
    text = (REPO_ROOT / "docs" / "report-schema.md").read_text(encoding="utf-8")
    assert formats_table() in text, "paste formats_table() into docs/report-schema.md, 'Every format'"


# --- a toy input format: a reader and its record ------------------------------------------------------


def iter_toy(text: str, origin: str, _detected: bool) -> Iterator[CitedReference | InputProblem]:
    """`TOYREF|title|surname|year`, one a line."""
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split("|")
        if len(parts) != 4 or parts[0] != "TOYREF":
            if line.strip():
                yield InputProblem(origin=f"{origin}:{number}", message="not a toy reference")
            continue
        _, title, surname, year = parts
        yield CitedReference(
            key=f"toy{number}",
            entry_type="article",
            title=title,
            authors=(Author(family=surname),),
            year=int(year),
            origin=f"{origin}:{number}",
        )


TOY_INPUT: Final = InputFormatRecord(
    "toy_refs",
    iter_toy,
    ("toyref",),
    ("toyref",),
    "toy references (.toyref)",
    sniff=lambda head: head.startswith("TOYREF|"),
)
TOY_TEXT: Final = "TOYREF|Attention Is All You Need|Vaswani|2017\nTOYREF|A Toy Title|Nobody|2020\n"


@pytest.fixture
def toy_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(INPUT_FORMATS, "toy_refs", TOY_INPUT)


def test_the_toy_input_is_detected_and_read(toy_input: None, tmp_path: Path) -> None:
    assert detect_format(TOY_TEXT) == "toy_refs"  # its own signature, whatever the name
    assert detect_format(TOY_TEXT, "refs.txt") == InputFormat("toy_refs")
    assert extension_format("refs.TOYREF") == "toy_refs"
    refs = [r for r in parse_text(TOY_TEXT, origin="refs.toyref") if isinstance(r, CitedReference)]
    assert [r.title for r in refs] == ["Attention Is All You Need", "A Toy Title"]
    assert "toy references (.toyref)" in supported()
    (tmp_path / "a.toyref").write_text(TOY_TEXT, encoding="utf-8")
    (tmp_path / "b.unknown").write_text(TOY_TEXT, encoding="utf-8")
    assert [p.name for p in files_in_folder(tmp_path)] == ["a.toyref"]


def test_aletheia_verify_reads_the_toy_input(toy_input: None, tmp_path: Path) -> None:
    source = tmp_path / "refs.toyref"
    source.write_text(TOY_TEXT, encoding="utf-8")
    out = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["verify", str(source), "--offline", "-o", str(out)])
    assert result.exit_code in (0, 1, 3), result.output
    references = json.loads(out.read_text(encoding="utf-8"))["references"]
    assert [r["key"] for r in references] == ["toy1", "toy2"]


def test_without_its_record_the_toy_input_is_plain_text() -> None:
    assert detect_format(TOY_TEXT, "refs.toyref") is InputFormat.PLAIN
    with pytest.raises(ValueError):
        InputFormat("toy_refs")


# --- docs/architecture.md names the files these toys needed -------------------------------------------


def test_the_architecture_table_names_the_report_formats_files() -> None:
    files = architecture_row("a new report format")
    # The toy needed a sink (a module of the reports, `NAME.py`) and a record in the registry.
    needed = {"pipeline/aletheia/pipeline/reports/NAME.py", _repo_path(report_registry)}
    assert files == needed
    assert all((REPO_ROOT / instantiated(f, NAME="csv_report")).is_file() for f in files)


def test_the_architecture_table_names_the_input_formats_files() -> None:
    files = architecture_row("a new input format")
    needed = {"core/aletheia/core/bibliography/NAME.py", _repo_path(input_registry)}
    assert files == needed
    assert all((REPO_ROOT / instantiated(f, NAME="ris")).is_file() for f in files)


def _repo_path(module: Any) -> str:
    return Path(inspect.getfile(module)).resolve().relative_to(REPO_ROOT.resolve()).as_posix()


def test_the_architecture_table_names_job_kinds_files_that_exist() -> None:
    """No toy job kind: its row names files that exist, as the bibliography kind has them
    (`jobs/bibliography.py`, the `submit` command in `service_cli.py`). The workers are not among
    them: they register a task for every step of the registry (`workers/tasks/steps.py`)."""
    files = architecture_row("a new job kind")
    assert "pipeline/aletheia/pipeline/jobs/kinds.py" in files and len(files) == 7
    assert not any(f.startswith("workers/") for f in files)
    assert all((REPO_ROOT / instantiated(f, KIND="bibliography", COMMAND="service")).is_file() for f in files)
