"""Published or not, from the sources (issue 21): which records say a work appeared at a venue,
which are its preprint only, and when the preprint-only answer is positive evidence.

A venue cited for a work whose only visible record is arXiv's is "unconfirmed" (minor): arXiv
records the preprint by definition, and another source may simply not have been asked. When the
witnesses that would show a published version (`preprint_witnesses`) all show the preprint only,
"cited as published" is contradicted, not merely unconfirmed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from aletheia.core.arxiv_ids import arxiv_id_from_doi
from aletheia.core.evidence import QueryKind, SourceAnswer
from aletheia.core.records import SourceName, WorkRecord
from aletheia.core.venues import is_no_venue_claim


def preprint_record(r: WorkRecord) -> bool:
    """A preprint, or a record whose only venue is a preprint server (Semantic Scholar lists an
    arXiv-only paper with venue "arXiv.org" and no preprint type): no evidence of publication."""
    if r.is_preprint:
        return True
    registered_doi = bool(r.doi) and arxiv_id_from_doi(r.doi or "") is None
    return bool(r.venue) and is_no_venue_claim(r.venue) and not registered_doi and not r.related_dois


def places_published(r: WorkRecord) -> bool:
    """The record positively says the work appeared somewhere beyond a preprint server."""
    if not preprint_record(r) and r.venue and not is_no_venue_claim(r.venue):
        return True
    if r.published_venue and not is_no_venue_claim(r.published_venue):
        return True
    if r.dblp_key and not r.dblp_key.startswith("journals/corr"):
        return True
    return bool(r.related_dois)


# A venue cited for a preprint: "published" is contradicted only by witnesses that would show a
# published version if there were one. Semantic Scholar merges a paper's versions into one record
# (its `publicationVenue`/`journal` name the published one); the other indexes keep versions apart
# (OpenAlex has a work for the arXiv copy and one for the proceedings paper), so only a *title
# search* of theirs that finds the preprint and nothing published is a witness. For a computing
# venue DBLP is the index of record: its title search must be among the witnesses.
MERGED_VERSIONS_SOURCE: Final = SourceName.SEMANTIC_SCHOLAR
TITLE_SEARCH_WITNESSES: Final = frozenset({SourceName.DBLP, SourceName.OPENALEX, SourceName.CROSSREF})
PUBLICATION_RECORDERS: Final = TITLE_SEARCH_WITNESSES | {MERGED_VERSIONS_SOURCE}
SOURCES_TO_SETTLE_PREPRINT_ONLY: Final = 2


def preprint_witnesses(
    records: Sequence[WorkRecord], answers: Sequence[SourceAnswer]
) -> tuple[SourceName, ...]:
    """The sources that positively show the work as a preprint only (see above); empty as soon as
    one record of the work places it anywhere."""
    if any(places_published(r) for r in records):
        return ()
    witnesses: dict[SourceName, None] = {}
    if any(r.source is MERGED_VERSIONS_SOURCE and preprint_record(r) for r in records):
        witnesses[MERGED_VERSIONS_SOURCE] = None
    for a in answers:
        if a.kind is not QueryKind.SEARCH or a.source not in TITLE_SEARCH_WITNESSES:
            continue
        mine = [r for r in a.records if r in records]
        if mine and all(preprint_record(r) for r in mine):
            witnesses.setdefault(a.source, None)
    return tuple(witnesses)


def preprint_only_settled(witnesses: Sequence[SourceName], *, computing_venue: bool) -> bool:
    """Enough witnesses: Semantic Scholar's merged record and a title search, DBLP's for a
    computing venue."""
    return (
        MERGED_VERSIONS_SOURCE in witnesses
        and len(witnesses) >= SOURCES_TO_SETTLE_PREPRINT_ONLY
        and (not computing_venue or SourceName.DBLP in witnesses)
    )
