"""Verdicts are data: a status, reason codes, per-field evidence, and the logic version.

Bump `LOGIC_VERSION` whenever a rule that decides a status or a reason changes: cached and stored
verdicts carry the version that produced them, and `aletheia replay` reports every verdict a new
version would decide differently (docs/verdicts.md).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field

from aletheia.core.records import SourceName, WorkRecord
from aletheia.core.trust import trust_of

LOGIC_VERSION = "2.5.0"


class VerdictStatus(StrEnum):
    VERIFIED = "verified"
    METADATA_ERROR = "metadata_error"
    IDENTIFIER_CONFLICT = "identifier_conflict"
    NOT_FOUND = "not_found"
    FABRICATED = "fabricated"
    RETRACTED = "retracted"
    AMBIGUOUS = "ambiguous"
    UNVERIFIABLE = "unverifiable"
    OUT_OF_SCOPE = "out_of_scope"


class Severity(StrEnum):
    MINOR = "minor"
    MAJOR = "major"


# Statuses that make `aletheia verify` exit 1 (metadata_error only when major).
FLAGGED_STATUSES = frozenset(
    {
        VerdictStatus.IDENTIFIER_CONFLICT,
        VerdictStatus.NOT_FOUND,
        VerdictStatus.FABRICATED,
        VerdictStatus.RETRACTED,
    }
)


class Reason(StrEnum):
    """Reason codes: why a verdict is what it is (glossary in docs/verdicts.md)."""

    # identity
    DOI_RESOLVED = "doi_resolved"
    DOI_NOT_FOUND = "doi_not_found"
    DOI_POINTS_ELSEWHERE = "doi_points_elsewhere"
    ARXIV_RESOLVED = "arxiv_resolved"
    ARXIV_NOT_FOUND = "arxiv_not_found"
    ARXIV_POINTS_ELSEWHERE = "arxiv_points_elsewhere"
    PMID_RESOLVED = "pmid_resolved"
    PMID_NOT_FOUND = "pmid_not_found"
    PMID_POINTS_ELSEWHERE = "pmid_points_elsewhere"
    MATCHED_BY_SEARCH = "matched_by_search"
    # DBLP's record under the work's key names the cited venue: positive evidence for the venue
    VENUE_CONFIRMED_BY_DBLP = "venue_confirmed_by_dblp"
    # two sources give the author at the same position, same surname, different ORCID iDs
    ORCID_CONFLICT = "orcid_conflict"
    NO_MATCH_FOUND = "no_match_found"
    SEVERAL_CANDIDATES = "several_candidates"
    # fields
    TITLE_MISMATCH = "title_mismatch"
    TITLE_NEAR_MISS = "title_near_miss"
    FIRST_AUTHOR_MISMATCH = "first_author_mismatch"
    AUTHORS_SWAPPED = "authors_swapped"
    AUTHORS_TRUNCATED = "authors_truncated"
    AUTHORS_EXTRA = "authors_extra"
    AUTHORS_MISSING_TRAILING = "authors_missing_trailing"
    AUTHOR_LIST_DIFFERS = "author_list_differs"
    YEAR_MISMATCH = "year_mismatch"
    YEAR_OFF_BY_ONE_VERSIONS = "year_off_by_one_versions"
    # a published venue is cited, the sources show only the preprint, and the cited year is after
    # every year they give: the year of the version at the venue, which no record shows (minor)
    YEAR_OF_UNSEEN_VERSION = "year_of_unseen_version"
    VENUE_MISMATCH = "venue_mismatch"
    VENUE_FORM = "venue_form"
    PREPRINT_CITED_AS_PUBLISHED = "preprint_cited_as_published"
    PREPRINT_OF_PUBLISHED = "preprint_of_published"
    ARXIV_VERSION_MISMATCH = "arxiv_version_mismatch"
    # the arXiv id resolves, same authors, but the current title differs: a title that changed
    # between versions (minor, both titles shown)
    TITLE_CHANGED_BETWEEN_VERSIONS = "title_changed_between_versions"
    # a venue disagreement the sources' own names cannot resolve, and no known other venue (minor)
    VENUE_UNRESOLVED = "venue_unresolved"
    # the cited title is the source's title without its last word or two ("... from 2017 to"):
    # a title cut short in extraction or copying (minor)
    TITLE_CUT_SHORT = "title_cut_short"
    # the cited title is the source's with a misspelt word ("Inteligence"), not a regional
    # spelling (minor; the source's title is the correction)
    TITLE_MISSPELLED = "title_misspelled"
    # a venue is cited, only the preprint is visible, and no source says it is preprint-only (minor)
    PUBLISHED_VERSION_UNCONFIRMED = "published_version_unconfirmed"
    # the citation lists authors that the one source with an author list lacks (minor: sources
    # drop co-authors); two sources agreeing on the shorter list make it `author_list_differs`
    AUTHOR_LIST_UNCONFIRMED = "author_list_unconfirmed"
    # fabrication evidence
    FUTURE_YEAR = "future_year"
    PLACEHOLDER_AUTHORS = "placeholder_authors"
    PLACEHOLDER_TITLE = "placeholder_title"
    IDENTIFIER_RESOLVES_NOWHERE = "identifier_resolves_nowhere"
    TITLE_CHIMERA = "title_chimera"
    NONEXISTENT_VENUE = "nonexistent_venue"
    # standing
    RETRACTED = "retracted"
    EXPRESSION_OF_CONCERN = "expression_of_concern"
    CORRECTED = "corrected"
    WITHDRAWN = "withdrawn"
    # process
    TRIANGULATED = "triangulated"
    SINGLE_SOURCE = "single_source"
    TRIANGULATION_CONFLICT = "triangulation_conflict"
    SOURCE_UNAVAILABLE = "source_unavailable"
    INSUFFICIENT_METADATA = "insufficient_metadata"
    # not every source that could hold the work was searched successfully: no accusation
    SEARCH_INCOMPLETE = "search_incomplete"
    # a kind of work the scholarly indexes do not cover well (a book, a report, a thesis, a work
    # before the indexes' coverage): not found there is no evidence of invention
    UNINDEXED_KIND = "unindexed_kind"
    # cited as this year's work, with no identifier: the indexes may not hold it yet (issue 28)
    NOT_YET_INDEXED = "not_yet_indexed"
    OUT_OF_SCOPE_TYPE = "out_of_scope_type"
    # the web tier (docs/sources.md): the cited URL answers with the cited title (a web resource,
    # not a scholarly record); answers with another title (minor: pages are renamed); does not
    # answer (no evidence either way); or its archived copy is of another date than cited (minor)
    WEB_PAGE_TITLE_MATCHES = "web_page_title_matches"
    WEB_PAGE_TITLE_DIFFERS = "web_page_title_differs"
    WEB_PAGE_UNREACHABLE = "web_page_unreachable"
    ARCHIVE_DATE_DIFFERS = "archive_date_differs"
    LIBRARY_HIT = "library_hit"
    # the ACL Anthology id a citation gives by URL (an identifier, like a DOI: the anthology is the
    # registry of its own ids): it names the cited paper, names no paper at all, or another paper
    ACL_ID_RESOLVED = "acl_id_resolved"
    ACL_ID_NOT_FOUND = "acl_id_not_found"
    ACL_ID_POINTS_ELSEWHERE = "acl_id_points_elsewhere"
    # books (Tier 1, docs/verdicts.md): the cited ISBN resolves at a catalogue to the cited book,
    # is in no catalogue (no evidence: catalogues are incomplete), or names another book; no
    # catalogue has the book (unverifiable, never not_found); one catalogue's search hit alone
    # (unverifiable); another edition's year (minor); another publisher (minor)
    ISBN_RESOLVED = "isbn_resolved"
    ISBN_NOT_FOUND = "isbn_not_found"
    ISBN_POINTS_ELSEWHERE = "isbn_points_elsewhere"
    BOOK_NOT_IN_CATALOGUES = "book_not_in_catalogues"
    BOOK_SINGLE_CATALOGUE = "book_single_catalogue"
    EDITION_YEAR_DIFFERS = "edition_year_differs"
    PUBLISHER_DIFFERS = "publisher_differs"
    # canonical texts (Tier 3): the cited passage was read in the canonical text; lies beyond the
    # work's structure (major); the work is not one we know; the service did not serve a passage
    # the structure allows; a cited quote is (not) verbatim in the passage
    CANONICAL_PASSAGE_VERIFIED = "canonical_passage_verified"
    PASSAGE_OUT_OF_RANGE = "passage_out_of_range"
    UNKNOWN_CANONICAL_WORK = "unknown_canonical_work"
    CANONICAL_PASSAGE_NOT_SERVED = "canonical_passage_not_served"
    QUOTE_IN_PASSAGE = "quote_in_passage"
    QUOTE_NOT_IN_PASSAGE = "quote_not_in_passage"
    # a quote cited from a book (Tier 1, `core.book_quotes`): verbatim in a Google Books page
    # snippet of the book, or not confirmed (no snippet holds it: snippets are partial, no evidence)
    QUOTE_IN_BOOK_SNIPPET = "quote_in_book_snippet"
    QUOTE_UNCONFIRMED_IN_BOOK = "quote_unconfirmed_in_book"
    # source trust (seed 003, `core.trust`): the matched work rests only on sources below the
    # decisive trust level (a web page, a search hit, model output): its fields decide nothing
    LOW_TRUST_EVIDENCE = "low_trust_evidence"


class FieldEvidence(BaseModel):
    """How one field of the citation compares with what a source says."""

    model_config = ConfigDict(frozen=True)

    cited: Any = None
    found: Any = None
    source: SourceName | None = None
    similarity: float | None = None
    threshold: float | None = None
    decisive: bool = False
    agrees: bool | None = None  # None: not comparable (one side missing)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def trust(self) -> str | None:
        """The source's trust level (`core.trust`, seed 003), shown with every piece of evidence."""
        return trust_of(self.source)


class Verdict(BaseModel):
    """The decision about one cited reference."""

    model_config = ConfigDict(frozen=True)

    status: VerdictStatus
    severity: Severity | None = None
    reasons: tuple[Reason, ...] = ()
    fields: dict[str, FieldEvidence] = Field(default_factory=dict)
    match: WorkRecord | None = None
    secondary: WorkRecord | None = None
    retraction: dict[str, Any] = Field(default_factory=dict)
    corrected: dict[str, Any] = Field(default_factory=dict)
    p_valid: float | None = None
    sources_consulted: tuple[SourceName, ...] = ()
    sources_unavailable: tuple[SourceName, ...] = ()
    notes: tuple[str, ...] = ()
    # The sources whose answers came from the local snapshot mirror (no request), each with the
    # day of its snapshot: the fields credited to them were read from a copy that old.
    mirror: dict[str, str] = Field(default_factory=dict)
    logic_version: str = LOGIC_VERSION

    @property
    def flagged(self) -> bool:
        if self.status is VerdictStatus.METADATA_ERROR:
            return self.severity is Severity.MAJOR
        return self.status in FLAGGED_STATUSES
