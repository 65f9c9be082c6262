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
    write       writer      the artifact written under docs/citations, the decision recorded
    done

A stage reads the state, asks the sources or the model, and leaves the state at the next stage;
every step it took is an event of the trail (`audit/claim_events.py`). The state is JSON
(pydantic), so the queue keeps it in PostgreSQL between stages (`aletheia.pipeline.jobs.claims`), and
`verify_and_cite` runs the same stages one after the other in memory (`run_claim`): one engine.
A refusal at any stage (default-deny) sends the state straight to `write`, which records it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel

from aletheia.core.artifacts import CitationArtifact, slug_for_record
from aletheia.core.claim_judge import ClaimJudgement
from aletheia.core.excerpts import ExcerptMatch, PaperText
from aletheia.core.records import RetractionKind, WorkRecord
from aletheia.pipeline.audit.claim_events import (
    CLAIM_CANDIDATES,
    CLAIM_DECISION,
    CLAIM_EXTRACTED,
    CLAIM_IDENTITY,
    CLAIM_JUDGEMENT,
    CLAIM_TEXT,
    ClaimTrail,
    judgement_rows,
)
from aletheia.pipeline.claims.artifact import build_artifact, write_citation_artifact
from aletheia.pipeline.claims.candidate_search import _direct_candidates, named_paper, search_papers
from aletheia.pipeline.claims.identity_gate import _retraction, identity_check
from aletheia.pipeline.claims.judge import ClaimJudge, EvidenceResult, JudgedEvidence, judge_evidence
from aletheia.pipeline.claims.library_tier import rank_library, remember_cited
from aletheia.pipeline.claims.model import (
    Candidate,
    Citation,
    ConflictReport,
    ContradictedClaim,
    ExtractedClaim,
    NoCandidates,
    NoSupportingExcerpts,
    PaperNotFound,
    Ranking,
    RetractedWork,
    RetriesExhausted,
    SourcesFailed,
    TriangulationConflict,
)
from aletheia.pipeline.claims.reasoner import ClaimReasoner
from aletheia.pipeline.documents.fulltext import Converter, FetchedText, fetch_paper_text
from aletheia.pipeline.documents.fulltext_signals import cited_text_signals
from aletheia.pipeline.llm.client import LLMError

__all__ = [
    "MAX_CANDIDATES_TRIED",
    "MAX_EXCERPTS",
    "ClaimAttempt",
    "ClaimRequest",
    "ClaimState",
    "PendingCitation",
    "Stage",
    "StageEnv",
    "read_and_judge",
    "run_claim",
    "run_stage",
    "state_outcome",
    "write_stage",
]

MAX_CANDIDATES_TRIED: Final = 3  # candidates whose text is read before giving up on excerpts
MAX_EXCERPTS: Final = 3  # supporting excerpts quoted in the artifact

Stage = Literal["candidates", "text", "parse", "judge", "identity", "write", "done"]
Outcome = tuple[Citation, Path] | tuple[None, ConflictReport]


class ClaimRequest(BaseModel):
    """What was asked: the claim, a search hint or the one paper to judge, a human override."""

    claim: str
    hint: str | None = None
    paper: str | None = None
    override_reason: str | None = None  # set: a triangulation conflict is let through (recorded)
    now: datetime | None = None  # the artifact's verified_at (default: when it is built)


class ClaimAttempt(BaseModel):
    """One candidate read: where its text came from, then how its excerpts were judged."""

    candidate: Candidate
    origin: str | None = None  # the text's origin; None: no text at all, not even an abstract
    text_attempts: tuple[str, ...] = ()
    paper: PaperText | None = None  # kept while needed: until judged, and for the supporting paper
    matches: tuple[ExcerptMatch, ...] = ()  # every located excerpt the judge saw
    rejected: tuple[str, ...] = ()  # quotes the reasoner proposed that are not in the text
    judgement: ClaimJudgement | None = None

    @property
    def judged(self) -> JudgedEvidence | None:
        if self.judgement is None:
            return None
        return JudgedEvidence(EvidenceResult(list(self.matches), list(self.rejected)), self.judgement)


class PendingCitation(BaseModel):
    """The artifact built by the identity stage, for the writer to write (and the citation it makes)."""

    artifact: CitationArtifact
    slug: str
    record: WorkRecord
    text_excerpts_unavailable: bool
    human_overridden: bool
    signals: tuple[dict[str, Any], ...] = ()
    excerpts: tuple[dict[str, str], ...] = ()
    judge: str | None = None


class ClaimState(BaseModel):
    """A claim between its stages: everything the stages so far found (see the module docstring)."""

    request: ClaimRequest
    stage: Stage = "candidates"
    extracted: ExtractedClaim | None = None
    ranking: Ranking | None = None
    attempts: list[ClaimAttempt] = []
    ranking_start: int = 0  # attempts before this ranking (Tier 0's, when the APIs were asked after)
    refusal: ConflictReport | None = None
    citation: PendingCitation | None = None
    artifact: str | None = None  # the path written (stage done, cited)
    # The queue's text stage between its runs (claim_fetches): fetches answered, documents to convert.
    fetched: dict[str, dict[str, Any] | None] = {}
    pending: list[str] = []
    # The trail so far (the queue appends it to the job's audit log after every stage).
    events: list[tuple[str, dict[str, Any]]] = []

    def refuse(self, report: ConflictReport) -> None:
        self.refusal = report
        self.stage = "write"


