"""Report formats: the JSON document (docs/report-schema.md), JSONL, a terminal table, a
self-contained HTML page, the corrected BibTeX bibliography and CSL-JSON.

Every sink takes references one at a time (`reference(obj)`) and the summary last (`summary(obj)`),
so the streaming formats (jsonl, bibtex, csl-json) write as results arrive.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any, ClassVar, TextIO

from aletheia.core.records import Author, CitedReference, WorkRecord
from aletheia.core.render import bibtex_escape

if TYPE_CHECKING:
    from aletheia.pipeline.evidence import ReferenceOutcome

FORMATS = ("table", "json", "jsonl", "html", "bibtex", "csl-json")


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


def reference_json(outcome: ReferenceOutcome) -> dict[str, Any]:
    v = outcome.verdict
    sources = sorted({r.record.source.value for r in outcome.raw})
    trace = [
        {
            "source": a.source.value,
            "kind": a.kind.value,
            "query": a.query,
            "outcome": a.outcome.value,
            "records": len(a.records),
            "error": a.error,
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
        "reasons": [r.value for r in v.reasons],
        "fields": {name: ev.model_dump(mode="json") for name, ev in v.fields.items()},
        "match": _match_json(v.match, sources),
        "retraction": v.retraction,
        "corrected": v.corrected,
        "p_valid": v.p_valid,
        "notes": list(v.notes),
        "sources_unavailable": [s.value for s in v.sources_unavailable],
        "trace": trace,
        "logic_version": v.logic_version,
    }


# ----------------------------------------------------------------------------------------------
# sinks


class JsonlSink:
    """One JSON object per line, flushed as it comes; the summary is the last line."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def reference(self, obj: dict[str, Any]) -> None:
        self.out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self.out.flush()

    def summary(self, obj: dict[str, Any]) -> None:
        self.out.write(json.dumps({"summary": obj}, ensure_ascii=False) + "\n")


