"""The terminal table: the same three answers as every other report, in fewer words — what is
wrong and what to change, one row per reference — with a progress bar while references stream in.
It starts with how many references need attention and which sources could not be asked, then the
references that need a change, then the rest (`advice.PEOPLE_ORDER`)."""

from __future__ import annotations

from typing import Any, TextIO

from aletheia.pipeline.reports.advice import NOTHING, attention, attention_rank, explain
from aletheia.pipeline.reports.base import VERDICT_STYLE
from aletheia.pipeline.reports.fields import shorten
from aletheia.pipeline.reports.transparency import summary_transparency_line

FIX_STYLE = {"remove": "bold red", "replace": "yellow", "check": "cyan", "optional": "dim", "nothing": "dim"}


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
        explanations = [explain(ref) for ref in self.rows]
        # How many need attention first, as every format starts (issue 30: it came last).
        att = attention(obj, explanations)
        counts = ", ".join(f"{k}: {v}" for k, v in obj.get("by_verdict", {}).items())
        self.console.print(f"[bold]{escape(att.headline)}[/bold] [dim]({counts})[/dim]")
        line = summary_transparency_line(obj)  # ADR 004: how far verified, which tier decided
        if line:
            self.console.print(f"[dim]verification: {escape(line)}[/dim]")
        style = "cyan" if att.partial else "green"
        self.console.print(f"[{style}]{escape(att.sources_line())}[/{style}]")
        table = Table(show_lines=False, expand=True, pad_edge=False)
        table.add_column("reference", overflow="fold", max_width=30)
        table.add_column("verdict", overflow="fold", max_width=24)
        table.add_column("what is wrong → what to change", overflow="fold", ratio=1)
        # The references that need a change first, then the rest, input order within each.
        ordered = sorted(zip(self.rows, explanations, strict=True), key=lambda pair: attention_rank(pair[1]))
        for ref, ex in ordered:
            style = VERDICT_STYLE.get(ref["verdict"], "")
            where = f"{ex.file}:{ex.line}" if ex.line else ""
            key = escape(str(ref["key"])) + (f"\n[dim]{escape(where)}[/dim]" if where else "")
            title = str(ex.cited.get("title") or ex.cited.get("raw") or "")
            lines = [f"[dim]{escape(shorten(title, 100))}[/dim]"]
            if ex.fix.kind != NOTHING or ex.wrong:
                lines.append(escape(ex.headline))
                fix_style = FIX_STYLE.get(ex.fix.kind, "")
                fix = ex.fix.text + (": " + "; ".join(ex.fix.changes) if ex.fix.changes else "")
                lines.append(f"[{fix_style}]→ {escape(fix)}[/{fix_style}]")
            table.add_row(key, f"[{style}]{escape(ex.label)}[/{style}]", "\n".join(lines))
        self.console.print(table)
        for p in obj.get("problems", []):
            where = ":".join(str(p[k]) for k in ("origin", "line", "column") if p.get(k) is not None)
            self.console.print(f"[red]input problem[/red] {escape(where)}: {escape(str(p.get('message')))}")
