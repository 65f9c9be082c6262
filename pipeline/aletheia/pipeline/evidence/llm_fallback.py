"""Tier 5, the LLM fallback: for a reference no source found, a model may SUGGEST what it is.

Seed 004's last tier, held to this project's rule that only sources are evidence: the suggestion
(a title, authors, a year, a venue, a DOI or arXiv id the model guesses) is recorded as one
`QueryKind.SUGGESTION` answer of `SourceName.LLM`, which `decide` never reads (`NOT_EVIDENCE`):
it cannot make a reference `verified`, nor `not_found`, nor anything else; it is shown to the
reader as a suggestion to check by hand (the verdict's notes say "never evidence").

The model is Claude through the small `LLM` interface (`pipeline/llm/client.py`; `AnthropicLLM` imports
`anthropic` only when first used), answering through one tool (structured output), paced by the
global limiter's `llm` bucket (`llm/paced.py`, `ALETHEIA_LLM_LIMITS`). Without a key there is no
model: the answer is recorded as skipped, naming the missing key (deterministic).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from aletheia.config import Settings
from aletheia.core.arxiv_ids import clean_arxiv_id
from aletheia.core.identifiers import clean_doi
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.pipeline.llm.client import LLM, LLMError, anthropic_from_settings
from aletheia.pipeline.llm.paced import PacedLLM
from aletheia.sources.base import SourceRecord, SourceUnavailableError, TransientSourceError

if TYPE_CHECKING:
    from aletheia.sources.transport.limiter import RateLimiter

SOURCE: Final = SourceName.LLM
NO_KEY: Final = "skipped: no key (ANTHROPIC_API_KEY)"
MAX_FIELD_CHARS: Final = 500
MAX_AUTHORS: Final = 20

SUGGEST_TOOL: Final[dict[str, Any]] = {
    "name": "suggest_reference",
    "description": "Record what published work this reference most probably is, if you know one. "
    "Leave every field you are not sure of empty; an empty suggestion is a good answer.",
    "input_schema": {
        "type": "object",
        "properties": {
            "title": {"type": ["string", "null"]},
            "authors": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_AUTHORS},
            "year": {"type": ["integer", "null"]},
            "venue": {"type": ["string", "null"]},
            "doi": {"type": ["string", "null"]},
            "arxiv_id": {"type": ["string", "null"]},
        },
        "required": ["title"],
    },
}

_SYSTEM: Final = (
    "You help a citation checker. No bibliographic database found the reference below. Say what "
    "real, published work it most probably is, from what you know. Never invent: if you do not "
    "know such a work, give an empty suggestion. Whatever you answer is shown to a person as an "
    "unchecked suggestion and is never treated as evidence."
)


def describe(cited: CitedReference) -> str:
    """The reference as the model sees it: the raw string, else its fields."""
    if cited.raw:
        return cited.raw[:2000]
    parts = [f"{k}: {v}" for k, v in cited.fields.items() if v][:20]
    return "\n".join(parts)[:2000] or (cited.title or cited.key)


def _text(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())[:MAX_FIELD_CHARS]
    return None


def parse_suggestion(payload: dict[str, Any]) -> WorkRecord | None:
    """The tool call's input as a record of `SourceName.LLM` (None for an empty suggestion)."""
    title = _text(payload.get("title"))
    raw_doi = _text(payload.get("doi"))
    raw_arxiv = _text(payload.get("arxiv_id"))
    doi = clean_doi(raw_doi) if raw_doi else None
    arxiv = clean_arxiv_id(raw_arxiv) if raw_arxiv else None
    if not (title or doi or arxiv):
        return None
    authors = payload.get("authors")
    names = [n for a in (authors if isinstance(authors, list) else [])[:MAX_AUTHORS] if (n := _text(a))]
    year = payload.get("year")
    return WorkRecord(
        source=SOURCE,
        title=title,
        authors=tuple(Author(literal=n) for n in names),
        year=year if isinstance(year, int) and 0 < year < 3000 else None,
        venue=_text(payload.get("venue")),
        doi=doi or None,
        arxiv_id=arxiv.id if arxiv else None,
        work_type="suggestion",
    )


class ReferenceSuggester:
    """Ask the model once per reference; `llm` None: every call is recorded as skipped."""

    def __init__(self, llm: LLM | None, *, why_not: str = NO_KEY) -> None:
        self.llm = llm
        self.why_not = why_not

    @property
    def enabled(self) -> bool:
        return self.llm is not None

    async def suggest(self, cited: CitedReference) -> SourceRecord | None:
        if self.llm is None:
            raise SourceUnavailableError(SOURCE.value, self.why_not)
        try:
            reply = await self.llm.complete(
                system=_SYSTEM,
                messages=[{"role": "user", "content": describe(cited)}],
                tools=[SUGGEST_TOOL],
                tool_choice={"type": "tool", "name": SUGGEST_TOOL["name"]},
                max_tokens=512,
            )
        except LLMError as exc:
            raise TransientSourceError(SOURCE.value, f"the model could not be asked: {exc}") from None
        calls = [c for c in reply.tool_calls if c.name == SUGGEST_TOOL["name"]]
        record = parse_suggestion(calls[0].input) if calls else None
        if record is None:
            return None
        raw = {"model": self.llm.model, "tool_input": calls[0].input}
        return SourceRecord(record=record, raw=raw, fetched_at=datetime.now(UTC))


def suggester_from_settings(
    settings: Settings, llm: LLM | None = None, limiter: RateLimiter | None = None
) -> ReferenceSuggester:
    """Over `llm`, or Claude when `ANTHROPIC_API_KEY` is set; else one that records a skip. With a
    `limiter`, every call is paced by its `llm` bucket (`ALETHEIA_LLM_LIMITS`, `llm/paced.py`)."""
    if llm is None:
        if settings.offline:
            return ReferenceSuggester(None, why_not="skipped: offline")
        llm = anthropic_from_settings(settings)
        if llm is None:
            return ReferenceSuggester(None)
    if limiter is not None:
        llm = PacedLLM(llm, limiter, settings.limits_for(SOURCE.value))
    return ReferenceSuggester(llm)
