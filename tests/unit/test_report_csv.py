"""Issue 30: `-o out.csv` silently wrote JSON. Now `.csv` is a table for a spreadsheet, and an
`-o` extension no format owns is refused with the extensions that are known."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from aletheia.pipeline.report_formats import REPORT_FORMATS
from aletheia.pipeline.reports.csv_report import CSV_COLUMNS, _cell
from aletheia.pipeline.reports.formats import FORMATS
from aletheia.producers.cli import ReportFormatChoice, main
from aletheia.producers.report_output import OutputError, format_for
from tests.conftest import REPO_ROOT
from tests.e2e.test_cli_outputs import run  # the shared CLI subprocess

SAMPLE = REPO_ROOT / "examples" / "sample.bib"


def test_o_csv_writes_a_table_with_the_references_that_need_attention_first(tmp_path: Path) -> None:
    out = tmp_path / "report.csv"
    done = run(tmp_path, "verify", str(SAMPLE), "-o", str(out))
    assert done.returncode == 1, done.stderr
    data = out.read_bytes()
    assert data.startswith("\ufeff".encode()) and not data.lstrip(b"\xef\xbb\xbf").startswith(b"{")
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    assert tuple(rows[0].keys()) == CSV_COLUMNS
    json_out = tmp_path / "report.json"
    run(tmp_path, "verify", str(SAMPLE), "-o", str(json_out))
    references = json.loads(json_out.read_text(encoding="utf-8"))["references"]
    assert sorted(int(r["position"]) for r in rows) == list(range(1, len(references) + 1))
    by_position = {int(r["position"]): r for r in rows}
    for position, ref in enumerate(references, start=1):
        row = by_position[position]
        assert (row["key"], row["verdict"], row["severity"]) == (
            ref["key"],
            ref["verdict"],
            ref["severity"] or "",
        )
    attention = [r["needs_attention"] for r in rows]
    assert attention == sorted(attention, reverse=True) and attention[0] == "yes"  # "yes" rows first
    flagged = [r for r in rows if r["verdict"] not in ("verified", "metadata_error", "unverifiable")]
    assert flagged and all(r["needs_attention"] == "yes" and r["suggested_fix"] for r in flagged)
    assert all(r["file"] == str(SAMPLE) and r["line"].isdigit() for r in rows)


def test_an_extension_no_format_owns_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["verify", str(SAMPLE), "--offline", "-o", str(tmp_path / "out.xlsx")])
    assert result.exit_code == 2
    assert "cannot tell the report format from 'out.xlsx'" in result.output
    assert ".csv" in result.output and ".html" in result.output and "--format" in result.output
    assert not (tmp_path / "out.xlsx").exists()
    with pytest.raises(OutputError):
        format_for(None, Path("report.docx"), tty=False)
    # --format names it; an output without an extension keeps the default.
    assert format_for("json", Path("report.data"), tty=False) == "json"
    assert format_for(None, Path("report"), tty=False) == "json"


def test_every_extension_names_a_format_that_exists() -> None:
    assert format_for(None, Path("refs.csl.json"), tty=False) == "csl-json"  # the longest extension
    assert format_for(None, Path("refs.jsonl"), tty=False) == "jsonl"
    assert ReportFormatChoice().choices == FORMATS == tuple(REPORT_FORMATS)  # the records' names
    assert format_for(None, Path("OUT.CSV"), tty=True) == "csv"


@pytest.mark.parametrize("value", ['=HYPERLINK("http://x")', "+1", "-2+3", "@SUM(A1)", "\tx"])
def test_a_cell_that_would_start_a_formula_is_quoted(value: str) -> None:
    assert _cell(value) == "'" + value
    assert _cell(["a", None, "b"]) == "a; b" and _cell(None) == ""


def test_rows_follow_the_order_of_every_report_for_people() -> None:
    """The CSV orders as the table and the HTML do (`advice.attention_rank`: remove, replace, check,
    optional, nothing; input order within each), not by a needs-attention flag of its own."""
    from aletheia.pipeline.reports.csv_report import csv_rows
    from tests.unit.test_explain import _unmatched

    conflict = _unmatched(
        "ambiguous",
        ["triangulation_conflict"],
        notes=["triangulation_conflict:year: crossref=2001 openalex=2011"],
    )
    refs = [
        {**conflict, "key": "check1"},
        {**_unmatched("not_found", ["no_match_found"]), "key": "remove2"},
        {**_unmatched("verified", ["doi_resolved", "triangulated"]), "key": "nothing3"},
        {**_unmatched("not_found", ["no_match_found"]), "key": "remove4"},
    ]
    key = CSV_COLUMNS.index("key")
    assert [row[key] for row in csv_rows(refs)] == ["remove2", "remove4", "check1", "nothing3"]
