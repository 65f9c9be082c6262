"""The status table of docs/verdicts.md: `STATUS_RULES`, ordered rows over the facts of a case;
the first whose condition holds gives the verdict's status and its reason (`first_rule`).

Each row names the test that pins it; docs/verdicts.md lists the rows by name and a test checks
the two agree. `decide.decide` establishes the case, asks this table, and assembles the verdict;
the per-field rows are `field_rules.FIELD_RULES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from aletheia.core.book_rules import catalogues_answered, is_book_like, single_catalogue_match
from aletheia.core.case_facts import Case
from aletheia.core.evidence import Outcome
from aletheia.core.records import RetractionKind
from aletheia.core.trust import any_decisive
from aletheia.core.verdicts import Reason, VerdictStatus
from aletheia.core.web import WebState

__all__ = ["STATUS_RULES", "StatusRule", "first_rule"]


@dataclass(frozen=True, slots=True)
class StatusRule:
    """One row: when `when(case)` holds (and no earlier row did), the verdict is `status`."""

    name: str
    status: VerdictStatus
    reason: Reason | None
    when: Callable[[Case], bool]
    pinned_by: str


_T = "tests/unit/test_decide_rules.py::"


def _no_match(c: Case) -> bool:
    return c.identity is None


def _web(c: Case) -> WebState:
    """The web tier's fetch of the cited URL, for a kind outside the indexes (`Case.web`)."""
    return c.web.state


def _archive_differs(c: Case) -> bool:
    return c.web.archive_agrees is False


