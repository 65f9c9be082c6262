"""Per-field evidence of a verdict: the `Findings` a decision gathers (reasons, severities, field
evidence, corrections, notes, the rows that fired) and `record_field_evidence`, which writes what
each cited field was compared with. Split from `field_rules` (the table) so that the table stays a
page a reviewer reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aletheia.core.author_lists import AuthorComparison
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.core.titles import TITLE_THRESHOLD
from aletheia.core.venue_registry import UNSETTLED, VenueFinding
from aletheia.core.venues import VenueRelation, is_no_venue_claim, venue_similarity
from aletheia.core.verdicts import FieldEvidence, Reason, Severity
from aletheia.core.works import Assessment, work_years


@dataclass
class FieldFacts:
    """What the comparison of one citation with one work found, field by field."""

    cited: CitedReference
    assessment: Assessment
    via_search: bool
    title_agrees: bool | None = None
    title_changed_between_versions: bool = False
    title_cut_short: bool = False
    title_misspelled: bool = False  # the same words, one misspelt (`title_spelling`)
    authors: AuthorComparison | None = None
    authors_agree_somewhere: bool = False
    sources_lacking_cited_authors: int = 0
    # Sources whose list holds every cited author in order plus co-authors the citation left out.
    sources_listing_omitted: int = 0
    year_agrees: bool | None = None
    year_off_by_one: bool = False
    # Later than every year the sources give, for a published version none of them shows.
    year_of_unseen_version: bool = False
    # Independent lineages whose author list has the cited co-authors in another order
    # (Crossref and OpenAlex of one DOI are one: `author_order.DEPOSIT_LINEAGE`).
    lineages_reordering: int = 0
    arxiv_version_ahead: bool = False
    venue: VenueRelation | None = None
    venue_similarity: float = 0.0
    # Every name the sources give the work's venue (`venue_names`), read once per reference.
    venue_names: tuple[str, ...] = ()
    published_visible: bool = False
    preprint_visible: bool = False  # some record is the preprint (not merely a record without venue)
    book_edition: bool = False  # the work is a book: its years are editions' years (`book_rules`)
    publisher_agrees: bool | None = None  # the cited publisher against the sources' (books)
    venue_confirmed_by_dblp: bool = False  # DBLP's record under the work's key names the cited venue
    # What the venue registries say about the cited venue (`core.venue_registry`): known, unknown
    # (no registry holds it under any name: invented), or unsettled.
    venue_finding: VenueFinding = UNSETTLED
    # The witnesses that show the work as a preprint only (`core.publication`): Semantic Scholar's
    # merged record and title searches; enough of them contradict "published" positively.
    preprint_witnesses: tuple[SourceName, ...] = ()
    computing_venue: bool = False  # the cited venue is a computing one (DBLP must witness)
    orcid_conflict: bool = False  # two sources give one author position different ORCID iDs
    # Every record of the work comes from a source below the decisive trust level (`core.trust`):
    # a web page, a search hit, model output. Such evidence is reported, never decisive.
    low_trust_only: bool = False

    @property
    def title_similarity(self) -> float:
        return self.assessment.title_similarity


@dataclass
class Findings:
    """Reasons, severities, per-field evidence and corrections gathered for one verdict."""

    reasons: list[Reason] = field(default_factory=list)
    major: bool = False
    minor: bool = False
    fields: dict[str, FieldEvidence] = field(default_factory=dict)
    corrected: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)  # the names of the rows that fired

    def add(self, reason: Reason, severity: Severity | None = None, *, rule: str | None = None) -> None:
        if reason not in self.reasons:
            self.reasons.append(reason)
        if severity is Severity.MAJOR:
            self.major = True
        elif severity is Severity.MINOR:
            self.minor = True
        if rule and rule not in self.rules:
            self.rules.append(rule)


def omits_coauthors(c: AuthorComparison) -> bool:
    """Every cited author is in the source's list, in order, but some of the source's are not
    cited (and the citation does not say "et al."): an incomplete list that is not a cut tail."""
    return (
        bool(c.missing)
        and not c.truncated
        and not c.extra
        and not c.swapped
        and c.first_author_agrees is True
    )


def venue_names(records: list[WorkRecord]) -> list[str]:
    """Every name the sources give for the work's venue, published ones first."""
    names: list[str] = []
    for r in records:
        for name in (r.published_venue, r.venue, *r.venue_aliases, *r.other_venues):
            if name and not is_no_venue_claim(name) and name not in names:
                names.append(name)
    return names


