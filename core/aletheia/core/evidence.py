"""What the sources said about one cited reference: the input of `decide()`.

The pipeline asks the sources (I/O) and records every answer here; `decide()` (pure) turns the
answers into a verdict. Keeping the two apart is what makes `aletheia replay` possible: the same
answers, re-read from storage, must give the same verdict under the same logic version.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from aletheia.core.records import RetractionNotice, SourceName, WorkRecord


class QueryKind(StrEnum):
    DOI = "doi"
    ARXIV = "arxiv"
    PMID = "pmid"
    SEARCH = "search"
    LIBRARY = "library"


class Outcome(StrEnum):
    FOUND = "found"
    NOT_FOUND = "not_found"  # the source answered: it has no such work
    FAILED = "failed"  # the source could not be consulted (down, throttled, turned off)


class SourceAnswer(BaseModel):
    """One question put to one source and its answer."""

    model_config = ConfigDict(frozen=True)

    source: SourceName
    kind: QueryKind
    query: str
    outcome: Outcome
    records: tuple[WorkRecord, ...] = ()
    error: str | None = None


class Evidence(BaseModel):
    """Everything the sources said about one reference."""

    model_config = ConfigDict(frozen=True)

    answers: tuple[SourceAnswer, ...] = ()
    retraction_notices: tuple[RetractionNotice, ...] = ()
    retraction_checked: bool = False

    def for_kind(self, kind: QueryKind) -> tuple[SourceAnswer, ...]:
        return tuple(a for a in self.answers if a.kind is kind)

    @property
    def sources_consulted(self) -> tuple[SourceName, ...]:
        seen: dict[SourceName, None] = {}
        for a in self.answers:
            if a.outcome is not Outcome.FAILED:
                seen.setdefault(a.source, None)
        return tuple(seen)

    @property
    def sources_failed(self) -> tuple[SourceName, ...]:
        ok = set(self.sources_consulted)
        seen: dict[SourceName, None] = {}
        for a in self.answers:
            if a.outcome is Outcome.FAILED and a.source not in ok:
                seen.setdefault(a.source, None)
        return tuple(seen)
