"""Report formats: the JSON document (docs/report-schema.md), JSONL, a terminal table
(report_table), a self-contained HTML page (report_html), the corrected BibTeX bibliography
(report_bibtex), CSL-JSON, a CSV table for spreadsheets (csv_report), and the formats of the places
people already look (report_ci): a Markdown pull-request comment, GitHub workflow annotations, SARIF
and JUnit XML.

Every sink takes references one at a time (`reference(obj)`) and the summary last (`summary(obj)`),
so the streaming formats (jsonl, bibtex, github) write as results arrive. The words of every
human-facing format come from one place: explain (the reason sentences) and report_advice (what is
wrong, how we know, what to change).
"""

from __future__ import annotations

import importlib
import json
from typing import TYPE_CHECKING, Any, TextIO

from aletheia.core.records import CitedReference, WorkRecord
from aletheia.core.transparency import transparency
from aletheia.core.trust import trust_of
from aletheia.core.works import matched_work_sources
from aletheia.pipeline.report_formats import format_names, make_sink
from aletheia.pipeline.reports.base import VERDICT_STYLE, CollectingSink, WritingSink
from aletheia.pipeline.reports.signals import DocumentSignals, reference_signals

if TYPE_CHECKING:
    from aletheia.core.signals import PredatoryList
    from aletheia.pipeline.evidence.outcome import ReferenceOutcome
    from aletheia.pipeline.reports.bibtex import BibtexSink
    from aletheia.pipeline.reports.ci import GithubSink, JunitSink, MarkdownSink, SarifSink
    from aletheia.pipeline.reports.csv_report import CsvSink
    from aletheia.pipeline.reports.html import HtmlSink, render_html
    from aletheia.pipeline.reports.table import TableSink

# The sinks written in modules of their own, imported when first asked for (`make_sink`, or
# `from aletheia.pipeline.reports.formats import TableSink`): a report renders one format, and
# `aletheia report --format json` need not load the BibTeX writer (with the artifacts' YAML) or the
# CI formats (docs/benchmarks.md, "CLI start-up").
_ELSEWHERE: dict[str, str] = {
    "BibtexSink": "aletheia.pipeline.reports.bibtex",
    "CsvSink": "aletheia.pipeline.reports.csv_report",
    "GithubSink": "aletheia.pipeline.reports.ci",
    "JunitSink": "aletheia.pipeline.reports.ci",
    "MarkdownSink": "aletheia.pipeline.reports.ci",
    "SarifSink": "aletheia.pipeline.reports.ci",
    "HtmlSink": "aletheia.pipeline.reports.html",
    "render_html": "aletheia.pipeline.reports.html",
    "TableSink": "aletheia.pipeline.reports.table",
}


