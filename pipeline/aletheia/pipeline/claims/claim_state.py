"""A claim's state between its stages (`stages.py`), and what the stages ask (`StageEnv`).

`ClaimState` is JSON (pydantic): the queue keeps it in PostgreSQL between stages
(`aletheia.pipeline.jobs.claims`), and `verify_and_cite` carries it through the stages in memory.
Its parts are here, apart from the stages that fill them, so that each stage's module (the
candidates, the text and the judge in `stages.py`; `identity_stage.py`; `write_stage.py`) reads
one shape of state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel

from aletheia.core.artifacts import CitationArtifact
from aletheia.core.claim_judge import ClaimJudgement
from aletheia.core.excerpts import ExcerptMatch, PaperText
from aletheia.core.records import WorkRecord
from aletheia.pipeline.audit.claim_events import ClaimTrail
from aletheia.pipeline.claims.judge import ClaimJudge, EvidenceResult, JudgedEvidence
from aletheia.pipeline.claims.model import (
    Candidate,
    Citation,
    ConflictReport,
    ExtractedClaim,
    Ranking,
)
from aletheia.pipeline.claims.reasoner import ClaimReasoner
from aletheia.pipeline.documents.fulltext import Converter, FetchedText

__all__ = [
    "MAX_CANDIDATES_TRIED",
    "MAX_EXCERPTS",
    "ClaimAttempt",
    "ClaimRequest",
    "ClaimState",
    "Outcome",
    "PendingCitation",
    "Stage",
    "StageEnv",
    "candidate_summaries",
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


def candidate_summaries(
    candidates: Sequence[Candidate], skip: str | None = None, limit: int = 5
) -> tuple[dict[str, object], ...]:
    return tuple(c.summary() for c in candidates if c.key != skip)[:limit]
