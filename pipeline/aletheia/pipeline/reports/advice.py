"""For each reference of a report: what is wrong, how we know, and what to change (the corrected
BibTeX entry, "remove", or "check by hand"); for the whole report: how many references need
attention, by kind, and which sources could not be asked (a partial run is never a clean one)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aletheia.pipeline.reports.bibtex import corrected_entry
from aletheia.pipeline.reports.corrected import corrections
from aletheia.pipeline.reports.explain import asked_sources as asked_sources
from aletheia.pipeline.reports.explain import context, join_names, role, sentence, source_name
from aletheia.pipeline.reports.fields import decoded_cited, field_diffs, split_origin
from aletheia.pipeline.reports.reason_sentences import HOW, WRONG
from aletheia.pipeline.reports.transparency import transparency_phrase

REPLACE, REMOVE, CHECK, OPTIONAL, NOTHING = "replace", "remove", "check", "optional", "nothing"
ATTENTION = (REMOVE, REPLACE, CHECK)  # fix kinds that ask for a change (in this order)
# The order of the references in a report meant for people (table, HTML, Markdown): what needs a
# change first, then optional fixes, then the rest; input order within each (issue 30).
PEOPLE_ORDER = (*ATTENTION, OPTIONAL, NOTHING)
FIX_TITLES = {
    REMOVE: "remove",
    REPLACE: "correct",
    CHECK: "check by hand",
    OPTIONAL: "optional fix",
    NOTHING: "nothing to do",
}

FIELD_WORDS = {
    "title": "title",
    "first_author": "first author",
    "authors": "authors",
    "year": "year",
    "venue": "venue",
    "doi": "DOI",
    "arxiv_id": "arXiv id",
    "pmid": "PMID",
}


@dataclass
class Fix:
    kind: str  # replace | remove | check | optional | nothing
    text: str
    bibtex: str | None = None  # the corrected entry, for replace / optional
    changes: list[str] = field(default_factory=list)  # "year: 2019 → 2014"


@dataclass
class Explanation:
    """The three questions for one reference, in words."""

    key: str
    verdict: str
    severity: str | None
    label: str  # the verdict as a person reads it: "wrong year", "retracted", ...
    wrong: list[str]
    how: list[str]
    notes: list[str]
    fix: Fix
    cited: dict[str, Any]
    diffs: list[dict[str, Any]] = field(default_factory=list)
    file: str | None = None
    line: int | None = None
    # ADR 004 in words: "partially verified · tier 2 scholarly" (report_transparency)
    transparency: str | None = None

    @property
    def needs_attention(self) -> bool:
        return self.fix.kind in ATTENTION

    @property
    def headline(self) -> str:
        first = (self.wrong or self.notes or self.how or [self.label])[0]
        return first if first.startswith("arXiv") else first[:1].upper() + first[1:]

    def as_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "wrong": self.wrong,
            "how": self.how,
            "notes": self.notes,
            "fix": {"kind": self.fix.kind, "text": self.fix.text, "bibtex": self.fix.bibtex},
        }


def label_for(ref: Mapping[str, Any]) -> str:
    verdict = ref.get("verdict")
    reasons = ref.get("reasons", [])
    if verdict == "metadata_error":
        wrong = [
            FIELD_WORDS.get(name, name)
            for name, ev in (ref.get("fields") or {}).items()
            if ev.get("agrees") is False
            and not (name == "first_author" and "authors" in ref.get("fields", {}))
        ]
        what = ("wrong " + join_names(wrong)) if wrong else "fields differ"
        return what + (" (minor)" if ref.get("severity") == "minor" else "")
    return {
        "verified": "verified",
        "identifier_conflict": "identifier names another work",
        "not_found": "not found",
        "fabricated": "likely invented",
        "retracted": "withdrawn" if "withdrawn" in reasons else "retracted",
        "ambiguous": "several candidates" if "several_candidates" in reasons else "sources disagree",
        "unverifiable": "could not check",
        "out_of_scope": "not checked (out of scope)",
    }.get(str(verdict), str(verdict))


def _asked_words(ctx: Mapping[str, Any]) -> str:
    parts = []
    if ctx.get("asked"):
        parts.append(f"asked: {ctx['asked']}")
    if ctx.get("unavailable"):
        parts.append(f"could not ask: {ctx['unavailable']}")
    return "; ".join(parts) or "no source could be asked"


def _changes(ref: Mapping[str, Any]) -> list[str]:
    out = []
    fields = ref.get("fields") or {}
    for name, value in corrections(ref).items():  # the corrected entry's values (`corrected.py`)
        old = (fields.get(name) or {}).get("cited")
        new = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        old_text = ", ".join(map(str, old)) if isinstance(old, list) else ("" if old is None else str(old))
        out.append(f"{FIELD_WORDS.get(name, name)}: {old_text or '(none)'} → {new}")
    return out


def suggest_fix(ref: Mapping[str, Any], ctx: Mapping[str, Any], wrong: list[str]) -> Fix:
    verdict = ref.get("verdict")
    reasons = ref.get("reasons", [])
    entry = corrected_entry(dict(ref))[1] if corrections(ref) and "input" in ref else None
    if verdict == "verified":
        return Fix(NOTHING, "nothing to change")
    if verdict == "out_of_scope":
        return Fix(NOTHING, "not checked: " + (ctx.get("kind") or "not a work the scholarly indexes hold"))
    if verdict in ("metadata_error", "identifier_conflict") and entry:
        minor = ref.get("severity") == "minor"
        text = ("optional: " if minor else "") + "replace the entry with the corrected one"
        return Fix(OPTIONAL if minor else REPLACE, text, entry, _changes(ref))
    if verdict == "metadata_error":
        return Fix(NOTHING if ref.get("severity") == "minor" else CHECK,
                   "nothing required (a minor difference)" if ref.get("severity") == "minor"
                   else "check by hand: the sources give no single corrected value")  # fmt: skip
    if verdict == "identifier_conflict":
        ident = ctx.get("identifier_cited") or "the identifier"
        return Fix(CHECK, f"correct or remove {ident}: it names another work")
    if verdict in ("not_found", "fabricated"):
        if verdict == "fabricated" and wrong:
            if not ctx.get("asked"):
                unasked = f": {ctx['unavailable']}" if ctx.get("unavailable") else ""
                return Fix(REMOVE, f"remove: {wrong[0]} (no source could be asked{unasked})")
            return Fix(REMOVE, f"remove: {wrong[0]}; no source knows this work ({_asked_words(ctx)})")
        return Fix(REMOVE, f"remove: no source knows this work ({_asked_words(ctx)})")
    if verdict == "retracted":
        what = "withdrawn" if "withdrawn" in reasons else "retracted"
        notice = f" ({ctx['retraction_notice']})" if ctx.get("retraction_notice") else ""
        return Fix(REMOVE, f"remove or replace: the work was {what}{notice}")
    if verdict == "ambiguous":
        if "several_candidates" in reasons:
            return Fix(CHECK, "check by hand: several works fit; add the DOI or arXiv id of the one you mean")
        detail = f" ({ctx['conflicts']})" if ctx.get("conflicts") else ""
        return Fix(CHECK, f"check by hand: the sources disagree{detail}")
    if "insufficient_metadata" in reasons:
        return Fix(CHECK, "add a title, an identifier (DOI, arXiv id) or the full reference text")
    if "unindexed_kind" in reasons:
        return Fix(CHECK, "check by hand: " + (ctx.get("kind") or "the indexes hold such works only in part"))
    missing = ctx.get("unavailable") or ctx.get("not_searched")
    if missing:
        return Fix(CHECK, f"check by hand, or run again when {missing} can be asked")
    return Fix(CHECK, "check by hand")


def explain(ref: Mapping[str, Any]) -> Explanation:
    """What is wrong, how we know, what to change — for one reference of the JSON report."""
    cited = decoded_cited(ref)
    ctx = context(ref, cited)
    wrong: list[str] = []
    how: list[str] = []
    notes: list[str] = []
    for reason in ref.get("reasons", []):
        text = sentence(reason, ctx)
        bucket = {WRONG: wrong, HOW: how}.get(role(reason), notes)
        if text not in bucket:
            bucket.append(text)
    if ctx.get("asked"):
        how.append("asked: " + ctx["asked"])
    if ctx.get("unavailable") and "source_unavailable" not in ref.get("reasons", []):
        notes.append("could not ask " + ctx["unavailable"])
    diffs = field_diffs(ref)
    for d in diffs:
        says = ctx.get(f"{d['field']}_says")
        d["says"] = says or f"{source_name(d.get('source'))} says"
        d["label"] = FIELD_WORDS.get(d["field"], d["field"])
    file, line = split_origin(ref.get("origin"))
    return Explanation(
        key=str(ref.get("key")),
        verdict=str(ref.get("verdict")),
        severity=ref.get("severity"),
        label=label_for(ref),
        wrong=wrong,
        how=how,
        notes=notes,
        fix=suggest_fix(ref, ctx, wrong),
        cited=cited,
        diffs=diffs,
        file=file,
        line=line,
        transparency=transparency_phrase(ref),
    )


# --- the whole report ------------------------------------------------------------------------------


@dataclass
class Attention:
    total: int
    need_attention: int
    by_fix: dict[str, int]  # remove / replace / check -> count (only those with a count)
    optional: int
    unasked: list[dict[str, Any]]  # [{"source", "name", "status", "affected"}]
    offline: bool = False  # the run consulted only the local library

    @property
    def partial(self) -> bool:
        return bool(self.unasked)

    @property
    def headline(self) -> str:
        if self.need_attention:
            kinds = ", ".join(f"{n} to {FIX_TITLES[k]}" for k, n in self.by_fix.items())
            text = f"{self.need_attention} of {self.total} references need attention: {kinds}"
        else:
            text = f"none of the {self.total} references needs a change"
        if self.optional:
            text += f" ({self.optional} with an optional fix)"
        return text + "."

    def sources_line(self, *, codes: bool = False) -> str:
        """Which sources could not be asked when a verdict needed them (named as in the JSON report
        when `codes`). A source that affected no verdict is not listed (docs/report-schema.md)."""
        lead = "Offline: only the local library was asked. " if self.offline else ""
        if not self.unasked:
            return lead + ("No verdict needed another source." if self.offline else "Every source answered.")
        parts = []
        for u in self.unasked:
            hit = ", ".join(f"{k}: {v}" for k, v in u["affected_verdicts"].items())
            parts.append(
                f"{u['source'] if codes else u['name']} ({u['status']}; {u['affected']} verdicts affected"
                + (f": {hit}" if hit else "")
                + ")"
            )
        return lead + "Partial run — sources not fully available: " + "; ".join(parts) + "."

    def as_json(self) -> dict[str, Any]:
        return {
            "headline": self.headline,
            "need_attention": self.need_attention,
            "by_fix": self.by_fix,
            "optional": self.optional,
            "partial": self.partial,
            "offline": self.offline,
            "unasked": self.unasked,
        }


def attention(summary: Mapping[str, Any], explanations: Iterable[Explanation]) -> Attention:
    counts: Counter[str] = Counter(e.fix.kind for e in explanations)
    unasked = [
        {
            "source": name,
            "name": source_name(name),
            "status": s.get("status"),
            "affected": int(s.get("affected") or 0),
            "affected_verdicts": dict(s.get("affected_verdicts") or {}),
        }
        for name, s in (summary.get("sources") or {}).items()
        # A source that affected no verdict says nothing, whatever its state (issue 20: an offline
        # run listed twelve sources with "0 verdicts affected"; issue 30: every default run with a
        # reference not found listed the LLM fallback and Tavily, skipped for want of a key, and
        # `--format github` raised a warning); the offline lead says offline once.
        if s.get("affected")
    ]
    offline = any(s.get("status") == "offline" for s in (summary.get("sources") or {}).values())
    return Attention(
        total=int(summary.get("total") or sum(counts.values())),
        need_attention=sum(counts[k] for k in ATTENTION),
        by_fix={k: counts[k] for k in ATTENTION if counts[k]},
        optional=counts[OPTIONAL],
        unasked=unasked,
        offline=offline,
    )


def attention_rank(ex: Explanation) -> int:
    """Where a reference goes in a report meant for people (`PEOPLE_ORDER`); a sort by it is
    stable, so input order holds within a kind."""
    return PEOPLE_ORDER.index(ex.fix.kind) if ex.fix.kind in PEOPLE_ORDER else len(PEOPLE_ORDER)
