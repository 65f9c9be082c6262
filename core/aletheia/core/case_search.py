"""The search stage of a case: the work the sources' search hits name, when no identifier settled
it (pure; the second stage of `case.establish`).

A strong hit (title and first author) is the match unless two different works are; failing that,
the cited title under other authors, a near miss by the same authors, or the same authors'
preprint under an earlier title. A title pinned on real authors, found nowhere although every
source that could hold it was searched, is a chimera.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from aletheia.core.case_facts import Case
from aletheia.core.case_identifiers import authors_overlap
from aletheia.core.coverage import search_coverage
from aletheia.core.evidence import Outcome, QueryKind, SourceAnswer
from aletheia.core.field_comparison import VERSION_TITLE_THRESHOLD
from aletheia.core.field_rules import NEAR_MISS_THRESHOLD
from aletheia.core.records import CitedReference
from aletheia.core.titles import TITLE_THRESHOLD
from aletheia.core.verdicts import Reason, Severity
from aletheia.core.works import Work, same_work

__all__ = ["SAME_TITLE_OTHER_AUTHORS", "search_stage"]


# A title this close (or identical once normalised), in the cited year, under other authors, is
# the cited work with wrong authors: a source positively contradicts them.
SAME_TITLE_OTHER_AUTHORS: Final = 0.95


def _search_complete(cited: CitedReference, answers: Sequence[SourceAnswer]) -> bool:
    """Every source that could hold the work answered a search (found something or said no)."""
    answered = {a.source for a in answers if a.outcome is not Outcome.FAILED}
    return all(source in answered for source in search_coverage(cited))


def search_stage(case: Case) -> None:
    """Search hits decide only when no identifier settled the identity."""
    cited, evidence = case.cited, case.evidence
    search_answers = evidence.for_kind(QueryKind.SEARCH) + evidence.for_kind(QueryKind.LIBRARY)
    # One search that failed is enough for doubt: the source that could not be asked may be the
    # only one that has the work, whatever the others returned (docs/reliability.md).
    case.search_failed = any(a.outcome is Outcome.FAILED for a in search_answers)
    case.search_complete = _search_complete(cited, evidence.for_kind(QueryKind.SEARCH))
    if case.identity is not None:
        return
    pool = [w for w in case.works if QueryKind.SEARCH in w.via or QueryKind.LIBRARY in w.via]
    ranked = sorted(pool, key=lambda w: case.assessments[id(w)].rank(), reverse=True)
    if _strong_hits(case, ranked) or not cited.title:
        return
    weaker = _weaker_hit(case, ranked)
    if weaker is not None:
        case.identity, case.via_search = weaker, True
        return
    if case.conflict is not None or case.has_identifier or not case.search_complete:
        return
    _chimera(case, ranked)


def _strong_hits(case: Case, ranked: Sequence[Work]) -> bool:
    """Whether hits with the cited title and first author decided the case: one work is the
    match, or two different works are and neither can be chosen."""
    strong = [
        w
        for w in ranked
        if case.assessments[id(w)].title_matches and case.assessments[id(w)].first_author_agrees is not False
    ]
    if len(strong) >= 2 and case.cited.year is not None:
        dated = [w for w in strong if case.assessments[id(w)].year_agrees]
        strong = dated or strong
    if len(strong) >= 2 and not any(same_work(a, b) for a in strong[0].records for b in strong[1].records):
        case.several_candidates = True
        return True
    if strong:
        case.identity, case.via_search = strong[0], True
        return True
    return False


def _weaker_hit(case: Case, ranked: Sequence[Work]) -> Work | None:
    """The work matched without a strong hit: the cited title under other authors, a near miss by
    the same authors, or the same authors' preprint under an earlier title."""
    # The cited title, in the same year, under other authors: the work exists and a source
    # contradicts the cited authors (positive evidence), not a missing work.
    contradicted = [
        w
        for w in ranked
        if (
            case.assessments[id(w)].title_exact
            or case.assessments[id(w)].title_similarity >= SAME_TITLE_OTHER_AUTHORS
        )
        and case.assessments[id(w)].year_agrees is not False
    ]
    # A near miss by the same authors.
    near = [
        w
        for w in ranked
        if case.assessments[id(w)].title_similarity >= NEAR_MISS_THRESHOLD
        and case.assessments[id(w)].first_author_agrees is True
    ]
    if contradicted or near:
        return (contradicted or near)[0]
    # The same authors' preprint under a title much like the cited one: the cited title may be an
    # earlier version's (issue 28: MathVista cited as its v1 was titled). The work is matched, and
    # the field rules ask arXiv's versions before calling the title wrong; never a chimera.
    retitled = [
        w
        for w in ranked
        if case.assessments[id(w)].title_similarity >= VERSION_TITLE_THRESHOLD
        and case.assessments[id(w)].first_author_agrees is True
        and authors_overlap(case.assessments[id(w)])
        and len(w.arxiv_ids()) == 1
    ]
    return retitled[0] if retitled else None


def _chimera(case: Case, ranked: Sequence[Work]) -> None:
    """A title pinned on real authors: their work exists, the cited title nowhere, and every
    source that could hold it was asked ("never when some source has the cited title")."""
    someone_has_title = any(a.title_similarity >= TITLE_THRESHOLD for a in case.assessments.values())
    chimera = [
        w
        for w in ranked
        if case.assessments[id(w)].first_author_agrees is True
        and (case.assessments[id(w)].authors is not None)
        and case.assessments[id(w)].authors.matched_count >= 2  # type: ignore[union-attr]
    ]
    if chimera and not someone_has_title:
        case.chimera = True
        case.findings.add(Reason.TITLE_CHIMERA, Severity.MAJOR, rule="title_chimera")
