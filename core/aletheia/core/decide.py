"""From what the sources said to a verdict: the rules of docs/verdicts.md, as two tables.

`decide(cited, evidence, current_year=...)` never performs I/O. It first establishes the facts of
the case (`Case`): positive evidence of invention, what kind of work is cited, the works the
sources' records form (`works.group_works`), which work the cited identifiers name and whether
they point elsewhere, what the searches found and whether every source that could hold the work
was searched (`coverage.search_coverage`). Then two tables decide:

- `STATUS_RULES` (`status_rules`): ordered rows, the first whose condition holds gives the status
  and its reason;
- `FIELD_RULES` (`field_rules`): for a work that exists, every row whose condition holds adds a
  reason with its severity (major flags, minor reports).

Each row names the test that pins it; docs/verdicts.md lists the rows by name and a test checks
the two agree. Two principles hold every row in place. Default-deny: `verified` needs a source
that answered and matched; what could not be checked is `unverifiable`, never `not_found`. And the
mirror rule: an accusation needs positive evidence: `not_found` only after every source that
could hold the work answered, `fabricated` only on a sign of invention, a flag only on a field a
source contradicts.
"""

from __future__ import annotations

from aletheia.core.case import establish
from aletheia.core.case_facts import Case
from aletheia.core.coverage import search_coverage
from aletheia.core.evidence import NOT_EVIDENCE, Evidence, Outcome, QueryKind
from aletheia.core.identifiers import clean_doi
from aletheia.core.records import CitedReference, RetractionKind, SourceName, WorkRecord
from aletheia.core.status_rules import StatusRule, first_rule
from aletheia.core.verdicts import Reason, Severity, Verdict, VerdictStatus
from aletheia.core.web import WebState, trail_notes, web_findings
from aletheia.core.works import Work

__all__ = ["decide"]


def _p_valid(status: VerdictStatus, severity: Severity | None, triangulated: bool) -> float | None:
    if status is VerdictStatus.VERIFIED:
        return 0.99 if triangulated else 0.95
    if status is VerdictStatus.METADATA_ERROR:
        return 0.75 if severity is Severity.MINOR else 0.30
    return {
        VerdictStatus.IDENTIFIER_CONFLICT: 0.15,
        VerdictStatus.RETRACTED: 0.05,
        VerdictStatus.AMBIGUOUS: 0.5,
        VerdictStatus.NOT_FOUND: 0.05,
        VerdictStatus.FABRICATED: 0.01,
    }.get(status)


def decide(cited: CitedReference, evidence: Evidence, *, current_year: int) -> Verdict:
    case = establish(cited, evidence, current_year=current_year)
    rule = first_rule(case)
    f = case.findings
    web_page = _record_rule(case, rule, cited, evidence)
    status = rule.status
    matched = _matched_work(case, status)
    identity = case.identity
    if identity is not None and status not in (VerdictStatus.OUT_OF_SCOPE,):
        _identity_findings(identity, case, cited, status)
    # Every source that failed a question, even one it answered another: its failed search can be
    # what leaves the reference unverifiable, and the report must name it.
    # (A web search or an LLM that was skipped or failed is not evidence, and not a failed source.)
    failed = tuple(
        dict.fromkeys(
            a.source for a in evidence.answers if a.outcome is Outcome.FAILED and a.kind not in NOT_EVIDENCE
        )
    )
    if failed:
        f.add(Reason.SOURCE_UNAVAILABLE)
    severity = None
    if status is VerdictStatus.METADATA_ERROR:
        severity = Severity.MAJOR if f.major else Severity.MINOR
    f.notes.extend(trail_notes(evidence))  # web search and LLM suggestion: said, never weighed
    f.notes.append("rules: " + ", ".join(f.rules))
    return Verdict(
        status=status,
        severity=severity,
        reasons=tuple(f.reasons),
        fields=f.fields,
        match=matched.primary if matched is not None else web_page,
        secondary=case.secondary if identity is not None else None,
        retraction=case.retraction if identity is not None else {},
        corrected=f.corrected,
        p_valid=_p_valid(status, severity, case.triangulated),
        sources_consulted=evidence.sources_consulted,
        sources_unavailable=failed,
        notes=tuple(f.notes),
        mirror=evidence.mirror_snapshots,
    )


def _record_rule(
    case: Case, rule: StatusRule, cited: CitedReference, evidence: Evidence
) -> WorkRecord | None:
    """The first rule's reason and notes in the findings (and the fetched page's, for the web
    rows); returns that page, shown as the match, never a scholarly record (`core.web`)."""
    f = case.findings
    if rule.reason is not None:
        f.add(rule.reason)
    if rule.status is VerdictStatus.OUT_OF_SCOPE and case.kind is not None:
        f.notes.append(f"kind: {case.kind.name} ({case.kind.why})")
    web_page = web_findings(case.cited, case.web, f) if case.web.state is not WebState.NOT_ASKED else None
    if rule.reason is Reason.UNINDEXED_KIND and case.kind is not None:
        f.notes.append(f"kind: {case.kind.name} ({case.kind.why}); the indexes hold such works only in part")
    if rule.name == "not_a_kind_the_indexes_hold" and case.kind is not None:
        f.notes.append(f"kind: {case.kind.name} ({case.kind.why})")  # read by the reports' "kind"
        f.notes.append("not a kind of work the scholarly indexes hold; check by hand")
    if rule.reason is Reason.SEARCH_INCOMPLETE:
        asked = {a.source for a in evidence.for_kind(QueryKind.SEARCH) if a.outcome is not Outcome.FAILED}
        missing = [s.value for s in search_coverage(cited) if s not in asked]
        f.notes.append(f"not searched: {', '.join(missing)}")
    f.rules.insert(0, rule.name)
    return web_page


def _matched_work(case: Case, status: VerdictStatus) -> Work | None:
    """The work the verdict shows as the match: none for a reference not found or not checked."""
    matched = case.identity if case.identity is not None else case.conflict
    if status in (VerdictStatus.OUT_OF_SCOPE, VerdictStatus.UNVERIFIABLE, VerdictStatus.NOT_FOUND):
        matched = None
    if status is VerdictStatus.FABRICATED and case.identity is None and case.conflict is None:
        matched = None
    return matched


def _identity_findings(identity: Work, case: Case, cited: CitedReference, status: VerdictStatus) -> None:
    """What the matched work's standing and records add: a concern or correction, a hit only in
    the user's library, and its DOI as a correction where the reference has none."""
    f = case.findings
    if case.standing is RetractionKind.EXPRESSION_OF_CONCERN:
        f.add(Reason.EXPRESSION_OF_CONCERN)
    elif case.standing is RetractionKind.CORRECTED:
        f.add(Reason.CORRECTED)
    if QueryKind.LIBRARY in identity.via and identity.sources == (SourceName.LIBRARY,):
        f.add(Reason.LIBRARY_HIT)
    doi = clean_doi(identity.primary.doi) if identity.primary.doi else None
    if doi and status is not VerdictStatus.VERIFIED and "doi" not in f.corrected and not cited.doi:
        f.corrected.setdefault("doi", doi)
