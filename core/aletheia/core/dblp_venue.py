"""A DBLP key confirms a venue (issue 12). Pure.

DBLP files every paper under the stream of its venue ("conf/nips/...", "journals/tmlr/..."), and
its record names that venue. When the work's DBLP record (not its CoRR copy, "journals/corr/...")
names a venue the cited venue agrees with, and no other source gives the work another DBLP key,
the cited venue is positively confirmed: the `venue_confirmed_by_dblp` row of `FIELD_RULES`.

`dblp_key_to_confirm` says when the pipeline fetches that record (`/rec/{key}.xml`) although no
DBLP search was needed: only to settle a venue doubt the other sources left.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from aletheia.core.evidence import Outcome, SourceAnswer
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.core.venues import VenueRelation, canonical_venue, is_no_venue_claim, venue_relation
from aletheia.core.verdicts import Reason, Verdict
from aletheia.core.works import same_work

CORR_PREFIX: Final = "journals/corr/"


def venue_confirmed_by_dblp(cited: CitedReference, records: Sequence[WorkRecord]) -> bool:
    if is_no_venue_claim(cited.venue):
        return False
    dblp = [
        r
        for r in records
        if r.source is SourceName.DBLP and r.dblp_key and not r.dblp_key.startswith(CORR_PREFIX) and r.venue
    ]
    if not dblp:
        return False
    keys = {r.dblp_key for r in dblp}
    # Another source's DBLP key for the work (Semantic Scholar's `externalIds.DBLP`) must be the same.
    others = {r.dblp_key for r in records if r.source is not SourceName.DBLP and r.dblp_key}
    if others - keys - {k for k in others if k and k.startswith(CORR_PREFIX)}:
        return False
    names = [name for r in dblp for name in (r.venue, *r.other_venues) if name]
    return venue_relation(cited.venue, names) is VenueRelation.AGREES


# A verdict with one of these has a cited venue no source has confirmed yet.
VENUE_DOUBTS: Final = frozenset(
    {Reason.VENUE_UNRESOLVED, Reason.VENUE_FORM, Reason.PUBLISHED_VERSION_UNCONFIRMED}
)


def dblp_key_to_confirm(
    cited: CitedReference, verdict: Verdict, answers: Sequence[SourceAnswer]
) -> str | None:
    """The DBLP key whose record could confirm the cited venue, or None.

    Only when the verdict doubts the venue, a source (Semantic Scholar's `externalIds.DBLP`) files
    the matched work under a DBLP key, and that key's stream is the cited venue ("conf/iclr/..." for
    a paper cited at ICLR): the record can then only confirm it, never name another venue. Not when
    DBLP has already answered for the work."""
    match = verdict.match
    if match is None or not VENUE_DOUBTS & set(verdict.reasons) or is_no_venue_claim(cited.venue):
        return None
    wanted = canonical_venue(cited.venue)
    if wanted is None:
        return None
    records = [r for a in answers if a.outcome is Outcome.FOUND for r in a.records]
    if any(r.source is SourceName.DBLP and same_work(r, match) for r in records):
        return None
    for record in records:
        key = record.dblp_key
        if not key or key.startswith(CORR_PREFIX) or not (record is match or same_work(record, match)):
            continue
        parts = key.split("/")
        if len(parts) == 3 and canonical_venue(parts[1]) == wanted:
            return key
    return None
