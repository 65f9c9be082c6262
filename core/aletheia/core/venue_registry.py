"""The venue registries' answers read as evidence (issue 21): does the cited venue exist at all,
and which venue is it.

Before this, a venue that no source of the *work* names stayed `venue_unresolved` (minor): "I do
not know this venue" is no evidence that it does not exist. The registries make it evidence. A
registry (OpenAlex sources, DBLP venues, Crossref journals) is asked once per distinct venue name
(`registry_query`) and its answer kept for long; `venue_standing` reads the answers:

- KNOWN: a registry holds the cited venue under one of its names (display name, alternate
  titles, ISO-4 abbreviation, acronym, or the same ISSN), or the shipped alias table knows it;
- UNKNOWN: every registry of `VENUE_REGISTRIES` answered, none failed, and none holds it under
  any name. That is positive evidence of an invented venue (`nonexistent_venue`);
- UNSETTLED: not asked, a registry failed, or the name is not one a registry could settle (a
  workshop of a known conference, a publisher, a book series, a platform).

A registry's search is fuzzy (it returns venues *like* the name); only a name that resolves to the
cited one under the same comparison as the work's own venue names (`venues.venue_relation`)
counts, so "Symposium on Neural Scaling Laws" is not "Neural Networks".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from aletheia.core.evidence import Outcome, QueryKind, SourceAnswer, VenueRecord
from aletheia.core.identifiers import clean_issn
from aletheia.core.records import SourceName
from aletheia.core.text import fold
from aletheia.core.venues import (
    VenueRelation,
    book_series_key,
    canonical_venue,
    is_no_venue_claim,
    is_platform,
    is_publisher,
    venue_relation,
)

# The registries asked for a venue name; every one must answer before silence is evidence.
VENUE_REGISTRIES: Final = (SourceName.OPENALEX, SourceName.DBLP, SourceName.CROSSREF)

# A side event of a conference ("NeurIPS 2023 Workshop on ...") is in no registry under its own
# name, while the conference is: the registry cannot settle it.
_SIDE_EVENT = re.compile(
    r"(?<![a-z])(?:workshops?|companion|tutorials?|demos?|doctoral consortium|student research|"
    r"posters?|extended abstracts?|track|challenge|competition|shared task)(?![a-z])"
)
# Words of a venue string that are not its name ("In", "Proceedings of the", edition, year).
_LEAD = re.compile(r"^(?:in\s+)?(?:proc(?:eedings|\.)?\s+(?:of\s+)?(?:the\s+)?)?", re.IGNORECASE)
_NOISE = re.compile(
    r"\b(?:19|20)\d\d\b|\b\d+(?:st|nd|rd|th)\b|\b(?:vol(?:ume)?|no|pp)\.?\s*\d+\b|\(\s*\)|\s+",
    re.IGNORECASE,
)
_MIN_QUERY_LETTERS: Final = 3


class VenueStanding(StrEnum):
    KNOWN = "known"
    UNKNOWN = "unknown"
    UNSETTLED = "unsettled"


@dataclass(frozen=True, slots=True)
class VenueFinding:
    """What the registries say about one cited venue."""

    standing: VenueStanding
    # The registry entries that hold the cited venue (KNOWN), for the report and the rules.
    entries: tuple[VenueRecord, ...] = ()
    asked: tuple[SourceName, ...] = ()
    answered: tuple[SourceName, ...] = ()
    known_by_table: bool = False  # the shipped alias table knows it (no registry asked)

    @property
    def names(self) -> tuple[str, ...]:
        """Every name the registries give the cited venue."""
        out: dict[str, None] = {}
        for e in self.entries:
            for n in e.names:
                out.setdefault(n, None)
        return tuple(out)


UNSETTLED: Final = VenueFinding(VenueStanding.UNSETTLED)


def _has_letters(text: str) -> bool:
    return sum(ch.isalpha() for ch in text) >= _MIN_QUERY_LETTERS


def registry_query(cited_venue: str | None) -> str | None:
    """The name to ask the registries for, or None when no registry could settle this string:
    no venue claim (arXiv, empty), a publisher, a book series, a platform, a side event of a
    conference, or a name the shipped alias table already knows (no request needed)."""
    if cited_venue is None or is_no_venue_claim(cited_venue) or is_publisher(cited_venue):
        return None
    if book_series_key(cited_venue) is not None or is_platform(cited_venue):
        return None
    if canonical_venue(cited_venue) is not None:
        return None
    if _SIDE_EVENT.search(fold(cited_venue)) and _names_a_known_host(cited_venue):
        return None
    name = _NOISE.sub(" ", _LEAD.sub("", cited_venue.strip())).strip(" ,.;:")
    return name if _has_letters(name) else None


def _names_a_known_host(venue: str) -> bool:
    """A side event that names its host conference ("NeurIPS 2023 Workshop on ..."): the host
    is known, the event itself is in no registry. A workshop naming no known host is asked."""
    return canonical_venue(_SIDE_EVENT.sub(" ", fold(venue))) is not None


def known_by_table(cited_venue: str | None) -> bool:
    """The shipped alias table knows the cited venue (ICML, NeurIPS, "J. Mach. Learn. Res.")."""
    return cited_venue is not None and canonical_venue(cited_venue) is not None


def holds(entry: VenueRecord, cited_venue: str, cited_issns: Iterable[str] = ()) -> bool:
    """The registry entry is the cited venue: one of its names resolves to the cited string under
    the comparison used for the work's own venue names, or they share an ISSN."""
    issns = {clean_issn(i) for i in entry.issn} - {None}
    if issns and issns & ({clean_issn(i) for i in cited_issns} - {None}):
        return True
    return venue_relation(cited_venue, list(entry.names)) is VenueRelation.AGREES


def venue_answers(answers: Sequence[SourceAnswer], query: str) -> list[SourceAnswer]:
    """The registry answers about this venue name."""
    folded = fold(query)
    return [a for a in answers if a.kind is QueryKind.VENUE and fold(a.query) == folded]


def venue_standing(
    cited_venue: str | None, answers: Sequence[SourceAnswer], cited_issns: Iterable[str] = ()
) -> VenueFinding:
    """Whether the cited venue exists, from the shipped table and the registries' answers."""
    if cited_venue is None:
        return UNSETTLED
    if known_by_table(cited_venue):
        return VenueFinding(VenueStanding.KNOWN, known_by_table=True)
    query = registry_query(cited_venue)
    if query is None:
        return UNSETTLED
    mine = venue_answers(answers, query)
    if not mine:
        return UNSETTLED
    issns = tuple(cited_issns)
    entries = tuple(e for a in mine for e in a.venues if holds(e, cited_venue, issns))
    asked = tuple(dict.fromkeys(a.source for a in mine))
    answered = tuple(dict.fromkeys(a.source for a in mine if a.outcome is not Outcome.FAILED))
    if entries:
        return VenueFinding(VenueStanding.KNOWN, entries=entries, asked=asked, answered=answered)
    failed = any(a.outcome is Outcome.FAILED for a in mine)
    # Every registry must have answered: one turned off (not asked) leaves the question open, as
    # a search source does for "not found".
    if failed or not set(VENUE_REGISTRIES) <= set(answered):
        return VenueFinding(VenueStanding.UNSETTLED, asked=asked, answered=answered)
    return VenueFinding(VenueStanding.UNKNOWN, asked=asked, answered=answered)
