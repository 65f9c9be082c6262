"""A check shared by the contract tests: the precision fields of a parsed `WorkRecord` are well typed."""

from __future__ import annotations

import re

from aletheia.core.records import WorkRecord
from aletheia.core.venues import is_no_venue_claim

_ISSN = re.compile(r"\d{4}-\d{3}[\dX]")


def assert_precision_fields_well_typed(record: WorkRecord) -> None:
    """Venue aliases and other venues are clean, distinct strings other than the venue; ISSNs are in
    canonical form; the DBLP key looks like one; a published venue is a venue, not a server."""
    for names in (record.venue_aliases, record.other_venues):
        assert isinstance(names, tuple)
        assert all(isinstance(n, str) and n and n == n.strip() for n in names), names
    assert len({n.casefold() for n in record.venue_aliases}) == len(record.venue_aliases)
    assert len({n.casefold() for n in record.other_venues}) == len(record.other_venues)
    if record.venue is not None:
        assert record.venue.casefold() not in {n.casefold() for n in record.venue_aliases}
        assert record.venue.casefold() not in {n.casefold() for n in record.other_venues}
    assert all(_ISSN.fullmatch(issn) for issn in record.issn), record.issn
    assert record.dblp_key is None or (isinstance(record.dblp_key, str) and "/" in record.dblp_key)
    assert record.published_venue is None or not is_no_venue_claim(record.published_venue)
