"""Reports a person can act on: every reason code as a sentence with the values filled in, and for
each reference what is wrong, how we know (which source said what) and what to change.

Everything here reads the JSON report object of a reference (`report.reference_json`, the shape
in docs/report-schema.md), so a stored job's report (`aletheia report JOB`) is explained the same
way as a fresh run. docs/verdicts.md stays the reference for what each code means; this module
only says it in plain words.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

from aletheia.core.acl_ids import acl_id_from_text
from aletheia.core.case import IDENTIFIER_ELSEWHERE_NOTE
from aletheia.core.source_display import SOURCE_NAMES, source_name
from aletheia.core.verdicts import Reason
from aletheia.pipeline.reports.fields import list_difference
from aletheia.pipeline.reports.reason_sentences import NOTE, SENTENCES

__all__ = ["SOURCE_NAMES", "context", "fill", "role", "sentence", "source_name"]


def join_names(names: list[str]) -> str:
    names = [n for n in names if n]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


class _Missing(KeyError):
    pass


class _Context(dict[str, Any]):
    """Template values; a missing or empty value makes the template fall through to the next."""

    def __missing__(self, key: str) -> Any:
        raise _Missing(key)


_FORMATTER = string.Formatter()


def fill(templates: tuple[str, ...], context: Mapping[str, Any]) -> str:
    ctx = _Context({k: v for k, v in context.items() if v not in (None, "", [], ())})
    for template in templates:
        try:
            return _FORMATTER.vformat(template, (), ctx)
        except _Missing:
            continue
    return templates[-1]


def sentence(reason: str, context: Mapping[str, Any]) -> str:
    """The reason in plain words, with the values of `context` filled in."""
    try:
        role_templates = SENTENCES[Reason(reason)]
    except ValueError:
        return reason.replace("_", " ")
    return fill(role_templates[1], context)


def role(reason: str) -> str:
    try:
        return SENTENCES[Reason(reason)][0]
    except ValueError:
        return NOTE


# --- the facts of one reference, as words ----------------------------------------------------------


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value)


def _says(names: list[str]) -> str:
    return f"{join_names(names)} {'say' if len(names) > 1 else 'says'}"


def _field_sources(ref: Mapping[str, Any], name: str, ev: Mapping[str, Any]) -> list[str]:
    """Who said the found value: the field's source, and the match's other sources when the
    decisive fields were triangulated (they agree on it)."""
    own = ev.get("source")
    names = [own] if own else []
    match = ref.get("match") or {}
    year_spread = any(str(n).startswith("year_sources_differ") for n in ref.get("notes", []))
    if (
        ev.get("decisive")
        and "triangulated" in ref.get("reasons", [])
        and not (name == "year" and year_spread)
    ):
        names += [s for s in match.get("sources", []) if s not in names and s != "library"]
    return [source_name(n) for n in names]


def _note(ref: Mapping[str, Any], prefix: str) -> str | None:
    for note in ref.get("notes", []):
        if str(note).startswith(prefix):
            return str(note)[len(prefix) :].strip()
    return None


def asked_sources(ref: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(sources that answered, sources that could not be asked) for this reference."""
    answered: list[str] = []
    failed: list[str] = []
    for t in ref.get("trace", []):
        name = t.get("source")
        if t.get("outcome") == "failed" and f"{name}: skipped:" in str(t.get("error") or ""):
            continue  # a tier that is off (no key, offline) was not asked: its note says so
        if t.get("outcome") == "failed":
            failed.append(name)
        elif name not in answered:
            answered.append(name)
    for name in ref.get("sources_unavailable", []):
        failed.append(name)
    not_asked = []
    for name in failed:
        if name not in answered and name not in not_asked:
            not_asked.append(name)
    return answered, not_asked


def _acl_id_cited(cited: Mapping[str, Any]) -> str:
    """An ACL Anthology id the citation gives by URL, as the sentences name it ("" if none)."""
    texts = [cited.get("url"), *(cited.get("fields") or {}).values(), cited.get("raw")]
    for text in texts:
        found = acl_id_from_text(text) if isinstance(text, str) else None
        if found:
            return f"ACL Anthology {found}"
    return ""


