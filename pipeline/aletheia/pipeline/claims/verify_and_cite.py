"""`verify_and_cite`: ground a research claim in a paper, prove it, write the artifact, or refuse.

The flow of seed 000 §4.2; on the queue each stage runs on its own pool (`stages.py`):

    extract_claim        (retrieval)  the assertion and its search queries
    search_papers        (retrieval)  Semantic Scholar and OpenAlex searches -> candidates
                                      (or, with `paper=`, that paper alone: never another)
    rank_candidates      (retrieval)  at most 3 ranking iterations, searching as it goes;
                                      none plausible -> NoCandidates
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
the judgement are the reasoner's and the judge's (`reasoner.py`, `judge.py`; the rules judge is
`aletheia.core.claim_judge`, a model is asked through `aletheia.pipeline.llm`), and what a model
says is checked by the steps above.

Where the steps are (in `aletheia/pipeline/claims/` unless named otherwise): the stages that
compose them in `stages.py` (one engine: this module runs them in one process, a claim job on the
worker pools, `jobs/claims.py`), the search for candidates in `candidate_search.py`, the quotes'
matching and the judgement in `judge.py`, the triangulation gate in `identity_gate.py`, the
artifact in `artifact.py`, the types in `model.py`, the tools in `tools.py`, the audit events in
`aletheia/pipeline/audit/claim_events.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from aletheia.config import Settings, get_settings
from aletheia.pipeline.audit.claim_events import (
    CLAIM_DECISION,
    CLAIM_EXTRACTED,
    ClaimTrail,
    judgement_rows,
)
from aletheia.pipeline.claims.artifact import (
    CITATIONS_DIR,
    VERIFICATION_VERSION,
    build_artifact,
    write_citation_artifact,
)
from aletheia.pipeline.claims.candidate_search import (
    SearchOutcome,
    named_paper,
    parse_paper_id,
    search_papers,
)
from aletheia.pipeline.claims.claim_state import (
    MAX_CANDIDATES_TRIED,
    MAX_EXCERPTS,
    ClaimAttempt,
    ClaimRequest,
    ClaimState,
    StageEnv,
)
from aletheia.pipeline.claims.identity_gate import IdentityCheck, identity_check
from aletheia.pipeline.claims.judge import (
    ClaimJudge,
    EvidenceResult,
    judge_from_settings,
    match_evidence,
    paced_judge,
)
from aletheia.pipeline.claims.model import (
    Candidate,
    Citation,
    ConflictReport,
    ExtractedClaim,
    Ranking,
    SourcesFailed,
)
from aletheia.pipeline.claims.reasoner import ClaimReasoner, paced_reasoner, reasoner_from_settings
from aletheia.pipeline.claims.stages import read_and_judge, run_claim
from aletheia.pipeline.claims.tools import ClaimTools, citation_transparency, outcome_as_dict
from aletheia.pipeline.documents.fulltext import Converter, FetchedText, convert_document, fetch_paper_text
from aletheia.pipeline.llm.client import LLM, LLMError

__all__ = [
    "CITATIONS_DIR",
    "MAX_CANDIDATES_TRIED",
    "MAX_EXCERPTS",
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

# --- verify_and_cite ----------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def _open_gateway(settings: Settings) -> AsyncIterator[Any]:
    from aletheia.pipeline.runtime import Runtime

    runtime = Runtime.open(settings)
    async with runtime.gateway() as gateway:
        yield gateway


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

    The stages (`claim_stages`) run one after the other in this process; a claim job runs the same
    stages on the worker pools (`aletheia.pipeline.jobs.claims`).
    """
    if override and not (override_reason and override_reason.strip()):
        raise ValueError("override=True needs a non-empty override_reason (it is recorded in the artifact)")
    if paper is not None and parse_paper_id(paper) is None:
        raise ValueError(f"--paper {paper!r} is not a DOI, an arXiv id or a PMID")
    settings = settings or get_settings()
    reasoner = reasoner or reasoner_from_settings(settings, llm)
    judge = judge or judge_from_settings(settings, llm)
    request = ClaimRequest(
        claim=claim, hint=hint, paper=paper, override_reason=override_reason if override else None, now=now
    )
    trail = trail if trail is not None else ClaimTrail()
    if gateway is None:
        async with _open_gateway(settings) as opened:
            return await _verify(request, Path(project_root), opened, reasoner, judge, convert, trail)
    return await _verify(request, Path(project_root), gateway, reasoner, judge, convert, trail)


def verify_and_cite_sync(
    claim: str, hint: str | None = None, **options: Any
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    """`verify_and_cite` for callers without an event loop."""
    return asyncio.run(verify_and_cite(claim, hint, **options))


async def _verify(
    request: ClaimRequest,
    project_root: Path,
    gateway: Any,
    reasoner: ClaimReasoner,
    judge: ClaimJudge,
    convert: Converter | None,
    trail: ClaimTrail,
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    # Model calls (reasoner and judge) under the global limiter's `llm` bucket.
    env = StageEnv(
        gateway, paced_reasoner(reasoner, gateway), paced_judge(judge, gateway), trail, convert=convert
    )
    return await run_claim(request, env, project_root)


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
        """Every field, in order (the judgements as a list)."""
        return {**asdict(self), "judgements": list(self.judgements)}


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
    texts: dict[str, FetchedText] | None = None,
) -> CitedClaimCheck:
    """Judge `claim` against the paper it cites (`paper`: DOI, arXiv id or PMID) with the same judge
    as `verify_and_cite`; nothing is searched for and no artifact is written."""
    settings = settings or get_settings()
    reasoner = paced_reasoner(reasoner or reasoner_from_settings(settings), gateway)
    judge = paced_judge(judge or judge_from_settings(settings), gateway)
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
        state = ClaimState(
            request=ClaimRequest(claim=claim, paper=paper),
            stage="text",
            extracted=ExtractedClaim(assertion=claim, queries=(), terms=()),
            ranking=Ranking(ranked=(named,), queries=(), iterations=0, ranker="named"),
        )
        await read_and_judge(state, StageEnv(gateway, reasoner, judge, trail, convert=convert, texts=texts))
    except LLMError as exc:
        trail.add(CLAIM_DECISION, {"cited": False, "refusal": "unchecked", "detail": str(exc)})
        return CitedClaimCheck(claim, paper, "unchecked", f"the model could not be asked: {exc}")
    return _cited_claim_verdict(claim, paper, state.attempts[0], named, trail)


def _cited_claim_verdict(
    claim: str, paper: str, attempt: ClaimAttempt, named: Candidate, trail: ClaimTrail
) -> CitedClaimCheck:
    """What the judge made of the cited paper's text: the check, its decision recorded in `trail`."""
    origin = attempt.origin
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
