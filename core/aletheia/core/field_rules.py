"""Field rules: how each cited field compares with what the work's sources say, as a table.

`field_comparison.field_facts` measures (title, authors against every source, year, identifiers,
venue against every name the sources publish); `FIELD_RULES` is the table a reviewer reads: each row names a
condition over those facts, the reason code it adds, its severity (`MAJOR` flags the reference,
`MINOR` reports it, `None` only annotates) and the test that pins it. A precision change is a row.

The rows follow one principle (docs/verdicts.md): a reference is accused only of what a source
positively contradicts. One source's author list is not the truth when another agrees with the
citation; a venue the sources' own names cannot resolve is reported, not flagged; a published
version nobody shows is "unconfirmed", not "preprint cited as published".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from aletheia.core.field_evidence import FieldFacts, Findings, omits_coauthors, record_field_evidence
from aletheia.core.publication import preprint_only_settled
from aletheia.core.trust import is_decisive
from aletheia.core.venue_registry import VenueStanding
from aletheia.core.venues import VenueRelation, venue_relation
from aletheia.core.verdicts import Reason, Severity

# Below the decisive threshold but this close, with the same first author: the same work cited
# with a wrong title (a near miss), not another work.
NEAR_MISS_THRESHOLD: Final = 0.80
# A venue string this close to the source's, though not resolved, is another form of it.
VENUE_FORM_THRESHOLD: Final = 0.60
# Independent sources that must agree on a shorter author list before cited extra authors are
# an error (sources drop co-authors; one source's list is not the truth).
SOURCES_TO_CONFIRM_AUTHOR_LIST: Final = 2


def _authors_fine(f: FieldFacts) -> bool:
    return f.authors is None or f.authors_agree_somewhere


def _order_only(f: FieldFacts) -> bool:
    """The same first author, co-authors in another order: versions of a paper reorder co-authors
    (an arXiv v1 and the proceedings), so this is reported, not flagged, when the lists hold the
    same people, or when one lineage alone shows the other order (issue 28: a survey's published
    list, two co-authors longer with two of them exchanged, at OpenAlex only)."""
    c = f.authors
    return bool(
        c is not None
        and c.swapped
        and c.first_author_agrees is True
        and (not (c.extra or c.missing or c.truncated) or f.lineages_reordering < 2)
    )


def _title_wrong(f: FieldFacts) -> bool:
    return f.title_agrees is False and not (
        f.title_changed_between_versions or f.title_cut_short or f.title_misspelled
    )


def _registered_elsewhere(f: FieldFacts) -> bool:
    """The cited venue is a venue a registry holds, and the sources place the work in another
    one: the registry's names for the cited venue resolve none of the work's venue names."""
    finding = f.venue_finding
    if f.venue is not VenueRelation.UNRESOLVED or finding.standing is not VenueStanding.KNOWN:
        return False
    if finding.known_by_table or not finding.entries or not f.published_visible:
        return False
    return not any(venue_relation(n, f.venue_names) is VenueRelation.AGREES for n in finding.names)


def _preprint_settled(f: FieldFacts) -> bool:
    """A venue is cited, no source places the work anywhere, and two publication-recording
    sources hold it as a preprint only: positive evidence, not a silence."""
    return (
        f.venue is not None
        and f.venue is not VenueRelation.AGREES
        and not f.published_visible
        and f.preprint_visible
        and f.venue_finding.standing is not VenueStanding.UNKNOWN
        and preprint_only_settled(f.preprint_witnesses, computing_venue=f.computing_venue)
    )


def _venue_settled(f: FieldFacts) -> bool:
    """A venue row with positive evidence fired: the minor 'unresolved' rows step aside."""
    return (
        f.venue_finding.standing is VenueStanding.UNKNOWN or _registered_elsewhere(f) or _preprint_settled(f)
    )


@dataclass(frozen=True, slots=True)
class FieldRule:
    """One row of the table: when `when(facts)` holds, the verdict gets `reason` at `severity`."""

    name: str
    reason: Reason
    severity: Severity | None
    when: Callable[[FieldFacts], bool]
    pinned_by: str


_T = "tests/unit/test_decide_rules.py::"

FIELD_RULES: Final[tuple[FieldRule, ...]] = (
    FieldRule(
        "title_near_miss",
        Reason.TITLE_NEAR_MISS,
        Severity.MAJOR,
        lambda f: _title_wrong(f) and f.title_similarity >= NEAR_MISS_THRESHOLD,
        _T + "test_title_near_miss",
    ),
    FieldRule(
        "title_mismatch",
        Reason.TITLE_MISMATCH,
        Severity.MAJOR,
        lambda f: _title_wrong(f) and f.title_similarity < NEAR_MISS_THRESHOLD,
        _T + "test_title_mismatch",
    ),
    FieldRule(
        "title_changed_between_versions",
        Reason.TITLE_CHANGED_BETWEEN_VERSIONS,
        Severity.MINOR,
        lambda f: f.title_changed_between_versions,
        _T + "test_title_changed_between_versions",
    ),
    FieldRule(
        "title_cut_short",
        Reason.TITLE_CUT_SHORT,
        Severity.MINOR,
        lambda f: f.title_cut_short,
        _T + "test_title_cut_short",
    ),
    FieldRule(
        "title_misspelled",
        Reason.TITLE_MISSPELLED,
        Severity.MINOR,
        lambda f: f.title_misspelled,
        _T + "test_title_misspelled",
    ),
    FieldRule(
        "authors_swapped",
        Reason.AUTHORS_SWAPPED,
        Severity.MAJOR,
        lambda f: not _authors_fine(f) and bool(f.authors and f.authors.swapped) and not _order_only(f),
        _T + "test_authors_swapped",
    ),
    FieldRule(
        "coauthor_order_differs",
        Reason.AUTHORS_SWAPPED,
        Severity.MINOR,
        lambda f: not _authors_fine(f) and _order_only(f),
        _T + "test_coauthor_order_differs",
    ),
    FieldRule(
        "first_author_mismatch",
        Reason.FIRST_AUTHOR_MISMATCH,
        Severity.MAJOR,
        lambda f: (
            not _authors_fine(f)
            and bool(f.authors and not f.authors.swapped and f.authors.first_author_agrees is False)
        ),
        _T + "test_first_author_mismatch",
    ),
    FieldRule(
        "extra_authors_confirmed",
        Reason.AUTHOR_LIST_DIFFERS,
        Severity.MAJOR,
        lambda f: (
            not _authors_fine(f)
            and bool(f.authors and f.authors.extra)
            and f.sources_lacking_cited_authors >= SOURCES_TO_CONFIRM_AUTHOR_LIST
        ),
        _T + "test_extra_authors_confirmed_by_two_sources",
    ),
    FieldRule(
        "extra_authors_unconfirmed",
        Reason.AUTHOR_LIST_UNCONFIRMED,
        Severity.MINOR,
        lambda f: (
            not _authors_fine(f)
            and bool(f.authors and f.authors.extra)
            and f.sources_lacking_cited_authors < SOURCES_TO_CONFIRM_AUTHOR_LIST
        ),
        _T + "test_extra_authors_one_source_is_minor",
    ),
    FieldRule(
        "one_trailing_author_missing",
        Reason.AUTHORS_MISSING_TRAILING,
        Severity.MINOR,
        lambda f: (
            not _authors_fine(f)
            and bool(f.authors and f.authors.truncated)
            and f.authors is not None
            and f.authors.missing_trailing == 1
            and f.authors.found_count >= 4
        ),
        _T + "test_one_trailing_author_missing",
    ),
    FieldRule(
        "authors_truncated",
        Reason.AUTHORS_TRUNCATED,
        Severity.MAJOR,
        lambda f: (
            not _authors_fine(f)
            and f.authors is not None
            and f.authors.truncated
            and not (f.authors.missing_trailing == 1 and f.authors.found_count >= 4)
        ),
        _T + "test_authors_truncated",
    ),
    FieldRule(
        "one_coauthor_omitted",
        Reason.AUTHOR_LIST_DIFFERS,
        Severity.MINOR,
        lambda f: (
            not _authors_fine(f)
            and f.authors is not None
            and omits_coauthors(f.authors)
            and len(f.authors.missing) == 1
            and f.authors.found_count >= 4
            and f.sources_listing_omitted < SOURCES_TO_CONFIRM_AUTHOR_LIST
        ),
        _T + "test_one_coauthor_omitted",
    ),
    FieldRule(
        "coauthors_omitted",
        Reason.AUTHOR_LIST_DIFFERS,
        Severity.MAJOR,
        lambda f: (
            not _authors_fine(f)
            and f.authors is not None
            and omits_coauthors(f.authors)
            and (
                not (len(f.authors.missing) == 1 and f.authors.found_count >= 4)
                # One co-author left out, but two sources list them: confirmed, not a source's slip.
                or f.sources_listing_omitted >= SOURCES_TO_CONFIRM_AUTHOR_LIST
            )
        ),
        _T + "test_coauthors_omitted",
    ),
    FieldRule(
        "year_off_by_one",
        Reason.YEAR_OFF_BY_ONE_VERSIONS,
        Severity.MINOR,
        lambda f: f.year_off_by_one,
        _T + "test_year_off_by_one_versions",
    ),
    FieldRule(
        "year_of_unseen_version",
        Reason.YEAR_OF_UNSEEN_VERSION,
        Severity.MINOR,
        lambda f: f.year_of_unseen_version and not f.book_edition,
        _T + "test_year_of_unseen_version",
    ),
    FieldRule(
        "year_mismatch",
        Reason.YEAR_MISMATCH,
        Severity.MAJOR,
        lambda f: (
            f.year_agrees is False
            and not f.year_off_by_one
            and not f.year_of_unseen_version
            and not f.book_edition
        ),
        _T + "test_year_mismatch",
    ),
    FieldRule(
        "edition_year_differs",
        Reason.EDITION_YEAR_DIFFERS,
        Severity.MINOR,
        lambda f: f.year_agrees is False and not f.year_off_by_one and f.book_edition,
        _T + "test_book_edition_year_and_publisher_are_minor",
    ),
    FieldRule(
        "publisher_differs",
        Reason.PUBLISHER_DIFFERS,
        Severity.MINOR,
        lambda f: f.publisher_agrees is False,
        _T + "test_book_edition_year_and_publisher_are_minor",
    ),
    FieldRule(
        "arxiv_version_ahead",
        Reason.ARXIV_VERSION_MISMATCH,
        Severity.MAJOR,
        lambda f: f.arxiv_version_ahead,
        _T + "test_arxiv_version_ahead",
    ),
    FieldRule(
        "venue_is_another_known_venue",
        Reason.VENUE_MISMATCH,
        Severity.MAJOR,
        lambda f: f.venue is VenueRelation.OTHER_KNOWN_VENUE,
        _T + "test_venue_is_another_known_venue",
    ),
    FieldRule(
        "venue_nonexistent",
        Reason.NONEXISTENT_VENUE,
        Severity.MAJOR,
        lambda f: f.venue_finding.standing is VenueStanding.UNKNOWN,
        _T + "test_venue_no_registry_holds_is_nonexistent",
    ),
    FieldRule(
        "venue_is_another_registered_venue",
        Reason.VENUE_MISMATCH,
        Severity.MAJOR,
        lambda f: _registered_elsewhere(f),
        _T + "test_venue_registered_elsewhere_is_wrong_venue",
    ),
    FieldRule(
        "preprint_cited_as_published",
        Reason.PREPRINT_CITED_AS_PUBLISHED,
        Severity.MAJOR,
        lambda f: _preprint_settled(f),
        _T + "test_preprint_only_at_two_sources_is_cited_as_published",
    ),
    FieldRule(
        "venue_form",
        Reason.VENUE_FORM,
        Severity.MINOR,
        lambda f: (
            f.venue is VenueRelation.UNRESOLVED
            and f.venue_similarity >= VENUE_FORM_THRESHOLD
            and not _venue_settled(f)
        ),
        _T + "test_venue_unresolved_is_minor",
    ),
    FieldRule(
        "venue_unresolved",
        Reason.VENUE_UNRESOLVED,
        Severity.MINOR,
        lambda f: (
            f.venue is VenueRelation.UNRESOLVED
            and f.venue_similarity < VENUE_FORM_THRESHOLD
            and not _venue_settled(f)
        ),
        _T + "test_venue_unresolved_is_minor",
    ),
    FieldRule(
        "published_version_unconfirmed",
        Reason.PUBLISHED_VERSION_UNCONFIRMED,
        Severity.MINOR,
        lambda f: (
            f.venue is not None
            and f.venue is not VenueRelation.AGREES
            and not f.published_visible
            and f.preprint_visible
            and not _venue_settled(f)
        ),
        _T + "test_preprint_only_visible_is_unconfirmed_not_accused",
    ),
    FieldRule(
        "low_trust_evidence_only",
        Reason.LOW_TRUST_EVIDENCE,
        None,
        lambda f: f.low_trust_only,
        _T + "test_low_trust_evidence_is_never_decisive",
    ),
    FieldRule("orcid_conflict", Reason.ORCID_CONFLICT, None, lambda f: f.orcid_conflict, _T + "test_orcid"),
    FieldRule(
        "venue_confirmed_by_dblp",
        Reason.VENUE_CONFIRMED_BY_DBLP,
        None,
        lambda f: f.venue_confirmed_by_dblp,
        _T + "test_venue_confirmed_by_dblp",
    ),
    FieldRule(
        "matched_by_search",
        Reason.MATCHED_BY_SEARCH,
        None,
        lambda f: f.via_search,
        _T + "test_matched_by_search_is_annotated",
    ),
)


# The rows about the author list: at most minor on a list the parser may have split wrongly.
_AUTHOR_LIST_REASONS: Final = frozenset(
    {
        Reason.AUTHORS_SWAPPED,
        Reason.FIRST_AUTHOR_MISMATCH,
        Reason.AUTHOR_LIST_DIFFERS,
        Reason.AUTHORS_TRUNCATED,
        Reason.AUTHORS_MISSING_TRAILING,
        Reason.AUTHOR_LIST_UNCONFIRMED,
    }
)


def apply_field_rules(facts: FieldFacts, f: Findings) -> None:
    """The engine: every row whose condition holds adds its reason; then the per-field evidence."""
    for rule in FIELD_RULES:
        if rule.when(facts):
            # Low-trust evidence never decides (seed 003), and an author list the reference-string
            # parser may have cut wrongly accuses nobody (issue 20): reported, minor.
            capped = facts.low_trust_only or (
                facts.cited.authors_uncertain and rule.reason in _AUTHOR_LIST_REASONS
            )
            severity = Severity.MINOR if capped and rule.severity else rule.severity
            f.add(rule.reason, severity, rule=rule.name)
    # Notes read the rows that fired, never a second copy of their conditions.
    if "title_changed_between_versions" in f.rules:
        f.notes.append(
            f"title_changed_between_versions: cited {facts.cited.title!r}, "
            f"current {facts.assessment.best_title!r}"
        )
    if "venue_nonexistent" in f.rules:
        asked = ", ".join(s.value for s in facts.venue_finding.answered)
        f.notes.append(f"venue_registries: {asked} hold no venue named {facts.cited.venue!r}")
    if "venue_is_another_registered_venue" in f.rules:
        entry = facts.venue_finding.entries[0]
        f.notes.append(f"venue_registered: {facts.cited.venue!r} is {entry.name!r} at {entry.source.value}")
    if "preprint_cited_as_published" in f.rules:
        f.notes.append("preprint_only: " + ", ".join(s.value for s in facts.preprint_witnesses))
    if "published_version_unconfirmed" in f.rules:
        f.notes.append("no source lists a published version; only the preprint is visible")
    record_field_evidence(facts, f)
    for name, ev in f.fields.items():
        if ev.decisive and not is_decisive(ev.source):
            f.fields[name] = ev.model_copy(update={"decisive": False})
