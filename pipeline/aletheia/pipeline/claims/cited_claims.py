"""The claims of a research text judged against the papers they cite (issue 19).

In `aletheia claims` (and `validate_research`) every sentence that carries a citation marker is a
claim (`core.claim_text.find_claims`). Once its references are verified, each cited reference that
the reference check matched to a work with a DOI, an arXiv id or a PMID (the matched record's
identifier; the entry's own when it is verified and the match has none) is read, and the sentence,
its markers cut out (`judged_sentence`), is judged against it by `check_cited_claim`: the same
judge as `verify_and_cite`, with nothing searched for and no artifact written.

A check's status is `check_cited_claim`'s (`supported`, `contradicted`, `unsupported`,
`paper_not_found`, `unchecked`), or `not_judged` when there is nothing to judge against (the
reference check found no work, or the work has no identifier to read it by). A claim's judgement
is its checks' together, the first that applies of:

    contradicted   a cited paper's own words contradict it (the excerpt is shown)
    supported      a cited paper supports it (one of several citations is enough)
    unchecked      a check could not run (a source, the model, the cap): nothing decided
    not_judged     a citation could not be judged at all: it may be the one that supports it
    unsupported    every cited paper was read and none supports it

The work is bounded: at most `max_judgements` distinct (sentence, paper) pairs per document are
judged (the rest are `unchecked`, saying so), and a pair is judged once however often it occurs.
Different papers are read concurrently, one paper's sentences one after another (the second read
of a paper is served by the gateway's cache). Each check's `ClaimTrail` (item `claim N`) is
returned in claim order for the job's audit log; the events carry no timestamps.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from aletheia.config import Settings
from aletheia.core.claim_text import ClaimFinding, judged_sentence
from aletheia.core.records import CitedReference
from aletheia.pipeline.audit.claim_events import CLAIM_DECISION, ClaimTrail

__all__ = [
    "DEFAULT_MAX_JUDGEMENTS",
    "JUDGEMENT_ORDER",
    "claim_status_with_judgement",
    "judge_cited_claims",
    "paper_for",
]

DEFAULT_MAX_JUDGEMENTS: Final = 50
PARALLEL_PAPERS: Final = 4  # papers read at once; the gateway's per-source limits still apply
# A claim's judgement from its checks: the first status of this order that one of them has.
JUDGEMENT_ORDER: Final = ("contradicted", "supported", "unchecked", "not_judged", "unsupported")
_AS_CLAIM_STATUS: Final = {
    "contradicted": "contradicted",
    "unsupported": "unsupported_by_paper",
    "unchecked": "unchecked",
}
_IDENTIFIERS: Final = (("doi", ""), ("arxiv_id", "arXiv:"), ("pmid", "PMID:"))


def paper_for(reference: Mapping[str, Any] | None, cited: CitedReference | None) -> tuple[str | None, str]:
    """(the identifier to judge the claim against, None) or (None, why there is none)."""
    from aletheia.pipeline.claims.candidate_search import (
        parse_paper_id,  # the claim pipeline: loaded when used
    )

    if reference is None:
        return None, "the reference was not checked"
    match = reference.get("match") or {}
    names = [f"{prefix}{match[name]}" for name, prefix in _IDENTIFIERS if match.get(name)]
    if not names and reference.get("verdict") == "verified" and cited is not None:
        own = {"doi": cited.doi, "arxiv_id": cited.arxiv_id, "pmid": cited.pmid}
        names = [f"{prefix}{own[name]}" for name, prefix in _IDENTIFIERS if own[name]]
    for name in names:
        if parse_paper_id(name) is not None:
            return name, ""
    if not match:
        return None, f"the reference check found no work ({reference.get('verdict')})"
    return None, "the cited work has no DOI, arXiv id or PMID to read it by"


@dataclass
class _Pair:
    """One (sentence, paper) to judge, and the claims that asked for it (the first one owns it)."""

    sentence: str
    paper: str
    claims: list[int] = field(default_factory=list)
    result: dict[str, Any] | None = None
    trail: ClaimTrail | None = None


def _skipped(citation: Mapping[str, Any], paper: str | None, status: str, detail: str) -> dict[str, Any]:
    return {
        "key": citation["key"],
        "reference_key": citation["reference_key"],
        "paper": paper,
        "status": status,
        "detail": detail,
    }


def _combine(sentence: str, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A claim's judgement from its checks (the order in the module docstring)."""
    # A work the reference check found but no source knows by its identifier now: nothing decided.
    statuses = ["unchecked" if r["status"] == "paper_not_found" else r["status"] for r in rows]
    status = next(s for s in JUDGEMENT_ORDER if s in statuses)
    deciding = rows[statuses.index(status)]
    judgement: dict[str, Any] = {
        "status": status,
        "claim": sentence,
        "paper": deciding.get("paper"),
        "detail": deciding.get("detail"),
        "excerpt": deciding.get("excerpt"),
        "judge": deciding.get("judge"),
        "checks": list(rows),
    }
    if status == "unsupported":
        # No excerpt decided it; the closest one judged, with the rule that kept it from supporting.
        closest = next(iter(deciding.get("judgements") or ()), None)
        judgement["closest"] = (
            {"text": closest["excerpt"], "location": closest["location"], "why": closest["why"]}
            if closest
            else None
        )
    return judgement