def __getattr__(name: str) -> Any:
    if name in _ELSEWHERE:
        return getattr(importlib.import_module(_ELSEWHERE[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FORMATS",
    "VERDICT_STYLE",
    "BibtexSink",
    "CollectingSink",
    "CslJsonSink",
    "CsvSink",
    "GithubSink",
    "HtmlSink",
    "JsonSink",
    "JsonlSink",
    "JunitSink",
    "MarkdownSink",
    "SarifSink",
    "TableSink",
    "make_sink",
    "reference_json",
    "render_html",
]

# Every format's name (their records: `report_formats.REPORT_FORMATS`).
FORMATS = format_names()


def _match_json(record: WorkRecord | None, sources: list[str]) -> dict[str, Any] | None:
    if record is None:
        return None
    return {
        "doi": record.doi,
        "arxiv_id": record.arxiv_id,
        "pmid": record.pmid,
        "title": record.title,
        "authors": [a.display for a in record.authors],
        "year": record.year,
        "venue": record.venue,
        "sources": sources,
    }


def _input_json(cited: CitedReference) -> dict[str, Any]:
    if cited.fields:
        return dict(cited.fields)
    out: dict[str, Any] = {}
    if cited.raw:
        out["raw"] = cited.raw
    for name in ("title", "year", "venue", "doi", "arxiv_id", "pmid", "url"):
        value = getattr(cited, name)
        if value is not None:
            out[name] = value
    if cited.authors:
        out["author"] = " and ".join(a.display for a in cited.authors)
    return out


def reference_json(outcome: ReferenceOutcome, *, predatory: PredatoryList | None = None) -> dict[str, Any]:
    """The REFERENCE object of docs/report-schema.md; `signals` are computed here, after the
    verdict, with `predatory` (default: the process's active list, `report_signals`)."""
    v = outcome.verdict
    # The matched work's sources, not every source that returned a record (a namesake's).
    sources = sorted({s.value for s in matched_work_sources(v.match, v.secondary, outcome.evidence.answers)})
    trace = [
        {
            "source": a.source.value,
            "trust": trust_of(a.source),  # seed 003: every piece of evidence names its trust level
            "kind": a.kind.value,
            "query": a.query,
            "outcome": a.outcome.value,
            "records": len(a.records),
            "error": a.error,
            # Answered from the local snapshot mirror (no request): the snapshot's day.
            **({"mirror_snapshot": a.mirror_snapshot.isoformat()} if a.mirror_snapshot else {}),
        }
        for a in outcome.evidence.answers
    ]
    return {
        "key": outcome.cited.key,
        "entry_type": outcome.cited.entry_type,
        "origin": outcome.cited.origin,
        "input": _input_json(outcome.cited),
        "verdict": v.status.value,
        "severity": v.severity.value if v.severity else None,
        # ADR 004: verification_status, content_type, tier, tier_name (core/transparency.py)
        **transparency(v).as_json(),
        "reasons": [r.value for r in v.reasons],
        "fields": {name: ev.model_dump(mode="json") for name, ev in v.fields.items()},
        "match": _match_json(v.match, sources),
        "retraction": v.retraction,
        "corrected": v.corrected,
        "p_valid": v.p_valid,
        "notes": list(v.notes),
        "sources_unavailable": [s.value for s in v.sources_unavailable],
        # The sources read from the local mirror, with each snapshot's day (only when there are).
        **({"mirror": dict(v.mirror)} if v.mirror else {}),
        "signals": [sig.model_dump(mode="json") for sig in reference_signals(outcome, predatory)],
        "trace": trace,
        "logic_version": v.logic_version,
    }


# ----------------------------------------------------------------------------------------------
# sinks


class JsonlSink:
    """One JSON object per line, flushed as it comes; the summary is the last line."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.signals = DocumentSignals()

    def reference(self, obj: dict[str, Any]) -> None:
        self.signals.add(obj)
        self.out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self.out.flush()

    def summary(self, obj: dict[str, Any]) -> None:
        obj = self.signals.into(obj)
        self.out.write(json.dumps({"summary": obj}, ensure_ascii=False) + "\n")


class JsonSink:
    """The JSON document `{"summary": ..., "references": [...]}`; references stream out as they
    come (the summary is known only at the end, so it is written after them: JSON objects are
    unordered and every reader accepts it)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.count = 0
        self.signals = DocumentSignals()
        self.out.write('{"references": [\n')

    def reference(self, obj: dict[str, Any]) -> None:
        self.signals.add(obj)
        self.out.write((",\n" if self.count else "") + json.dumps(obj, ensure_ascii=False))
        self.count += 1

    def summary(self, obj: dict[str, Any]) -> None:
        obj = self.signals.into(obj)
        self.out.write('\n],\n"summary": ' + json.dumps(obj, ensure_ascii=False) + "}\n")


class CslJsonSink(WritingSink):
    def summary(self, obj: dict[str, Any]) -> None:
        from aletheia.pipeline.reports.csl import csl_items

        json.dump(csl_items(self.references), self.out, ensure_ascii=False, indent=2)
        self.out.write("\n")
