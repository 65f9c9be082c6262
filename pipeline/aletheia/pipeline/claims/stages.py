"""The stages of a claim's verification, each a function of one `ClaimState` (issue 19, item 6).

    stage       pool        what it does
    candidates  retrieval   the claim extracted; the named paper (`paper=`) or the ranked search
                            results (ranking interleaves the model and the searches: one stage)
    text        retrieval   the next candidate's text (`fetch_paper_text`: arXiv HTML, PMC, arXiv PDF,
                            the open-access copy, the abstract)
    parse       parsing     queue only: the documents the text stage fetched, converted; then the
                            text stage runs again (`claim_fetches`)
    judge       evidence    that candidate's excerpts located and judged (`judge_evidence`); support
                            -> identity, contradiction -> refused, neither -> the next candidate
    identity    retrieval   the triangulation gate, the retraction check, the artifact built
                            (`identity_stage.py`)
    write       writer      the artifact written under docs/citations, the decision recorded
                            (`claim_outcome.py`)
    done

A stage reads the state, asks the sources or the model, and leaves the state at the next stage;
every step it took is an event of the trail (`audit/claim_events.py`). The state
(`claim_state.py`) is JSON (pydantic), so the queue keeps it in PostgreSQL between stages
(`aletheia.pipeline.jobs.claims`), and `verify_and_cite` runs the same stages one after the other
in memory (`run_claim`): one engine.
A refusal at any stage (default-deny) sends the state straight to `write`, which records it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Final

from aletheia.pipeline.audit.claim_events import (
    CLAIM_CANDIDATES,
    CLAIM_EXTRACTED,
    CLAIM_JUDGEMENT,
    CLAIM_TEXT,
    judgement_rows,
)
from aletheia.pipeline.claims.candidate_search import _direct_candidates, named_paper, search_papers
from aletheia.pipeline.claims.claim_outcome import write_stage
from aletheia.pipeline.claims.claim_state import (
    MAX_CANDIDATES_TRIED,
    ClaimAttempt,
    ClaimRequest,
    ClaimState,
    Outcome,
    StageEnv,
    candidate_summaries,
)
from aletheia.pipeline.claims.identity_stage import stage_identity
from aletheia.pipeline.claims.judge import found_by_search_gaps, judge_evidence
from aletheia.pipeline.claims.library_tier import rank_library
from aletheia.pipeline.claims.model import (
    Candidate,
    ConflictReport,
    ContradictedClaim,
    ExtractedClaim,
    NoCandidates,
    NoSupportingExcerpts,
    PaperNotFound,
    Ranking,
    RetriesExhausted,
    SourcesFailed,
)
from aletheia.pipeline.documents.fulltext import fetch_paper_text
from aletheia.pipeline.llm.client import LLMError

__all__ = ["read_and_judge", "run_claim", "run_stage"]


def _failed(failures: list[str]) -> SourcesFailed:
    return SourcesFailed(failures[0].partition(": ")[0], "; ".join(failures))


# --- candidates (retrieval) -----------------------------------------------------------------------


async def _find_candidates(
    state: ClaimState, extracted: ExtractedClaim, env: StageEnv, failures: list[str]
) -> Ranking | ConflictReport:
    """The named paper alone (`paper=`), the verified library's candidates (Tier 0, first time
    only), or the ranked search results; `failures` collects the searches and lookups that failed."""
    request, gateway = state.request, env.gateway
    if request.paper is not None:
        named, asked = await named_paper(gateway, request.paper, failures)
        if named is None:
            if failures and len(failures) >= len(asked):
                raise _failed(failures)
            return PaperNotFound(
                claim=request.claim,
                paper=request.paper,
                asked=tuple(asked),
                detail=f"no source knows the paper {request.paper} (asked {', '.join(asked)});"
                " no other paper is substituted",
            )
        return Ranking(ranked=(named,), queries=(), iterations=0, ranker="named")
    if not extracted.queries and not (extracted.doi or extracted.arxiv_id):
        return NoCandidates(
            claim=request.claim,
            detail="the claim is too vague to search for"
            f" (content terms: {', '.join(extracted.terms) or 'none'})",
        )
    tried = {attempt.candidate.key for attempt in state.attempts}
    if not tried and (library := await rank_library(gateway, env.reasoner, extracted, request.hint)):
        return library
    answered = 0

    async def search(query: str, year_hint: int | None) -> list[Candidate]:
        nonlocal answered
        outcome = await search_papers(gateway, query, year_hint)
        failures.extend(outcome.failures)
        answered += outcome.answered
        return outcome.candidates

    initial = await _direct_candidates(gateway, extracted, failures)
    ranking: Ranking = await env.reasoner.rank_candidates(extracted, initial, search)
    if tried:  # the library's candidates were read already: the APIs' others only
        ranking = ranking.model_copy(
            update={"ranked": tuple(c for c in ranking.ranked if c.key not in tried)}
        )
    if not ranking.ranked:
        if failures and not answered and not initial:
            raise _failed(failures)
        queries = ranking.queries or extracted.queries
        return NoCandidates(
            claim=request.claim,
            query=queries[0] if queries else None,
            queries=queries,
            detail=f"no candidate from {len(queries)} search(es) fits the claim (ranker: {ranking.ranker})",
        )
    return ranking


async def _stage_candidates(state: ClaimState, env: StageEnv) -> None:
    request = state.request
    extracted = state.extracted  # set: Tier 0's candidates did not do, the APIs are asked now
    if extracted is None:
        extracted = state.extracted = await env.reasoner.extract_claim(request.claim, request.hint)
        env.trail.add(
            CLAIM_EXTRACTED,
            {
                "claim": request.claim,
                "assertion": extracted.assertion,
                "queries": list(extracted.queries),
                "hint": request.hint,
                "paper": request.paper,
            },
        )
    failures: list[str] = []
    try:
        found = await _find_candidates(state, extracted, env, failures)
    finally:
        env.failures.extend(failures)  # a search that failed for want of a token is not an answer
    if not isinstance(found, Ranking):
        # After Tier 0's candidates were read, "no other candidate" means none supported the claim.
        state.refuse(_no_support(state, env.judge.name) if state.attempts else found)
        return
    state.ranking = found
    env.trail.add(
        CLAIM_CANDIDATES,
        {
            "ranker": found.ranker,
            "tier": found.tier,
            "queries": list(found.queries),
            "candidates": [c.summary() for c in found.ranked[:10]],
        },
    )
    state.stage = "text"


# --- text (retrieval, parsing) and judge (evidence) ------------------------------------------------


async def _stage_text(state: ClaimState, env: StageEnv) -> None:
    assert state.ranking is not None
    candidate = state.ranking.ranked[len(state.attempts) - state.ranking_start]
    fetched = env.texts.get(candidate.key) if env.texts is not None else None
    if fetched is None:
        fetched = await fetch_paper_text(env.gateway, candidate.record, convert=env.convert)
        if env.texts is not None:
            env.texts[candidate.key] = fetched
    origin = fetched.paper.origin if fetched.paper else None
    env.trail.add(
        CLAIM_TEXT, {"candidate": candidate.key, "origin": origin, "attempts": list(fetched.attempts)}
    )
    state.attempts.append(
        ClaimAttempt(
            candidate=candidate, origin=origin, text_attempts=tuple(fetched.attempts), paper=fetched.paper
        )
    )
    state.fetched, state.pending = {}, []  # the queue's fetches served this candidate
    if fetched.paper is None:
        _next_candidate(state, env)
    else:
        state.stage = "judge"


async def _stage_judge(state: ClaimState, env: StageEnv) -> None:
    assert state.extracted is not None
    attempt = state.attempts[-1]
    assert attempt.paper is not None
    judged = await judge_evidence(state.extracted.assertion, attempt.paper, env.reasoner, env.judge)
    # A paper the search found, not one the user named, is cited only on an excerpt naming every
    # word the claim needs (`claim_found_by_search`).
    title = attempt.candidate.record.title or ""
    gaps = found_by_search_gaps(judged, title) if state.request.paper is None and judged.supported else ()
    env.trail.add(
        CLAIM_JUDGEMENT,
        {
            "candidate": attempt.candidate.key,
            "claim": state.extracted.assertion,
            "judge": judged.judgement.judge,
            "judgements": judgement_rows(judged.judgement.judgements),
            "supported": judged.supported,
            **({"search_gaps": list(gaps), "title": title} if state.request.paper is None else {}),
            "absent_terms": list(judged.judgement.absent_terms),
            "abbreviations": [list(pair) for pair in judged.judgement.abbreviations],
            "proposed_not_found": list(judged.evidence.rejected),
        },
    )
    attempt.matches = tuple(judged.evidence.matches)
    attempt.rejected = tuple(judged.evidence.rejected)
    attempt.judgement = judged.judgement
    if judged.judgement.contradicting:  # a contradiction ends the search: default-deny
        attempt.paper = None
        state.refuse(_contradicted(state, attempt))
    elif judged.supported and not gaps:
        state.stage = "identity"
    else:
        attempt.paper = None
        _next_candidate(state, env)


def _next_candidate(state: ClaimState, env: StageEnv) -> None:
    assert state.ranking is not None
    if len(state.attempts) - state.ranking_start < min(MAX_CANDIDATES_TRIED, len(state.ranking.ranked)):
        state.stage = "text"
    elif state.ranking.tier == "library":  # Tier 0 found no support: now the APIs are searched
        state.ranking_start, state.stage = len(state.attempts), "candidates"
    else:
        state.refuse(_no_support(state, env.judge.name))


def _contradicted(state: ClaimState, attempt: ClaimAttempt) -> ContradictedClaim:
    assert attempt.judgement is not None
    against = attempt.judgement.contradicting[0]
    return ContradictedClaim(
        claim=state.request.claim,
        candidate=attempt.candidate.summary(),
        excerpt=against.excerpt,
        location=against.location,
        reasons=against.reasons,
        why=against.explanation,
        judge=attempt.judgement.judge,
        judgements=tuple(judgement_rows(attempt.judgement.judgements)),
        text_origin=attempt.origin,
        detail=f"the paper's own words contradict the claim ({against.location or 'text'}):"
        f' "{against.excerpt[:200]}" ({against.explanation})',
    )


def _no_support(state: ClaimState, judge_name: str) -> NoSupportingExcerpts:
    assert state.ranking is not None
    first = state.attempts[0]
    judgement = first.judgement
    judge = judgement.judge if judgement else judge_name
    return NoSupportingExcerpts(
        claim=state.request.claim,
        candidate=first.candidate.summary(),
        proposed=first.rejected,
        text_origin=first.origin,
        attempts=first.text_attempts,
        alternatives=candidate_summaries(state.ranking.ranked, skip=first.candidate.key),
        judgements=tuple(judgement_rows(judgement.judgements)) if judgement else (),
        judge=judge,
        detail=f"no excerpt of {len(state.attempts)} candidate(s)' text was judged to support the claim"
        f" (judge {judge})",
    )


async def read_and_judge(state: ClaimState, env: StageEnv) -> None:
    """The text and judge stages until one candidate supports the claim or contradicts it, or none
    is left (`check_cited_claim`: a paper already cited, judged in place)."""
    while state.stage in ("text", "judge"):
        await _STAGES[state.stage](state, env)


_STAGES: Final[dict[str, Callable[[ClaimState, StageEnv], Awaitable[None]]]] = {
    "candidates": _stage_candidates,
    "text": _stage_text,
    "judge": _stage_judge,
    "identity": stage_identity,
}


async def run_stage(state: ClaimState, env: StageEnv) -> None:
    """Run the state's stage once. A source (or the model) failing for good is the refusal
    `RetriesExhausted`, which goes to `write` like any other."""
    stage = _STAGES.get(state.stage)
    if stage is None:
        raise ValueError(f"stage {state.stage!r} is not run here")
    try:
        await stage(state, env)
    except SourcesFailed as exc:
        state.refuse(
            RetriesExhausted(
                claim=state.request.claim,
                source=exc.source,
                error=exc.error,
                detail=f"{exc.source} kept failing: {exc.error}",
            )
        )
    except LLMError as exc:
        state.refuse(
            RetriesExhausted(
                claim=state.request.claim,
                source=env.reasoner.name,
                error=str(exc),
                detail=f"the model could not be asked: {exc}",
            )
        )


async def run_claim(request: ClaimRequest, env: StageEnv, project_root: Path) -> Outcome:
    """Every stage in this process, one after the other (`verify_and_cite`)."""
    state = ClaimState(request=request)
    while state.stage != "write":
        await run_stage(state, env)
    return write_stage(state, project_root, env.trail)