def claim_status_with_judgement(status: str, judgement: Mapping[str, Any] | None) -> str:
    """The claim's status once its judgement is known: a citation that checks out but a paper that
    contradicts the sentence (or does not support it) makes the claim `contradicted`
    (`unsupported_by_paper`); an unfinished judgement of a verified citation, `unchecked`. A flagged,
    unresolved or unchecked citation keeps its status: that is the first thing to fix."""
    if judgement is None or status not in ("verified", "doubtful"):
        return status
    judged = _AS_CLAIM_STATUS.get(judgement["status"])
    if judged is None or (judged == "unchecked" and status == "doubtful"):
        return status
    return judged


async def judge_cited_claims(
    claims: list[dict[str, Any]],
    findings: Sequence[ClaimFinding],
    text: str,
    *,
    refs_by_id: Mapping[str, CitedReference],
    references: Mapping[str, Mapping[str, Any]],
    checked: bool,
    gateway: Any,
    settings: Settings,
    limit: int = DEFAULT_MAX_JUDGEMENTS,
    judge: Any = None,
    reasoner: Any = None,
) -> tuple[int, list[ClaimTrail]]:
    """Set `claim["judgement"]` on every claim (None when it cites nothing) and return (how many
    pairs were judged, the trails of their decisions in claim order)."""
    pairs: dict[tuple[str, str], _Pair] = {}
    # Per cited claim: its judged sentence and, per resolved citation, the pair to judge or the row
    # saying why there is none.
    plans: list[tuple[dict[str, Any], str, list[tuple[dict[str, Any], _Pair | dict[str, Any]]]]] = []
    for claim, finding in zip(claims, findings, strict=True):
        claim["judgement"] = None
        sentence = judged_sentence(text, finding)
        planned: list[tuple[dict[str, Any], _Pair | dict[str, Any]]] = []
        for citation in claim["citations"]:
            if not citation["resolved"]:
                continue  # the claim is `unresolved`: the marker is what to fix
            if not checked:
                planned.append((citation, _skipped(citation, None, "not_judged", "--no-check")))
                continue
            ref_id = citation["reference_key"]
            paper, why = paper_for(references.get(ref_id), refs_by_id.get(ref_id))
            if paper is None:
                planned.append((citation, _skipped(citation, None, "not_judged", why)))
                continue
            pair = pairs.setdefault((sentence, paper), _Pair(sentence, paper))
            pair.claims.append(claim["id"])
            planned.append((citation, pair))
        if planned:
            plans.append((claim, sentence, planned))
    chosen = list(pairs.values())[:limit]
    await _run(chosen, gateway=gateway, settings=settings, judge=judge, reasoner=reasoner)
    trails: list[ClaimTrail] = []
    for claim, sentence, planned in plans:
        rows: list[dict[str, Any]] = []
        for citation, step in planned:
            if not isinstance(step, _Pair):
                rows.append(step)
            elif step.result is None:
                over = f"not judged: past the cap of {limit} (sentence, paper) pairs (--max-judgements)"
                rows.append(_skipped(citation, step.paper, "unchecked", over))
            else:
                rows.append(
                    {"key": citation["key"], "reference_key": citation["reference_key"], **step.result}
                )
                trails.append(_trail_for(claim["id"], step))
        claim["judgement"] = _combine(sentence, rows)
    return len(chosen), _unique(trails)