STATUS_RULES: Final[tuple[StatusRule, ...]] = (
    StatusRule(
        "web_page_answers_with_cited_title",
        VerdictStatus.VERIFIED,
        Reason.WEB_PAGE_TITLE_MATCHES,
        lambda c: _web(c) is WebState.TITLE_MATCHES and not _archive_differs(c),
        _T + "test_web_page_answering_with_the_cited_title_is_verified",
    ),
    StatusRule(
        "archived_copy_of_another_date",
        VerdictStatus.METADATA_ERROR,
        Reason.ARCHIVE_DATE_DIFFERS,
        lambda c: _web(c) is WebState.TITLE_MATCHES,
        _T + "test_archived_copy_of_another_date_is_a_minor_error",
    ),
    StatusRule(
        "web_page_answers_with_another_title",
        VerdictStatus.METADATA_ERROR,
        Reason.WEB_PAGE_TITLE_DIFFERS,
        lambda c: _web(c) is WebState.TITLE_DIFFERS,
        _T + "test_web_page_with_another_title_is_a_minor_error",
    ),
    StatusRule(
        "web_page_does_not_answer",
        VerdictStatus.UNVERIFIABLE,
        Reason.WEB_PAGE_UNREACHABLE,
        lambda c: _web(c) is WebState.UNREACHABLE,
        _T + "test_web_page_that_does_not_answer_is_unverifiable",
    ),
    StatusRule(
        "outside_the_indexes",
        VerdictStatus.OUT_OF_SCOPE,
        Reason.OUT_OF_SCOPE_TYPE,
        lambda c: c.kind is not None and c.kind.out_of_scope and not c.signals,
        _T + "test_outside_the_indexes_is_out_of_scope",
    ),
    StatusRule(
        "too_little_to_check_but_invented",
        VerdictStatus.FABRICATED,
        Reason.INSUFFICIENT_METADATA,
        lambda c: c.insufficient and bool(c.signals),
        _T + "test_too_little_to_check",
    ),
    StatusRule(
        "too_little_to_check",
        VerdictStatus.UNVERIFIABLE,
        Reason.INSUFFICIENT_METADATA,
        lambda c: c.insufficient,
        _T + "test_too_little_to_check",
    ),
    # Tier 3: a canonical reference is decided by the table of canonical works and the passage
    # itself, never by search (`canonical`, `classical_case`).
    StatusRule(
        "canonical_work_unknown",
        VerdictStatus.UNVERIFIABLE,
        Reason.UNKNOWN_CANONICAL_WORK,
        lambda c: c.canonical is not None and not c.canonical.known,
        _T + "test_canonical_work_unknown_is_unverifiable",
    ),
    StatusRule(
        "canonical_passage_beyond_the_work",
        VerdictStatus.METADATA_ERROR,
        Reason.PASSAGE_OUT_OF_RANGE,
        lambda c: c.canonical is not None and c.canonical.beyond_the_work,
        _T + "test_canonical_passage_beyond_the_work_is_an_error",
    ),
    StatusRule(
        "canonical_passage_not_fetched",
        VerdictStatus.UNVERIFIABLE,
        None,
        lambda c: c.canonical is not None and c.canonical.outcome in (None, Outcome.FAILED),
        _T + "test_canonical_passage_not_fetched_or_not_served",
    ),
    StatusRule(
        "canonical_passage_not_served",
        VerdictStatus.UNVERIFIABLE,
        Reason.CANONICAL_PASSAGE_NOT_SERVED,
        lambda c: c.canonical is not None and c.canonical.passage is None,
        _T + "test_canonical_passage_not_fetched_or_not_served",
    ),
    StatusRule(
        "canonical_quote_not_in_passage",
        VerdictStatus.UNVERIFIABLE,
        Reason.QUOTE_NOT_IN_PASSAGE,
        lambda c: c.canonical is not None and c.canonical.quote_found is False,
        _T + "test_canonical_passage_and_quote",
    ),
    StatusRule(
        "canonical_passage_verified",
        VerdictStatus.VERIFIED,
        Reason.CANONICAL_PASSAGE_VERIFIED,
        lambda c: c.canonical is not None,
        _T + "test_canonical_passage_and_quote",
    ),
    StatusRule(
        "several_candidates",
        VerdictStatus.AMBIGUOUS,
        Reason.SEVERAL_CANDIDATES,
        lambda c: c.several_candidates,
        _T + "test_several_candidates_are_ambiguous",
    ),
    StatusRule(
        "identifier_elsewhere_and_invented",
        VerdictStatus.FABRICATED,
        None,
        lambda c: c.conflict is not None and c.identity is None and bool(c.signals),
        _T + "test_identifier_elsewhere_and_invented",
    ),
    StatusRule(
        "identifier_points_elsewhere",
        VerdictStatus.IDENTIFIER_CONFLICT,
        None,
        lambda c: c.conflict is not None and (c.identity is None or c.via_search),
        _T + "test_identifier_points_elsewhere",
    ),
    # A title by real authors that no index holds is a chimera only where the indexes would hold
    # it: a work cited as this year's, without an identifier, may simply be too new (issue 28: a
    # real ICLR 2026 paper called `fabricated: title_chimera`).
    StatusRule(
        "too_recent_for_a_chimera",
        VerdictStatus.UNVERIFIABLE,
        Reason.NOT_YET_INDEXED,
        lambda c: _no_match(c) and c.chimera and not c.signals and c.too_recent,
        _T + "test_too_recent_for_the_indexes",
    ),
    StatusRule(
        "signs_of_invention",
        VerdictStatus.FABRICATED,
        None,
        lambda c: _no_match(c) and (bool(c.signals) or c.chimera),
        _T + "test_signs_of_invention_without_a_match",
    ),
    StatusRule(
        "identifier_resolves_nowhere",
        VerdictStatus.FABRICATED,
        Reason.IDENTIFIER_RESOLVES_NOWHERE,
        lambda c: (
            _no_match(c)
            and bool(c.nowhere)
            and c.search_complete
            and not (c.id_failed or c.search_failed)
            and c.kind is None
        ),
        _T + "test_identifier_resolves_nowhere",
    ),
    StatusRule(
        "a_source_could_not_be_asked",
        VerdictStatus.UNVERIFIABLE,
        None,
        lambda c: _no_match(c) and (c.id_failed or c.search_failed),
        _T + "test_a_failed_source_leaves_it_unverifiable",
    ),
    StatusRule(
        "no_catalogue_has_the_book",
        VerdictStatus.UNVERIFIABLE,
        Reason.BOOK_NOT_IN_CATALOGUES,
        lambda c: _no_match(c) and is_book_like(c.cited) and bool(catalogues_answered(c.evidence)),
        _T + "test_a_book_no_catalogue_has_is_unverifiable",
    ),
    # The text alone reads as a resource no index holds (`Kind.outside_indexes`): an index that
    # has it would have matched above; none does, and that accuses nothing (issue 21).
    StatusRule(
        "not_a_kind_the_indexes_hold",
        VerdictStatus.UNVERIFIABLE,
        Reason.OUT_OF_SCOPE_TYPE,
        lambda c: _no_match(c) and c.kind is not None and c.kind.outside_indexes,
        _T + "test_a_resource_named_by_its_text_is_unverifiable_not_missing",
    ),
    StatusRule(
        "a_kind_the_indexes_hold_in_part",
        VerdictStatus.UNVERIFIABLE,
        Reason.UNINDEXED_KIND,
        lambda c: _no_match(c) and c.kind is not None,
        _T + "test_books_and_old_works_are_unverifiable_not_missing",
    ),
    StatusRule(
        "not_every_source_searched",
        VerdictStatus.UNVERIFIABLE,
        Reason.SEARCH_INCOMPLETE,
        lambda c: _no_match(c) and not c.search_complete,
        _T + "test_not_found_needs_every_source_searched",
    ),
    StatusRule(
        "too_recent_for_the_indexes",
        VerdictStatus.UNVERIFIABLE,
        Reason.NOT_YET_INDEXED,
        lambda c: _no_match(c) and c.too_recent,
        _T + "test_too_recent_for_the_indexes",
    ),
    StatusRule(
        "no_source_has_it",
        VerdictStatus.NOT_FOUND,
        Reason.NO_MATCH_FOUND,
        _no_match,
        _T + "test_not_found_needs_every_source_searched",
    ),
    # A real work cited with template authors is a real work with wrong authors (the sources give
    # the right ones, `fields_disagree`); a future year or a template title on it stays invented.
    StatusRule(
        "real_work_with_signs_of_invention",
        VerdictStatus.FABRICATED,
        None,
        lambda c: any(s is not Reason.PLACEHOLDER_AUTHORS for s in c.signals),
        _T + "test_real_work_with_placeholder_authors",
    ),
    StatusRule(
        "book_single_catalogue",
        VerdictStatus.UNVERIFIABLE,
        Reason.BOOK_SINGLE_CATALOGUE,
        lambda c: (
            c.identity is not None
            and c.conflict is None
            and single_catalogue_match(c.identity.records, c.identity.via)
        ),
        _T + "test_one_catalogue_search_hit_is_not_proof",
    ),
    StatusRule(
        "only_low_trust_evidence",
        VerdictStatus.UNVERIFIABLE,
        Reason.LOW_TRUST_EVIDENCE,
        lambda c: c.identity is not None and not any_decisive(c.identity.sources),
        _T + "test_low_trust_evidence_is_never_decisive",
    ),
    StatusRule(
        "retracted",
        VerdictStatus.RETRACTED,
        Reason.RETRACTED,
        lambda c: c.standing is RetractionKind.RETRACTED,
        _T + "test_retracted_and_withdrawn",
    ),
    StatusRule(
        "withdrawn",
        VerdictStatus.RETRACTED,
        Reason.WITHDRAWN,
        lambda c: c.standing is RetractionKind.WITHDRAWN,
        _T + "test_retracted_and_withdrawn",
    ),
    StatusRule(
        "fields_disagree",
        VerdictStatus.METADATA_ERROR,
        None,
        lambda c: c.findings.major or c.findings.minor,
        _T + "test_fields_disagree_is_metadata_error",
    ),
    StatusRule(
        "sources_disagree",
        VerdictStatus.AMBIGUOUS,
        None,
        lambda c: not c.sources_agree,
        _T + "test_sources_disagree_is_ambiguous",
    ),
    StatusRule(
        "verified",
        VerdictStatus.VERIFIED,
        None,
        lambda c: True,
        _T + "test_verified_needs_a_matching_answer",
    ),
)


def first_rule(case: Case) -> StatusRule:
    """The engine: the first row of `STATUS_RULES` whose condition holds."""
    return next(rule for rule in STATUS_RULES if rule.when(case))
