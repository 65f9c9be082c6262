"""Integrity signals in the report (issue 13): the pure functions of `aletheia.core.signals`
applied to a reference's outcome (its `signals` list) and to a document's references (the
summary's `signals`: citation cohorts). A signal never changes a verdict.

The predatory-venue list is the process's (`aletheia.pipeline.predatory`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from aletheia.core.authors import parse_name
from aletheia.core.matched_work import Outcome, matched_records, work_text
from aletheia.core.paper_mill import ai_generated_signal
from aletheia.core.questionable_venues import questionable_venue_signals, questionable_venues
from aletheia.core.records import CitedReference
from aletheia.core.signals import (
    CitedWork,
    PredatoryList,
    Signal,
    cohort_signal,
    predatory_signals,
    standing_signals,
)
from aletheia.pipeline.predatory import active_predatory_list

if TYPE_CHECKING:
    pass


class CitedOutcome(Outcome, Protocol):
    """An outcome with the reference as cited: what `questionable_venue` reads besides the match."""

    @property
    def cited(self) -> CitedReference: ...


#: Verdicts whose references count for citation cohorts: the cited work exists and was matched.
COHORT_VERDICTS = ("verified",)


def reference_signals(outcome: CitedOutcome, predatory: PredatoryList | None = None) -> list[Signal]:
    """Every signal of one reference: the venue's listing, the shipped questionable-venue lists
    (on what the reference cites and on the matched work's records, whatever the verdict),
    corrections and concerns, then the paper-mill heuristics on the matched work's title and
    abstract, with the authors' works counts when they were asked (`pipeline/authorship.py`: only
    when another indicator fired)."""
    listed = predatory if predatory is not None else active_predatory_list()
    records = matched_records(outcome)
    venue = predatory_signals(records, listed)
    suspect = (
        ai_generated_signal(
            work_text(records),
            authorship=outcome.evidence.authorship,
            listed_venue=venue[0].source if venue else None,
        )
        if records
        else None
    )
    return [
        *venue,
        *questionable_venue_signals(outcome.cited, records),
        *standing_signals(outcome.verdict.retraction),
        *([suspect] if suspect is not None else []),
    ]


def cited_work(reference: dict[str, Any]) -> CitedWork | None:
    """A report REFERENCE as a `CitedWork` for cohorts (its matched authors), or None."""
    match = reference.get("match")
    if reference.get("verdict") not in COHORT_VERDICTS or not match:
        return None
    names = match.get("authors") or []
    return CitedWork(key=str(reference.get("key")), authors=tuple(parse_name(n) for n in names))


def document_signals(works: Iterable[CitedWork | None]) -> list[dict[str, Any]]:
    """The summary's `signals`: a citation cohort over the document's verified references."""
    found = cohort_signal([w for w in works if w is not None])
    return [found.model_dump(mode="json")] if found is not None else []


class DocumentSignals:
    """Collects what cohort detection needs from streamed references (key and authors of the
    verified ones only) and adds the summary's `signals`."""

    def __init__(self) -> None:
        self.works: list[CitedWork] = []

    def add(self, reference: dict[str, Any]) -> None:
        work = cited_work(reference)
        if work is not None:
            self.works.append(work)

    def into(self, summary: dict[str, Any]) -> dict[str, Any]:
        """The summary with `signals` added when a document-level signal fired (absent otherwise)
        and `signal_data`: which lists the signals were computed with, so that an empty predatory
        list reads "not loaded", never as "no predatory venue"."""
        if "signals" not in summary:
            # The input papers' own signals (`document_signals`, stored with the job) join the
            # cohorts under `signals`: the one list the schema documents.
            papers = summary.get("document_signals") or []
            summary = {k: v for k, v in summary.items() if k != "document_signals"}
            found = [*document_signals(self.works), *papers]
            if found:
                summary = {**summary, "signals": found}
        if "signal_data" not in summary:
            summary = {**summary, "signal_data": signal_data()}
        return summary


