"""The report as a CSV table, for a spreadsheet (issue 30: `-o out.csv` used to write JSON).

One row per reference, in the order of every report for people (`advice.attention_rank`: what
needs a change first, then the rest, input order within each; `position` gives the input order
back). The columns say what every report for people says, in the same words (`advice.explain`):
the verdict and its label, the severity, whether it needs attention, what is wrong, how we know,
the suggested fix and the changes it makes; then the cited fields (decoded), what the sources hold
(the match), and where the reference is (file, line).

Written for spreadsheets: UTF-8 with a byte-order mark (Excel reads UTF-8 only so), RFC 4180
quoting, and a cell that would start a formula (`=`, `+`, `-`, `@`, a tab or a carriage return)
is prefixed with `'` so that opening the file runs nothing (OWASP's "CSV injection").
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any, Final

from aletheia.pipeline.reports.base import WritingSink

__all__ = ["CSV_COLUMNS", "CsvSink", "csv_rows"]

CSV_COLUMNS: Final = (
    "position",
    "key",
    "verdict",
    "label",
    "severity",
    "needs_attention",
    "what_is_wrong",
    "how_we_know",
    "suggested_fix",
    "changes",
    "reasons",
    "title",
    "authors",
    "year",
    "venue",
    "doi",
    "arxiv_id",
    "url",
    "found_title",
    "found_authors",
    "found_year",
    "found_venue",
    "found_doi",
    "found_in",
    "file",
    "line",
)
_FORMULA_START: Final = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        value = "; ".join(str(v) for v in value if v not in (None, ""))
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def csv_rows(references: Iterable[dict[str, Any]]) -> list[list[str]]:
    """The table's rows (without the header), in the order of the table and the HTML."""
    from aletheia.pipeline.reports.advice import attention_rank, explain

    rows: list[tuple[int, list[str]]] = []
    for position, ref in enumerate(references, start=1):
        told = explain(ref)
        cited = told.cited
        match = ref.get("match") or {}
        values: dict[str, Any] = {
            "position": position,
            "key": ref.get("key"),
            "verdict": ref.get("verdict"),
            "label": told.label,
            "severity": ref.get("severity"),
            "needs_attention": "yes" if told.needs_attention else "no",
            "what_is_wrong": told.wrong,
            "how_we_know": told.how + told.notes,
            "suggested_fix": told.fix.text,
            "changes": told.fix.changes,
            "reasons": ref.get("reasons"),
            "title": cited.get("title") or cited.get("raw"),
            "authors": cited.get("authors"),
            "year": cited.get("year"),
            "venue": cited.get("venue"),
            "doi": cited.get("doi"),
            "arxiv_id": cited.get("arxiv_id"),
            "url": cited.get("url"),
            "found_title": match.get("title"),
            "found_authors": match.get("authors"),
            "found_year": match.get("year"),
            "found_venue": match.get("venue"),
            "found_doi": match.get("doi"),
            "found_in": match.get("sources"),
            "file": told.file,
            "line": told.line,
        }
        rows.append((attention_rank(told), [_cell(values[c]) for c in CSV_COLUMNS]))
    rows.sort(key=lambda row: row[0])  # stable: input order within a rank
    return [row for _, row in rows]


class CsvSink(WritingSink):
    """Collects the references and writes the table at the end (attention first needs them all)."""

    def summary(self, obj: dict[str, Any]) -> None:
        super().summary(obj)
        self.out.write("\ufeff")
        writer = csv.writer(self.out, lineterminator="\r\n")
        writer.writerow(CSV_COLUMNS)
        writer.writerows(csv_rows(self.references))
