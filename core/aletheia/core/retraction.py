"""A work's standing (retracted, withdrawn, under concern, corrected), combined from every notice.

Evidence comes from several places: Crossref `updated-by` / `update-to` notices, OpenAlex's
`is_retracted` flag, Retraction Watch rows, a publisher's "RETRACTED:" title marker. None of them
is complete, so the status is the most severe standing any of them reports, never a vote:

    retracted > withdrawn > expression_of_concern > corrected > none

A reinstatement (Retraction Watch's "Reinstatement") lifts an earlier retraction, withdrawal or
expression of concern only when both are dated and the reinstatement is strictly later; without
dates the severe notice stands and `reinstated` tells the reader that the record is contested.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from pydantic import BaseModel, ConfigDict

from aletheia.core.records import RetractionKind, RetractionNotice, SourceName

__all__ = [
    "SEVERITY",
    "RetractionStatus",
    "combine_retraction_status",
    "split_title_marker",
]

SEVERITY: Final[dict[RetractionKind, int]] = {
    RetractionKind.RETRACTED: 4,
    RetractionKind.WITHDRAWN: 3,
    RetractionKind.EXPRESSION_OF_CONCERN: 2,
    RetractionKind.CORRECTED: 1,
    RetractionKind.NONE: 0,
    RetractionKind.REINSTATED: 0,
}

# Kinds a later reinstatement lifts. A correction stays a correction.
_LIFTED_BY_REINSTATEMENT: Final = frozenset(
    {RetractionKind.RETRACTED, RetractionKind.WITHDRAWN, RetractionKind.EXPRESSION_OF_CONCERN}
)


class RetractionStatus(BaseModel):
    """The combined standing of one work, with every piece of evidence behind it."""

    model_config = ConfigDict(frozen=True)

    kind: RetractionKind = RetractionKind.NONE
    # Every distinct notice, the most severe first (lifted ones included, for the report).
    evidence: tuple[RetractionNotice, ...] = ()
    # Sources whose (unlifted) evidence reports `kind`: the ones that agree on the status.
    sources: tuple[SourceName, ...] = ()
    # Sources that were consulted but report nothing as severe as `kind`.
    not_reporting: tuple[SourceName, ...] = ()
    # Notices a later, dated reinstatement lifted.
    lifted: tuple[RetractionNotice, ...] = ()
    # Some source reports a reinstatement (lifted or not).
    reinstated: bool = False

    @property
    def flagged(self) -> bool:
        """Retracted, withdrawn or under an expression of concern: the reader must be told."""
        return SEVERITY[self.kind] >= SEVERITY[RetractionKind.EXPRESSION_OF_CONCERN]

    @property
    def notice(self) -> RetractionNotice | None:
        """The first notice behind `kind` (one with a notice DOI when there is one)."""
        behind = [n for n in self.evidence if n.kind is self.kind and n not in self.lifted]
        with_doi = [n for n in behind if n.notice_doi]
        chosen = with_doi or behind
        return chosen[0] if chosen else None


_DATE_PART = re.compile(r"\d+")


def _date_key(date: str | None) -> tuple[int, ...] | None:
    """`2010-02-06` -> (2010, 2, 6); `2010` -> (2010,); anything without a year -> None."""
    if not date:
        return None
    parts = tuple(int(p) for p in _DATE_PART.findall(date)[:3])
    return parts if parts and parts[0] >= 1000 else None


def _strictly_before(earlier: str | None, later: str | None) -> bool:
    """True only when both dates are known and `earlier` is before `later` at their common
    precision; `2010` against `2010-02-06` is not comparable, so it is False."""
    a, b = _date_key(earlier), _date_key(later)
    if a is None or b is None:
        return False
    common = min(len(a), len(b))
    if a[:common] == b[:common]:
        return False
    return a[:common] < b[:common]


def _canonical_order(notice: RetractionNotice) -> tuple[object, ...]:
    # A total order on notices, so the result never depends on the order evidence arrived in;
    # dated and detailed notices come first, so they are the ones a duplicate collapses into.
    return (
        -SEVERITY[notice.kind],
        notice.kind is RetractionKind.REINSTATED,
        notice.kind.value,
        notice.source.value,
        (notice.notice_doi or "").lower(),
        notice.date is None,
        notice.date or "",
        notice.detail is None,
        notice.detail or "",
    )


def _dedupe(notices: Iterable[RetractionNotice]) -> list[RetractionNotice]:
    """Distinct notices in canonical order; one notice DOI from one source counts once."""
    seen: set[tuple[object, ...]] = set()
    unique: list[RetractionNotice] = []
    for notice in sorted(notices, key=_canonical_order):
        doi = notice.notice_doi.lower() if notice.notice_doi else None
        key: tuple[object, ...] = (
            (notice.kind, notice.source, doi)
            if doi
            else (notice.kind, notice.source, notice.date, notice.detail)
        )
        if key not in seen:
            seen.add(key)
            unique.append(notice)
    return unique


def combine_retraction_status(
    notices: Iterable[RetractionNotice], *, consulted: Iterable[SourceName] = ()
) -> RetractionStatus:
    """One status from all the evidence; `consulted` names the sources that were asked (so the
    status can say which of them stayed silent)."""
    evidence = _dedupe(notices)
    reinstatements = [n for n in evidence if n.kind is RetractionKind.REINSTATED]
    lifted = [
        n
        for n in evidence
        if n.kind in _LIFTED_BY_REINSTATEMENT
        and any(_strictly_before(n.date, r.date) for r in reinstatements)
    ]
    standing = [n for n in evidence if n not in lifted and n.kind is not RetractionKind.REINSTATED]
    kind = max((n.kind for n in standing), key=SEVERITY.__getitem__, default=RetractionKind.NONE)
    agreeing = sorted({n.source for n in standing if n.kind is kind})
    reporting_as_severe = {n.source for n in standing if SEVERITY[n.kind] >= SEVERITY[kind]}
    silent = sorted(set(consulted) - reporting_as_severe)
    return RetractionStatus(
        kind=kind,
        evidence=tuple(evidence),
        sources=tuple(agreeing),
        not_reporting=tuple(silent),
        lifted=tuple(lifted),
        reinstated=bool(reinstatements),
    )


# Publishers rename a retracted article ("RETRACTED: ...", Elsevier; "RETRACTED ARTICLE: ...",
# Springer; "WITHDRAWN: ...", Elsevier). Upper case only: a notice about the article is often
# titled "Retracted: <title>" (Hindawi) or "Retraction: <title>", and that is not the article.
_TITLE_MARKER = re.compile(r"^\s*\[?(RETRACTED(?: ARTICLE)?|WITHDRAWN)\]?\s*[:.\-–—]\s*(?=\S)")


def split_title_marker(title: str) -> tuple[str, RetractionKind | None]:
    """`RETRACTED: Foo` -> (`Foo`, RETRACTED); a title without a marker comes back unchanged."""
    match = _TITLE_MARKER.match(title)
    if match is None:
        return title, None
    kind = RetractionKind.WITHDRAWN if match.group(1) == "WITHDRAWN" else RetractionKind.RETRACTED
    return title[match.end() :], kind