class JsonSink:
    """The JSON document `{"summary": ..., "references": [...]}`; references stream out as they
    come (the summary is known only at the end, so it is written after them: JSON objects are
    unordered and every reader accepts it)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.count = 0
        self.out.write('{"references": [\n')

    def reference(self, obj: dict[str, Any]) -> None:
        self.out.write((",\n" if self.count else "") + json.dumps(obj, ensure_ascii=False))
        self.count += 1

    def summary(self, obj: dict[str, Any]) -> None:
        self.out.write('\n],\n"summary": ' + json.dumps(obj, ensure_ascii=False) + "}\n")


class CollectingSink:
    def __init__(self) -> None:
        self.references: list[dict[str, Any]] = []
        self.summary_obj: dict[str, Any] = {}

    def reference(self, obj: dict[str, Any]) -> None:
        self.references.append(obj)

    def summary(self, obj: dict[str, Any]) -> None:
        self.summary_obj = obj

    def document(self) -> dict[str, Any]:
        return {"summary": self.summary_obj, "references": self.references}


VERDICT_STYLE = {
    "verified": "green",
    "metadata_error": "yellow",
    "identifier_conflict": "red",
    "not_found": "red",
    "fabricated": "bold red",
    "retracted": "bold red",
    "ambiguous": "magenta",
    "unverifiable": "cyan",
    "out_of_scope": "dim",
}


def _why(ref: dict[str, Any]) -> str:
    parts = []
    for name, ev in ref["fields"].items():
        if ev.get("agrees") is False:
            parts.append(f"{name}: cited {ev.get('cited')!r}, found {ev.get('found')!r}")
    if not parts:
        parts = [r for r in ref["reasons"] if r not in ("triangulated", "doi_resolved", "arxiv_resolved")]
    return "; ".join(str(p) for p in parts)[:300]


def escape(text: str) -> str:
    from rich.markup import escape as rich_escape

    return rich_escape(text)


class TableSink:
    """A terminal table (rich), with a progress bar on standard error while references stream in
    (the input is streamed, so the bar counts references and verdicts rather than a percentage)."""

    def __init__(self, out: TextIO, *, progress: bool = False) -> None:
        from rich.console import Console

        self.console = Console(file=out, highlight=False)
        self.rows: list[dict[str, Any]] = []
        self.flagged = 0
        self._progress: Any = None
        self._task: Any = None
        if progress:
            from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.completed} references checked, {task.fields[flagged]} flagged"),
                BarColumn(bar_width=None),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task("verify", total=None, flagged=0)

    def reference(self, obj: dict[str, Any]) -> None:
        self.rows.append(obj)
        if self._progress is not None:
            self.flagged += int(obj["verdict"] not in ("verified", "out_of_scope", "unverifiable"))
            self._progress.update(self._task, advance=1, flagged=self.flagged)

    def summary(self, obj: dict[str, Any]) -> None:
        from rich.table import Table

        if self._progress is not None:
            self._progress.stop()

        table = Table(show_lines=False, expand=True, pad_edge=False)
        table.add_column("key", overflow="fold", max_width=28)
        table.add_column("verdict", overflow="fold", max_width=22)
        table.add_column("reference and why", overflow="fold", ratio=1)
        for ref in self.rows:
            style = VERDICT_STYLE.get(ref["verdict"], "")
            label = ref["verdict"] + (f" ({ref['severity']})" if ref.get("severity") else "")
            title = str(ref["input"].get("title") or ref["input"].get("raw") or "")
            why = _why(ref)
            detail = f"[dim]{escape(title[:120])}[/dim]" + (f"\n{escape(why)}" if why else "")
            table.add_row(escape(str(ref["key"])), f"[{style}]{label}[/{style}]", detail)
        self.console.print(table)
        counts = ", ".join(f"{k}: {v}" for k, v in obj["by_verdict"].items())
        self.console.print(f"[bold]{obj['total']} references[/bold] — {counts}")
        sources = obj.get("sources", {})
        down = [n for n, s in sources.items() if s.get("status") not in ("ok", None) or s.get("affected")]
        if down:
            parts = []
            for name in down:
                st = sources[name]
                hit = st.get("affected_verdicts") or {}
                detail = ", ".join(f"{k}: {v}" for k, v in hit.items())
                parts.append(
                    f"{name} ({st.get('status')}; {st.get('affected', 0)} verdicts affected"
                    + (f": {detail}" if detail else "")
                    + ")"
                )
            self.console.print(f"[cyan]sources not fully available: {'; '.join(parts)}[/cyan]")
        for p in obj.get("problems", []):
            where = ":".join(str(p[k]) for k in ("origin", "line", "column") if p.get(k) is not None)
            self.console.print(f"[red]input problem[/red] {escape(where)}: {escape(str(p.get('message')))}")


class HtmlSink(CollectingSink):
    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self.out = out

    def summary(self, obj: dict[str, Any]) -> None:
        super().summary(obj)
        self.out.write(render_html(self.document()))


def render_html(doc: dict[str, Any]) -> str:
    """One self-contained page: the summary, then a row per reference with its trace."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(
        loader=PackageLoader("aletheia.pipeline", "templates"), autoescape=select_autoescape(["html"])
    )
    env.filters["tojson_compact"] = lambda v: json.dumps(v, ensure_ascii=False)
    env.filters["h"] = lambda v: html.escape(str(v))
    return env.get_template("report.html").render(doc=doc, styles=VERDICT_STYLE)


# --- corrected bibliographies --------------------------------------------------------------------


def _authors_bibtex(names: list[str]) -> str:
    from aletheia.core.authors import parse_name

    parts = []
    for name in names:
        a: Author = parse_name(name)
        if a.literal:
            parts.append("{" + a.literal + "}")
        elif a.family and a.given:
            parts.append(f"{a.family}, {a.given}")
        else:
            parts.append(a.family or name)
    return " and ".join(parts)