def context(ref: Mapping[str, Any], cited: Mapping[str, Any]) -> dict[str, Any]:
    """The values the sentences use: cited and found values, who said them, what was asked."""
    ctx = _field_values(ref, cited)
    ctx.update(_match_values(ref))
    answered, not_asked = asked_sources(ref)
    ctx["asked"] = join_names([source_name(s) for s in answered])
    ctx["unavailable"] = join_names([source_name(s) for s in not_asked])
    ctx["not_searched"] = join_names(
        [source_name(s.strip()) for s in (_note(ref, "not searched:") or "").split(",")]
    )
    ctx["kind"] = _note(ref, "kind:") or ""
    changed = _note(ref, "title_changed_between_versions:") or ""
    if ", current " in changed:
        ctx["current_title"] = changed.split(", current ", 1)[1].strip("'\"")
    conflicts = [
        str(n).split(":", 1)[1] for n in ref.get("notes", []) if str(n).startswith("triangulation_conflict:")
    ]
    ctx["conflicts"] = "; ".join(c.replace("=", " says ") for c in conflicts)
    ctx.update(_retraction_values(ref))
    return ctx


def _field_values(ref: Mapping[str, Any], cited: Mapping[str, Any]) -> dict[str, Any]:
    """Each field as cited and as found, who found it, and the identifier the citation gives."""
    ctx: dict[str, Any] = {}
    for name in ("title", "authors", "year", "venue", "doi", "arxiv_id", "pmid"):
        ctx[f"{name}_cited"] = _text(cited.get(name))
    ctx["first_author_cited"] = (cited.get("authors") or [""])[0]
    for name, ev in (ref.get("fields") or {}).items():
        if ev.get("cited") not in (None, "", []):
            ctx[f"{name}_cited"] = _text(ev.get("cited"))
        ctx[f"{name}_found"] = _text(ev.get("found"))
        who = _field_sources(ref, name, ev)
        ctx[f"{name}_source"] = who[0] if who else ""
        ctx[f"{name}_says"] = _says(who) if who else ""
    authors = (ref.get("fields") or {}).get("authors") or {}
    if isinstance(authors.get("cited"), list) and isinstance(authors.get("found"), list):
        missing, extra = list_difference(authors["cited"], authors["found"])
        ctx["authors_missing"] = ", ".join(missing)
        ctx["authors_extra"] = ", ".join(extra)
    ctx["identifier_cited"] = next(
        (
            f"{label}{ctx[k]}"
            for k, label in (("doi_cited", "doi:"), ("arxiv_id_cited", "arXiv:"), ("pmid_cited", "PMID "))
            if ctx.get(k)
        ),
        "",
    ) or _acl_id_cited(cited)
    return ctx


def _match_values(ref: Mapping[str, Any]) -> dict[str, Any]:
    """The matched work, who knows it, and the work a cited identifier names."""
    ctx: dict[str, Any] = {}
    match = ref.get("match") or {}
    match_sources = [source_name(s) for s in match.get("sources", []) if s != "library"]
    ctx["match_title"] = match.get("title") or ""
    ctx["match_venue"] = match.get("venue") or ""
    ctx["match_sources"] = join_names(match_sources)
    ctx["match_says"] = _says(match_sources) if match_sources else ""
    # The work a cited identifier names: its own note when another work is the match (found by
    # title), else the match itself (issue 20: never the cited title as the identifier's work).
    elsewhere = (_note(ref, IDENTIFIER_ELSEWHERE_NOTE) or "").partition(": ")
    if elsewhere[2]:
        ctx["elsewhere_title"], ctx["elsewhere_says"] = elsewhere[2], _says([source_name(elsewhere[0])])
    elif "matched_by_search" not in ref.get("reasons", []):
        ctx["elsewhere_title"], ctx["elsewhere_says"] = ctx["match_title"], ctx["match_says"]
    return ctx


def _retraction_values(ref: Mapping[str, Any]) -> dict[str, Any]:
    """The retraction's first notice and who reported it."""
    ctx: dict[str, Any] = {}
    retraction = ref.get("retraction") or {}
    notices = [e for e in retraction.get("evidence", []) if e.get("notice_doi") or e.get("date")]
    if notices:
        n = notices[0]
        what = "retraction notice" if n.get("kind") == "retracted" else "notice"
        doi = f"{what} doi:{n['notice_doi']}" if n.get("notice_doi") else what
        ctx["retraction_notice"] = ", ".join(p for p in (doi, n.get("date")) if p)
    ctx["retraction_says"] = (
        "reported by " + join_names([source_name(s) for s in retraction.get("sources", [])])
        if retraction.get("sources")
        else ""
    )
    return ctx
