"""ADR 004's transparency fields in the formats people read: the HTML report's badges, and one
short phrase for Markdown, the terminal and SARIF messages. The fields themselves are computed in
core (`aletheia.core.transparency`) and written on every REFERENCE object by `report.reference_json`;
a stored report written before they existed simply shows no badge."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "BADGE_TEXT",
    "summary_tier_rows",
    "summary_transparency_line",
    "summary_verification_counts",
    "tier_trail",
    "transparency_badges",
    "transparency_phrase",
]

# value -> (short text, the explanation shown on hover). Plain words, not alarms (ADR 004: "clear
# but not alarmist").
BADGE_TEXT: Final[dict[str, tuple[str, str]]] = {
    "verified": ("verified", "every decisive field agrees with the source's record"),
    "partially_verified": ("partially verified", "the work exists; a detail differs or was not confirmed"),
    "unverified": ("unverified", "no source proved this reference as written"),
    "exact_quote": ("exact quote", "the quoted words were found verbatim in the source's text"),
    "verified_paraphrase": ("verified paraphrase", "the source's text supports it, not word for word"),
    "unverified_content": ("unverified content", "no text of the source supports the quoted content"),
    "web_resource": ("web resource", "the cited page answers with the cited title; its words not compared"),
}


def transparency_badges(ref: Mapping[str, Any]) -> list[dict[str, str]]:
    """The badges of one REFERENCE object: verification status, tier, content type (when any)."""
    badges: list[dict[str, str]] = []
    status = ref.get("verification_status")
    if status in BADGE_TEXT:
        text, title = BADGE_TEXT[status]
        badges.append({"kind": "verification", "value": status, "text": text, "title": title})
    tier = ref.get("tier")
    if isinstance(tier, int):
        name = ref.get("tier_name") or ""
        badges.append(
            {
                "kind": "tier",
                "value": str(tier),
                "text": f"tier {tier} · {name}" if name else f"tier {tier}",
                "title": f"decided by tier {tier} ({name}): docs/sources.md lists what each tier proves",
            }
        )
    content = ref.get("content_type")
    if content in BADGE_TEXT:
        text, title = BADGE_TEXT[content]
        badges.append({"kind": "content", "value": content, "text": text, "title": title})
    return badges


def tier_trail(ref: Mapping[str, Any]) -> list[str]:
    """What tiers 4 and 5 did for one REFERENCE object, from its notes: "web search skipped: no key
    (...)", "LLM suggestion (not evidence; check it by hand): '...'" (`core.web.trail_notes`)."""
    from aletheia.core.web import is_trail_note

    return [str(n) for n in ref.get("notes") or () if is_trail_note(str(n))]


def transparency_phrase(ref: Mapping[str, Any]) -> str | None:
    """E.g. "partially verified · tier 2 scholarly · exact quote"; None without the fields."""
    parts = [b["text"].replace(" · ", " ") for b in transparency_badges(ref)]
    return " · ".join(parts) if parts else None


# --- the summary's counts (issue 12): by verification status and by tier ---------------------------

_VERIFICATION_ORDER: Final = ("verified", "partially_verified", "unverified")


def _counts_text(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {n}" for k, n in counts.items())


def summary_tier_rows(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The summary's `by_tier` entries with a label ("tier 2 scholarly", "no tier") and the
    verdicts in words; empty for a stored summary written before the counts existed."""
    from aletheia.core.transparency_counts import tier_label

    rows = []
    for entry in summary.get("by_tier") or ():
        tier = entry.get("tier")
        rows.append(
            {
                **entry,
                "label": tier_label(tier) if isinstance(tier, int) or tier is None else str(tier),
                "verdicts": _counts_text(entry.get("by_verdict") or {}),
            }
        )
    return rows


def summary_verification_counts(summary: Mapping[str, Any]) -> dict[str, int]:
    """The summary's `by_verification_status`, verified first (empty without the counts)."""
    by_status = summary.get("by_verification_status") or {}
    ordered = {k: by_status[k] for k in _VERIFICATION_ORDER if by_status.get(k)}
    return ordered | {k: n for k, n in by_status.items() if k not in ordered and n}


def summary_transparency_line(summary: Mapping[str, Any]) -> str | None:
    """One line for the terminal and Markdown: "verified 7, partially verified 1, unverified 2 ·
    by tier: tier 2 scholarly 8 (verified 6, metadata error 1, ...); no tier 2 (...)"; None
    without the counts."""
    ordered = summary_verification_counts(summary)
    if not ordered:
        return None
    tiers = "; ".join(
        f"{r['label']} {r.get('total', 0)} ({r['verdicts']})" for r in summary_tier_rows(summary)
    )
    return _counts_text(ordered) + (f" · by tier: {tiers}" if tiers else "")
