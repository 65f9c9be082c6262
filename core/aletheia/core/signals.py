"""Integrity signals: facts about a cited work worth telling the reader that never change whether
the reference exists, and so never change its verdict (issue 13).

Each signal is a `Signal(kind, evidence, source)`, computed by a pure function after `decide()`:

- `predatory_source`: the work appeared in a venue on a curated list of predatory or delisted
  journals (`PredatoryList`; the list and its CSV form are documented in docs/report-schema.md).
  Matched on ISSN first (`WorkRecord.issn`, as the sources publish it), then on the exact
  normalised journal title; the entry's own `source` (who listed it) is the signal's source.
- `corrected`, `expression_of_concern`: a correction or an expression of concern was published
  about the work, read from the standing already combined in the verdict (`Verdict.retraction`),
  one signal per notice, with its DOI and date. A notice a later reinstatement lifted is not one.
- `cohort_concentrated` (document level): more than 40% of a document's verified references share
  an author set: one person on all of them, or a group linked by pairs sharing two or more people
  (`cohort_signal`).
- `questionable_venue`: the venue is on one of the shipped, dated lists (journals DOAJ withdrew for
  practice; the 2018 Stop Predatory Journals lists, hijacked journals included), matched on ISSN,
  site or exact name, in `aletheia.core.questionable_venues`.
- `ai_generated_suspect`: paper-mill and machine-generated heuristics (tortured phrases, no methods
  section, authorship found nowhere else, a listed venue), in `aletheia.core.paper_mill`.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

from aletheia.core.author_match import surname_key
from aletheia.core.authors import is_group_author
from aletheia.core.identifiers import clean_issn
from aletheia.core.records import Author, WorkRecord
from aletheia.core.text import fold_name, normalize_title

__all__ = [
    "COHORT_MIN_CLUSTER",
    "COHORT_MIN_REFERENCES",
    "COHORT_SHARE",
    "CitedWork",
    "PredatoryEntry",
    "PredatoryList",
    "Signal",
    "SignalKind",
    "cohort_signal",
    "normalize_journal_title",
    "parse_predatory_csv",
    "predatory_signals",
    "standing_signals",
]


class SignalKind(StrEnum):
    PREDATORY_SOURCE = "predatory_source"
    CORRECTED = "corrected"
    EXPRESSION_OF_CONCERN = "expression_of_concern"
    COHORT_CONCENTRATED = "cohort_concentrated"
    AI_GENERATED_SUSPECT = "ai_generated_suspect"  # computed in aletheia.core.paper_mill
    QUESTIONABLE_VENUE = "questionable_venue"  # the shipped lists: aletheia.core.questionable_venues


class Signal(BaseModel):
    """One integrity signal: what kind, the evidence behind it, and who says so."""

    model_config = ConfigDict(frozen=True)

    kind: SignalKind
    evidence: dict[str, Any] = Field(default_factory=dict)
    source: str


# --- predatory and delisted venues ------------------------------------------------------------------


def normalize_journal_title(value: str | None) -> str:
    """The comparison form of a journal title: folded, `&` as `and`, a leading `The` dropped."""
    if not value:
        return ""
    folded = normalize_title(value.replace("&", " and "))
    return folded.removeprefix("the ").strip()


class PredatoryEntry(BaseModel):
    """One listed venue: its ISSNs (print, electronic), title, who listed it and when."""

    model_config = ConfigDict(frozen=True)

    issn: tuple[str, ...] = ()
    title: str = ""
    source: str
    date: str | None = None
    note: str | None = None


class PredatoryList:
    """The curated list, indexed by ISSN and by normalised title."""

    def __init__(self, entries: Iterable[PredatoryEntry] = ()) -> None:
        self.entries = list(entries)
        self.by_issn: dict[str, PredatoryEntry] = {}
        self.by_title: dict[str, PredatoryEntry] = {}
        for entry in self.entries:
            for issn in entry.issn:
                self.by_issn.setdefault(issn, entry)
            key = normalize_journal_title(entry.title)
            if key:
                self.by_title.setdefault(key, entry)

    def __len__(self) -> int:
        return len(self.entries)

    def lookup(self, records: Sequence[WorkRecord]) -> tuple[PredatoryEntry, dict[str, Any]] | None:
        """The entry a work's records place it in, and how it matched: ISSN first, then title."""
        for record in records:
            for raw in record.issn:
                issn = clean_issn(raw)
                if issn is not None and issn in self.by_issn:
                    return self.by_issn[issn], {
                        "matched_on": "issn",
                        "value": issn,
                        "record": record.source.value,
                    }
        for record in records:
            for name in (record.venue, record.published_venue, *record.other_venues):
                key = normalize_journal_title(name)
                if key and key in self.by_title:
                    return self.by_title[key], {
                        "matched_on": "title",
                        "value": name,
                        "record": record.source.value,
                    }
        return None


