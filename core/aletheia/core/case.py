"""Establishing the facts of one case (`case_facts.Case`): what `decide`'s status table reads.

`establish` groups the sources' records into works, settles which work the cited identifiers name
(and whether they point elsewhere or nowhere: `case_identifiers`), runs the search stage only when
no identifier settled it and checks that every source that could hold the work was searched
(`case_search`), applies the field rules to the matched work, triangulates it and reads its
standing. No rule decides a status here.
"""

from __future__ import annotations

from typing import Final

from aletheia.core.author_kinds import people_and_groups
from aletheia.core.author_order import alphabetical_records
from aletheia.core.authors import has_placeholder_authors
from aletheia.core.book_quotes import book_quote_findings
from aletheia.core.book_rules import is_book_record, without_edition_statement
from aletheia.core.case_facts import Case
from aletheia.core.case_identifiers import settle_identifiers
from aletheia.core.case_search import search_stage
from aletheia.core.classical_case import canonical_facts, canonical_findings
from aletheia.core.evidence import OUTSIDE_WORKS, Evidence, QueryKind
from aletheia.core.field_comparison import field_facts
from aletheia.core.field_rules import apply_field_rules
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.core.retraction import combine_retraction_status
from aletheia.core.titles import TITLE_THRESHOLD, is_placeholder_title
from aletheia.core.triangulate import triangulate
from aletheia.core.verdicts import FieldEvidence, Reason, Severity
from aletheia.core.web import web_check
from aletheia.core.work_kinds import classify_kind
from aletheia.core.works import Work, assess, group_works

__all__ = ["IDENTIFIER_ELSEWHERE_NOTE", "establish"]

# Years beyond this many years from now are invented (accepted papers are cited "to appear").
FUTURE_YEAR_MARGIN: Final = 1


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
    settle_identifiers(case)
    search_stage(case)
    if case.kind is not None and case.kind.out_of_scope:
        return case
    # A quote cited from a book, against its page snippets: what the content is, never the status.
    book_quote_findings(cited, evidence, case.identity.records if case.identity else (), case.findings)
    if case.conflict is not None and (case.identity is None or case.via_search):
        _identifier_names_another_work(case)
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


def _identifier_names_another_work(case: Case) -> None:
    """A cited identifier names another work than the one the search matched (or than none)."""
    conflict, cited, f = case.conflict, case.cited, case.findings
    assert conflict is not None
    if case.identity is None:
        _conflict_evidence(case)
        return
    f.add(case.conflict_reason or Reason.DOI_POINTS_ELSEWHERE)
    # The match is the work found by title; the report must quote the identifier's own.
    other = conflict.primary
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
