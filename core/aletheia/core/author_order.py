"""Whether a source's author list is in publication order, or sorted by family name.

Some sources list a work's authors alphabetically. OpenAlex does for some works ("Chain-of-thought
prompting" comes back with Maarten Bosma first), and so does the Crossref deposit of the NeurIPS
2022 proceedings for MACE (10.52202/068431-0830): "Batatia, Csanyi, Kovacs, Ortner, Simm" at
Crossref and at OpenAlex's record of that DOI, "Batatia, Kovács, Simm, Ortner, Csányi" on the
paper, at arXiv and at DBLP. Such a list says who the authors are, never in which order: the first
author, the order, a cut tail and missing co-authors are judged only against a list in publication
order (`works.assess`), and the triangulation gate does not read its first author (`case`).

A list is taken as alphabetical when it is sorted by family name and another record of the same
work gives some of the same people in another order. Of two sources that disagree on the order,
the sorted one is the alphabetised copy: sources do not shuffle a byline, they sort it. A paper
whose byline is alphabetical (theory, economics) comes sorted from every source and is left
alone, and a lone sorted list is read as the publication order (nothing says otherwise).

Crossref's and OpenAlex's lists of one DOI are one witness, not two: OpenAlex takes the list from
the Crossref deposit (issue 28: the Curran deposit of the NeurIPS proceedings sorts "Chain-of-thought
prompting" and "Embodied agent interface" by surname at both). So when every sorted list comes from
that one lineage and the citation itself gives at least `MIN_SORTED_NAMES` of the same people in
another, unsorted order, the citation is the other order: the sorted lists are the alphabetised
copy. A sorted list from an independent lineage (Semantic Scholar, arXiv, DBLP, PubMed) is a byline
that is alphabetical, and the citation's other order stays a fact to judge.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import pairwise
from typing import Final

from aletheia.core.author_kinds import people_and_groups
from aletheia.core.author_match import surname_key
from aletheia.core.records import Author, SourceName, WorkRecord

__all__ = [
    "DEPOSIT_LINEAGE",
    "MIN_SORTED_NAMES",
    "alphabetical_records",
    "is_sorted_by_family",
    "lineage",
    "same_people_reordered",
]

# A sorted list this long is alphabetical against any other order of the people they share; a
# shorter one only against the same people in another order (two names: the same two reversed).
MIN_SORTED_NAMES: Final = 3
# Sources that copy one DOI's author list from one deposit: one witness of its order.
DEPOSIT_LINEAGE: Final = frozenset({SourceName.CROSSREF, SourceName.OPENALEX})


def _family_keys(authors: Sequence[Author]) -> list[str]:
    people, _groups, _cut = people_and_groups(authors)
    return [key for key in (surname_key(a) for a in people) if key]


def is_sorted_by_family(keys: Sequence[str]) -> bool:
    """At least two people, in the order of their family names (ties allowed: "Lee, Lee")."""
    return len(keys) >= 2 and all(a <= b for a, b in pairwise(keys))


def _order_of_shared(keys: Sequence[str], other: Sequence[str]) -> tuple[list[str], list[str]]:
    """The family names both lists have, in each list's order (each name once)."""
    mine, theirs = set(keys), set(other)
    ours = list(dict.fromkeys(k for k in keys if k in theirs))
    return ours, list(dict.fromkeys(k for k in other if k in mine))


def _alphabetised_against(keys: list[str], other: list[str]) -> bool:
    ours, theirs = _order_of_shared(keys, other)
    if len(ours) < 2 or ours == theirs:
        return False
    return len(keys) >= MIN_SORTED_NAMES or Counter(keys) == Counter(other)


def alphabetical_records(
    records: Sequence[WorkRecord], cited: Sequence[Author] = ()
) -> tuple[WorkRecord, ...]:
    """The records of one work whose author list is sorted by family name while another
    record, or the citation when only the deposit lineage sorts (`DEPOSIT_LINEAGE`), gives some
    of the same people in another order (see the module's docstring)."""
    keyed = [(r, _family_keys(r.authors)) for r in records if r.authors]
    sorted_lists = [(r, keys) for r, keys in keyed if is_sorted_by_family(keys)]
    cited_keys = _family_keys(cited)
    # The citation is the other order only against the deposit lineage, and only when it is not
    # sorted itself (a sorted list from an independent lineage is an alphabetical byline).
    citation_witnesses = not is_sorted_by_family(cited_keys) and all(
        r.source in DEPOSIT_LINEAGE for r, _ in sorted_lists
    )

    def alphabetised(r: WorkRecord, keys: list[str]) -> bool:
        if any(o is not r and _alphabetised_against(keys, other) for o, other in keyed):
            return True
        return (
            citation_witnesses
            and len(_order_of_shared(keys, cited_keys)[0]) >= MIN_SORTED_NAMES
            and _alphabetised_against(keys, cited_keys)
        )

    return tuple(r for r, keys in sorted_lists if alphabetised(r, keys))


def lineage(source: SourceName) -> str:
    """The witness a source's author order is: Crossref and OpenAlex carry one deposit's list."""
    return "deposit" if source in DEPOSIT_LINEAGE else source.value


def same_people_reordered(a: Sequence[Author], b: Sequence[Author]) -> bool:
    """The same people (at least `MIN_SORTED_NAMES`), one list sorted by family name and the
    other not: one work's byline and its alphabetised copy, whatever their first authors."""
    keys_a, keys_b = _family_keys(a), _family_keys(b)
    return (
        len(keys_a) >= MIN_SORTED_NAMES
        and Counter(keys_a) == Counter(keys_b)
        and keys_a != keys_b
        and (is_sorted_by_family(keys_a) or is_sorted_by_family(keys_b))
    )