def parse_predatory_csv(lines: Iterable[str]) -> tuple[list[PredatoryEntry], list[str]]:
    """Rows of `issn,title,source,date[,note]` (a header row; `issn` may hold several, `;` or space
    separated). Returns the entries and one problem per row that was skipped."""
    reader = csv.DictReader(line for line in lines if not line.lstrip().startswith("#"))
    fields = {(f or "").strip().lower() for f in reader.fieldnames or ()}
    missing = {"issn", "title", "source"} - fields
    if missing:
        return [], [f"missing column(s): {', '.join(sorted(missing))}"]
    entries: list[PredatoryEntry] = []
    problems: list[str] = []
    for n, row in enumerate(reader, 2):
        cells = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items() if isinstance(v, str)}
        raw_issns = cells.get("issn", "").replace(";", " ").replace(",", " ").split()
        issns = tuple(dict.fromkeys(i for i in map(clean_issn, raw_issns) if i))
        bad = [r for r in raw_issns if clean_issn(r) is None]
        if bad:
            problems.append(f"row {n}: invalid ISSN {', '.join(bad)} (check digit)")
        if not cells.get("source"):
            problems.append(f"row {n}: no source (who listed this venue)")
            continue
        if not issns and not normalize_journal_title(cells.get("title")):
            problems.append(f"row {n}: neither a valid ISSN nor a title")
            continue
        entries.append(
            PredatoryEntry(
                issn=issns,
                title=cells.get("title", ""),
                source=cells["source"],
                date=cells.get("date") or None,
                note=cells.get("note") or None,
            )
        )
    return entries, problems


def predatory_signals(records: Sequence[WorkRecord], listed: PredatoryList) -> list[Signal]:
    """`predatory_source` when the matched work's venue is on the list (at most one signal)."""
    if not records or not len(listed):
        return []
    found = listed.lookup(records)
    if found is None:
        return []
    entry, how = found
    evidence = {**how, "listed_title": entry.title, "listed_issn": list(entry.issn), "listed_on": entry.date}
    if entry.note:
        evidence["note"] = entry.note
    return [Signal(kind=SignalKind.PREDATORY_SOURCE, evidence=evidence, source=entry.source)]


# --- corrections and expressions of concern -------------------------------------------------------

_STANDING_KINDS: Final = {
    "corrected": SignalKind.CORRECTED,
    "expression_of_concern": SignalKind.EXPRESSION_OF_CONCERN,
}


def standing_signals(retraction: Mapping[str, Any] | None) -> list[Signal]:
    """One signal per correction or expression-of-concern notice in the verdict's combined standing
    (`Verdict.retraction`), notices with the same DOI (or, without one, date) merged across sources."""
    if not retraction:
        return []
    lifted = {(n.get("kind"), n.get("notice_doi"), n.get("date")) for n in retraction.get("lifted") or ()}
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for notice in retraction.get("evidence") or ():
        kind = _STANDING_KINDS.get(str(notice.get("kind")))
        if kind is None or (notice.get("kind"), notice.get("notice_doi"), notice.get("date")) in lifted:
            continue
        key = (kind.value, str(notice.get("notice_doi") or notice.get("date") or ""))
        entry = merged.setdefault(
            key, {"kind": kind, "notice_doi": None, "date": None, "detail": None, "sources": set()}
        )
        for field in ("notice_doi", "date", "detail"):
            entry[field] = entry[field] or notice.get(field)
        entry["sources"].add(str(notice.get("source")))
    return [
        Signal(
            kind=e["kind"],
            evidence={k: e[k] for k in ("notice_doi", "date", "detail") if e[k]},
            source=", ".join(sorted(e["sources"])),
        )
        for e in merged.values()
    ]


# --- citation cohorts ---------------------------------------------------------------------------

