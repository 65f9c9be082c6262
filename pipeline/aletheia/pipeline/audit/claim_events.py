"""A claim's decision in the audit trail, and its replay (issue 19).

`verify_and_cite` records what it did in a `ClaimTrail`; the job that ran it appends the events to
its hash-chained audit log (`aletheia audit-log show JOB`). In order, per claim:

    claim_extracted    the assertion, its queries, the hint or the paper named
    claim_candidates   the candidates considered, best first (ids, titles, sources)
    claim_text         per candidate read: where its text came from and what was tried
    claim_judgement    per candidate read: every excerpt judged, its label, rule codes and location,
                       the judge and its rules version, and whether the claim is supported
    claim_identity     the triangulation gate's answer for the chosen paper
    claim_decision     the artifact written (path, slug, excerpts) or the refusal (kind, detail)

Bodies are deterministic in the decision (no timestamps): a task that runs twice and decides the
same logs nothing new. `replay_claim_events` recomputes every rules-judge judgement from the stored
claim and excerpts under today's rules; a model's judgement is not replayable (said so).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from aletheia.core.claim_found_by_search import search_gaps
from aletheia.core.claim_judge import JUDGE_NAME, judge_excerpt

CLAIM_EXTRACTED: Final = "claim_extracted"
CLAIM_CANDIDATES: Final = "claim_candidates"
CLAIM_TEXT: Final = "claim_text"
CLAIM_JUDGEMENT: Final = "claim_judgement"
CLAIM_IDENTITY: Final = "claim_identity"
CLAIM_DECISION: Final = "claim_decision"
CLAIM_EVENT_KINDS: Final = frozenset(
    {CLAIM_EXTRACTED, CLAIM_CANDIDATES, CLAIM_TEXT, CLAIM_JUDGEMENT, CLAIM_IDENTITY, CLAIM_DECISION}
)


@dataclass
class ClaimTrail:
    """The events of one claim's decision, in order; `item` names the claim within its job."""

    item: str = "claim"
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def add(self, kind: str, body: Mapping[str, Any]) -> None:
        self.events.append((kind, {"item": self.item, **body}))


@dataclass(frozen=True)
class ClaimReplayDifference:
    item: str
    candidate: str | None
    excerpt: str
    stored: str
    replayed: str

    def describe(self) -> str:
        return f"{self.item} {self.candidate or ''}: {self.excerpt[:80]!r}: {self.stored} -> {self.replayed}"


@dataclass
class ClaimReplay:
    judged: int = 0
    same: int = 0
    differences: list[ClaimReplayDifference] = field(default_factory=list)
    not_replayable: list[str] = field(default_factory=list)
    decisions_checked: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "excerpts_judged": self.judged,
            "same": self.same,
            "decisions_checked": self.decisions_checked,
            "differences": [d.__dict__ for d in self.differences],
            "not_replayable": self.not_replayable,
        }


def replay_claim_events(events: Iterable[tuple[str, Mapping[str, Any]]]) -> ClaimReplay:
    """Every stored `claim_judgement` judged again from its claim and excerpts (rules judge only),
    and the support it implies compared with what was stored."""
    report = ClaimReplay()
    for kind, body in events:
        if kind != CLAIM_JUDGEMENT:
            continue
        item = str(body.get("item"))
        judge = str(body.get("judge") or "")
        if not judge.startswith("rules:"):
            report.not_replayable.append(
                f"{item}: judged by {judge or 'an unknown judge'} (a model is not replayed)"
            )
            continue
        claim = str(body.get("claim") or "")
        labels: list[str] = []
        supporting: list[str] = []
        for stored in body.get("judgements") or ():
            again = judge_excerpt(
                claim,
                str(stored.get("excerpt") or ""),
                location=stored.get("location"),
                absent_terms=tuple(body.get("absent_terms") or ()),
                known_abbreviations=tuple(
                    (str(pair[0]), str(pair[1])) for pair in body.get("abbreviations") or ()
                ),
            )
            report.judged += 1
            labels.append(again.label)
            supporting += [again.excerpt] if again.label == "supports" else []
            if again.label == stored.get("label"):
                report.same += 1
            else:
                report.differences.append(
                    ClaimReplayDifference(
                        item,
                        body.get("candidate"),
                        str(stored.get("excerpt")),
                        f"{stored.get('label')} ({judge})",
                        f"{again.label} ({JUDGE_NAME})",
                    )
                )
        supported = "supports" in labels and "contradicts" not in labels
        report.decisions_checked += 1
        if supported != bool(body.get("supported")):
            report.differences.append(
                ClaimReplayDifference(
                    item,
                    body.get("candidate"),
                    "(the claim)",
                    f"supported={body.get('supported')}",
                    f"supported={supported}",
                )
            )
        if "search_gaps" in body and supported:
            _replay_search_gaps(str(item), body, claim, supporting, report)
    return report


def _replay_search_gaps(
    item: str, body: Mapping[str, Any], claim: str, supporting: list[str], report: ClaimReplay
) -> None:
    """A paper the search found: the words its support had to name (`claim_found_by_search`),
    checked again."""
    known = {str(pair[0]): str(pair[1]) for pair in body.get("abbreviations") or ()}
    again = search_gaps(claim, supporting, title=str(body.get("title") or ""), known=known)
    stored = tuple(body.get("search_gaps") or ())
    if again != stored:
        report.differences.append(
            ClaimReplayDifference(
                item,
                body.get("candidate"),
                "(found by search)",
                f"search_gaps={list(stored)}",
                f"search_gaps={list(again)}",
            )
        )


def judgement_rows(judgements: Sequence[Any]) -> list[dict[str, Any]]:
    """`ExcerptJudgement`s as the trail and the reports keep them."""
    return [
        {
            "excerpt": j.excerpt,
            "label": j.label,
            "reasons": list(j.reasons),
            "why": j.explanation,
            "location": j.location,
            "judge": j.judge,
        }
        for j in judgements
    ]