@dataclass
class StageEnv:
    """What the stages ask: the sources, the model (or the lexical stand-in), the judge."""

    gateway: Any
    reasoner: ClaimReasoner  # paced (`reasoner.paced_reasoner`) by whoever builds the env
    judge: ClaimJudge
    trail: ClaimTrail
    convert: Converter | None = None  # None: `convert_document` in a thread of this process
    failures: list[str] = field(default_factory=list)  # sources that failed, for the queue's deferrals
    # Texts fetched in this run, by candidate key: the cited sentences of one paper
    # (`cited_claims`) are judged against one download and one conversion, not one each.
    texts: dict[str, FetchedText] | None = None


def _summaries(
    candidates: Sequence[Candidate], skip: str | None = None, limit: int = 5
) -> tuple[dict[str, object], ...]:
    return tuple(c.summary() for c in candidates if c.key != skip)[:limit]


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
    env.trail.add(
        CLAIM_JUDGEMENT,
        {
            "candidate": attempt.candidate.key,
            "claim": state.extracted.assertion,
            "judge": judged.judgement.judge,
            "judgements": judgement_rows(judged.judgement.judgements),
            "supported": judged.supported,
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
    elif judged.supported:
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
        alternatives=_summaries(state.ranking.ranked, skip=first.candidate.key),
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


# --- identity (retrieval) -------------------------------------------------------------------------


async def _stage_identity(state: ClaimState, env: StageEnv) -> None:
    """The identity gate, the retraction check and the artifact, for the candidate that supports the claim."""
    assert state.extracted is not None and state.ranking is not None
    chosen = state.attempts[-1]
    assert chosen.paper is not None and chosen.judged is not None
    request, record = state.request, chosen.candidate.record
    check = await identity_check(env.gateway, record)
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
    if not check.agreed and request.override_reason is None:
        named = ", ".join(f.field for f in check.conflicts) or "no identity field agreed"
        other = check.secondary.record.source.value if check.secondary else "?"
        state.refuse(
            TriangulationConflict(
                claim=request.claim,
                candidate=chosen.candidate.summary(),
                fields=tuple(check.conflicts),
                notes=tuple(check.result.notes if check.result else ()),
                alternatives=_summaries(state.ranking.ranked, skip=chosen.candidate.key),
                detail=f"{record.source.value} and {other} disagree: {named}",
            )
        )
        return
    kind, notice_doi = _retraction(env.gateway, check)
    if kind in (RetractionKind.RETRACTED, RetractionKind.WITHDRAWN):
        state.refuse(
            RetractedWork(
                claim=request.claim,
                candidate=chosen.candidate.summary(),
                status=kind.value,
                notice_doi=notice_doi,
                detail=f"the supporting paper is {kind.value}"
                + (f" (notice {notice_doi})" if notice_doi else ""),
            )
        )
        return
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
    state.citation = PendingCitation(
        artifact=artifact,
        slug=slug_for_record(record),
        record=record,
        text_excerpts_unavailable=abstract_only,
        human_overridden=request.override_reason is not None,
        signals=tuple(signals),
        excerpts=tuple({"text": m.text, "location": m.location} for m in supporting),
        judge=judge_name,
    )
    chosen.paper = None  # what the artifact needs of it is in the artifact now
    await remember_cited(env.gateway, check)  # Tier 0 for the next claim about this work
    state.stage = "write"


_STAGES: Final[dict[str, Callable[[ClaimState, StageEnv], Awaitable[None]]]] = {
    "candidates": _stage_candidates,
    "text": _stage_text,
    "judge": _stage_judge,
    "identity": _stage_identity,
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


# --- write (writer) -------------------------------------------------------------------------------


def state_outcome(state: ClaimState) -> Outcome:
    """The result of a state at `done`: the citation and its artifact, or the refusal."""
    if state.citation is not None and state.artifact is not None:
        pending = state.citation
        front = pending.artifact.frontmatter
        citation = Citation(
            text=pending.artifact.body.citation_snippet,
            bibtex=pending.artifact.body.bibtex,
            slug=pending.slug,
            artifact=Path(state.artifact),
            record=pending.record,
            single_source_verified=front.single_source_verified,
            text_excerpts_unavailable=pending.text_excerpts_unavailable,
            human_overridden=pending.human_overridden,
            signals=pending.signals,
            excerpts=pending.excerpts,
            judge=pending.judge,
        )
        return citation, Path(state.artifact)
    assert state.refusal is not None, f"a claim at stage {state.stage} has no outcome yet"
    return None, state.refusal


def write_stage(state: ClaimState, project_root: Path, trail: ClaimTrail) -> Outcome:
    """Write the artifact (a citation) and record the decision; the state is then `done`. Raises
    `ArtifactPathError` when the artifact cannot be written safely under `project_root`."""
    if state.citation is not None:
        path = write_citation_artifact(project_root, state.citation.artifact, slug=state.citation.slug)
        state.artifact = str(path)
    state.stage = "done"
    outcome = state_outcome(state)
    citation, detail = outcome
    if citation is None:
        assert not isinstance(detail, Path)
        trail.add(CLAIM_DECISION, {"cited": False, "refusal": detail.kind, "detail": detail.detail})
    else:
        record = citation.record
        trail.add(
            CLAIM_DECISION,
            {
                "cited": True,
                "slug": citation.slug,
                "paper": record.doi or record.arxiv_id or record.pmid,
                "excerpts": list(citation.excerpts),
                "judge": citation.judge,
                **(
                    {"human_overridden": True, "override_reason": state.request.override_reason}
                    if citation.human_overridden
                    else {}
                ),
            },
        )
    return outcome


async def run_claim(request: ClaimRequest, env: StageEnv, project_root: Path) -> Outcome:
    """Every stage in this process, one after the other (`verify_and_cite`)."""
    state = ClaimState(request=request)
    while state.stage != "write":
        await run_stage(state, env)
    return write_stage(state, project_root, env.trail)
