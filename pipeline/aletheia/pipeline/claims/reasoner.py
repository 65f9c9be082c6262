"""The judgement half of `verify_and_cite`: extracting the claim, ranking candidates, proposing quotes.

Two implementations of one `ClaimReasoner` protocol:

- `LexicalReasoner` (the default, no key needed, no network): query terms from the claim, ranking
  by the share of the claim's terms in a candidate's title and abstract, excerpt proposals by BM25
  over the paper's sentences (`aletheia.core.excerpts`).
- `ModelReasoner` over any `LLM`: Claude's native tool use. Claim extraction and excerpt proposal
  are single calls that must answer through a tool (structured output); ranking is a loop of at
  most `MAX_RANKING_ITERATIONS` calls in which the model may run `search_papers` again with a
  better query before it submits its ranking.

Neither can make anything verified: whatever they return is checked mechanically by the pipeline
(every quote against the text, every identity field against a second source).

The model client (`LLM`, `AnthropicLLM`) is `aletheia.pipeline.llm.client`; `paced_reasoner` puts a
`ModelReasoner`'s calls under the global limiter (`aletheia.pipeline.llm.paced`).
The tools the model is given are data (`tool_schemas.py`).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from aletheia.config import Settings
from aletheia.core.arxiv_ids import clean_arxiv_id
from aletheia.core.excerpts import PaperText, sentences_of
from aletheia.core.identifiers_in_text import extract_identifiers
from aletheia.core.lexical_ranking import (
    STOPWORDS,
    content_terms,
    coverage,
    polarity_conflict,
    rank_sentences,
    stem,
)
from aletheia.core.text import normalize_whitespace
from aletheia.pipeline.claims.model import Candidate, ExtractedClaim, Ranking
from aletheia.pipeline.claims.tool_schemas import (
    SUBMIT_CLAIM,
    SUBMIT_EXCERPTS,
    SUBMIT_RANKING,
    TOOL_DEFINITIONS,
)
from aletheia.pipeline.llm.client import LLM, LLMError, LLMReply, ToolCall, anthropic_from_settings
from aletheia.pipeline.llm.paced import paced_model

__all__ = [
    "MAX_RANKING_ITERATIONS",
    "ClaimReasoner",
    "LexicalReasoner",
    "ModelReasoner",
    "SearchFn",
    "paced_reasoner",
    "reasoner_from_settings",
]

MAX_RANKING_ITERATIONS: Final = 3
SearchFn = Callable[[str, int | None], Awaitable[list[Candidate]]]


_SYSTEM: Final = (
    "You are Aletheia, a research validator. You help ground one research claim in an academic "
    "paper. Be literal and conservative: a paper supports a claim only if its text states it. "
    "Never invent paper ids, titles, authors or quotes; quotes are checked character by character "
    "against the paper and anything not found verbatim is discarded."
)


class ClaimReasoner(Protocol):
    """What `verify_and_cite` asks of a model (or of the lexical stand-in)."""

    @property
    def name(self) -> str: ...

    async def extract_claim(self, text: str, hint: str | None) -> ExtractedClaim: ...

    async def rank_candidates(
        self, claim: ExtractedClaim, initial: Sequence[Candidate], search: SearchFn
    ) -> Ranking: ...

    async def propose_excerpts(self, claim: str, paper: PaperText, *, limit: int = 3) -> list[str]: ...


# --- shared claim parsing -------------------------------------------------------------------------

_YEAR: Final = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
_WORD: Final = re.compile(r"[^\W_][\w'-]*", re.UNICODE)
_MIN_TERMS: Final = 3  # a claim with fewer content terms is too vague to search for


def _hint_parts(hint: str | None) -> tuple[int | None, str | None, str | None, list[str]]:
    """(year, doi, arXiv id, other words) named by a hint such as `Baruch 2019` or `arXiv:1902.06156`."""
    if not hint:
        return None, None, None, []
    found = extract_identifiers(hint)
    doi = found.dois[0] if found.dois else None
    arxiv = found.arxiv_ids[0].id if found.arxiv_ids else None
    if arxiv is None and (parsed := clean_arxiv_id(hint.strip())) is not None:
        arxiv = parsed.id
    year_match = _YEAR.search(hint)
    words = [] if doi or arxiv else [w for w in _WORD.findall(hint) if not _YEAR.fullmatch(w)]
    return (int(year_match.group(1)) if year_match else None), doi, arxiv, words


def _query_words(text: str) -> list[str]:
    """The claim's content words as written (one per stem), in order: searches need real words."""
    seen: set[str] = set()
    words: list[str] = []
    for word in _WORD.findall(text):
        lower = word.lower().strip("'-")
        if lower in STOPWORDS or len(lower) < 2 or lower.isdigit():
            continue
        key = stem(lower)
        if key not in seen:
            seen.add(key)
            words.append(word.strip("'-"))
    return words


