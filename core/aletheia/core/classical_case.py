"""The facts of a canonical reference (Tier 3) that `decide`'s canonical rows read (pure).

The table of canonical works (`canonical`) says whether the work is known and whether the cited
passage lies inside its structure; the canonical-text service's answer (`QueryKind.PASSAGE`) says
whether the passage was served and what it reads; a quoted excerpt, when the citation gives one
(`quote` or `excerpt` field), is looked for verbatim in that text with the excerpt machinery's
match key (`excerpts.match_key`: whitespace, ligatures, quote marks and dashes folded, nothing
else).
"""

from __future__ import annotations

from dataclasses import dataclass

from aletheia.core.canonical import Resolution, canonical_reference
from aletheia.core.evidence import Evidence, Outcome, QueryKind
from aletheia.core.excerpts import match_key, strip_quote_marks
from aletheia.core.field_evidence import Findings
from aletheia.core.records import CitedReference, WorkRecord
from aletheia.core.verdicts import FieldEvidence, Reason, Severity

__all__ = ["CanonicalFacts", "canonical_facts", "canonical_findings", "cited_quote"]


@dataclass(frozen=True, slots=True)
class CanonicalFacts:
    resolution: Resolution
    outcome: Outcome | None = None  # the passage service's answer; None: not asked
    passage: WorkRecord | None = None
    quote: str | None = None
    quote_found: bool | None = None  # None: no quote cited, or no passage to look in

    @property
    def known(self) -> bool:
        return self.resolution.work is not None

    @property
    def beyond_the_work(self) -> bool:
        return self.resolution.in_range is False


def cited_quote(cited: CitedReference) -> str | None:
    for name in ("quote", "excerpt", "quotation"):
        value = cited.fields.get(name)
        if value and value.strip():
            return strip_quote_marks(value.strip())
    return None


def canonical_facts(cited: CitedReference, evidence: Evidence) -> CanonicalFacts | None:
    """None when the reference is not a canonical one (`canonical.canonical_reference`)."""
    resolution = canonical_reference(cited)
    if resolution is None:
        return None
    answers = evidence.for_kind(QueryKind.PASSAGE)
    found = next((a for a in answers if a.outcome is Outcome.FOUND and a.records), None)
    outcome = (
        Outcome.FOUND
        if found
        else Outcome.FAILED
        if any(a.outcome is Outcome.FAILED for a in answers)
        else Outcome.NOT_FOUND
        if answers
        else None
    )
    passage = found.records[0] if found else None
    quote = cited_quote(cited)
    quote_found = None
    if quote and passage is not None and passage.abstract:
        quote_found = match_key(quote) in match_key(passage.abstract)
    return CanonicalFacts(resolution, outcome, passage, quote, quote_found)


def canonical_findings(facts: CanonicalFacts, f: Findings) -> None:
    """The per-field evidence of a canonical reference: the passage against the work's structure
    (a passage beyond it is a major error, the structure its evidence), and the quote."""
    r = facts.resolution
    work = r.work
    f.notes.append(
        f"canonical: {r.ref.work} {r.ref.locus_text}"
        + (f" = {work.id} ({work.service})" if work else " (work not in the table)")
        + f"; {r.why}"
    )
    if work is not None:
        f.fields["passage"] = FieldEvidence(
            cited=r.ref.text or r.ref.locus_text,
            found=r.why,
            source=facts.passage.source if facts.passage else None,
            decisive=True,
            agrees=r.in_range,
        )
    if facts.beyond_the_work:
        f.add(Reason.PASSAGE_OUT_OF_RANGE, Severity.MAJOR)
    if facts.quote_found is not None:
        f.fields["quote"] = FieldEvidence(
            cited=facts.quote,
            found=facts.passage.abstract[:500] if facts.passage and facts.passage.abstract else None,
            source=facts.passage.source if facts.passage else None,
            decisive=True,
            agrees=facts.quote_found,
        )
        if facts.quote_found:
            f.add(Reason.QUOTE_IN_PASSAGE)
