"""The identity stage of a claim (`stages.py`, pool `retrieval`): for the candidate whose text
supports the claim, the triangulation gate, the retraction check, and the artifact built for the
writer. A disagreement the human did not override, or a retracted (withdrawn) paper, is a refusal.
"""

from __future__ import annotations

from datetime import UTC, datetime

from aletheia.core.artifacts import slug_for_record
from aletheia.core.records import RetractionKind
from aletheia.pipeline.audit.claim_events import CLAIM_IDENTITY
from aletheia.pipeline.claims.artifact import build_artifact
from aletheia.pipeline.claims.claim_state import (
    MAX_EXCERPTS,
    ClaimAttempt,
    ClaimState,
    PendingCitation,
    StageEnv,
    candidate_summaries,
)
from aletheia.pipeline.claims.identity_gate import IdentityCheck, _retraction, identity_check
from aletheia.pipeline.claims.library_tier import remember_cited
from aletheia.pipeline.claims.model import RetractedWork, TriangulationConflict
from aletheia.pipeline.documents.fulltext_signals import cited_text_signals

__all__ = ["stage_identity"]


async def stage_identity(state: ClaimState, env: StageEnv) -> None:
    """The identity gate, the retraction check and the artifact, for the candidate that supports the claim."""
    assert state.extracted is not None and state.ranking is not None
    chosen = state.attempts[-1]
    assert chosen.paper is not None and chosen.judged is not None
    check = await identity_check(env.gateway, chosen.candidate.record)
    _record_identity(state, env, chosen, check)
    if not check.agreed and state.request.override_reason is None:
        state.refuse(_conflict(state, chosen, check))
        return
    kind, notice_doi = _retraction(env.gateway, check)
    if kind in (RetractionKind.RETRACTED, RetractionKind.WITHDRAWN):
        state.refuse(
            RetractedWork(
                claim=state.request.claim,
                candidate=chosen.candidate.summary(),
                status=kind.value,
                notice_doi=notice_doi,
                detail=f"the supporting paper is {kind.value}"
                + (f" (notice {notice_doi})" if notice_doi else ""),
            )
        )
        return
    state.citation = _pending_citation(state, chosen, check, kind)
    chosen.paper = None  # what the artifact needs of it is in the artifact now
    await remember_cited(env.gateway, check)  # Tier 0 for the next claim about this work
    state.stage = "write"


def _record_identity(state: ClaimState, env: StageEnv, chosen: ClaimAttempt, check: IdentityCheck) -> None:
    request = state.request
    env.trail.add(
        CLAIM_IDENTITY,
        {
            "candidate": chosen.candidate.key,
            "agreed": check.agreed,
            "secondary": check.secondary.record.source.value if check.secondary else None,
            "conflicts": [c.model_dump(mode="json") for c in check.conflicts],
            "notes": list(check.notes),
            # The human decision that lets a disagreement through, and why (seed 000 §5.4).
            **(
                {"overridden": True, "override_reason": request.override_reason}
                if not check.agreed and request.override_reason is not None
                else {}
            ),
        },
    )


def _conflict(state: ClaimState, chosen: ClaimAttempt, check: IdentityCheck) -> TriangulationConflict:
    assert state.ranking is not None
    named = ", ".join(f.field for f in check.conflicts) or "no identity field agreed"
    other = check.secondary.record.source.value if check.secondary else "?"
    return TriangulationConflict(
        claim=state.request.claim,
        candidate=chosen.candidate.summary(),
        fields=tuple(check.conflicts),
        notes=tuple(check.result.notes if check.result else ()),
        alternatives=candidate_summaries(state.ranking.ranked, skip=chosen.candidate.key),
        detail=f"{chosen.candidate.record.source.value} and {other} disagree: {named}",
    )


def _pending_citation(
    state: ClaimState, chosen: ClaimAttempt, check: IdentityCheck, kind: RetractionKind
) -> PendingCitation:
    """The artifact of the supporting candidate, with what the citation made of it needs."""
    assert state.extracted is not None and state.ranking is not None
    assert chosen.paper is not None and chosen.judged is not None
    request, record = state.request, chosen.candidate.record
    abstract_only = chosen.paper.origin == "abstract"
    supporting = chosen.judged.supporting_matches[:MAX_EXCERPTS]
    judge_name = chosen.judged.judgement.judge
    # The text already fetched for the excerpts also feeds the paper-mill check (no request).
    signals = cited_text_signals(record, chosen.paper)
    artifact = build_artifact(
        claim=state.extracted.assertion,
        check=check,
        matches=supporting,
        text_excerpts_unavailable=abstract_only,
        verified_at=request.now or datetime.now(UTC),
        retraction=kind if kind is not RetractionKind.NONE else None,
        override_reason=request.override_reason,
        extra_notes=[
            f"full_text: {chosen.paper.origin}",
            f"ranker: {state.ranking.ranker}",
            f"claim_judge: {judge_name}",
            *(f"signal {s['kind']}: {s['evidence']['explanation']}" for s in signals),
        ],
    )
    return PendingCitation(
        artifact=artifact,
        slug=slug_for_record(record),
        record=record,
        text_excerpts_unavailable=abstract_only,
        human_overridden=request.override_reason is not None,
        signals=tuple(signals),
        excerpts=tuple({"text": m.text, "location": m.location} for m in supporting),
        judge=judge_name,
    )
