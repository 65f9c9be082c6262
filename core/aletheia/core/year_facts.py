"""The year a reference cites against the dates its work's records show (field rules' year facts).

A cited year agrees when a record, a date a source gives, the sources' name of the cited venue, or
the new-style arXiv id (its `YYMM` dates the first version) has it. One year off is minor only
with evidence or where the evidence is out of sight (issue 21): the cited year is the year of
another date a source gives, or versions or dates exist that no record here shows; issue 28 adds
the venue's year one after a first appearance no venue-dating source contradicts, and a published
version's year later than every preprint year when only the preprint is in view. Otherwise every
version and date is in view and none has the cited year: wrong (Watson and Crick as 1952).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from aletheia.core.arxiv_ids import arxiv_id_from_doi
from aletheia.core.arxiv_versions import arxiv_id_years
from aletheia.core.cs_scope import is_computing_venue
from aletheia.core.field_evidence import FieldFacts
from aletheia.core.records import CitedReference, SourceName
from aletheia.core.venues import VenueRelation, is_no_venue_claim, venue_years
from aletheia.core.works import work_years

__all__ = ["settle_years"]


def settle_years(facts: FieldFacts, names: Sequence[str]) -> None:
    """Set `year_agrees`, `year_off_by_one` and `year_of_unseen_version` on `facts`."""
    cited, work = facts.cited, facts.assessment.work
    years = work_years(work) | arxiv_id_years(work.arxiv_ids())
    if cited.year is not None and years:
        # The year of the version cited: a year the sources' name of the cited venue gives agrees
        # ("... Learning Representations, San Diego, 2015" on Adam's arXiv preprint of 2014).
        facts.year_agrees = cited.year in years or cited.year in venue_years(cited.venue, names)
        closest = min(years, key=lambda y: abs(y - (cited.year or 0)))
        # One year off is minor only with evidence or where the evidence is out of sight (issue
        # 21): the cited year is the year of another date a source gives (a later arXiv version,
        # Crossref's print date after online: `other_years`), or versions or dates exist that no
        # record here shows (`_dates_unseen`). Otherwise every version and date is in view and
        # none has the cited year: wrong (Watson and Crick as 1952), not a tolerance.
        version_years = {y for r in work.records for y in r.other_years}
        facts.year_off_by_one = (
            not facts.year_agrees
            and abs(closest - cited.year) == 1
            and (
                cited.year in version_years
                or _dates_unseen(facts)
                or (cited.year == closest + 1 and _venue_date_unseen(facts))
            )
        )
        facts.year_of_unseen_version = (
            not facts.year_agrees
            and not facts.year_off_by_one
            and cited.year > max(years)
            and facts.venue is not None
            and facts.venue is not VenueRelation.AGREES
            and not facts.published_visible
            and facts.preprint_visible
        )


def _dates_unseen(facts: FieldFacts) -> bool:
    """Versions or dates of the work exist that no record here shows: a preprint the citation or
    the field makes plausible with no preprint record among them, the version at the cited venue
    when no record names that venue, a version the sources link to (a related DOI or arXiv id)
    not fetched, or a registered DOI whose Crossref dates were not read."""
    cited, records = facts.cited, facts.assessment.work.records
    if _preprint_plausible(cited, facts.venue_names) and not any(
        r.source is SourceName.ARXIV or r.is_preprint for r in records
    ):
        return True
    # A venue is cited and no record shows the version that appeared there: its date is out of
    # sight (an ICLR 2025 paper whose records are its 2024 preprint; a journal article whose
    # records are its preprint and a repository copy).
    if facts.venue is not None and facts.venue is not VenueRelation.AGREES:
        return True
    fetched_dois = {r.doi.casefold() for r in records if r.doi}
    if any(d.casefold() not in fetched_dois for r in records for d in r.related_dois):
        return True
    fetched_arxiv = {r.arxiv_id for r in records if r.arxiv_id and r.source is SourceName.ARXIV}
    if any(i not in fetched_arxiv for r in records for i in r.related_arxiv_ids):
        return True
    registered = any(r.doi and arxiv_id_from_doi(r.doi) is None for r in records)
    return registered and not any(r.source is SourceName.CROSSREF and r.year is not None for r in records)


# Sources whose year is the date of the version at the venue (a deposit, a proceedings or a
# journal's index); Semantic Scholar, OpenAlex and arXiv often give the first appearance instead.
_VENUE_DATING_SOURCES: Final = frozenset(
    {SourceName.CROSSREF, SourceName.DBLP, SourceName.ACL_ANTHOLOGY, SourceName.PUBMED}
)


def _venue_date_unseen(facts: FieldFacts) -> bool:
    """The cited venue is the one the sources name, and no source that dates the version
    published there gave a year: the year one after the sources' is the venue's, out of sight
    (issue 28: "Quantifying memorization across neural language models", ICLR 2023, whose Semantic
    Scholar and OpenAlex records give 2022, its first appearance, with venue ICLR)."""
    return facts.venue is VenueRelation.AGREES and not any(
        r.source in _VENUE_DATING_SOURCES and r.year is not None for r in facts.assessment.work.records
    )


def _preprint_plausible(cited: CitedReference, names: Sequence[str]) -> bool:
    """A preprint the sources do not list is the likely version of a year cited one early: the
    citation names a preprint ("arXiv preprint", an arXiv id), or the work is computing's, a field
    that posts preprints before the proceedings (Adam cited 2014, OpenAlex's ICLR record 2015)."""
    if cited.arxiv_id or (cited.venue and cited.venue.strip() and is_no_venue_claim(cited.venue)):
        return True
    return any(is_computing_venue(n) for n in (cited.venue or "", *names) if n)