def lexical_claim(text: str, hint: str | None) -> ExtractedClaim:
    """The claim as the lexical path reads it: the text itself, its content words as queries."""
    assertion = normalize_whitespace(re.sub(r"^\s*#?\s*research(?:\([^)]*\))?:\s*", "", text))
    year, doi, arxiv, hint_words = _hint_parts(hint)
    words = _query_words(assertion)
    terms = tuple(dict.fromkeys(content_terms(assertion)))
    if len(terms) < _MIN_TERMS and not (doi or arxiv):
        return ExtractedClaim(assertion=assertion, queries=(), terms=terms, year_hint=year)
    # Longer words are rarer: the shorter queries keep the most specific ones, in claim order.
    specific = sorted(words, key=len, reverse=True)
    queries = [
        " ".join(words[:10]),
        " ".join(w for w in words if w in specific[:6]),
        " ".join([*hint_words, *(w for w in words if w in specific[:4])]),
    ]
    unique = tuple(dict.fromkeys(q for q in queries if q.strip()))
    return ExtractedClaim(
        assertion=assertion, queries=unique, terms=terms, year_hint=year, doi=doi, arxiv_id=arxiv
    )


def _relevance(claim: ExtractedClaim, candidate: Candidate) -> float:
    record = candidate.record
    return coverage(claim.terms, f"{record.title or ''} {record.abstract or ''}")


# --- the lexical reasoner ---------------------------------------------------------------------------


@dataclass
class LexicalReasoner:
    """The deterministic path: no model, no network beyond the source searches.

    A candidate is plausible when its title and abstract hold at least `min_relevance` of the
    claim's content terms; a sentence is proposed when it holds at least `min_sentence_coverage`
    of them (and two at least), does not flip the claim's negation, and ranks in the top `limit`
    by BM25.
    """

    min_relevance: float = 0.5
    min_sentence_coverage: float = 0.4
    name: str = "lexical"

    async def extract_claim(self, text: str, hint: str | None) -> ExtractedClaim:
        return lexical_claim(text, hint)

    def rank(self, claim: ExtractedClaim, candidates: Sequence[Candidate]) -> list[Candidate]:
        scored = []
        for position, candidate in enumerate(candidates):
            relevance = _relevance(claim, candidate)
            if relevance >= self.min_relevance:
                scored.append((-relevance, position, candidate.model_copy(update={"relevance": relevance})))
        scored.sort(key=lambda item: (item[0], item[1]))
        return [candidate for _, _, candidate in scored]

    async def rank_candidates(
        self, claim: ExtractedClaim, initial: Sequence[Candidate], search: SearchFn
    ) -> Ranking:
        pool: dict[str, Candidate] = {c.key: c for c in initial}
        ran: list[str] = []
        iterations = 0
        ranked = self.rank(claim, list(pool.values()))
        for query in claim.queries[:MAX_RANKING_ITERATIONS]:
            if ranked:
                break
            iterations += 1
            ran.append(query)
            for candidate in await search(query, claim.year_hint):
                pool.setdefault(candidate.key, candidate)
            ranked = self.rank(claim, list(pool.values()))
        return Ranking(ranked=tuple(ranked), queries=tuple(ran), iterations=iterations, ranker=self.name)

    async def propose_excerpts(self, claim: str, paper: PaperText, *, limit: int = 3) -> list[str]:
        sentences = [sentence for sentence, _ in sentences_of(paper)]
        proposals: list[str] = []
        for ranked in rank_sentences(claim, sentences):
            shared = round(ranked.coverage * len(set(content_terms(claim))))
            if ranked.coverage < self.min_sentence_coverage or shared < 2:
                continue
            if polarity_conflict(claim, ranked.text):
                continue
            proposals.append(ranked.text)
            if len(proposals) >= limit:
                break
        return proposals