class BibtexSink:
    """The corrected bibliography: verified values replace wrong ones, every change is listed in a
    comment above its entry, and no entry is ever dropped."""

    FIELD_FOR: ClassVar[dict[str, str | None]] = {
        "title": "title",
        "year": "year",
        "doi": "doi",
        "venue": None,
        "authors": "author",
        "arxiv_id": "eprint",
    }

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.changes = 0

    def reference(self, obj: dict[str, Any]) -> None:
        raw_text = obj["input"].get("raw")
        # BibTeX inputs keep their fields exactly as written (LaTeX included); fields read from a
        # plain reference string, and every value from a source, are plain text and are escaped.
        fields = {
            k: (bibtex_escape(str(v)) if raw_text is not None else str(v))
            for k, v in obj["input"].items()
            if k != "raw"
        }
        entry_type = obj.get("entry_type") or "misc"
        lines = [f"% aletheia: {obj['verdict']}" + (f" ({obj['severity']})" if obj.get("severity") else "")]
        match = obj.get("match")
        if raw_text is not None and match and obj["verdict"] in ("verified", "metadata_error"):
            fields["title"] = bibtex_escape(match["title"] or "")
            fields["author"] = _authors_bibtex(match["authors"])
            fields["year"] = str(match["year"] or "")
            if match.get("doi"):
                fields["doi"] = bibtex_escape(match["doi"])
            lines.append("% aletheia: entry built from the matched record; original: " + raw_text[:200])
        for name, value in obj.get("corrected", {}).items():
            if value in (None, "", []):
                continue
            target = self.FIELD_FOR.get(name, name)
            if name == "venue":
                target = "booktitle" if "booktitle" in fields else "journal"
            if target is None:
                continue
            # Input fields are raw BibTeX (LaTeX kept as written); values from the sources are plain
            # Unicode text and are escaped as they go in.
            new = _authors_bibtex(value) if name == "authors" else bibtex_escape(str(value))
            old = fields.get(target)
            source = (obj.get("fields", {}).get(name if name != "authors" else "authors") or {}).get("source")
            lines.append(f"% aletheia: {target} changed from {old!r} to {new!r} (source: {source})")
            fields[target] = new
            self.changes += 1
        if obj["verdict"] in (
            "not_found",
            "fabricated",
            "identifier_conflict",
            "retracted",
            "unverifiable",
            "ambiguous",
        ):
            lines.append(f"% aletheia: NOT VERIFIED — reasons: {', '.join(obj['reasons'])}")
        body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
        self.out.write("\n".join(lines) + f"\n@{entry_type}{{{obj['key']},\n{body}\n}}\n\n")

    def summary(self, obj: dict[str, Any]) -> None:
        self.out.write(
            f"% aletheia: {obj['total']} entries, {self.changes} field changes, "
            f"logic {obj['logic_version']}\n"
        )


class CslJsonSink(CollectingSink):
    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self.out = out

    def summary(self, obj: dict[str, Any]) -> None:
        items = []
        for ref in self.references:
            m = ref.get("match")
            if ref["verdict"] in ("verified", "metadata_error") and m:
                item: dict[str, Any] = {"id": str(ref["key"]), "title": m["title"]}
                authors = []
                from aletheia.core.authors import parse_name

                for name in m["authors"]:
                    a = parse_name(name)
                    authors.append(
                        {"literal": a.literal} if a.literal else {"family": a.family, "given": a.given}
                    )
                item["author"] = authors
                if m.get("year"):
                    item["issued"] = {"date-parts": [[m["year"]]]}
                if m.get("venue"):
                    item["container-title"] = m["venue"]
                if m.get("doi"):
                    item["DOI"] = m["doi"]
                item["type"] = "article-journal" if m.get("doi") else "article"
            else:
                item = {
                    "id": str(ref["key"]),
                    "type": "article",
                    "title": ref["input"].get("title") or ref["input"].get("raw"),
                    "note": f"aletheia: {ref['verdict']} — not verified",
                }
            items.append(item)
        json.dump(items, self.out, ensure_ascii=False, indent=2)
        self.out.write("\n")


def make_sink(fmt: str, out: TextIO, *, progress: bool = False) -> Any:
    if fmt == "table":
        return TableSink(out, progress=progress)
    if fmt == "json":
        return JsonSink(out)
    if fmt == "jsonl":
        return JsonlSink(out)
    if fmt == "html":
        return HtmlSink(out)
    if fmt == "bibtex":
        return BibtexSink(out)
    if fmt == "csl-json":
        return CslJsonSink(out)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