def signal_data(predatory: PredatoryList | None = None) -> dict[str, Any]:
    """The state of the data the signals read: the predatory list (entries; "not loaded" when
    empty), the shipped questionable-venue lists (each with its date and licence) and the
    tortured-phrase table."""
    from aletheia.core.tortured import tortured_table

    listed = predatory if predatory is not None else active_predatory_list()
    shipped = questionable_venues()
    counts: dict[str, int] = {}
    for entry in shipped.entries:
        counts[entry.list.id] = counts.get(entry.list.id, 0) + 1
    return {
        "predatory_list": {"state": "loaded" if len(listed) else "not loaded", "entries": len(listed)},
        "questionable_venues": [
            {"list": v.id, "date": v.date, "entries": counts.get(v.id, 0), "licence": v.licence}
            for v in shipped.lists
        ],
        "tortured_phrases": {"entries": len(tortured_table())},
    }


def summary_with_signals(summary: dict[str, Any], references: Sequence[dict[str, Any]]) -> dict[str, Any]:
    collector = DocumentSignals()
    for ref in references:
        collector.add(ref)
    return collector.into(summary)


def signal_text(signal: dict[str, Any]) -> str:
    """One signal as words, for the human-facing formats (the HTML chips)."""
    kind, ev, source = signal.get("kind"), signal.get("evidence") or {}, signal.get("source") or ""
    if kind == "predatory_source":
        on = f"ISSN {ev.get('value')}" if ev.get("matched_on") == "issn" else f"title “{ev.get('value')}”"
        listed = ev.get("listed_title") or ", ".join(ev.get("listed_issn") or [])
        when = f" ({ev['listed_on']})" if ev.get("listed_on") else ""
        return f"the venue {listed} is listed as predatory or delisted by {source}{when}; matched on {on}"
    if kind == "questionable_venue":
        return questionable_venue_text(ev, source)
    if kind in ("corrected", "expression_of_concern"):
        what = "a correction" if kind == "corrected" else "an expression of concern"
        doi = f" doi:{ev['notice_doi']}" if ev.get("notice_doi") else ""
        when = f" on {ev['date']}" if ev.get("date") else ""
        return f"{what} was published{when}{doi} (says {source})"
    if kind == "ai_generated_suspect":
        return str(ev.get("explanation") or "paper-mill heuristics fired")
    if kind == "cohort_concentrated":
        refs = ev.get("references") or []
        who = ", ".join(a["name"] for a in (ev.get("authors") or [])[:5])
        share = round(100 * float(ev.get("share") or 0))
        return (
            f"{len(refs)} of {ev.get('verified')} verified references ({share}%) are connected by shared "
            f"authors ({who}): {', '.join(refs)}"
        )
    return str(kind)


def questionable_venue_text(ev: dict[str, Any], source: str) -> str:
    """A `questionable_venue` signal in words: which list says what of the venue, since when, how it
    matched; for a hijacked journal, where the authentic one is."""
    name = ev.get("listed_name") or "the venue"
    on = {"issn": f"ISSN {ev.get('value')}", "site": f"the site {ev.get('value')}"}.get(
        str(ev.get("matched_on")), f"the exact name “{ev.get('value')}”"
    )
    if ev.get("entry_kind") == "hijacked":
        real = ev.get("authentic_name") or "the authentic journal"
        where = f" ({ev['authentic_url']})" if ev.get("authentic_url") else ""
        what = f"{on} is a hijacked copy of {real}{where}, listed by {source} ({ev.get('list_date')})"
        return f"{what}; cite the authentic journal"
    if ev.get("entry_kind") == "withdrawn":
        why = f": “{ev['reason']}”" if ev.get("reason") else ""
        when = f" on {ev['listed_on']}" if ev.get("listed_on") else ""
        before = (
            f" (the cited work is from {ev['work_year']}, before that)" if ev.get("before_listing") else ""
        )
        return f"DOAJ withdrew {name}{when}{why}{before}; matched on {on}"
    listed = f"{name} is on the {source} list of potential predatory journals ({ev.get('list_date')})"
    return f"{listed}; matched on {on}"


def evidence_trust(reference: dict[str, Any]) -> str:
    """The sources a reference's evidence came from, each with its trust level (seed 003), most
    trusted first: "Crossref (DOI registry), OpenAlex (aggregator index)"."""
    from aletheia.core.trust import trust_rank, trust_table
    from aletheia.pipeline.reports.explain import source_name

    names = [ev.get("source") for ev in (reference.get("fields") or {}).values() if isinstance(ev, dict)]
    names += list((reference.get("match") or {}).get("sources") or [])
    unique = sorted({n for n in names if n}, key=lambda n: (trust_rank(n), n))
    table = trust_table()
    return ", ".join(f"{source_name(n)} ({table.level(n).replace('_', ' ')})" for n in unique)
