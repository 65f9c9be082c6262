"""ORCID iDs across sources (issue 12). Pure.

Crossref (`author[].ORCID`), OpenAlex (`authorships[].author.orcid`) and PubMed (`Identifier
Source="ORCID"`) give some authors an ORCID iD; the parsers keep it on `Author.orcid` as
`NNNN-NNNN-NNNN-NNNC`. A name says little when it is common ("Wei Wang", "J. Smith"); an iD says
who the person is:

- `same_person`: two author entries with iDs are the same person exactly when the iDs are equal.
  `works.same_work` uses it for the first authors of two records without a shared identifier: an
  ORCID match settles that they are one person even when the name forms differ (a transliteration,
  a family name written first), where the surname comparison alone would keep them apart.
- `orcid_conflicts`: two sources give the author at the same position, with the same surname,
  different iDs: the sources disagree on who that author is. Recorded as `orcid_conflict` (an
  annotation: it is the sources' disagreement, not an error of the citation).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from aletheia.core.author_match import surname_key
from aletheia.core.records import Author, SourceName, WorkRecord

__all__ = ["OrcidConflict", "clean_orcid", "orcid_conflicts", "same_person"]

_ORCID: Final = re.compile(r"(\d{4})-?(\d{4})-?(\d{4})-?(\d{3}[\dXx])")


def _checksum_ok(digits: str) -> bool:
    """ISO 7064 11,2, the check character ORCID documents."""
    total = 0
    for ch in digits[:-1]:
        total = (total + int(ch)) * 2
    check = (12 - total % 11) % 11
    return digits[-1].upper() == ("X" if check == 10 else str(check))


def clean_orcid(raw: str | None) -> str | None:
    """`https://orcid.org/0000-0002-1825-0097` -> `0000-0002-1825-0097`; None when it is no
    ORCID iD (wrong shape or check character)."""
    if not raw:
        return None
    match = _ORCID.search(raw)
    if match is None:
        return None
    digits = "".join(match.groups()).upper()
    return "-".join(digits[i : i + 4] for i in range(0, 16, 4)) if _checksum_ok(digits) else None


def same_person(a: Author, b: Author) -> bool | None:
    """True or False when both entries carry a valid iD; None when either has none."""
    left, right = clean_orcid(a.orcid), clean_orcid(b.orcid)
    if left is None or right is None:
        return None
    return left == right


@dataclass(frozen=True, slots=True)
class OrcidConflict:
    """Two sources' different iDs for the author at `position` (0-based) with the same surname."""

    position: int
    name: str
    sources: tuple[SourceName, SourceName]
    orcids: tuple[str, str]


def orcid_conflicts(records: Sequence[WorkRecord]) -> list[OrcidConflict]:
    """Every pair of records of one work (from different sources) that name a different person by
    ORCID at the same position, under the same surname."""
    found: list[OrcidConflict] = []
    for i, left in enumerate(records):
        for right in records[i + 1 :]:
            if left.source is right.source:
                continue
            for position, (a, b) in enumerate(zip(left.authors, right.authors, strict=False)):
                if same_person(a, b) is False and surname_key(a) == surname_key(b):
                    found.append(
                        OrcidConflict(
                            position,
                            a.display,
                            (left.source, right.source),
                            (clean_orcid(a.orcid) or "", clean_orcid(b.orcid) or ""),
                        )
                    )
    return found
