"""Which work the cited identifiers name (pure; the first stage of `case.establish`).

For each kind of identifier the reference cites (DOI, arXiv id, PMID, ISBN, ACL Anthology id),
the sources' answers about *that* identifier say whether it resolves, resolves nowhere, or names
a work: the cited one (possibly with metadata errors: `settle_identifiers` sets `Case.identity`)
or another (`Case.conflict`). A registry's "no such identifier" counts only where the registry
could hold it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from aletheia.core.acl_ids import acl_id_from_doi, cited_acl_id, clean_acl_id
from aletheia.core.arxiv_ids import arxiv_id_from_doi, clean_arxiv_id
from aletheia.core.authors import has_placeholder_authors
from aletheia.core.case_facts import Case
from aletheia.core.coverage import NON_CROSSREF_DOI_PREFIXES, doi_registrant
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.identifiers import clean_doi, clean_pmid, same_doi
from aletheia.core.isbn import normalise_isbn, same_isbn
from aletheia.core.records import CitedReference, SourceName
from aletheia.core.verdicts import Reason, Severity
from aletheia.core.works import Assessment, Work

__all__ = ["SAME_WORK_UNDER_IDENTIFIER", "authors_overlap", "settle_identifiers"]


# An identifier's record whose title is at least this close, with the same first author, is the
# cited work with title errors; below it the identifier belongs to a different work.
SAME_WORK_UNDER_IDENTIFIER: Final = 0.60


_ID_KINDS: Final = (
    (QueryKind.DOI, Reason.DOI_RESOLVED, Reason.DOI_NOT_FOUND, Reason.DOI_POINTS_ELSEWHERE),
    (QueryKind.ARXIV, Reason.ARXIV_RESOLVED, Reason.ARXIV_NOT_FOUND, Reason.ARXIV_POINTS_ELSEWHERE),
    (QueryKind.PMID, Reason.PMID_RESOLVED, Reason.PMID_NOT_FOUND, Reason.PMID_POINTS_ELSEWHERE),
    (QueryKind.ISBN, Reason.ISBN_RESOLVED, Reason.ISBN_NOT_FOUND, Reason.ISBN_POINTS_ELSEWHERE),
    (QueryKind.ACL, Reason.ACL_ID_RESOLVED, Reason.ACL_ID_NOT_FOUND, Reason.ACL_ID_POINTS_ELSEWHERE),
)


def _cited_identifier(cited: CitedReference, kind: QueryKind) -> str | None:
    if kind is QueryKind.DOI:
        return cited.doi
    if kind is QueryKind.ARXIV:
        if cited.arxiv_id:
            return cited.arxiv_id
        from_doi = arxiv_id_from_doi(cited.doi) if cited.doi else None
        return from_doi.id if from_doi else None
    if kind is QueryKind.PMID:
        return cited.pmid
    if kind is QueryKind.ISBN:
        return cited.isbn
    if kind is QueryKind.ACL:
        return cited_acl_id(cited)
    return None


def _asks_another_identifier(kind: QueryKind, query: str, wanted: str | None) -> bool:
    """The query names an identifier of this kind that is not the cited one (a query that is not
    an identifier at all is taken to be about the citation)."""
    if kind is QueryKind.DOI:
        return clean_doi(query) is not None and not same_doi(query, wanted)
    if kind is QueryKind.ARXIV:
        asked_id = clean_arxiv_id(query)
        cited_id = clean_arxiv_id(wanted) if wanted else None
        return asked_id is not None and (cited_id is None or asked_id.id != cited_id.id)
    if kind is QueryKind.PMID:
        asked_pmid = clean_pmid(query)
        return asked_pmid is not None and asked_pmid != (clean_pmid(wanted) if wanted else None)
    if kind is QueryKind.ISBN:
        return normalise_isbn(query) is not None and not same_isbn(query, wanted)
    if kind is QueryKind.ACL:
        asked_acl = clean_acl_id(query)
        return asked_acl is not None and asked_acl != clean_acl_id(wanted)
    return False


def _identifier_answers(
    evidence: Evidence, kind: QueryKind, cited: CitedReference
) -> tuple[SourceAnswer, ...]:
    """The answers about the *cited* identifier. A lookup of another identifier (the matched
    work's DOI, asked of a second source for triangulation) says nothing about whether the cited
    one resolves."""
    wanted = _cited_identifier(cited, kind)
    return tuple(a for a in evidence.for_kind(kind) if not _asks_another_identifier(kind, a.query, wanted))


def _resolution(answers: Sequence[SourceAnswer]) -> Outcome | None:
    """FOUND if any source has it, NOT_FOUND only if every asked source answered no."""
    if not answers:
        return None
    if any(a.outcome is Outcome.FOUND for a in answers):
        return Outcome.FOUND
    if all(a.outcome is Outcome.NOT_FOUND for a in answers):
        return Outcome.NOT_FOUND
    return Outcome.FAILED


def _works_for_identifier(works: list[Work], cited: CitedReference, kind: QueryKind) -> list[Work]:
    if kind is QueryKind.DOI and cited.doi:
        return [w for w in works if w.has_doi(cited.doi)]
    if kind is QueryKind.ARXIV and cited.arxiv_id:
        return [w for w in works if cited.arxiv_id in w.arxiv_ids()]
    if kind is QueryKind.PMID and cited.pmid:
        return [w for w in works if any(r.pmid == cited.pmid for r in w.records)]
    if kind is QueryKind.ISBN and cited.isbn:
        return [w for w in works if any(cited.isbn in r.isbn for r in w.records)]
    if kind is QueryKind.ACL and (acl := cited_acl_id(cited)):
        return [
            w
            for w in works
            if any(
                (r.source is SourceName.ACL_ANTHOLOGY and r.source_id == acl) or acl_id_from_doi(r.doi) == acl
                for r in w.records
            )
        ]
    return []


def _plausibly_same(a: Assessment, cited: CitedReference, kind: QueryKind) -> bool:
    """The identifier's work is the cited work, possibly with metadata errors. Template author
    names ("Smith, John and Doe, Jane") say nothing about which work it is: the title decides."""
    if a.title_matches:
        return (
            a.first_author_agrees is not False or authors_overlap(a) or has_placeholder_authors(cited.authors)
        )
    if not cited.title:
        return a.first_author_agrees is True
    if kind is QueryKind.ARXIV and _same_author_team(a):
        # arXiv serves only the current title, and titles change between versions: the cited
        # authors under the cited id are the same work (`title_changed_between_versions`).
        return True
    return a.title_similarity >= SAME_WORK_UNDER_IDENTIFIER and a.first_author_agrees is True


def _same_author_team(a: Assessment) -> bool:
    c = a.authors
    return (
        c is not None
        and a.first_author_agrees is True
        and c.cited_count >= 2
        and c.matched_count >= max(2, (c.cited_count + 1) // 2)
    )


def authors_overlap(a: Assessment) -> bool:
    return a.authors is not None and a.authors.matched_count >= max(1, a.authors.cited_count // 2)


def _registry_could_hold(cited: CitedReference, kind: QueryKind) -> bool:
    """Crossref and OpenAlex answering "no such DOI" is evidence only for a DOI they register:
    a DataCite DOI (Zenodo, figshare, Dryad ...) is not Crossref's to know."""
    if kind is QueryKind.DOI:
        return doi_registrant(cited.doi) not in NON_CROSSREF_DOI_PREFIXES
    # Book catalogues are incomplete: an ISBN none of them knows is no evidence of anything. The
    # ACL Anthology is the registry of its own ids (every paper it has, under the id it gave it):
    # a well-formed id it does not have is like a DOI that resolves nowhere.
    return kind is not QueryKind.ISBN


def _doi_held_elsewhere(case: Case) -> tuple[SourceName, ...]:
    """The sources whose records of any work carry the cited DOI, in the order first seen."""
    doi = case.cited.doi
    if not doi:
        return ()
    holders = (r.source for w in case.works for r in w.records if r.doi and same_doi(doi, r.doi))
    return tuple(dict.fromkeys(holders))


def settle_identifiers(case: Case) -> None:
    cited, f = case.cited, case.findings
    for kind, resolved_reason, nf_reason, elsewhere_reason in _ID_KINDS:
        outcome = _resolution(_identifier_answers(case.evidence, kind, cited))
        if outcome is None:
            continue
        if outcome is Outcome.NOT_FOUND:
            holders = _doi_held_elsewhere(case) if kind is QueryKind.DOI else ()
            if holders:
                # A DOI that one registry did not answer but another index's record carries exists
                # (issue 28: a WSDM DOI Crossref did not answer, held by Semantic Scholar): the
                # work that carries it is found by the search, and nothing is invented.
                f.notes.append("doi_held_elsewhere: " + ", ".join(s.value for s in holders))
                continue
            if _registry_could_hold(cited, kind):
                case.nowhere.append(kind)
            f.add(nf_reason)
            continue
        if outcome is Outcome.FAILED:
            case.id_failed = True
            continue
        candidates = _works_for_identifier(case.works, cited, kind) or [
            w for w in case.works if kind in w.via
        ]
        if not candidates:
            continue
        best = max(candidates, key=lambda w: case.assessments[id(w)].rank())
        if _plausibly_same(case.assessments[id(best)], cited, kind):
            if case.identity is None:
                case.identity = best
            f.add(resolved_reason)
        elif kind is QueryKind.ISBN and len({r.source for r in best.records}) < 2:
            # One catalogue's record is no proof of what an ISBN names (Open Library is partly
            # user-edited and sometimes files an ISBN under the wrong book): reported, not a
            # conflict, until a second catalogue says the same.
            f.add(elsewhere_reason, Severity.MINOR)
        else:
            if case.conflict is None:
                case.conflict, case.conflict_reason = best, elsewhere_reason
            f.add(elsewhere_reason)