COHORT_SHARE: Final = 0.40  # more than this share of the verified references in one cluster
COHORT_MIN_REFERENCES: Final = 5  # fewer verified references than this: no signal
COHORT_MIN_CLUSTER: Final = 3  # a cluster needs at least this many references


class CitedWork(BaseModel):
    """One verified reference of a document, for `cohort_signal`: its key and the matched authors."""

    model_config = ConfigDict(frozen=True)

    key: str
    authors: tuple[Author, ...] = ()


def _person_key(author: Author) -> str | None:
    """Who an author is, for clustering: the folded surname and the first given initial, so that
    "Wang, Y." and "Wang, Z." are two people and "Yann LeCun" / "Y. LeCun" one. (A key, not the
    pairwise `authors_match`: the clustering stays linear in the number of authors, which a
    bibliography of thousands of references needs.)"""
    if author.literal and not author.family:
        return f"group:{fold_name(author.literal)}" if is_group_author(author) else None
    surname = surname_key(author)
    if not surname:
        return None
    initial = fold_name(author.given or "")[:1]
    return f"{surname}|{initial}"


# Authors per reference whose pairs are indexed for the "same group" clusters (a 1,000-author
# consortium paper would otherwise add half a million pairs; its first authors are the group).
COHORT_PAIR_AUTHORS: Final = 30


def _largest_cluster(works: Sequence[CitedWork]) -> tuple[list[int], str]:
    """The largest set of references that share an author set, and how it was formed: either every
    reference has one person in common (`one_author`), or the references are linked by pairs that
    share at least two people (`same_group`: a research group citing itself, joined paper to paper
    by two or more of its members). Chains through a single shared person are not clusters: a
    prolific co-author would otherwise join a whole field's literature into one "cohort"."""
    on_works: dict[str, set[int]] = {}
    on_pairs: dict[tuple[str, str], list[int]] = {}
    for index, work in enumerate(works):
        people = sorted({k for a in work.authors if (k := _person_key(a)) is not None})
        for key in people:
            on_works.setdefault(key, set()).add(index)
        head = people[:COHORT_PAIR_AUTHORS]
        for i, one in enumerate(head):
            for other_person in head[i + 1 :]:
                on_pairs.setdefault((one, other_person), []).append(index)
    best: list[int] = []
    how = "one_author"
    if on_works:
        largest: set[int] = set()
        for indices in on_works.values():
            if len(indices) > len(largest):
                largest = indices
        best = sorted(largest)
    parent = list(range(len(works)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for members in on_pairs.values():
        first, *rest = members
        for other in rest:
            parent[root(other)] = root(first)
    groups: dict[int, list[int]] = {}
    for i in range(len(works)):
        groups.setdefault(root(i), []).append(i)
    group = max(groups.values(), key=len) if groups else []
    if len(group) > len(best):
        best, how = group, "same_group"
    return best, how


def cohort_signal(
    works: Sequence[CitedWork],
    *,
    share: float = COHORT_SHARE,
    min_references: int = COHORT_MIN_REFERENCES,
    min_cluster: int = COHORT_MIN_CLUSTER,
) -> Signal | None:
    """`cohort_concentrated` when more than `share` of `works` (a document's verified references)
    share an author set (`_largest_cluster`): the cluster's references, the authors on more than
    one of them (with how many each is on), how the cluster was formed and the share."""
    if len(works) < min_references:
        return None
    biggest, how = _largest_cluster(works)
    if len(biggest) < min_cluster or len(biggest) / len(works) <= share:
        return None
    counts: dict[str, int] = {}
    names: dict[str, str] = {}
    for i in biggest:
        for author in works[i].authors:
            key = _person_key(author)
            if key is not None and key not in names:
                names[key] = author.display
        for key in {k for a in works[i].authors if (k := _person_key(a)) is not None}:
            counts[key] = counts.get(key, 0) + 1
    authors = sorted(
        ((names[key], n) for key, n in counts.items() if n > 1),
        key=lambda kv: (-kv[1], kv[0]),
    )
    return Signal(
        kind=SignalKind.COHORT_CONCENTRATED,
        evidence={
            "references": [works[i].key for i in sorted(biggest)],
            "authors": [{"name": name, "references": count} for name, count in authors],
            "share": round(len(biggest) / len(works), 3),
            "cluster": how,
            "verified": len(works),
            "threshold": share,
        },
        source="aletheia",
    )
