"""Every report format, one record each (issue 31): a new format is its sink and its record here.

The CLI's `--format` choices (`aletheia verify`, `aletheia report`), the format an `-o` file's
extension names, which formats stream as they are decided, the sink `make_sink` builds, the formats
a bibliography job offers (`jobs/kinds.py`) and the table in docs/report-schema.md ("Every format",
checked by `tests/unit/test_toy_formats.py`) all come from `REPORT_FORMATS`.

Data only, importing nothing of the pipeline (and outside `reports/`, which `aletheia status` must
not load): the CLI and the kinds' registry read it without loading a single sink (docs/benchmarks.md,
"CLI start-up"); a sink is imported when its format is asked for.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Final, TextIO

__all__ = [
    "REPORT_FORMATS",
    "ReportFormat",
    "format_for_filename",
    "format_names",
    "formats_table",
    "make_sink",
]


@dataclass(frozen=True, slots=True)
class ReportFormat:
    name: str  # `--format NAME`
    sink: str  # "module:Class": `Class(out)` takes references one at a time, then the summary
    about: str  # one line for the docs' table
    extensions: tuple[str, ...] = ()  # `-o` file extensions that name it (lower case, with the dot)
    media_type: str = "text/plain"
    # Written as decided, one whole line at a time: streamed to `-o`/stdout, never held back.
    streamed: bool = False
    progress: bool = False  # its sink takes `progress=` (a live table on a terminal)


def _formats(*rows: ReportFormat) -> dict[str, ReportFormat]:
    return {row.name: row for row in rows}


_F = "aletheia.pipeline.reports.formats"
_CI = "aletheia.pipeline.reports.ci"
# In `--format`'s order. A plain dict: a test's toy format is put in with `monkeypatch.setitem`.
REPORT_FORMATS: Final[dict[str, ReportFormat]] = _formats(
    ReportFormat(
        "table",
        "aletheia.pipeline.reports.table:TableSink",
        "a table on the terminal, live as references are decided",
        (".txt",),
        progress=True,
    ),
    ReportFormat("json", f"{_F}:JsonSink", "the JSON document (this page)", (".json",), "application/json"),
    ReportFormat(
        "jsonl",
        f"{_F}:JsonlSink",
        "one JSON object a line, the summary last",
        (".jsonl", ".ndjson"),
        "application/x-ndjson",
        streamed=True,
    ),
    ReportFormat(
        "html",
        "aletheia.pipeline.reports.html:HtmlSink",
        "one self-contained page",
        (".html", ".htm"),
        "text/html",
    ),
    ReportFormat(
        "bibtex",
        "aletheia.pipeline.reports.bibtex:BibtexSink",
        "the corrected bibliography",
        (".bib",),
        "application/x-bibtex",
    ),
    ReportFormat(
        "csl-json",
        f"{_F}:CslJsonSink",
        "the matched works as CSL-JSON items",
        (".csl.json",),
        "application/vnd.citationstyles.csl+json",
    ),
    ReportFormat(
        "markdown", f"{_CI}:MarkdownSink", "a pull-request comment", (".md", ".markdown"), "text/markdown"
    ),
    ReportFormat("github", f"{_CI}:GithubSink", "GitHub workflow annotations", streamed=True),
    ReportFormat(
        "sarif", f"{_CI}:SarifSink", "SARIF 2.1.0 for code scanning", (".sarif",), "application/sarif+json"
    ),
    ReportFormat(
        "junit", f"{_CI}:JunitSink", "JUnit XML for test-report viewers", (".xml",), "application/xml"
    ),
    ReportFormat(
        "csv",
        "aletheia.pipeline.reports.csv_report:CsvSink",
        "a table for a spreadsheet",
        (".csv",),
        "text/csv",
    ),
)


def format_names() -> tuple[str, ...]:
    """Every format's name, in `--format`'s order."""
    return tuple(REPORT_FORMATS)


def format_for_filename(name: str) -> str | None:
    """The format whose extension ends `name` (the longest first: `.csl.json` before `.json`)."""
    lowered = name.lower()
    owned = [(ext, fmt.name) for fmt in REPORT_FORMATS.values() for ext in fmt.extensions]
    for ext, fmt_name in sorted(owned, key=lambda pair: -len(pair[0])):
        if lowered.endswith(ext):
            return fmt_name
    return None


def make_sink(fmt: str, out: TextIO, *, progress: bool = False) -> Any:
    """The sink of format `fmt` writing to `out`, its module imported now."""
    record = REPORT_FORMATS.get(fmt)
    if record is None:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(REPORT_FORMATS)}")
    module, _, attribute = record.sink.partition(":")
    sink = getattr(importlib.import_module(module), attribute)
    return sink(out, progress=progress) if record.progress else sink(out)


def formats_table() -> str:
    """The Markdown table of every format (docs/report-schema.md, "Every format")."""
    rows = ["| format | what | `-o` extensions | media type | streamed |", "|---|---|---|---|---|"]
    for f in REPORT_FORMATS.values():
        extensions = " ".join(f"`{e}`" for e in f.extensions) or "-"
        streamed = "yes" if f.streamed else "no"
        rows.append(f"| `{f.name}` | {f.about} | {extensions} | `{f.media_type}` | {streamed} |")
    return "\n".join(rows) + "\n"
