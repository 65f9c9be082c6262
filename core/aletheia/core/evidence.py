"""What the sources said about one cited reference: the input of `decide()`.

The pipeline asks the sources (I/O) and records every answer here; `decide()` (pure) turns the
answers into a verdict. Keeping the two apart is what makes `aletheia replay` possible: the same
answers, re-read from storage, must give the same verdict under the same logic version.
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Final

from pydantic import BaseModel, ConfigDict

from aletheia.core.authorship import AuthorshipCheck
from aletheia.core.records import RetractionNotice, SourceName, WorkRecord


class QueryKind(StrEnum):
    DOI = "doi"
    ARXIV = "arxiv"
    PMID = "pmid"
    SEARCH = "search"
    LIBRARY = "library"
    ISBN = "isbn"  # a book catalogue asked for the cited ISBN
    ACL = "acl"  # the ACL Anthology asked for the cited anthology id (its own registry)
    PASSAGE = "passage"  # a canonical-text service asked for the cited passage
    BOOK_TEXT = "book_text"  # a search inside a book for a cited quote (Google Books snippets)
    URL = "url"  # the cited URL fetched (the web tier): evidence about a web resource only
    WEB_SEARCH = "web_search"  # a web search engine: finds candidates, never evidence itself
    SUGGESTION = "suggestion"  # an LLM's guess at what the reference is: never evidence
    # a venue registry (OpenAlex sources, DBLP venues, Crossref journals) asked for the cited venue
    # name: evidence about the venue's existence and identity, never about a work
    VENUE = "venue"


# Answers that say nothing about a cited work: a web search only points at candidates (whatever
# verifies them records its own answers) and an LLM only suggests. `decide` never reads them.
NOT_EVIDENCE: Final = frozenset({QueryKind.WEB_SEARCH, QueryKind.SUGGESTION})
# Answers whose records form no scholarly work (`case` groups the others into works): the web
# tier's fetched page is read on its own (`core.web`), never taken for a paper; a book's page
# snippets only say whether a quote is in the book (`core.book_quotes`), never which book it is.
OUTSIDE_WORKS: Final = NOT_EVIDENCE | {QueryKind.URL, QueryKind.BOOK_TEXT, QueryKind.VENUE}


class Outcome(StrEnum):
    FOUND = "found"
    NOT_FOUND = "not_found"  # the source answered: it has no such work
    FAILED = "failed"  # the source could not be consulted (down, throttled, turned off)


class VenueRecord(BaseModel):
    """One venue as a registry publishes it: its name and every other name it goes by."""

    model_config = ConfigDict(frozen=True)

    source: SourceName
    source_id: str | None = None  # OpenAlex S..., a DBLP venue URL, an ISSN at Crossref
    name: str
    alternate_names: tuple[str, ...] = ()  # OpenAlex alternate_titles, DBLP acronym, ...
    abbreviation: str | None = None  # ISO-4 (OpenAlex abbreviated_title) or the acronym
    issn: tuple[str, ...] = ()
    kind: str | None = None  # journal, conference, repository, book series (as the registry says)

    @property
    def names(self) -> tuple[str, ...]:
        extra = (self.abbreviation,) if self.abbreviation else ()
        return (self.name, *self.alternate_names, *extra)


class SourceAnswer(BaseModel):
    """One question put to one source and its answer."""

    model_config = ConfigDict(frozen=True)

    source: SourceName
    kind: QueryKind
    query: str
    outcome: Outcome
    records: tuple[WorkRecord, ...] = ()
    # A venue registry's answer (`QueryKind.VENUE`): the venues it holds under the name asked.
    venues: tuple[VenueRecord, ...] = ()
    error: str | None = None
    # Answered from the local snapshot mirror (issue 32), not by a request: the day of the source's
    # snapshot it holds. The records are the source's own, parsed as a live answer's are.
    mirror_snapshot: date | None = None


class Evidence(BaseModel):
    """Everything the sources said about one reference."""

    model_config = ConfigDict(frozen=True)

    answers: tuple[SourceAnswer, ...] = ()
    retraction_notices: tuple[RetractionNotice, ...] = ()
    retraction_checked: bool = False
    # The matched work's authors as an index counts their works: asked only when another
    # paper-mill indicator fired (`pipeline/authorship.py`); never read by `decide()`.
    authorship: AuthorshipCheck | None = None

    def for_kind(self, kind: QueryKind) -> tuple[SourceAnswer, ...]:
        return tuple(a for a in self.answers if a.kind is kind)

    @property
    def sources_consulted(self) -> tuple[SourceName, ...]:
        seen: dict[SourceName, None] = {}
        for a in self.answers:
            if a.outcome is not Outcome.FAILED and a.kind not in NOT_EVIDENCE:
                seen.setdefault(a.source, None)
        return tuple(seen)

    @property
    def mirror_snapshots(self) -> dict[str, str]:
        """The sources answered from the local mirror, each with its snapshot's day (the oldest,
        when answers came from several): which facts were read at home, and how old they are."""
        days: dict[str, date] = {}
        for a in self.answers:
            if a.mirror_snapshot is not None and a.outcome is not Outcome.FAILED:
                seen = days.get(a.source.value)
                days[a.source.value] = a.mirror_snapshot if seen is None else min(seen, a.mirror_snapshot)
        return {source: day.isoformat() for source, day in days.items()}
