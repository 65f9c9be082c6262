"""The claims report as one self-contained HTML page (no network): the summary first, then every
claim with its triggers, its citations and their verdicts, what the cited paper says about it (the
judgement, the deciding excerpt verbatim with its location, and why), or the suggestion for it."""

from __future__ import annotations

import html
from typing import Any

_STATUS_STYLE = {
    "verified": "#1a7f37",
    "own_work": "#57606a",
    "unsupported": "#cf222e",
    "unresolved": "#cf222e",
    "flagged": "#cf222e",
    "doubtful": "#9a6700",
    "unchecked": "#9a6700",
    "contradicted": "#cf222e",
    "unsupported_by_paper": "#cf222e",
    "supported": "#1a7f37",
    "not_judged": "#57606a",
}
_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5rem;max-width:70rem;color:#1f2328}
h1{font-size:1.4rem}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #d0d7de;padding:.4rem;vertical-align:top;text-align:left;overflow-wrap:anywhere}
.chip{display:inline-block;border-radius:1rem;padding:0 .5rem;color:#fff;font-size:.8rem}
.trigger{background:#fff8c5;border-radius:.2rem;padding:0 .2rem;font-size:.85rem}
.summary span{margin-right:1.2rem}code{word-break:break-all}
blockquote{margin:.3rem 0;padding:0 .6rem;border-left:3px solid #d0d7de;color:#1f2328}
@media (max-width:600px){td,th{display:block}}
"""


def _e(value: Any) -> str:
    return html.escape(str(value))


def _chip(status: str) -> str:
    return f'<span class="chip" style="background:{_STATUS_STYLE.get(status, "#57606a")}">{_e(status)}</span>'


def _judgement(judgement: dict[str, Any] | None) -> str:
    """The cited paper's answer: a chip, the paper, why, and the deciding (or closest) excerpt."""
    if not judgement:
        return ""
    status = judgement["status"]
    paper = f" <code>{_e(judgement['paper'])}</code>" if judgement.get("paper") else ""
    out = f'<li class="judgement" data-judgement="{_e(status)}">judged {_chip(status)}{paper}: '
    out += _e(judgement.get("detail") or "")
    excerpt = judgement.get("excerpt") or judgement.get("closest")
    if excerpt:
        label = "excerpt" if status in ("contradicted", "supported") else "closest excerpt"
        where = f" ({_e(excerpt['location'])})" if excerpt.get("location") else ""
        why = f"<br><small>why: {_e(excerpt['why'])}</small>" if excerpt.get("why") else ""
        quoted = f"&ldquo;{_e(excerpt['text'])}&rdquo;"
        out += f'<blockquote class="excerpt">{label}{where}: {quoted}{why}</blockquote>'
    return out + "</li>"


def _citations(claim: dict[str, Any]) -> str:
    rows = []
    for c in claim["citations"]:
        if not c["resolved"]:
            rows.append(
                f"<li><code>{_e(c['marker'])}</code> {_e(c['key'])}: {_e(c['unresolved_reason'])}</li>"
            )
        else:
            verdict = c.get("verdict") or "not checked"
            rows.append(f"<li><code>{_e(c['key'])}</code>: {_chip(verdict)}</li>")
    if claim.get("judgement"):
        rows.append(_judgement(claim["judgement"]))
    suggestion = claim.get("suggestion")
    if suggestion:
        if suggestion.get("verified"):
            rows.append(
                f"<li>suggested (verified): {_e(suggestion['citation'])}"
                f" <small>artifact <code>{_e(suggestion['artifact'])}</code></small></li>"
            )
        else:
            detail = suggestion.get("detail") or ""
            rows.append(f"<li>{_e(suggestion.get('result'))}: {_e(detail)}</li>")
    return "<ul>" + "".join(rows) + "</ul>" if rows else ""


def render_claims_html(report: dict[str, Any]) -> str:
    s = report["summary"]
    counts = "".join(
        f'<span>{_chip(status)} <b class="count" data-status="{_e(status)}">{n}</b></span>'
        for status, n in s["by_status"].items()
    )
    judged = "".join(
        f'<span>{_chip(status)} <b class="judged" data-judgement="{_e(status)}">{n}</b></span>'
        for status, n in s.get("judged", {}).items()
    )
    judged = f'<p class="summary">judged against the cited paper: {judged}</p>' if judged else ""
    rows = []
    for claim in report["claims"]:
        triggers = " ".join(
            f'<span class="trigger" title="{_e(t["rule"])}">{_e(t["text"])}</span>' for t in claim["triggers"]
        )
        rows.append(
            f'<tr class="claim" data-status="{_e(claim["status"])}"><td>{claim["line"]}</td>'
            f"<td>{_chip(claim['status'])}</td><td>{_e(claim['sentence'])}<br>{triggers}</td>"
            f"<td>{_citations(claim)}</td></tr>"
        )
    bib = report["bibliography"]
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>Aletheia claims report</title><style>{_CSS}</style></head><body>"
        f"<h1>Claims in {_e(report['document'])}</h1>"
        f'<p class="summary"><span>claims: <b id="claim-count">{s["claims"]}</b></span>'
        f"<span>need a citation: <b>{s['needs_citation']}</b></span>"
        f'<span>unsupported: <b id="unsupported-count">{s["unsupported"]}</b></span>'
        f"<span>citations checked: <b>{s['citations_checked']}</b></span>"
        f'<span>sentence-paper pairs judged: <b id="judged-count">{s.get("judgements_checked", 0)}</b>'
        f" (at most {_e(s.get('max_judgements', '-'))})</span>"
        f"<span>suggestions verified: <b>{s['suggestions_verified']}</b></span></p>"
        f"<p>{counts}</p>{judged}"
        f"<p><small>bibliography: {_e(', '.join(bib['origins']) or 'none found')}"
        f" ({bib['references']} references);"
        f" rules {_e(report['rules_version'])}, logic {_e(report['logic_version'])}</small></p>"
        "<table><thead><tr><th>line</th><th>status</th><th>claim</th><th>citations</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></body></html>\n"
    )