# --- the model reasoner -----------------------------------------------------------------------------

_ABSTRACT_CHARS: Final = 1200
_PAPER_CHARS: Final = 60_000


def _candidate_view(candidate: Candidate) -> dict[str, Any]:
    view = dict(candidate.summary())
    abstract = candidate.record.abstract or ""
    view["abstract"] = abstract[:_ABSTRACT_CHARS] + ("..." if len(abstract) > _ABSTRACT_CHARS else "")
    return view


def _only_call(reply: LLMReply, name: str) -> ToolCall:
    for call in reply.tool_calls:
        if call.name == name:
            return call
    raise LLMError(f"the model did not answer through {name} (stop reason {reply.stop_reason})")


def _strings(value: Any) -> list[str]:
    return (
        [item for item in value if isinstance(item, str) and item.strip()] if isinstance(value, list) else []
    )


async def _run_searches(
    reply: LLMReply,
    claim: ExtractedClaim,
    search: SearchFn,
    pool: dict[str, Candidate],
    ran: list[str],
) -> list[dict[str, Any]]:
    """The model's `search_papers` calls run, their candidates added to `pool` and their queries to
    `ran`: one tool result for each call (an error for any other tool)."""
    results: list[dict[str, Any]] = []
    for call in reply.tool_calls:
        if call.name != "search_papers":
            results.append(
                {"type": "tool_result", "tool_use_id": call.id, "content": "unknown tool", "is_error": True}
            )
            continue
        query = normalize_whitespace(str(call.input.get("query") or ""))
        year = call.input.get("year_hint")
        found = await search(query, year if isinstance(year, int) else claim.year_hint) if query else []
        ran.append(query)
        for candidate in found:
            pool.setdefault(candidate.key, candidate)
        results.append(
            {
                "type": "tool_result",
                "tool_use_id": call.id,
                "content": json.dumps([_candidate_view(c) for c in found], ensure_ascii=False),
            }
        )
    return results


