"""Measuring each cited field against the work's sources: `field_facts` (pure).

The title (exact, near, changed between arXiv versions, cut short, misspelt), the authors against
every source's list, the year, the arXiv version, and the venue against every name the sources
publish (and the venue registries, when no name resolves it). What the measures mean is the
table's (`field_rules.FIELD_RULES`); nothing here adds a reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from aletheia.core.arxiv_versions import arxiv_answered, preprint_id, version_title_evidence
from aletheia.core.author_lists import AuthorComparison
from aletheia.core.author_order import lineage
from aletheia.core.book_rules import is_book_record, publisher_agrees
from aletheia.core.cs_scope import is_computing_venue
from aletheia.core.dblp_venue import venue_confirmed_by_dblp
from aletheia.core.evidence import QueryKind, SourceAnswer
from aletheia.core.field_evidence import FieldFacts, omits_coauthors, venue_names
from aletheia.core.orcid import orcid_conflicts
from aletheia.core.publication import places_published, preprint_record, preprint_witnesses
from aletheia.core.records import CitedReference, SourceName
from aletheia.core.text import normalize_title
from aletheia.core.title_spelling import misspelt
from aletheia.core.trust import any_decisive
from aletheia.core.venue_registry import venue_standing
from aletheia.core.venues import VenueRelation, is_no_venue_claim, venue_relation, venue_similarity
from aletheia.core.works import Assessment, word_level_change
from aletheia.core.year_facts import settle_years

__all__ = ["MAX_WORDS_CUT", "MIN_WORDS_CUT_SHORT", "VERSION_TITLE_THRESHOLD", "field_facts"]


# Titles that changed between arXiv versions keep much of their wording; a wholly different title
# under the cited id and authors is a title error (the signature of a fabricated title).
VERSION_TITLE_THRESHOLD: Final = 0.50
# A cited title that is the source's without its last MAX_WORDS_CUT words, and at least
# MIN_WORDS_CUT_SHORT words long, was cut short (minor).
MAX_WORDS_CUT: Final = 2
MIN_WORDS_CUT_SHORT: Final = 5


def _clean(c: AuthorComparison) -> bool:
    return c.first_author_agrees is True and not (
        c.swapped or c.extra or c.truncated or c.missing_trailing or c.missing
    )


def field_facts(
    cited: CitedReference,
    a: Assessment,
    *,
    via_search: bool,
    venue_answers: Sequence[SourceAnswer] = (),
) -> FieldFacts:
    work = a.work
    facts = FieldFacts(cited=cited, assessment=a, via_search=via_search)
    if cited.title:
        _title_facts(facts, cited.title)
    if a.authors is not None:
        _author_facts(facts, a)
    facts.low_trust_only = not any_decisive(r.source for r in work.records)
    facts.orcid_conflict = bool(orcid_conflicts(work.records))
    facts.book_edition = any(is_book_record(r) for r in work.records)
    facts.publisher_agrees = publisher_agrees(cited, work.records) if facts.book_edition else None
    names = facts.venue_names = tuple(venue_names(work.records))
    if not is_no_venue_claim(cited.venue):
        _venue_facts(facts, names, venue_answers)
    settle_years(facts, names)
    if cited.arxiv_id and cited.arxiv_version is not None:
        latest = max((r.arxiv_version or 0 for r in work.records if r.arxiv_id == cited.arxiv_id), default=0)
        facts.arxiv_version_ahead = bool(latest) and cited.arxiv_version > latest
    return facts


def _title_facts(facts: FieldFacts, cited_title: str) -> None:
    """The title: agrees, changed between arXiv versions, cut short, or misspelt."""
    cited, a = facts.cited, facts.assessment
    work = a.work
    facts.title_agrees = a.title_matches and not (
        not a.title_exact and a.best_title is not None and word_level_change(cited_title, a.best_title)
    )
    # The arXiv id resolved to this work, with the cited authors, under another title: the
    # title changed between versions (arXiv serves only the current one). A citation without
    # the id names the work's preprint all the same (issue 28: MathVista cited as its v1 was
    # titled, found by title search): its one arXiv id is the paper whose versions are asked.
    version_id = preprint_id(cited, work.arxiv_ids(), via_arxiv=QueryKind.ARXIV in work.via)
    facts.title_changed_between_versions = (
        not facts.title_agrees
        # A wholly different title may be a version's only under the cited id while arXiv has
        # not answered for it (another index resolved the id): the versions are asked, and
        # `version_title_evidence` is False when none had it. Under arXiv's own answer it is a
        # title error, the signature of a fabricated title.
        and (
            a.title_similarity >= VERSION_TITLE_THRESHOLD
            or (version_id == cited.arxiv_id and not arxiv_answered(version_id, work.records))
        )
        and version_id is not None
        and a.first_author_agrees is True
        and a.authors is not None
        and a.authors.matched_count >= max(1, (a.authors.cited_count + 1) // 2)
        # arXiv gives every version's title: a change is accepted only where a version could
        # have carried the cited title (`arxiv_versions.version_title_evidence`).
        and version_title_evidence(cited_title, version_id, work.records) is not False
    )
    facts.title_cut_short = not facts.title_agrees and _cut_short(cited_title, a.best_title)
    if facts.title_agrees and not a.title_exact and a.best_title and misspelt(cited_title, a.best_title):
        facts.title_agrees, facts.title_misspelled = False, True


def _author_facts(facts: FieldFacts, a: Assessment) -> None:
    """How many sources (and lineages) agree with, lack, omit or reorder the cited authors."""
    facts.authors = a.authors
    facts.authors_agree_somewhere = any(_clean(c) for c, _ in a.all_authors)
    lacking = {r.source for c, r in a.all_authors if c.extra}
    facts.sources_lacking_cited_authors = len(lacking - {SourceName.LIBRARY})
    omitting = {r.source for c, r in a.all_authors if omits_coauthors(c)}
    facts.sources_listing_omitted = len(omitting - {SourceName.LIBRARY})
    reordering = {lineage(r.source) for c, r in a.all_authors if c.swapped and c.first_author_agrees}
    facts.lineages_reordering = len(reordering - {lineage(SourceName.LIBRARY)})


def _venue_facts(facts: FieldFacts, names: tuple[str, ...], venue_answers: Sequence[SourceAnswer]) -> None:
    """The cited venue against the sources' names, and the registries' word where none resolves it."""
    cited, work = facts.cited, facts.assessment.work
    facts.published_visible = any(places_published(r) for r in work.records)
    facts.preprint_visible = any(preprint_record(r) for r in work.records)
    facts.venue = venue_relation(cited.venue, names)
    facts.venue_similarity = max((venue_similarity(cited.venue or "", n) for n in names), default=0.0)
    facts.venue_confirmed_by_dblp = venue_confirmed_by_dblp(cited, work.records)
    if facts.venue is not VenueRelation.AGREES:
        facts.venue_finding = venue_standing(cited.venue, venue_answers, _cited_issns(cited))
        facts.preprint_witnesses = preprint_witnesses(work.records, venue_answers)
        facts.computing_venue = is_computing_venue(cited.venue or "")


_ISSN_SEPARATORS: Final = re.compile(r"[,;\s]+")


def _cited_issns(cited: CitedReference) -> tuple[str, ...]:
    raw = cited.fields.get("issn") or ""
    return tuple(p for p in _ISSN_SEPARATORS.split(raw) if p)


def _cut_short(cited: str, found: str | None) -> bool:
    """The cited title is the found one without its last word or two (and is long enough to be
    unmistakable): a title cut in extraction, not another title."""
    if not found:
        return False
    a, b = normalize_title(cited).split(), normalize_title(found).split()
    return len(a) >= MIN_WORDS_CUT_SHORT and 1 <= len(b) - len(a) <= MAX_WORDS_CUT and b[: len(a)] == a
