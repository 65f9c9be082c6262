"""The data that flows through `verify_and_cite`: the extracted claim, candidates, the citation, and
the typed refusals (`ConflictReport`), and `SourcesFailed`. Kept apart from the stages so the
reasoner can use them.

Every report is a pydantic model with a `kind` and a one-line `detail`, serialisable as JSON (the
CLI's `--format json`, the queue's results).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from aletheia.core.records import SourceName, WorkRecord

__all__ = [
    "Candidate",
    "Citation",
    "ConflictReport",
    "ContradictedClaim",
    "ExtractedClaim",
    "FieldDisagreement",
    "NoCandidates",
    "NoSupportingExcerpts",
    "PaperNotFound",
    "Ranking",
    "RetractedWork",
    "RetriesExhausted",
    "SourcesFailed",
    "TriangulationConflict",
    "candidate_key",
]


class ExtractedClaim(BaseModel):
    """The assertion to ground, and how to search for it."""

    model_config = ConfigDict(frozen=True)

    assertion: str
    queries: tuple[str, ...]  # search queries, best first
    terms: tuple[str, ...]  # the claim's content terms (stemmed), for lexical ranking
    year_hint: int | None = None
    doi: str | None = None  # an identifier the hint named: the paper is asked for directly
    arxiv_id: str | None = None


def candidate_key(record: WorkRecord) -> str:
    """A stable id for a candidate, as the tools and the model refer to it."""
    if record.doi:
        return f"doi:{record.doi.lower()}"
    if record.arxiv_id:
        return f"arxiv:{record.arxiv_id}"
    if record.pmid:
        return f"pmid:{record.pmid}"
    return f"{record.source.value}:{record.source_id or record.title or '?'}"


class Candidate(BaseModel):
    """A paper a search returned, with the relevance the ranking gave it."""

    model_config = ConfigDict(frozen=True)

    key: str
    record: WorkRecord
    relevance: float = 0.0  # share of the claim's terms in title and abstract (deterministic path)

    @classmethod
    def of(cls, record: WorkRecord, relevance: float = 0.0) -> Candidate:
        return cls(key=candidate_key(record), record=record, relevance=relevance)

    def summary(self) -> dict[str, object]:
        """What a report or a model sees of a candidate."""
        record = self.record
        return {
            "paper_id": self.key,
            "title": record.title,
            "first_author": record.first_author.display if record.first_author else None,
            "year": record.year,
            "doi": record.doi,
            "arxiv_id": record.arxiv_id,
            "source": record.source.value,
        }


class Ranking(BaseModel):
    """The ranker's answer: candidates that may support the claim, best first (possibly none)."""

    model_config = ConfigDict(frozen=True)

    ranked: tuple[Candidate, ...]
    queries: tuple[str, ...]  # every query that was run
    iterations: int
    ranker: str  # "lexical" or "anthropic:<model>"
    tier: str = "sources"  # "library": Tier 0, the verified library (no API asked); "sources": searches


class FieldDisagreement(BaseModel):
    model_config = ConfigDict(frozen=True)

    field: str
    primary_source: SourceName
    primary_value: str | None
    secondary_source: SourceName
    secondary_value: str | None
    similarity: float | None = None


class SourcesFailed(Exception):
    """Every source a step needed failed after its retries."""

    def __init__(self, source: str, error: str) -> None:
        super().__init__(source, error)
        self.source = source
        self.error = error


class _Report(BaseModel):
    model_config = ConfigDict(frozen=True)

    detail: str
    claim: str


class NoCandidates(_Report):
    """No paper the searches returned is a plausible source for the claim."""

    kind: Literal["NoCandidates"] = "NoCandidates"
    query: str | None = None
    queries: tuple[str, ...] = ()
    considered: tuple[dict[str, object], ...] = ()


class TriangulationConflict(_Report):
    """The second source disagrees with the first on a decisive field (seed 000 §5.4)."""

    kind: Literal["TriangulationConflict"] = "TriangulationConflict"
    candidate: dict[str, object]
    fields: tuple[FieldDisagreement, ...]
    notes: tuple[str, ...] = ()
    alternatives: tuple[dict[str, object], ...] = ()  # the other ranked candidates (top-K)


class NoSupportingExcerpts(_Report):
    """No proposed excerpt passed the verbatim check against the paper's text (or no text)."""

    kind: Literal["NoSupportingExcerpts"] = "NoSupportingExcerpts"
    candidate: dict[str, object]
    proposed: tuple[str, ...] = ()  # what was proposed and failed the check
    text_origin: str | None = None
    attempts: tuple[str, ...] = ()
    alternatives: tuple[dict[str, object], ...] = ()
    # Every located excerpt the judge saw, with its label and why (none supported the claim).
    judgements: tuple[dict[str, Any], ...] = ()
    judge: str | None = None


class ContradictedClaim(_Report):
    """The paper's own words contradict the claim: an excerpt, located verbatim, says otherwise."""

    kind: Literal["ContradictedClaim"] = "ContradictedClaim"
    candidate: dict[str, object]
    excerpt: str  # the contradicting excerpt, the paper's text
    location: str | None = None
    reasons: tuple[str, ...] = ()  # the judge's rule codes (or "model")
    why: str = ""
    judge: str
    judgements: tuple[dict[str, Any], ...] = ()
    text_origin: str | None = None


class PaperNotFound(_Report):
    """The paper named with `--paper` is not known to any source asked (nothing else is substituted)."""

    kind: Literal["PaperNotFound"] = "PaperNotFound"
    paper: str
    asked: tuple[str, ...] = ()


class RetriesExhausted(_Report):
    """A source (or the model) kept failing after its retries; nothing was decided."""

    kind: Literal["RetriesExhausted"] = "RetriesExhausted"
    source: str
    error: str


class RetractedWork(_Report):
    """The supporting paper is retracted or withdrawn: it cannot ground a claim."""

    kind: Literal["RetractedWork"] = "RetractedWork"
    candidate: dict[str, object]
    status: str
    notice_doi: str | None = None


ConflictReport = Annotated[
    NoCandidates
    | TriangulationConflict
    | NoSupportingExcerpts
    | RetriesExhausted
    | RetractedWork
    | ContradictedClaim
    | PaperNotFound,
    Field(discriminator="kind"),
]


class Citation(BaseModel):
    """A verified citation: the snippet to paste, its BibTeX, and the artifact behind it."""

    model_config = ConfigDict(frozen=True)

    text: str  # the citation snippet of seed §6.3
    bibtex: str
    slug: str
    artifact: Path
    record: WorkRecord
    single_source_verified: bool
    text_excerpts_unavailable: bool
    human_overridden: bool
    # Integrity signals of the cited work read from the text fetched for it (issue 13)
    signals: tuple[dict[str, Any], ...] = ()
    # The excerpts the judge found to support the claim (text, location) and who judged them
    excerpts: tuple[dict[str, str], ...] = ()
    judge: str | None = None

    def __str__(self) -> str:
        return self.text
