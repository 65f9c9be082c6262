"""Author lists compared: a cited list against a source's, person by person (`compare_author_lists`).

The first author is decisive, everything else is evidence (`AuthorComparison`). Both lists are read
through `author_kinds.normalize_source_author`, group authors are compared apart, and the persons are
matched one to one by `author_match.authors_match` (surnames, order-swapped names, compound surnames, a
one-letter slip under the same first name), from the most to the least specific pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from aletheia.core.author_kinds import groups_match, people_and_groups
from aletheia.core.author_match import (
    authors_match,
    given_names_compatible,
    one_letter_slip,
    surname_key,
    surnames_match,
)
from aletheia.core.records import Author
from aletheia.core.text import fold

__all__ = ["AuthorComparison", "compare_author_lists"]


@dataclass(frozen=True, slots=True)
class AuthorComparison:
    """How a cited author list compares with a source's.

    The first author is decisive; everything else is evidence. `matched_count` counts one-to-one
    surname matches (a multiset). With a truncation marker ("et al.") on the cited side, the
    source's authors after the cited ones are not `missing`; with a truncated source list, the
    cited authors past its end are not `extra`.

    Group authors (consortia, collaborations, organisations) are not aligned: a citation may omit
    "the ADNI consortium" and a source may add it. A cited group that matches a found group counts
    as matched (and in both counts); the other groups are `groups_ignored`. Counts, order and
    positions are those of the compared authors.
    """

    first_author_agrees: bool | None  # None when either list is empty
    cited_count: int
    found_count: int
    matched_count: int
    order_agrees: bool  # the shared authors appear in the same relative order
    swapped: bool  # shared authors in another order, or the cited first author later in the list
    truncated: bool  # the cited list is a strict prefix of the source's, without "et al."
    missing_trailing: int  # how many of the source's last authors a truncated cited list lacks
    extra: tuple[str, ...]  # cited names the source does not have
    missing: tuple[str, ...]  # source names the citation does not have
    given_name_conflicts: tuple[tuple[str, str], ...]  # (cited, found): same surname, other first name
    similarity: float  # matched / (compared cited + compared found - matched), Jaccard-like
    groups_ignored: int = 0  # group authors on either side left out of the comparison


def _match_lists(cited: Sequence[Author], found: Sequence[Author]) -> dict[int, int]:
    """One-to-one matching, cited index -> found index.

    Passes from the most to the least specific, so that of two authors with one surname the one
    whose given name fits is taken: same position, then equal surname keys, then the looser
    surname rules, each first with compatible given names, then without.
    """
    pairs: dict[int, int] = {}
    used: set[int] = set()
    cited_keys = [surname_key(a) for a in cited]
    found_keys = [surname_key(a) for a in found]

    def fits(i: int, j: int) -> bool:
        return given_names_compatible(cited[i].given, found[j].given)

    def same_key(i: int, j: int) -> bool:
        return bool(cited_keys[i]) and cited_keys[i] == found_keys[j]

    def matches(i: int, j: int) -> bool:
        return authors_match(cited[i], found[j])

    passes = (
        (True, lambda i, j: matches(i, j) and fits(i, j)),
        (False, lambda i, j: same_key(i, j) and fits(i, j)),
        (False, lambda i, j: matches(i, j) and fits(i, j)),
        (True, matches),
        (False, same_key),
        (False, matches),
        # Last, a surname one letter off under the same first name (`one_letter_slip`).
        (True, lambda i, j: one_letter_slip(cited[i], found[j])),
        (False, lambda i, j: one_letter_slip(cited[i], found[j])),
    )
    for same_position, predicate in passes:
        for i in range(len(cited)):
            if i in pairs:
                continue
            candidates = [i] if same_position else range(len(found))
            for j in candidates:
                if j < len(found) and j not in used and predicate(i, j):
                    pairs[i] = j
                    used.add(j)
                    break
    return pairs


def _matched_groups(cited: Sequence[Author], found: Sequence[Author]) -> int:
    used: set[int] = set()
    for group in cited:
        for j, other in enumerate(found):
            if j not in used and groups_match(group, other):
                used.add(j)
                break
    return len(used)


def _group_prefix_split(cited: Sequence[Author], found: Sequence[Author]) -> Sequence[Author]:
    """A source's first author that is the cited first author's name followed by a person's
    ("Gemma Team Aishwarya Kamath", "OpenAI Josh Achiam" at Semantic Scholar, where the citation
    gives "Gemma Team", "OpenAI"): the group byline and its first member run together, read as two
    authors (issue 28)."""
    if not cited or not found or cited[0].given:
        return found
    lead = fold(cited[0].display).split()
    words = found[0].display.split()
    if not lead or len(words) < len(lead) + 2 or fold(" ".join(words[: len(lead)])).split() != lead:
        return found
    person = Author(given=" ".join(words[len(lead) : -1]) or None, family=words[-1])
    return (Author(literal=" ".join(words[: len(lead)])), person, *found[1:])


def compare_author_lists(
    cited: Sequence[Author],
    found: Sequence[Author],
    *,
    cited_truncated: bool = False,
    found_truncated: bool = False,
) -> AuthorComparison:
    """Compare a cited author list with a source's (see `AuthorComparison`).

    Both lists are read through `normalize_source_author` (a source's "Iii, Hal Daumé" is Hal
    Daumé III; family "Initiative", given "Alzheimer's Disease Neuroimaging" is a group), and
    group authors are compared apart (see `AuthorComparison`). An "et al." left inside a name
    cuts the list there; a group author ("Qwen Team", "DeepSeek-AI") stands for members it does
    not name, so the other list's people it leaves unmatched are neither missing nor extra.
    """
    split = _group_prefix_split(cited, found)
    # The cited byline is a group's ("OpenAI"): it stands for the members it does not name.
    cited_truncated = cited_truncated or split is not found
    found = split
    cited, cited_groups, cited_cut = people_and_groups(cited)
    found, found_groups, found_cut = people_and_groups(found)
    groups_matched = _matched_groups(cited_groups, found_groups)
    cited_truncated = cited_truncated or cited_cut or bool(cited_groups)
    found_truncated = found_truncated or found_cut or bool(found_groups)
    pairs = _match_lists(cited, found)
    first_agrees = _first_author_agrees(
        cited, found, pairs, groups_matched, bool(cited_groups and found_groups)
    )
    found_order = [pairs[i] for i in sorted(pairs)]
    order_agrees = all(x < y for x, y in pairwise(found_order))
    cited_first_later = first_agrees is False and 0 in pairs and pairs[0] != 0
    prefix = len(cited) < len(found) and all(pairs.get(i) == i for i in range(len(cited)))
    truncated = bool(cited) and prefix and not cited_truncated

    extra, missing = _unmatched(cited, found, pairs, cited_truncated, found_truncated)
    conflicts = tuple(
        (cited[i].display, found[j].display)
        for i, j in sorted(pairs.items())
        if surnames_match(cited[i], found[j]) and not given_names_compatible(cited[i].given, found[j].given)
    )
    matched = len(pairs) + groups_matched
    compared = matched + len(extra) + len(missing)
    return AuthorComparison(
        first_author_agrees=first_agrees,
        cited_count=len(cited) + groups_matched,
        found_count=len(found) + groups_matched,
        matched_count=matched,
        order_agrees=order_agrees,
        swapped=not order_agrees or cited_first_later,
        truncated=truncated,
        missing_trailing=len(found) - len(cited) if truncated else 0,
        extra=extra,
        missing=missing,
        given_name_conflicts=conflicts,
        similarity=matched / compared if compared else 0.0,
        groups_ignored=len(cited_groups) + len(found_groups) - 2 * groups_matched,
    )


def _first_author_agrees(
    cited: Sequence[Author],
    found: Sequence[Author],
    pairs: dict[int, int],
    groups_matched: int,
    groups_only: bool,
) -> bool | None:
    """Whether the first authors agree; None when the lists hold no comparable authors."""
    if cited and found:
        # A one-letter slip in the first surname is the same first author only where the rest of
        # the list bears it out (another name matched).
        return authors_match(cited[0], found[0]) or (
            pairs.get(0) == 0 and one_letter_slip(cited[0], found[0]) and len(pairs) >= 2
        )
    if groups_only:
        return groups_matched > 0  # the only comparable authors are groups
    return None


def _unmatched(
    cited: Sequence[Author],
    found: Sequence[Author],
    pairs: dict[int, int],
    cited_truncated: bool,
    found_truncated: bool,
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The cited names no source name matched (extra) and the source's no cited name matched
    (missing), neither counted past where the other list was cut."""
    matched_found = set(pairs.values())
    extra = tuple(
        cited[i].display
        for i in range(len(cited))
        if i not in pairs and not (found_truncated and i >= len(found))
    )
    missing = tuple(
        found[j].display
        for j in range(len(found))
        if j not in matched_found and not (cited_truncated and j >= len(cited))
    )
    return extra, missing