def record_field_evidence(facts: FieldFacts, f: Findings) -> None:
    """Per-field evidence (cited value, found value, source, similarity, threshold) and the
    corrections a reviewer can apply, for every field the citation gives."""
    _title_evidence(facts, f)
    _author_evidence(facts, f)
    _year_evidence(facts, f)
    _identifier_evidence(facts, f)
    _venue_evidence(facts, f)


def _title_evidence(facts: FieldFacts, f: Findings) -> None:
    cited, a = facts.cited, facts.assessment
    primary = a.work.primary
    src = primary.source
    if cited.title:
        f.fields["title"] = FieldEvidence(
            cited=cited.title,
            found=a.best_title or primary.title,
            source=src,
            similarity=round(a.title_similarity, 4),
            threshold=TITLE_THRESHOLD,
            decisive=True,
            agrees=facts.title_agrees,
        )
        if facts.title_agrees is False:
            f.corrected["title"] = a.best_title or primary.title


def _author_evidence(facts: FieldFacts, f: Findings) -> None:
    """The first author and the whole list against the source the authors were compared with."""
    cited, a = facts.cited, facts.assessment
    if a.authors is not None and a.author_source is not None:
        c = a.authors
        found_authors = [x.display for x in a.author_source.authors]
        f.fields["first_author"] = FieldEvidence(
            cited=cited.authors[0].display,
            found=found_authors[0] if found_authors else None,
            source=a.author_source.source,
            decisive=True,
            agrees=c.first_author_agrees,
        )
        list_agrees = facts.authors_agree_somewhere or not (
            c.swapped or c.extra or c.truncated or c.missing_trailing or omits_coauthors(c)
        )
        f.fields["authors"] = FieldEvidence(
            cited=[x.display for x in cited.authors],
            found=found_authors,
            source=a.author_source.source,
            similarity=round(c.similarity, 4),
            decisive=False,
            agrees=list_agrees,
        )
        if not list_agrees and f.major:
            f.corrected["authors"] = found_authors
    if a.alphabetical and cited.authors:
        listed_by = ", ".join(dict.fromkeys(r.source.value for r in a.alphabetical))
        f.notes.append(f"authors of {listed_by} listed alphabetically: not read for order or first author")


def _year_evidence(facts: FieldFacts, f: Findings) -> None:
    cited, a = facts.cited, facts.assessment
    work, primary = a.work, a.work.primary
    src = primary.source
    years = sorted(work_years(work))
    if cited.year is not None and years:
        closest = min(years, key=lambda y: abs(y - (cited.year or 0)))
        f.fields["year"] = FieldEvidence(
            cited=cited.year,
            found=cited.year if facts.year_agrees else closest,
            source=src,
            decisive=True,
            agrees=facts.year_agrees,
        )
        if facts.year_agrees is False:
            f.corrected["year"] = primary.year if primary.year is not None else closest


def _identifier_evidence(facts: FieldFacts, f: Findings) -> None:
    """The cited DOI and arXiv id against the work's."""
    cited, a = facts.cited, facts.assessment
    work, primary = a.work, a.work.primary
    src = primary.source
    if cited.doi:
        dois = work.dois()
        agrees_doi = work.has_doi(cited.doi) if dois else None
        f.fields["doi"] = FieldEvidence(
            cited=cited.doi,
            found=primary.doi or (sorted(dois)[0] if dois else None),
            source=src,
            decisive=True,
            agrees=agrees_doi,
        )
        if agrees_doi is False:
            f.corrected["doi"] = primary.doi
    if cited.arxiv_id:
        ids = work.arxiv_ids()
        f.fields["arxiv_id"] = FieldEvidence(
            cited=cited.arxiv_id,
            found=next(iter(sorted(ids)), None),
            source=src,
            decisive=True,
            agrees=cited.arxiv_id in ids if ids else None,
        )


def _venue_evidence(facts: FieldFacts, f: Findings) -> None:
    cited = facts.cited
    src = facts.assessment.work.primary.source
    if facts.venue is not None and facts.venue is not VenueRelation.NOT_COMPARABLE:
        names = facts.venue_names
        best = max(names, key=lambda n: venue_similarity(cited.venue or "", n)) if names else None
        agrees = facts.venue is VenueRelation.AGREES
        f.fields["venue"] = FieldEvidence(
            cited=cited.venue,
            found=best,
            source=src,
            similarity=round(facts.venue_similarity, 4),
            decisive=False,
            agrees=agrees,
        )
        if facts.venue is VenueRelation.OTHER_KNOWN_VENUE and best:
            f.corrected["venue"] = best
    elif facts.venue is not None and facts.preprint_visible and not facts.published_visible:
        f.fields["venue"] = FieldEvidence(
            cited=cited.venue,
            found="arXiv (no published version visible)",
            source=src,
            decisive=False,
            agrees=None,
        )
