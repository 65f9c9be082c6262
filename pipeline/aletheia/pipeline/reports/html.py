"""The HTML report: one self-contained page (no network), the summary first — how many references
need attention, by kind, and which sources could not be asked — then every reference with what is
wrong, how we know and what to change (the corrected entry with a copy button): those that need a
change first, then the rest (`advice.PEOPLE_ORDER`; a control sorts them by input order)."""

from __future__ import annotations

import html
import json
from typing import Any

from aletheia.pipeline.reports.advice import FIX_TITLES, attention, attention_rank, explain
from aletheia.pipeline.reports.base import VERDICT_STYLE, WritingSink
from aletheia.pipeline.reports.signals import evidence_trust, signal_text, summary_with_signals
from aletheia.pipeline.reports.transparency import (
    summary_tier_rows,
    summary_verification_counts,
    tier_trail,
    transparency_badges,
)


class HtmlSink(WritingSink):
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
    env.filters["signal_text"] = signal_text
    env.filters["transparency_badges"] = transparency_badges
    env.filters["tier_trail"] = tier_trail
    env.filters["summary_tier_rows"] = summary_tier_rows
    env.filters["summary_verification_counts"] = summary_verification_counts
    env.filters["evidence_trust"] = evidence_trust
    # A stored job's document has no document-level signals yet: computed from its references.
    doc = {**doc, "summary": summary_with_signals(doc.get("summary", {}), doc.get("references", []))}
    explained = [(ref, explain(ref)) for ref in doc.get("references", [])]
    att = attention(doc.get("summary", {}), [ex for _, ex in explained])
    # Rows: the references that need a change first, then the rest (the page re-sorts them by
    # input order on request: each row carries its position).
    rows = sorted(
        ((position, ref, ex) for position, (ref, ex) in enumerate(explained, 1)),
        key=lambda row: attention_rank(row[2]),
    )
    return env.get_template("report.html").render(
        doc=doc, styles=VERDICT_STYLE, rows=rows, attention=att, fix_titles=FIX_TITLES
    )