@dataclass
class ModelReasoner:
    """Claude (or any `LLM`) through native tool use; see the module docstring."""

    llm: LLM
    max_iterations: int = MAX_RANKING_ITERATIONS
    transcript: list[dict[str, Any]] = field(default_factory=list)  # every request, for audit and tests

    @property
    def name(self) -> str:
        return f"anthropic:{self.llm.model}"

    async def _ask(self, **request: Any) -> LLMReply:
        self.transcript.append(request)
        return await self.llm.complete(system=_SYSTEM, **request)

    async def extract_claim(self, text: str, hint: str | None) -> ExtractedClaim:
        prompt = f"Text:\n{text}\n"
        if hint:
            prompt += f"\nHint from the caller (author, year, venue or identifier): {hint}\n"
        prompt += "\nExtract the one assertion that needs an academic source and up to 3 keyword queries."
        reply = await self._ask(
            messages=[{"role": "user", "content": prompt}],
            tools=[SUBMIT_CLAIM],
            tool_choice={"type": "tool", "name": "submit_claim"},
        )
        answer = _only_call(reply, "submit_claim").input
        assertion = normalize_whitespace(str(answer.get("assertion") or text))
        queries = tuple(dict.fromkeys(normalize_whitespace(q) for q in _strings(answer.get("queries"))))
        year_hint = answer.get("year_hint")
        base = lexical_claim(assertion, hint)
        return base.model_copy(
            update={
                "queries": queries or base.queries,
                "year_hint": year_hint if isinstance(year_hint, int) else base.year_hint,
            }
        )

    async def rank_candidates(
        self, claim: ExtractedClaim, initial: Sequence[Candidate], search: SearchFn
    ) -> Ranking:
        pool: dict[str, Candidate] = {c.key: c for c in initial}
        ran: list[str] = []
        if not pool and claim.queries:
            ran.append(claim.queries[0])
            for candidate in await search(claim.queries[0], claim.year_hint):
                pool.setdefault(candidate.key, candidate)
        listing = json.dumps([_candidate_view(c) for c in pool.values()], ensure_ascii=False)
        messages: list[dict[str, Any]] = [
            {
                "role": "user",
                "content": f"Claim: {claim.assertion}\n\nCandidates:\n{listing}\n\n"
                "Rank the candidates whose abstract supports the claim with submit_ranking. If none "
                "fits, you may call search_papers with a better query first.",
            }
        ]
        tools = [TOOL_DEFINITIONS["search_papers"], SUBMIT_RANKING]
        for iteration in range(1, self.max_iterations + 1):
            final = iteration == self.max_iterations
            reply = await self._ask(
                messages=messages,
                tools=tools,
                tool_choice={"type": "tool", "name": "submit_ranking"} if final else {"type": "any"},
            )
            submitted = next((c for c in reply.tool_calls if c.name == "submit_ranking"), None)
            if submitted is not None:
                ranked = [pool[key] for key in _strings(submitted.input.get("paper_ids")) if key in pool]
                unique = list({c.key: c for c in ranked}.values())
                return Ranking(
                    ranked=tuple(unique), queries=tuple(ran), iterations=iteration, ranker=self.name
                )
            results = await _run_searches(reply, claim, search, pool, ran)
            if not results:
                raise LLMError("the model answered without a tool call")
            messages = [
                *messages,
                {"role": "assistant", "content": list(reply.content)},
                {"role": "user", "content": results},
            ]
        raise LLMError("the model did not submit a ranking")  # unreachable: the last turn forces it

    async def propose_excerpts(self, claim: str, paper: PaperText, *, limit: int = 3) -> list[str]:
        text = paper.text
        if len(text) > _PAPER_CHARS:
            # The most relevant stretch first: sentences the lexical ranker likes, then the start.
            ranked = rank_sentences(claim, [s for s, _ in sentences_of(paper)])
            head = " ".join(r.text for r in ranked[:40])
            text = (head + "\n\n" + text)[:_PAPER_CHARS]
        reply = await self._ask(
            messages=[
                {
                    "role": "user",
                    "content": f"Claim: {claim}\n\nPaper text:\n<paper>\n{text}\n</paper>\n\n"
                    f"Quote up to {limit} passages, copied exactly, that support the claim.",
                }
            ],
            tools=[SUBMIT_EXCERPTS],
            tool_choice={"type": "tool", "name": "submit_excerpts"},
            max_tokens=2048,
        )
        return _strings(_only_call(reply, "submit_excerpts").input.get("excerpts"))[: max(limit, 1) + 2]


def reasoner_from_settings(settings: Settings, llm: LLM | None = None) -> ClaimReasoner:
    """`ModelReasoner` over `llm`, or over Claude when an Anthropic key is set; else lexical."""
    model = llm if llm is not None else anthropic_from_settings(settings)
    return ModelReasoner(model) if model is not None else LexicalReasoner()


def paced_reasoner(reasoner: ClaimReasoner, gateway: Any) -> ClaimReasoner:
    """The claim pipeline's reasoner with its model paced by the gateway's limiter (the lexical
    reasoner asks no model)."""
    if not isinstance(reasoner, ModelReasoner):
        return reasoner
    paced = paced_model(reasoner.llm, gateway)
    # A copy: the caller's reasoner is left as it was (its transcript list is shared, for audit).
    return reasoner if paced is reasoner.llm else dataclasses.replace(reasoner, llm=paced)
