"""The facts of one case: what `decide`'s status table reads (see decide.py).

`establish` groups the sources' records into works, settles which work the cited identifiers name
(and whether they point elsewhere or nowhere), runs the search stage only when no identifier
settled it, checks that every source that could hold the work was searched, applies the field
rules to the matched work, triangulates it and reads its standing. No rule decides a status here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from aletheia.core.acl_ids import acl_id_from_doi, cited_acl_id, clean_acl_id
from aletheia.core.author_kinds import people_and_groups
from aletheia.core.author_order import alphabetical_records
from aletheia.core.authors import has_placeholder_authors
from aletheia.core.book_quotes import book_quote_findings
from aletheia.core.book_rules import is_book_record, without_edition_statement
from aletheia.core.classical_case import CanonicalFacts, canonical_facts, canonical_findings
from aletheia.core.coverage import (
    NON_CROSSREF_DOI_PREFIXES,
    Kind,
    classify_kind,
    doi_registrant,
    search_coverage,
)
from aletheia.core.evidence import OUTSIDE_WORKS, Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.field_evidence import Findings
from aletheia.core.field_rules import (
    NEAR_MISS_THRESHOLD,
    VERSION_TITLE_THRESHOLD,
    apply_field_rules,
    field_facts,
)
from aletheia.core.identifiers import arxiv_id_from_doi, clean_arxiv_id, clean_doi, clean_pmid, same_doi
from aletheia.core.isbn import normalise_isbn, same_isbn
from aletheia.core.records import CitedReference, RetractionKind, SourceName, WorkRecord
from aletheia.core.retraction import combine_retraction_status
from aletheia.core.titles import TITLE_THRESHOLD, is_placeholder_title
from aletheia.core.triangulate import triangulate
from aletheia.core.verdicts import FieldEvidence, Reason, Severity
from aletheia.core.web import WebCheck, WebState, web_check
from aletheia.core.works import Assessment, Work, assess, group_works, same_work

__all__ = ["Case", "establish"]

# An identifier's record whose title is at least this close, with the same first author, is the
# cited work with title errors; below it the identifier belongs to a different work.
SAME_WORK_UNDER_IDENTIFIER: Final = 0.60
# Years beyond this many years from now are invented (accepted papers are cited "to appear").
FUTURE_YEAR_MARGIN: Final = 1
# A title this close (or identical once normalised), in the cited year, under other authors, is
# the cited work with wrong authors: a source positively contradicts them.
SAME_TITLE_OTHER_AUTHORS: Final = 0.95

_ID_KINDS: Final = (
    (QueryKind.DOI, Reason.DOI_RESOLVED, Reason.DOI_NOT_FOUND, Reason.DOI_POINTS_ELSEWHERE),
    (QueryKind.ARXIV, Reason.ARXIV_RESOLVED, Reason.ARXIV_NOT_FOUND, Reason.ARXIV_POINTS_ELSEWHERE),
    (QueryKind.PMID, Reason.PMID_RESOLVED, Reason.PMID_NOT_FOUND, Reason.PMID_POINTS_ELSEWHERE),
    (QueryKind.ISBN, Reason.ISBN_RESOLVED, Reason.ISBN_NOT_FOUND, Reason.ISBN_POINTS_ELSEWHERE),
    (QueryKind.ACL, Reason.ACL_ID_RESOLVED, Reason.ACL_ID_NOT_FOUND, Reason.ACL_ID_POINTS_ELSEWHERE),
)


@dataclass
class Case:
    """The facts of one reference, established before any rule decides."""

    cited: CitedReference
    evidence: Evidence
    signals: list[Reason] = field(default_factory=list)
    kind: Kind | None = None
    works: list[Work] = field(default_factory=list)
    assessments: dict[int, Assessment] = field(default_factory=dict)
    identity: Work | None = None
    via_search: bool = False
    conflict: Work | None = None
    conflict_reason: Reason | None = None  # the identifier kind that points elsewhere
    several_candidates: bool = False
    nowhere: list[QueryKind] = field(default_factory=list)
    id_failed: bool = False
    search_failed: bool = False
    search_complete: bool = False
    chimera: bool = False
    # Cited as this year's (or next year's) work with no identifier: the indexes may not hold it
    # yet, so their silence (or a title by its authors they lack) is no evidence (issue 28).
    too_recent: bool = False
    standing: RetractionKind = RetractionKind.NONE
    retraction: dict[str, Any] = field(default_factory=dict)
    sources_agree: bool = True  # triangulation found no conflict (or had one source only)
    triangulated: bool = False  # two independent sources agreed
    secondary: WorkRecord | None = None
    findings: Findings = field(default_factory=Findings)
    canonical: CanonicalFacts | None = None  # a canonical reference to a classical text (Tier 3)
    # The web tier's fetch of the cited URL, read once: only for a kind outside the indexes that
    # carries no sign of invention (`core.web`); NOT_ASKED otherwise.
    web: WebCheck = field(default_factory=lambda: WebCheck(WebState.NOT_ASKED))

    @property
    def has_identifier(self) -> bool:
        return bool(self.cited.doi or self.cited.arxiv_id or self.cited.pmid or cited_acl_id(self.cited))

    @property
    def insufficient(self) -> bool:
        return not self.cited.title and not self.has_identifier and not self.cited.raw


# The note that names the work a cited identifier points to when another work is the match.
IDENTIFIER_ELSEWHERE_NOTE: Final = "identifier_names_another_work:"


def _fabrication_signals(cited: CitedReference, current_year: int) -> list[Reason]:
    signals: list[Reason] = []
    if cited.year is not None and cited.year > current_year + FUTURE_YEAR_MARGIN:
        signals.append(Reason.FUTURE_YEAR)
    if cited.authors and has_placeholder_authors(cited.authors):
        signals.append(Reason.PLACEHOLDER_AUTHORS)
    if cited.title and is_placeholder_title(cited.title):
        signals.append(Reason.PLACEHOLDER_TITLE)
    return signals


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
            a.first_author_agrees is not False
            or _authors_overlap(a)
            or has_placeholder_authors(cited.authors)
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


def _authors_overlap(a: Assessment) -> bool:
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


def _settle_identifiers(case: Case) -> None:
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


def _search_complete(cited: CitedReference, answers: Sequence[SourceAnswer]) -> bool:
    """Every source that could hold the work answered a search (found something or said no)."""
    answered = {a.source for a in answers if a.outcome is not Outcome.FAILED}
    return all(source in answered for source in search_coverage(cited))


def _search(case: Case) -> None:
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
    strong = [
        w
        for w in ranked
        if case.assessments[id(w)].title_matches and case.assessments[id(w)].first_author_agrees is not False
    ]
    if len(strong) >= 2 and cited.year is not None:
        dated = [w for w in strong if case.assessments[id(w)].year_agrees]
        strong = dated or strong
    if len(strong) >= 2 and not any(same_work(a, b) for a in strong[0].records for b in strong[1].records):
        case.several_candidates = True
        return
    if strong:
        case.identity, case.via_search = strong[0], True
        return
    if not cited.title:
        return
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
        case.identity, case.via_search = (contradicted or near)[0], True
        return
    # The same authors' preprint under a title much like the cited one: the cited title may be an
    # earlier version's (issue 28: MathVista cited as its v1 was titled). The work is matched, and
    # the field rules ask arXiv's versions before calling the title wrong; never a chimera.
    retitled = [
        w
        for w in ranked
        if case.assessments[id(w)].title_similarity >= VERSION_TITLE_THRESHOLD
        and case.assessments[id(w)].first_author_agrees is True
        and _authors_overlap(case.assessments[id(w)])
        and len(w.arxiv_ids()) == 1
    ]
    if retitled:
        case.identity, case.via_search = retitled[0], True
        return
    if case.conflict is not None or case.has_identifier or not case.search_complete:
        return
    # A title pinned on real authors: their work exists, the cited title nowhere, and every
    # source that could hold it was asked ("never when some source has the cited title").
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


def _triangulate(case: Case) -> None:
    """Check the decisive fields across two independent sources of the same work."""
    work, f = case.identity, case.findings
    assert work is not None
    by_source: dict[SourceName, WorkRecord] = {}
    for r in work.records:
        by_source.setdefault(r.source, r)
    if len(by_source) < 2:
        f.add(Reason.SINGLE_SOURCE)
        f.notes.append("no_secondary_source_available")
        return
    primary = work.primary
    secondary = next(r for s, r in by_source.items() if s is not primary.source)
    case.secondary = secondary
    # An alphabetised author list (`author_order`) says nothing about who is first, and a group
    # a source names before the people ("DeepSeek-AI", then Aixin Liu, ...) is not the first author.
    alphabetical = alphabetical_records(work.records, case.cited.authors)

    def gate_view(r: WorkRecord) -> WorkRecord:
        if any(r is x for x in alphabetical):
            return r.model_copy(update={"authors": ()})
        people = people_and_groups(r.authors)[0]
        return r.model_copy(update={"authors": tuple(people)}) if people else r

    result = triangulate(gate_view(primary), gate_view(secondary))
    f.notes.extend(result.notes)
    hard = [c for c in result.conflicts if c.field != "year"]
    for c in (c for c in result.conflicts if c.field == "year"):
        # Print and online dates often straddle a year boundary: a one-year spread is a note.
        try:
            spread = abs(int(str(c.primary_value)) - int(str(c.secondary_value)))
        except (TypeError, ValueError):
            spread = 99
        # Book catalogues date different editions (Open Library the first, Google Books the one it
        # scanned): a year apart is an edition apart, not a conflict (`book_rules`).
        if spread > 1 and not all(is_book_record(r) for r in (primary, secondary)):
            hard.append(c)
        else:
            f.notes.append(
                f"year_sources_differ: {primary.source}={c.primary_value} "
                f"{secondary.source}={c.secondary_value}"
            )
    if hard:
        f.add(Reason.TRIANGULATION_CONFLICT)
        for c in hard:
            f.notes.append(
                f"triangulation_conflict:{c.field}: {primary.source}={c.primary_value!r} "
                f"{secondary.source}={c.secondary_value!r}"
            )
        case.sources_agree = False
        return
    f.add(Reason.TRIANGULATED)
    case.triangulated = True


def _standing(case: Case) -> None:
    notices = list(case.evidence.retraction_notices)
    if case.identity is not None:
        for r in case.identity.records:
            notices.extend(r.retraction_notices)
    status = combine_retraction_status(notices)
    case.standing, case.retraction = status.kind, status.model_dump(mode="json")


def _conflict_evidence(case: Case) -> None:
    work, cited, f = case.conflict, case.cited, case.findings
    assert work is not None
    a = case.assessments[id(work)]
    f.fields["title"] = FieldEvidence(
        cited=cited.title,
        found=work.primary.title,
        source=work.primary.source,
        similarity=round(a.title_similarity, 4),
        threshold=TITLE_THRESHOLD,
        decisive=True,
        agrees=False,
    )
    if a.authors is not None and a.author_source is not None:
        f.fields["first_author"] = FieldEvidence(
            cited=cited.authors[0].display if cited.authors else None,
            found=a.author_source.authors[0].display if a.author_source.authors else None,
            source=a.author_source.source,
            decisive=True,
            agrees=a.first_author_agrees,
        )


def establish(cited: CitedReference, evidence: Evidence, *, current_year: int) -> Case:
    """Every fact the status table reads."""
    cited = without_edition_statement(cited)
    case = Case(cited=cited, evidence=evidence)
    case.kind = classify_kind(cited)
    case.signals = _fabrication_signals(cited, current_year)
    case.too_recent = cited.year is not None and cited.year >= current_year and not case.has_identifier
    for s in case.signals:
        case.findings.add(s, Severity.MAJOR)
    if case.kind is not None and case.kind.out_of_scope and not case.signals:
        case.web = web_check(cited, evidence)
    if case.insufficient:
        return case
    case.canonical = canonical_facts(cited, evidence)
    if case.canonical is not None:
        # Verified against the canonical text only, never by search (`classical_case`).
        canonical_findings(case.canonical, case.findings)
        if case.canonical.passage is not None:
            case.identity = Work(records=[case.canonical.passage], via={QueryKind.PASSAGE})
        return case
    case.works = group_works(a for a in evidence.answers if a.kind not in OUTSIDE_WORKS)
    case.assessments = {id(w): assess(cited, w) for w in case.works}
    _settle_identifiers(case)
    _search(case)
    if case.kind is not None and case.kind.out_of_scope:
        return case
    # A quote cited from a book, against its page snippets: what the content is, never the status.
    book_quote_findings(cited, evidence, case.identity.records if case.identity else (), case.findings)
    if case.conflict is not None and (case.identity is None or case.via_search):
        if case.identity is None:
            _conflict_evidence(case)
        else:
            f = case.findings
            f.add(case.conflict_reason or Reason.DOI_POINTS_ELSEWHERE)
            # The match is the work found by title; the report must quote the identifier's own.
            other = case.conflict.primary
            f.notes.append(f"{IDENTIFIER_ELSEWHERE_NOTE} {other.source.value}: {other.title or ''}")
            apply_field_rules(
                field_facts(
                    cited,
                    case.assessments[id(case.identity)],
                    via_search=True,
                    venue_answers=case.evidence.answers,
                ),
                f,
            )
            for key, value in (
                ("doi", case.identity.primary.doi),
                ("arxiv_id", case.identity.primary.arxiv_id),
            ):
                if value:
                    f.corrected[key] = value
        return case
    if case.identity is None:
        return case
    identity = case.identity
    apply_field_rules(
        field_facts(
            cited,
            case.assessments[id(identity)],
            via_search=case.via_search,
            venue_answers=case.evidence.answers,
        ),
        case.findings,
    )
    if case.nowhere:
        # A real work cited with an identifier that resolves nowhere: the identifier is invented.
        case.findings.add(Reason.IDENTIFIER_RESOLVES_NOWHERE, Severity.MAJOR, rule="invented_identifier")
        if identity.primary.doi:
            case.findings.corrected["doi"] = identity.primary.doi
    _triangulate(case)
    _standing(case)
    return case
