"""The judgement step of `verify_and_cite`: after the excerpts are located, is the claim what they say?

One interface (`ClaimJudge`), three places it can come from (`ALETHEIA_CLAIM_JUDGE`):

- `rules` (the default without a key): `aletheia.core.claim_judge`, deterministic and conservative,
  its rules as data; what it cannot tell is `not_enough`, which refuses.
- `anthropic`: Claude judges each excerpt through a tool with a JSON schema (`submit_judgements`).
  Every excerpt it names must be the paper's own words: each is located verbatim again, and an
  answer that misquotes or leaves a candidate unjudged is sent back, at most `MAX_JUDGE_ROUNDS`
  rounds; whatever is still unjudged after that is `not_enough`.
- `auto` (the default): `anthropic` when a key is set, `rules` otherwise.

A local entailment model would be a fourth `ClaimJudge` behind the same setting.

`judge_evidence` is the step the pipeline runs: the reasoner's quotes, each kept only when located
verbatim in the text (`match_evidence`), plus the sentences of the paper that speak to the claim (a
contradiction is looked for, not only a support), each judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from aletheia.config import Settings
from aletheia.core.claim_found_by_search import search_gaps
from aletheia.core.claim_judge import (
    JUDGE_NAME,
    ClaimJudgement,
    ExcerptJudgement,
    excerpts_to_judge,
    judge_claim,
    paper_abbreviations,
)
from aletheia.core.claim_terms import claim_terms_absent
from aletheia.core.excerpts import ExcerptMatch, PaperText, locate_excerpt, match_key
from aletheia.pipeline.claims.reasoner import ClaimReasoner
from aletheia.pipeline.llm.client import LLM, LLMError, anthropic_from_settings

__all__ = [
    "MAX_JUDGE_ROUNDS",
    "ClaimJudge",
    "EvidenceResult",
    "JudgedEvidence",
    "ModelJudge",
    "RuleJudge",
    "judge_evidence",
    "judge_from_settings",
    "match_evidence",
]

MAX_JUDGE_ROUNDS: Final = 3
CANDIDATE_SENTENCES: Final = 5  # sentences of the paper judged beside the reasoner's quotes


class ClaimJudge(Protocol):
    """Judges each candidate excerpt of a paper against a claim."""

    @property
    def name(self) -> str: ...

    async def judge(
        self, claim: str, paper: PaperText, excerpts: Sequence[ExcerptMatch]
    ) -> ClaimJudgement: ...


@dataclass
class RuleJudge:
    """The offline judge (`aletheia.core.claim_judge`)."""

    name: str = JUDGE_NAME

    async def judge(self, claim: str, paper: PaperText, excerpts: Sequence[ExcerptMatch]) -> ClaimJudgement:
        absent = claim_terms_absent(claim, paper.text)
        return judge_claim(
            claim,
            [(m.text, m.location) for m in excerpts],
            absent_terms=absent,
            known_abbreviations=paper_abbreviations(paper.text),
        )


_SUBMIT_JUDGEMENTS: Final = {
    "name": "submit_judgements",
    "description": "Judge each excerpt against the claim. An excerpt supports the claim only if it "
    "states what the claim says (same direction, same numbers, same population, no stronger wording); "
    "it contradicts the claim if it states the opposite or a value the claim rules out; otherwise "
    "not_enough. Copy each excerpt character for character.",
    "input_schema": {
        "type": "object",
        "properties": {
            "judgements": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "excerpt": {"type": "string", "description": "the excerpt, verbatim"},
                        "label": {"type": "string", "enum": ["supports", "contradicts", "not_enough"]},
                        "rationale": {"type": "string", "description": "one sentence: why"},
                    },
                    "required": ["excerpt", "label", "rationale"],
                },
            }
        },
        "required": ["judgements"],
    },
}
_SYSTEM: Final = (
    "You are Aletheia's evidence judge. You decide whether a research paper's own words support a "
    "claim. Be literal and conservative: 'supports' only when the excerpt itself states the claim; "
    "a hedge ('may', 'associated with') does not support a claim of cause; a different population, "
    "number or direction does not support it. Excerpts are checked character by character against "
    "the paper; anything not found verbatim is discarded."
)
_PAPER_CHARS: Final = 20_000


@dataclass
class ModelJudge:
    """Claude (or any `LLM`) judging each excerpt through `submit_judgements`; see the module docstring."""

    llm: LLM
    max_rounds: int = MAX_JUDGE_ROUNDS
    transcript: list[dict[str, Any]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"anthropic:{self.llm.model}"

    async def judge(self, claim: str, paper: PaperText, excerpts: Sequence[ExcerptMatch]) -> ClaimJudgement:
        pending = {match_key(m.text): m for m in excerpts}
        decided: dict[str, ExcerptJudgement] = {}
        listing = "\n".join(f"{i + 1}. {m.text}" for i, m in enumerate(excerpts))
        messages: list[dict[str, Any]] = [
            {
                "role": "user",
                "content": f"Claim: {claim}\n\nExcerpts of the paper:\n{listing}\n\n"
                f"Paper text, for context:\n<paper>\n{paper.text[:_PAPER_CHARS]}\n</paper>\n\n"
                "Judge every excerpt with submit_judgements. You may add an excerpt of the paper "
                "that contradicts the claim, copied exactly.",
            }
        ]
        for _round in range(self.max_rounds):
            request: dict[str, Any] = {
                "messages": messages,
                "tools": [_SUBMIT_JUDGEMENTS],
                "tool_choice": {"type": "tool", "name": "submit_judgements"},
                "max_tokens": 2048,
            }
            self.transcript.append(request)
            reply = await self.llm.complete(system=_SYSTEM, **request)
            call = next((c for c in reply.tool_calls if c.name == "submit_judgements"), None)
            if call is None:
                raise LLMError(f"the model did not answer through submit_judgements ({reply.stop_reason})")
            problems = self._take(call.input.get("judgements"), paper, pending, decided)
            missing = [m.text for key, m in pending.items() if key not in decided]
            if not problems and not missing:
                break
            feedback = [*problems, *(f"not judged: {text}" for text in missing)]
            messages = [
                *messages,
                {"role": "assistant", "content": list(reply.content)},
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": call.id,
                            "is_error": True,
                            "content": "Fix these and judge again (verbatim excerpts only):\n"
                            + "\n".join(feedback),
                        }
                    ],
                },
            ]
        for key, match in pending.items():
            if key not in decided:
                decided[key] = ExcerptJudgement(
                    excerpt=match.text,
                    label="not_enough",
                    reasons=("model_did_not_judge",),
                    explanation=f"no verbatim judgement after {self.max_rounds} round(s)",
                    location=match.location,
                    judge=self.name,
                )
        return ClaimJudgement(claim=claim, judgements=tuple(decided.values()), judge=self.name)

    def _take(
        self,
        answer: Any,
        paper: PaperText,
        pending: dict[str, ExcerptMatch],
        decided: dict[str, ExcerptJudgement],
    ) -> list[str]:
        problems: list[str] = []
        for item in answer if isinstance(answer, list) else []:
            if not isinstance(item, dict):
                continue
            text, label = str(item.get("excerpt") or ""), item.get("label")
            if label not in ("supports", "contradicts", "not_enough"):
                problems.append(f"unknown label {label!r} for: {text[:80]}")
                continue
            found = locate_excerpt(text, paper)
            if found is None:
                problems.append(f"not verbatim in the paper: {text[:200]}")
                continue
            key = match_key(found.text)
            pending.setdefault(key, found)
            decided[key] = ExcerptJudgement(
                excerpt=found.text,
                label=label,
                reasons=("model",),
                explanation=str(item.get("rationale") or "")[:500],
                location=found.location,
                judge=self.name,
            )
        return problems


def judge_from_settings(settings: Settings, llm: LLM | None = None) -> ClaimJudge:
    """The judge `ALETHEIA_CLAIM_JUDGE` names (`auto`: Claude when a key is set or `llm` is given)."""
    choice = settings.claim_judge
    if choice == "rules":
        return RuleJudge()
    model = llm if llm is not None else anthropic_from_settings(settings)
    if model is None:
        if choice == "anthropic":
            raise LLMError("ALETHEIA_CLAIM_JUDGE=anthropic needs ANTHROPIC_API_KEY")
        return RuleJudge()
    return ModelJudge(model)


# --- the reasoner's quotes, located ----------------------------------------------------------------


@dataclass
class EvidenceResult:
    """The quotes that were proposed, and the ones found verbatim in the text (with locations)."""

    matches: list[ExcerptMatch]
    rejected: list[str]

    @property
    def supported(self) -> bool:
        return bool(self.matches)


async def match_evidence(
    claim: str, paper: PaperText, reasoner: ClaimReasoner, *, limit: int = 3
) -> EvidenceResult:
    """Quotes proposed by the reasoner, each kept only if it is in the text (tolerant rule of
    `core.excerpts`); a failing quote is dropped, never repaired. Duplicates are kept once."""
    proposals = await reasoner.propose_excerpts(claim, paper, limit=limit)
    matches: list[ExcerptMatch] = []
    rejected: list[str] = []
    seen: set[str] = set()
    for proposal in proposals:
        found = locate_excerpt(proposal, paper)
        if found is None:
            rejected.append(proposal)
        elif found.text not in seen:
            seen.add(found.text)
            matches.append(found)
    return EvidenceResult(matches=matches[:limit], rejected=rejected)


@dataclass(frozen=True)
class JudgedEvidence:
    """The located quotes and the judgement of every candidate excerpt."""

    evidence: EvidenceResult
    judgement: ClaimJudgement

    @property
    def supported(self) -> bool:
        return self.judgement.supported

    @property
    def supporting_matches(self) -> list[ExcerptMatch]:
        """The candidates judged to support the claim, as located spans (for the artifact)."""
        keys = {match_key(j.excerpt) for j in self.judgement.supporting}
        return [m for m in self.candidates if match_key(m.text) in keys]

    @property
    def candidates(self) -> list[ExcerptMatch]:
        return list(self.evidence.matches)


async def judge_evidence(
    claim: str, paper: PaperText, reasoner: ClaimReasoner, judge: ClaimJudge, *, limit: int = 3
) -> JudgedEvidence:
    """The reasoner's quotes (located verbatim) and the paper's sentences that speak to the claim,
    each judged. The claim is supported when one supports it and none contradicts it."""
    evidence = await match_evidence(claim, paper, reasoner, limit=limit)
    candidates = list(evidence.matches)
    seen = {match_key(m.text) for m in candidates}
    for sentence in excerpts_to_judge(claim, paper, limit=CANDIDATE_SENTENCES):
        found = locate_excerpt(sentence, paper)
        if found is not None and match_key(found.text) not in seen:
            seen.add(match_key(found.text))
            candidates.append(found)
    judgement = await judge.judge(claim, paper, candidates)
    # Excerpts the model added (a contradiction it found) are candidates too.
    for item in judgement.judgements:
        key = match_key(item.excerpt)
        if key not in seen and (found := locate_excerpt(item.excerpt, paper)) is not None:
            seen.add(key)
            candidates.append(found)
    return JudgedEvidence(EvidenceResult(matches=candidates, rejected=evidence.rejected), judgement)


def found_by_search_gaps(judged: JudgedEvidence, title: str | None) -> tuple[str, ...]:
    """Why a support is not enough to cite a paper the search found, not the user
    (`claim_found_by_search.search_gaps`): empty when one supporting excerpt names every word the
    claim needs."""
    judgement = judged.judgement
    return search_gaps(
        judgement.claim,
        [item.excerpt for item in judgement.supporting],
        title=title or "",
        known=dict(judgement.abbreviations),
    )


def paced_judge(judge: ClaimJudge, gateway: Any) -> ClaimJudge:
    """The judge with its model calls drawn from the gateway's global `llm` bucket, as the
    reasoner's are (`llm/paced.py`); the rules judge asks no model and is returned as it is."""
    import dataclasses

    from aletheia.pipeline.llm.paced import paced_model

    if not isinstance(judge, ModelJudge):
        return judge
    paced = paced_model(judge.llm, gateway)
    return judge if paced is judge.llm else dataclasses.replace(judge, llm=paced)