def _trail_for(claim_id: int, pair: _Pair) -> ClaimTrail:
    """The pair's own trail for the claim that owns it; for a later claim with the same sentence and
    paper, one decision event that points at it (it was judged once)."""
    assert pair.trail is not None and pair.result is not None
    owner = pair.claims[0]
    if claim_id == owner:
        return pair.trail
    trail = ClaimTrail(item=f"claim {claim_id}")
    status = pair.result["status"]
    trail.add(
        CLAIM_DECISION,
        {"cited": status == "supported", "refusal": None if status == "supported" else status,
         "detail": f"judged once with claim {owner}: same sentence, same paper {pair.paper}"},
    )  # fmt: skip
    return trail


def _unique(trails: list[ClaimTrail]) -> list[ClaimTrail]:
    """Each trail once (a claim citing the same paper under two keys shares its pair's trail)."""
    seen: set[int] = set()
    out = []
    for trail in trails:
        if id(trail) not in seen:
            seen.add(id(trail))
            out.append(trail)
    return out


async def _run(
    pairs: Sequence[_Pair], *, gateway: Any, settings: Settings, judge: Any, reasoner: Any
) -> None:
    """Judge every pair: papers concurrently (at most PARALLEL_PAPERS), each paper's pairs in order.
    One reasoner and one judge (one model client) serve every pair."""
    from aletheia.pipeline.claims.judge import judge_from_settings
    from aletheia.pipeline.claims.reasoner import reasoner_from_settings
    from aletheia.pipeline.claims.verify_and_cite import check_cited_claim
    from aletheia.pipeline.llm.client import LLMError

    if not pairs:
        return
    try:
        judge = judge or judge_from_settings(settings)
    except LLMError as exc:  # ALETHEIA_CLAIM_JUDGE=anthropic without a key: nothing can be judged
        for pair in pairs:
            pair.trail = ClaimTrail(item=f"claim {pair.claims[0]}")
            pair.trail.add(CLAIM_DECISION, {"cited": False, "refusal": "unchecked", "detail": str(exc)})
            pair.result = {
                "claim": pair.sentence,
                "paper": pair.paper,
                "status": "unchecked",
                "detail": str(exc),
            }
        return
    reasoner = reasoner or reasoner_from_settings(settings)
    by_paper: dict[str, list[_Pair]] = {}
    for pair in pairs:
        by_paper.setdefault(pair.paper, []).append(pair)
    gate = asyncio.Semaphore(PARALLEL_PAPERS)

    async def one_paper(group: list[_Pair]) -> None:
        texts: dict[str, Any] = {}  # the paper's text, fetched once for all its citing sentences
        async with gate:
            for pair in group:
                pair.trail = ClaimTrail(item=f"claim {pair.claims[0]}")
                check = await check_cited_claim(
                    pair.sentence, pair.paper, gateway=gateway, settings=settings, judge=judge,
                    reasoner=reasoner, trail=pair.trail, texts=texts,
                )  # fmt: skip
                pair.result = check.as_json()

    await asyncio.gather(*(one_paper(group) for group in by_paper.values()))


def judgement_summary(claims: Sequence[Mapping[str, Any]], judged: int, limit: int) -> dict[str, Any]:
    """The summary's counts: cited claims by judgement, pairs judged, and the cap."""
    counts = Counter(c["judgement"]["status"] for c in claims if c.get("judgement"))
    return {"judged": dict(sorted(counts.items())), "judgements_checked": judged, "max_judgements": limit}
