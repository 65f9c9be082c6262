"""The five tools of seed 000 §4.1 over one gateway (`ClaimTools`), and a `verify_and_cite` outcome as
JSON-able data. Re-exported by `aletheia.pipeline.claims.verify_and_cite`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from aletheia.core.excerpts import locate_excerpt
from aletheia.core.transparency import Transparency, claim_transparency
from aletheia.pipeline.claims.candidate_search import SearchOutcome, search_papers
from aletheia.pipeline.claims.identity_gate import IdentityCheck, identity_check
from aletheia.pipeline.claims.judge import EvidenceResult, match_evidence
from aletheia.pipeline.claims.model import Candidate, Citation, ConflictReport, ExtractedClaim, SourcesFailed
from aletheia.pipeline.claims.reasoner import ClaimReasoner, paced_reasoner
from aletheia.pipeline.claims.tool_schemas import TOOL_DEFINITIONS
from aletheia.pipeline.documents.fulltext import Converter, FetchedText, fetch_paper_text
from aletheia.pipeline.llm.client import LLMError
from aletheia.sources.base import SourceError

__all__ = ["ClaimTools", "citation_transparency", "outcome_as_dict"]


class ClaimTools:
    """The five tools of seed 000 §4.1 over one gateway, as methods and as a `dispatch` for a
    model's tool calls (`TOOL_DEFINITIONS` are their Anthropic definitions). Papers are referred to
    by the `paper_id` a search returned; their texts are kept for `match_evidence`.

    `override_reason` is the human override of seed 000 §5.4, given by whoever builds the tools,
    never by the model: `triangulate` then lets a disagreement through, saying so
    (`human_overridden`, the reason, each accepted conflict), as `verify_and_cite` records it in
    the artifact. The model's tool input cannot set it (the definitions have no such field)."""

    definitions: Final = TOOL_DEFINITIONS

    def __init__(
        self,
        gateway: Any,
        reasoner: ClaimReasoner,
        *,
        convert: Converter | None = None,
        override_reason: str | None = None,
    ) -> None:
        if override_reason is not None and not override_reason.strip():
            raise ValueError("an override needs a non-empty override_reason (it is recorded)")
        self.gateway = gateway
        self.reasoner = paced_reasoner(reasoner, gateway)
        self.convert = convert
        self.override_reason = override_reason
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
            overridden = not check.agreed and self.override_reason is not None
            return {
                "verified": check.agreed or overridden,
                "secondary_source": check.secondary.record.source.value if check.secondary else None,
                "conflicts": [c.model_dump(mode="json") for c in check.conflicts],
                "notes": [*(check.result.notes if check.result else ()), *check.notes],
                **({"human_overridden": True, "override_reason": self.override_reason} if overridden else {}),
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
