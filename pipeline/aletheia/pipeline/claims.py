"""`verify_and_cite`: ground a research claim in a paper, prove it, write the artifact, or refuse.

The flow of seed 000 §4.2, each step a function the queue can run on its own pool:

    extract_claim        (evidence)   the assertion and its search queries
    search_papers        (retrieval)  Semantic Scholar and OpenAlex searches -> candidates
    rank_candidates      (evidence)   at most 3 ranking iterations; none plausible -> NoCandidates
    fetch_paper_text     (retrieval)  arXiv HTML -> PDF -> abstract (`fulltext.py`)
    convert_document     (parsing)    bytes -> PaperText, cached by content hash
    match_evidence       (evidence)   proposed quotes, each located verbatim or dropped
    identity_check       (retrieval)  the triangulation gate against a second source
    write_citation_artifact (writer)  docs/citations/{slug}.md, atomically, never outside it

Default-deny: every path that cannot prove the citation returns `(None, ConflictReport)`. What is
mechanical and what is judgement: the identity fields come from the source's record (never from the
model), every excerpt is a located span of the paper's text, and the gate compares two sources'
records with `aletheia.core.triangulate`. Ranking and quote proposal are the reasoner's
(`llm.py`), and whatever they say is checked by the steps above.

Where the steps are: search, evidence matching and the triangulation gate in `claim_steps.py`,
the artifact in `claim_artifact.py`, the types in `claim_types.py`; this module composes them
(`verify_and_cite`, `ClaimTools`) and re-exports their public names.
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
from aletheia.core.artifacts import (
    slug_for_record,
)
from aletheia.core.excerpts import locate_excerpt
from aletheia.core.records import RetractionKind
from aletheia.core.transparency import Transparency, claim_transparency
from aletheia.pipeline.claim_artifact import (
    CITATIONS_DIR,
    VERIFICATION_VERSION,
    build_artifact,
    write_citation_artifact,
)
from aletheia.pipeline.claim_steps import (
    EvidenceResult,
    IdentityCheck,
    SearchOutcome,
    SourcesFailed,
    _direct_candidates,
    _retraction,
    identity_check,
    match_evidence,
    search_papers,
)
from aletheia.pipeline.claim_types import (
    Candidate,
    Citation,
    ConflictReport,
    ExtractedClaim,
    NoCandidates,
    NoSupportingExcerpts,
    Ranking,
    RetractedWork,
    RetriesExhausted,
    TriangulationConflict,
)
from aletheia.pipeline.fulltext import Converter, FetchedText, convert_document, fetch_paper_text
from aletheia.pipeline.fulltext_signals import cited_text_signals
from aletheia.pipeline.llm import LLM, TOOL_DEFINITIONS, ClaimReasoner, LLMError, reasoner_from_settings
from aletheia.pipeline.llm_paced import paced_reasoner
from aletheia.sources.base import SourceError

__all__ = [
    "CITATIONS_DIR",
    "VERIFICATION_VERSION",
    "ClaimTools",
    "EvidenceResult",
    "IdentityCheck",
    "SearchOutcome",
    "SourcesFailed",
    "build_artifact",
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


# --- verify_and_cite ----------------------------------------------------------------------------------


@dataclass
class _Attempt:
    candidate: Candidate
    fetched: FetchedText
    evidence: EvidenceResult | None


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


async def verify_and_cite(
    claim: str,
    hint: str | None = None,
    *,
    project_root: Path | str = ".",
    override: bool = False,
    override_reason: str | None = None,
    gateway: Any = None,
    settings: Settings | None = None,
    reasoner: ClaimReasoner | None = None,
    llm: LLM | None = None,
    convert: Converter | None = None,
    now: datetime | None = None,
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    """Find the paper that supports `claim`, prove it, write the artifact: `(citation, path)`.
    Otherwise `(None, report)`: NoCandidates, NoSupportingExcerpts, TriangulationConflict,
    RetractedWork or RetriesExhausted.

    `override=True` (with a non-empty `override_reason`) lets a triangulation conflict through and
    records `human_overridden: true` and the reason; nothing else can be overridden. Without a
    `gateway` one is opened from `settings` (a `Runtime`); without a `reasoner` Claude is used when
    an Anthropic key is set (or `llm` is given), the lexical path otherwise.
    """
    if override and not (override_reason and override_reason.strip()):
        raise ValueError("override=True needs a non-empty override_reason (it is recorded in the artifact)")
    settings = settings or get_settings()
    reasoner = reasoner or reasoner_from_settings(settings, llm)
    if gateway is None:
        async with _open_gateway(settings) as opened:
            return await _verify(
                claim,
                hint,
                Path(project_root),
                override_reason if override else None,
                opened,
                reasoner,
                convert,
                now,
            )
    return await _verify(
        claim,
        hint,
        Path(project_root),
        override_reason if override else None,
        gateway,
        reasoner,
        convert,
        now,
    )


def verify_and_cite_sync(
    claim: str, hint: str | None = None, **options: Any
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    """`verify_and_cite` for callers without an event loop."""
    return asyncio.run(verify_and_cite(claim, hint, **options))


async def _verify(
    claim: str,
    hint: str | None,
    project_root: Path,
    override_reason: str | None,
    gateway: Any,
    reasoner: ClaimReasoner,
    convert: Converter | None,
    now: datetime | None,
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    reasoner = paced_reasoner(reasoner, gateway)  # model calls under the global limiter (`llm` bucket)
    try:
        return await _verify_steps(
            claim, hint, project_root, override_reason, gateway, reasoner, convert, now
        )
    except SourcesFailed as exc:
        return None, RetriesExhausted(
            claim=claim, source=exc.source, error=exc.error, detail=f"{exc.source} kept failing: {exc.error}"
        )
    except LLMError as exc:
        return None, RetriesExhausted(
            claim=claim, source=reasoner.name, error=str(exc), detail=f"the model could not be asked: {exc}"
        )


async def _verify_steps(
    claim: str,
    hint: str | None,
    project_root: Path,
    override_reason: str | None,
    gateway: Any,
    reasoner: ClaimReasoner,
    convert: Converter | None,
    now: datetime | None,
) -> tuple[Citation, Path] | tuple[None, ConflictReport]:
    extracted = await reasoner.extract_claim(claim, hint)
    if not extracted.queries and not (extracted.doi or extracted.arxiv_id):
        return None, NoCandidates(
            claim=claim,
            detail="the claim is too vague to search for"
            f" (content terms: {', '.join(extracted.terms) or 'none'})",
        )
    failures: list[str] = []
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
        return None, NoCandidates(
            claim=claim,
            query=queries[0] if queries else None,
            queries=queries,
            detail=f"no candidate from {len(queries)} search(es) fits the claim (ranker: {ranking.ranker})",
        )

    attempts: list[_Attempt] = []
    chosen: _Attempt | None = None
    for candidate in ranking.ranked[:MAX_CANDIDATES_TRIED]:
        fetched = await fetch_paper_text(gateway, candidate.record, convert=convert)
        evidence = None
        if fetched.paper is not None:
            evidence = await match_evidence(extracted.assertion, fetched.paper, reasoner)
        attempts.append(_Attempt(candidate, fetched, evidence))
        if evidence is not None and evidence.supported:
            chosen = attempts[-1]
            break
    if chosen is None:
        first = attempts[0]
        return None, NoSupportingExcerpts(
            claim=claim,
            candidate=first.candidate.summary(),
            proposed=tuple(first.evidence.rejected) if first.evidence else (),
            text_origin=first.fetched.paper.origin if first.fetched.paper else None,
            attempts=tuple(first.fetched.attempts),
            alternatives=_summaries(ranking.ranked, skip=first.candidate.key),
            detail=f"no verbatim excerpt supporting the claim in {len(attempts)} candidate(s)' text",
        )

    record = chosen.candidate.record
    check = await identity_check(gateway, record)
    if not check.agreed and override_reason is None:
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
    assert chosen.fetched.paper is not None and chosen.evidence is not None
    abstract_only = chosen.fetched.abstract_only
    # The text already fetched for the excerpts also feeds the paper-mill check (no request).
    signals = cited_text_signals(record, chosen.fetched.paper)
    artifact = build_artifact(
        claim=extracted.assertion,
        check=check,
        matches=chosen.evidence.matches,
        text_excerpts_unavailable=abstract_only,
        verified_at=now or datetime.now(UTC),
        retraction=kind if kind is not RetractionKind.NONE else None,
        override_reason=override_reason,
        extra_notes=[
            f"full_text: {chosen.fetched.paper.origin}",
            f"ranker: {ranking.ranker}",
            *(f"signal {s['kind']}: {s['evidence']['explanation']}" for s in signals),
        ],
    )
    slug = slug_for_record(record)
    path = write_citation_artifact(project_root, artifact, slug=slug)
    citation = Citation(
        text=artifact.body.citation_snippet,
        bibtex=artifact.body.bibtex,
        slug=slug,
        artifact=path,
        record=record,
        single_source_verified=artifact.frontmatter.single_source_verified,
        text_excerpts_unavailable=abstract_only,
        human_overridden=override_reason is not None,
        signals=tuple(signals),
    )
    return citation, path


# --- the five tools, composable and dispatchable -----------------------------------------------------


class ClaimTools:
    """The five tools of seed 000 §4.1 over one gateway, as methods and as a `dispatch` for a
    model's tool calls (`TOOL_DEFINITIONS` are their Anthropic definitions). Papers are referred to
    by the `paper_id` a search returned; their texts are kept for `match_evidence`."""

    definitions: Final = TOOL_DEFINITIONS

    def __init__(self, gateway: Any, reasoner: ClaimReasoner, *, convert: Converter | None = None) -> None:
        self.gateway = gateway
        self.reasoner = paced_reasoner(reasoner, gateway)
        self.convert = convert
        self.papers: dict[str, Candidate] = {}
        self.texts: dict[str, FetchedText] = {}

    async def extract_claim(self, text: str, hint: str | None = None) -> ExtractedClaim:
        return await self.reasoner.extract_claim(text, hint)

    async def search_papers(self, query: str, year_hint: int | None = None) -> SearchOutcome:
        outcome = await search_papers(self.gateway, query, year_hint)
        for candidate in outcome.candidates:
            self.papers.setdefault(candidate.key, candidate)
        return outcome

    def _paper(self, paper_id: str) -> Candidate:
        try:
            return self.papers[paper_id]
        except KeyError:
            raise KeyError(f"unknown paper_id {paper_id!r}: search for it first") from None

    async def fetch_paper_text(self, paper_id: str) -> FetchedText:
        if paper_id not in self.texts:
            record = self._paper(paper_id).record
            self.texts[paper_id] = await fetch_paper_text(self.gateway, record, convert=self.convert)
        return self.texts[paper_id]

    async def match_evidence(
        self, paper_id: str, claim: str, excerpts: Sequence[str] | None = None
    ) -> EvidenceResult:
        fetched = await self.fetch_paper_text(paper_id)
        if fetched.paper is None:
            return EvidenceResult(matches=[], rejected=list(excerpts or []))
        if excerpts is None:
            return await match_evidence(claim, fetched.paper, self.reasoner)
        located = [(quote, locate_excerpt(quote, fetched.paper)) for quote in excerpts]
        return EvidenceResult(
            matches=[found for _, found in located if found is not None],
            rejected=[quote for quote, found in located if found is None],
        )

    async def triangulate(self, paper_id: str) -> IdentityCheck:
        return await identity_check(self.gateway, self._paper(paper_id).record)

    async def dispatch(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run one tool call and return its JSON-able result (errors as `{"error": ...}`)."""
        try:
            return await self._dispatch(name, arguments)
        except (KeyError, ValueError, SourcesFailed, SourceError, LLMError) as exc:
            return {"error": f"{type(exc).__name__}: {exc}"}

    async def _dispatch(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if name == "extract_claim":
            extracted = await self.extract_claim(str(arguments["text"]), arguments.get("hint"))
            return extracted.model_dump(mode="json")
        if name == "search_papers":
            outcome = await self.search_papers(str(arguments["query"]), arguments.get("year_hint"))
            return {
                "candidates": [{**c.summary(), "abstract": c.record.abstract} for c in outcome.candidates],
                "failures": outcome.failures,
            }
        if name == "fetch_paper_text":
            fetched = await self.fetch_paper_text(str(arguments["paper_id"]))
            paper = fetched.paper
            return {
                "origin": paper.origin if paper else None,
                "text": paper.text if paper else None,
                "attempts": fetched.attempts,
            }
        if name == "match_evidence":
            excerpts = arguments.get("excerpts")
            result = await self.match_evidence(
                str(arguments["paper_id"]),
                str(arguments["claim"]),
                [str(e) for e in excerpts] if isinstance(excerpts, list) else None,
            )
            return {
                "excerpts": [{"text": m.text, "location": m.location} for m in result.matches],
                "rejected": result.rejected,
            }
        if name == "triangulate":
            check = await self.triangulate(str(arguments["paper_id"]))
            return {
                "verified": check.agreed,
                "secondary_source": check.secondary.record.source.value if check.secondary else None,
                "conflicts": [c.model_dump(mode="json") for c in check.conflicts],
                "notes": [*(check.result.notes if check.result else ()), *check.notes],
            }
        raise KeyError(f"no tool named {name!r}")


def citation_transparency(citation: Citation | None) -> Transparency:
    """ADR 004's fields for a claim: exact quote from the full text and two sources agreeing is
    verified; an abstract, a single source or an override partial; a refusal unverified."""
    if citation is None:
        return claim_transparency(supported=False, text_origin=None, triangulated=False)
    return claim_transparency(
        supported=True,
        text_origin="abstract" if citation.text_excerpts_unavailable else "full_text",
        triangulated=not citation.single_source_verified,
        overridden=citation.human_overridden,
        source=citation.record.source,
    )


def outcome_as_dict(outcome: tuple[Citation, Path] | tuple[None, ConflictReport]) -> dict[str, Any]:
    """A `verify_and_cite` result as JSON-able data (for a job summary or `--format json`)."""
    citation, detail = outcome
    if citation is None:
        assert not isinstance(detail, Path)
        return {"ok": False, **detail.model_dump(mode="json"), **citation_transparency(None).as_json()}
    return {
        **citation_transparency(citation).as_json(),
        "ok": True,
        "citation": citation.text,
        "artifact": str(detail),
        "slug": citation.slug,
        "bibtex": citation.bibtex,
        "single_source_verified": citation.single_source_verified,
        "text_excerpts_unavailable": citation.text_excerpts_unavailable,
        "human_overridden": citation.human_overridden,
        **({"signals": list(citation.signals)} if citation.signals else {}),
    }
