"""`verify_and_cite`: ground a research claim in a paper, prove it, write the artifact, or refuse.

The flow of seed 000 §4.2, each step a function the queue can run on its own pool:

    extract_claim        (evidence)   the assertion and its search queries
    search_papers        (retrieval)  Semantic Scholar and OpenAlex searches -> candidates
                                      (or, with `paper=`, that paper alone: never another)
    rank_candidates      (evidence)   at most 3 ranking iterations; none plausible -> NoCandidates
    fetch_paper_text     (retrieval)  arXiv HTML -> PMC -> arXiv PDF -> open-access copy -> abstract
    convert_document     (parsing)    bytes -> PaperText, cached by content hash
    judge_evidence       (evidence)   quotes located verbatim, the paper's sentences on the claim,
                                      each judged supports / contradicts / not_enough
    identity_check       (retrieval)  the triangulation gate against a second source
    write_citation_artifact (writer)  docs/citations/{slug}.md, atomically, never outside it

Default-deny: every path that cannot prove the citation returns `(None, ConflictReport)`. A claim is
cited only when an excerpt supports it and none contradicts it (`ContradictedClaim` names the
excerpt that does). What is mechanical and what is judgement: the identity fields come from the
source's record (never from the model), every excerpt is a located span of the paper's text, the
gate compares two sources' records with `aletheia.core.triangulate`. Ranking, quote proposal and
the judgement are the reasoner's and the judge's (`llm.py`, `claim_judge.py`), and what a model
says is checked by the steps above.

Where the steps are: search, evidence matching and the triangulation gate in `claim_steps.py`, the
judgement in `claim_judge.py`, the artifact in `claim_artifact.py`, the types in `claim_types.py`,
the tools in `claim_tools.py`, the audit events in `claim_audit.py`; this module composes them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from aletheia.config import Settings, get_settings
from aletheia.core.artifacts import slug_for_record
from aletheia.core.records import RetractionKind
from aletheia.pipeline.claim_artifact import (
    CITATIONS_DIR,
    VERIFICATION_VERSION,
    build_artifact,
    write_citation_artifact,
)
from aletheia.pipeline.claim_audit import (
    CLAIM_CANDIDATES,
    CLAIM_DECISION,
    CLAIM_EXTRACTED,
    CLAIM_IDENTITY,
    CLAIM_JUDGEMENT,
    CLAIM_TEXT,
    ClaimTrail,
    judgement_rows,
)
from aletheia.pipeline.claim_judge import ClaimJudge, JudgedEvidence, judge_evidence, judge_from_settings
from aletheia.pipeline.claim_steps import (
    EvidenceResult,
    IdentityCheck,
    SearchOutcome,
    SourcesFailed,
    _direct_candidates,
    _retraction,
    identity_check,
    match_evidence,
    named_paper,
    parse_paper_id,
    search_papers,
)
from aletheia.pipeline.claim_tools import ClaimTools, citation_transparency, outcome_as_dict
from aletheia.pipeline.claim_types import (
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
    TriangulationConflict,
)
from aletheia.pipeline.fulltext import Converter, FetchedText, convert_document, fetch_paper_text
from aletheia.pipeline.fulltext_signals import cited_text_signals
from aletheia.pipeline.llm import LLM, ClaimReasoner, LLMError, reasoner_from_settings
from aletheia.pipeline.llm_paced import paced_reasoner

__all__ = [
    "CITATIONS_DIR",
    "VERIFICATION_VERSION",
    "CitedClaimCheck",
    "ClaimTools",
    "ClaimTrail",
    "EvidenceResult",
    "IdentityCheck",
    "SearchOutcome",
    "SourcesFailed",
    "build_artifact",
    "check_cited_claim",
    "citation_transparency",
    "convert_document",
    "fetch_paper_text",
    "identity_check",
    "match_evidence",
    "outcome_as_dict",
    "search_papers",
    "verify_and_cite",
    "verify_and_cite_sync",
    "write_citation_artifact",
]

MAX_CANDIDATES_TRIED: Final = 3  # candidates whose text is read before giving up on excerpts
MAX_EXCERPTS: Final = 3  # supporting excerpts quoted in the artifact


# --- verify_and_cite ----------------------------------------------------------------------------------


@dataclass
class _Attempt:
    candidate: Candidate
    fetched: FetchedText
    judged: JudgedEvidence | None


def _summaries(
    candidates: Sequence[Candidate], skip: str | None = None, limit: int = 5
) -> tuple[dict[str, object], ...]:
    return tuple(c.summary() for c in candidates if c.key != skip)[:limit]


@contextlib.asynccontextmanager
async def _open_gateway(settings: Settings) -> AsyncIterator[Any]:
    from aletheia.pipeline.runtime import Runtime

    runtime = Runtime.open(settings)
    async with runtime.gateway() as gateway:
        yield gateway


@dataclass(frozen=True)
class _Request:
    claim: str
    hint: str | None
    paper: str | None
    project_root: Path
    override_reason: str | None
    now: datetime | None


async def verify_and_cite(
    claim: str,
    hint: str | None = None,
    *,
    paper: str | None = None,
    project_root: Path | str = ".",
    override: bool = False,
    override_reason: str | None = None,
    gateway: Any = None,
    settings: Settings | None = None,
    reasoner: ClaimReasoner | None = None,
    judge: ClaimJudge | None = None,
    llm: LLM | None = None,
    convert: Converter | None = None,
    now: datetime | None = None,
    trail: ClaimTrail | None = None,
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    """Find the paper that supports `claim`, prove it, write the artifact: `(citation, path)`.
    Otherwise `(None, report)`: NoCandidates, PaperNotFound, NoSupportingExcerpts, ContradictedClaim,
    TriangulationConflict, RetractedWork or RetriesExhausted.

    `paper` (a DOI, arXiv id or PMID) judges that paper for the claim and never another; `hint` is a
    search hint only. The claim is cited only when an excerpt of the paper, located verbatim, is
    judged to support it and none to contradict it (`judge`; by default `ALETHEIA_CLAIM_JUDGE`).
    `override=True` (with a non-empty `override_reason`) lets a triangulation conflict through and
    records `human_overridden: true` and the reason; nothing else can be overridden. Without a
    `gateway` one is opened from `settings` (a `Runtime`); without a `reasoner` Claude is used when
    an Anthropic key is set (or `llm` is given), the lexical path otherwise. Every step is recorded
    in `trail` when one is given (the audit trail of the job that runs it).
    """
    if override and not (override_reason and override_reason.strip()):
        raise ValueError("override=True needs a non-empty override_reason (it is recorded in the artifact)")
    if paper is not None and parse_paper_id(paper) is None:
        raise ValueError(f"--paper {paper!r} is not a DOI, an arXiv id or a PMID")
    settings = settings or get_settings()
    reasoner = reasoner or reasoner_from_settings(settings, llm)
    judge = judge or judge_from_settings(settings, llm)
    request = _Request(claim, hint, paper, Path(project_root), override_reason if override else None, now)
    trail = trail if trail is not None else ClaimTrail()
    if gateway is None:
        async with _open_gateway(settings) as opened:
            outcome = await _verify(request, opened, reasoner, judge, convert, trail)
    else:
        outcome = await _verify(request, gateway, reasoner, judge, convert, trail)
    _record_decision(trail, outcome)
    return outcome


def verify_and_cite_sync(
    claim: str, hint: str | None = None, **options: Any
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    """`verify_and_cite` for callers without an event loop."""
    return asyncio.run(verify_and_cite(claim, hint, **options))


def _record_decision(trail: ClaimTrail, outcome: tuple[Citation, Path] | tuple[None, ConflictReport]) -> None:
    citation, detail = outcome
    if citation is None:
        assert not isinstance(detail, Path)
        trail.add(CLAIM_DECISION, {"cited": False, "refusal": detail.kind, "detail": detail.detail})
    else:
        trail.add(
            CLAIM_DECISION,
            {
                "cited": True,
                "slug": citation.slug,
                "paper": citation.record.doi or citation.record.arxiv_id or citation.record.pmid,
                "excerpts": list(citation.excerpts),
                "judge": citation.judge,
            },
        )


async def _verify(
    request: _Request,
    gateway: Any,
    reasoner: ClaimReasoner,
    judge: ClaimJudge,
    convert: Converter | None,
    trail: ClaimTrail,
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    reasoner = paced_reasoner(reasoner, gateway)  # model calls under the global limiter (`llm` bucket)
    claim = request.claim
    try:
        return await _verify_steps(request, gateway, reasoner, judge, convert, trail)
    except SourcesFailed as exc:
        return None, RetriesExhausted(
            claim=claim, source=exc.source, error=exc.error, detail=f"{exc.source} kept failing: {exc.error}"
        )
    except LLMError as exc:
        return None, RetriesExhausted(
            claim=claim, source=reasoner.name, error=str(exc), detail=f"the model could not be asked: {exc}"
        )


async def _candidates(
    request: _Request, extracted: ExtractedClaim, gateway: Any, reasoner: ClaimReasoner
) -> Ranking | ConflictReport:
    """The named paper alone (`--paper`), or the ranked search results."""
    failures: list[str] = []
    if request.paper is not None:
        named, asked = await named_paper(gateway, request.paper, failures)
        if named is None:
            if failures and len(failures) >= len(asked):
                raise SourcesFailed(failures[0].partition(": ")[0], "; ".join(failures))
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
    answered = 0

    async def search(query: str, year_hint: int | None) -> list[Candidate]:
        nonlocal answered
        outcome = await search_papers(gateway, query, year_hint)
        failures.extend(outcome.failures)
        answered += outcome.answered
        return outcome.candidates

    initial = await _direct_candidates(gateway, extracted, failures)
    ranking: Ranking = await reasoner.rank_candidates(extracted, initial, search)
    if not ranking.ranked:
        if failures and not answered and not initial:
            raise SourcesFailed(failures[0].partition(": ")[0], "; ".join(failures))
        queries = ranking.queries or extracted.queries
        return NoCandidates(
            claim=request.claim,
            query=queries[0] if queries else None,
            queries=queries,
            detail=f"no candidate from {len(queries)} search(es) fits the claim (ranker: {ranking.ranker})",
        )
    return ranking


async def _read_and_judge(
    extracted: ExtractedClaim,
    ranking: Ranking,
    gateway: Any,
    reasoner: ClaimReasoner,
    judge: ClaimJudge,
    convert: Converter | None,
    trail: ClaimTrail,
) -> list[_Attempt]:
    """Each candidate's text read and its excerpts judged, best candidate first, until one supports
    the claim or one contradicts it (a contradiction ends the search: default-deny)."""
    attempts: list[_Attempt] = []
    for candidate in ranking.ranked[:MAX_CANDIDATES_TRIED]:
        fetched = await fetch_paper_text(gateway, candidate.record, convert=convert)
        origin = fetched.paper.origin if fetched.paper else None
        trail.add(
            CLAIM_TEXT, {"candidate": candidate.key, "origin": origin, "attempts": list(fetched.attempts)}
        )
        judged = None
        if fetched.paper is not None:
            judged = await judge_evidence(extracted.assertion, fetched.paper, reasoner, judge)
            trail.add(
                CLAIM_JUDGEMENT,
                {
                    "candidate": candidate.key,
                    "claim": extracted.assertion,
                    "judge": judged.judgement.judge,
                    "judgements": judgement_rows(judged.judgement.judgements),
                    "supported": judged.supported,
                    "proposed_not_found": list(judged.evidence.rejected),
                },
            )
        attempts.append(_Attempt(candidate, fetched, judged))
        if judged is not None and (judged.supported or judged.judgement.contradicting):
            break
    return attempts


async def _verify_steps(
    request: _Request,
    gateway: Any,
    reasoner: ClaimReasoner,
    judge: ClaimJudge,
    convert: Converter | None,
    trail: ClaimTrail,
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    claim = request.claim
    extracted = await reasoner.extract_claim(claim, request.hint)
    trail.add(
        CLAIM_EXTRACTED,
        {
            "claim": claim,
            "assertion": extracted.assertion,
            "queries": list(extracted.queries),
            "hint": request.hint,
            "paper": request.paper,
        },
    )
    found = await _candidates(request, extracted, gateway, reasoner)
    if not isinstance(found, Ranking):
        return None, found
    ranking = found
    trail.add(
        CLAIM_CANDIDATES,
        {
            "ranker": ranking.ranker,
            "queries": list(ranking.queries),
            "candidates": [c.summary() for c in ranking.ranked[:10]],
        },
    )
    attempts = await _read_and_judge(extracted, ranking, gateway, reasoner, judge, convert, trail)
    contradicted = next((a for a in attempts if a.judged and a.judged.judgement.contradicting), None)
    if contradicted is not None:
        assert contradicted.judged is not None
        against = contradicted.judged.judgement.contradicting[0]
        return None, ContradictedClaim(
            claim=claim,
            candidate=contradicted.candidate.summary(),
            excerpt=against.excerpt,
            location=against.location,
            reasons=against.reasons,
            why=against.explanation,
            judge=contradicted.judged.judgement.judge,
            judgements=tuple(judgement_rows(contradicted.judged.judgement.judgements)),
            text_origin=contradicted.fetched.paper.origin if contradicted.fetched.paper else None,
            detail=f"the paper's own words contradict the claim ({against.location or 'text'}):"
            f' "{against.excerpt[:200]}" ({against.explanation})',
        )
    chosen = next((a for a in attempts if a.judged is not None and a.judged.supported), None)
    if chosen is None:
        first = attempts[0]
        judged = first.judged
        return None, NoSupportingExcerpts(
            claim=claim,
            candidate=first.candidate.summary(),
            proposed=tuple(judged.evidence.rejected) if judged else (),
            text_origin=first.fetched.paper.origin if first.fetched.paper else None,
            attempts=tuple(first.fetched.attempts),
            alternatives=_summaries(ranking.ranked, skip=first.candidate.key),
            judgements=tuple(judgement_rows(judged.judgement.judgements)) if judged else (),
            judge=judged.judgement.judge if judged else judge.name,
            detail=f"no excerpt of {len(attempts)} candidate(s)' text was judged to support the claim"
            f" (judge {judged.judgement.judge if judged else judge.name})",
        )
    return await _cite(request, extracted, ranking, chosen, gateway, trail)


async def _cite(
    request: _Request,
    extracted: ExtractedClaim,
    ranking: Ranking,
    chosen: _Attempt,
    gateway: Any,
    trail: ClaimTrail,
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    """The identity gate, the retraction check and the artifact, for the candidate that supports the claim."""
    claim = request.claim
    record = chosen.candidate.record
    check = await identity_check(gateway, record)
    trail.add(
        CLAIM_IDENTITY,
        {
            "candidate": chosen.candidate.key,
            "agreed": check.agreed,
            "secondary": check.secondary.record.source.value if check.secondary else None,
            "conflicts": [c.model_dump(mode="json") for c in check.conflicts],
            "notes": list(check.notes),
        },
    )
    if not check.agreed and request.override_reason is None:
        fields = check.conflicts
        named = ", ".join(f.field for f in fields) or "no identity field agreed"
        other = check.secondary.record.source.value if check.secondary else "?"
        return None, TriangulationConflict(
            claim=claim,
            candidate=chosen.candidate.summary(),
            fields=tuple(fields),
            notes=tuple(check.result.notes if check.result else ()),
            alternatives=_summaries(ranking.ranked, skip=chosen.candidate.key),
            detail=f"{record.source.value} and {other} disagree: {named}",
        )
    kind, notice_doi = _retraction(gateway, check)
    if kind in (RetractionKind.RETRACTED, RetractionKind.WITHDRAWN):
        return None, RetractedWork(
            claim=claim,
            candidate=chosen.candidate.summary(),
            status=kind.value,
            notice_doi=notice_doi,
            detail=f"the supporting paper is {kind.value}"
            + (f" (notice {notice_doi})" if notice_doi else ""),
        )
    assert chosen.fetched.paper is not None and chosen.judged is not None
    abstract_only = chosen.fetched.abstract_only
    supporting = chosen.judged.supporting_matches[:MAX_EXCERPTS]
    judge_name = chosen.judged.judgement.judge
    # The text already fetched for the excerpts also feeds the paper-mill check (no request).
    signals = cited_text_signals(record, chosen.fetched.paper)
    artifact = build_artifact(
        claim=extracted.assertion,
        check=check,
        matches=supporting,
        text_excerpts_unavailable=abstract_only,
        verified_at=request.now or datetime.now(UTC),
        retraction=kind if kind is not RetractionKind.NONE else None,
        override_reason=request.override_reason,
        extra_notes=[
            f"full_text: {chosen.fetched.paper.origin}",
            f"ranker: {ranking.ranker}",
            f"claim_judge: {judge_name}",
            *(f"signal {s['kind']}: {s['evidence']['explanation']}" for s in signals),
        ],
    )
    slug = slug_for_record(record)
    path = write_citation_artifact(request.project_root, artifact, slug=slug)
    citation = Citation(
        text=artifact.body.citation_snippet,
        bibtex=artifact.body.bibtex,
        slug=slug,
        artifact=path,
        record=record,
        single_source_verified=artifact.frontmatter.single_source_verified,
        text_excerpts_unavailable=abstract_only,
        human_overridden=request.override_reason is not None,
        signals=tuple(signals),
        excerpts=tuple({"text": m.text, "location": m.location} for m in supporting),
        judge=judge_name,
    )
    return citation, path


# --- a claim that already cites a paper --------------------------------------------------------------


@dataclass(frozen=True)
class CitedClaimCheck:
    """A sentence that cites a paper, judged against that paper's own words (no artifact is written).

    `status`: `supported` (an excerpt supports it, none contradicts it), `contradicted`,
    `unsupported` (the text was read; no excerpt supports it), `paper_not_found`, or `unchecked`
    (a source or the model could not be asked: nothing was decided)."""

    claim: str
    paper: str
    status: str
    detail: str
    judge: str | None = None
    excerpt: dict[str, Any] | None = None  # the deciding excerpt: the contradicting or a supporting one
    judgements: tuple[dict[str, Any], ...] = ()
    text_origin: str | None = None
    candidate: dict[str, object] | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "paper": self.paper,
            "status": self.status,
            "detail": self.detail,
            "judge": self.judge,
            "excerpt": self.excerpt,
            "judgements": list(self.judgements),
            "text_origin": self.text_origin,
            "candidate": self.candidate,
        }


async def check_cited_claim(
    claim: str,
    paper: str,
    *,
    gateway: Any,
    settings: Settings | None = None,
    reasoner: ClaimReasoner | None = None,
    judge: ClaimJudge | None = None,
    convert: Converter | None = None,
    trail: ClaimTrail | None = None,
) -> CitedClaimCheck:
    """Judge `claim` against the paper it cites (`paper`: DOI, arXiv id or PMID) with the same judge
    as `verify_and_cite`; nothing is searched for and no artifact is written."""
    settings = settings or get_settings()
    reasoner = paced_reasoner(reasoner or reasoner_from_settings(settings), gateway)
    judge = judge or judge_from_settings(settings)
    trail = trail if trail is not None else ClaimTrail()
    trail.add(
        CLAIM_EXTRACTED, {"claim": claim, "assertion": claim, "queries": [], "hint": None, "paper": paper}
    )
    failures: list[str] = []
    try:
        named, asked = await named_paper(gateway, paper, failures)
        if named is None:
            status = "unchecked" if failures and len(failures) >= len(asked) else "paper_not_found"
            detail = "; ".join(failures) if status == "unchecked" else f"no source knows {paper}"
            trail.add(CLAIM_DECISION, {"cited": False, "refusal": status, "detail": detail})
            return CitedClaimCheck(claim, paper, status, detail)
        ranking = Ranking(ranked=(named,), queries=(), iterations=0, ranker="named")
        extracted = ExtractedClaim(assertion=claim, queries=(), terms=())
        attempts = await _read_and_judge(extracted, ranking, gateway, reasoner, judge, convert, trail)
    except LLMError as exc:
        trail.add(CLAIM_DECISION, {"cited": False, "refusal": "unchecked", "detail": str(exc)})
        return CitedClaimCheck(claim, paper, "unchecked", f"the model could not be asked: {exc}")
    attempt = attempts[0]
    origin = attempt.fetched.paper.origin if attempt.fetched.paper else None
    if attempt.judged is None:
        detail = "no text of the paper could be read (not even its abstract)"
        trail.add(CLAIM_DECISION, {"cited": False, "refusal": "unchecked", "detail": detail})
        return CitedClaimCheck(claim, paper, "unchecked", detail, candidate=named.summary())
    judgement = attempt.judged.judgement
    rows = tuple(judgement_rows(judgement.judgements))
    if judgement.contradicting:
        chosen, status = judgement.contradicting[0], "contradicted"
    elif judgement.supported:
        chosen, status = judgement.supporting[0], "supported"
    else:
        chosen, status = None, "unsupported"
    excerpt = (
        {"text": chosen.excerpt, "location": chosen.location, "why": chosen.explanation}
        if chosen is not None
        else None
    )
    detail = {
        "contradicted": f"the paper's own words contradict it: {chosen.explanation if chosen else ''}",
        "supported": "an excerpt of the paper supports it and none contradicts it",
        "unsupported": f"no excerpt of the paper ({origin}) was judged to support it",
    }[status]
    trail.add(
        CLAIM_DECISION,
        {
            "cited": status == "supported",
            "refusal": None if chosen and status == "supported" else status,
            "detail": detail,
        },
    )
    return CitedClaimCheck(
        claim, paper, status, detail, judgement.judge, excerpt, rows, origin, named.summary()
    )
