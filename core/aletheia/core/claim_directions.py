"""Directions of an effect for the claim judge (pure): which way a sentence says a measure moves.

Split from `claim_judge` (one responsibility each): the words come from `DIRECTION_PAIRS` (listed
forms, not stems), grouped by `DIRECTION_FAMILIES`; a claim's direction word is compared with the
excerpt's words of its family that stand by the same measure (the shared terms within
`DIRECTION_ANCHOR_WINDOW` tokens).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Final

from aletheia.core import claim_direction_rules as direction_rules
from aletheia.core.claim_reading import number_value
from aletheia.core.lexical_ranking import content_terms, stem

__all__ = [
    "direction_family",
    "direction_flips",
    "direction_index",
    "direction_words",
    "directions",
    "sides_on_measure",
]


@functools.cache
def direction_index() -> dict[str, tuple[tuple[int, int], ...]]:
    """word -> the (pair, side) it names; built once from the table. Words, not stems: every form
    is listed, and a stem is shared by nouns that name no direction ("activity" and "activate")."""
    index: dict[str, list[tuple[int, int]]] = {}
    for pair, sides in enumerate(direction_rules.DIRECTION_PAIRS):
        for side, words in enumerate(sides):
            for word in words:
                uses = index.setdefault(word, [])
                if (pair, side) not in uses:
                    uses.append((pair, side))
    return {key: tuple(uses) for key, uses in index.items()}


@functools.cache
def direction_words() -> frozenset[str]:
    """Every direction word of the table (`direction_index`'s keys), built once."""
    return frozenset(direction_index())


@functools.cache
def _direction_stems() -> frozenset[str]:
    return frozenset(stem(word) for word in direction_index())


def direction_family(pair: int) -> int:
    """The first pair of the family `pair` belongs to (`DIRECTION_FAMILIES`), or itself."""
    for family in direction_rules.DIRECTION_FAMILIES:
        if pair in family:
            return family[0]
    return pair


def _near(tokens: Sequence[str], position: int) -> set[str]:
    """The content stems within `DIRECTION_ANCHOR_WINDOW` tokens of `position`, itself left out."""
    window = direction_rules.DIRECTION_ANCHOR_WINDOW
    near = [*tokens[max(0, position - window) : position], *tokens[position + 1 : position + window + 1]]
    return {term for word in near for term in _word_terms(word)}


@functools.lru_cache(maxsize=65536)
def _word_terms(word: str) -> tuple[str, ...]:
    return tuple(content_terms(word))


_STATUS_WORDS: Final = frozenset({"positive", "negative"})
_NUMBER: Final = re.compile(r"\d[\d,.]*")


def _not_a_direction(tokens: Sequence[str], position: int) -> bool:
    """A direction word used otherwise (1.4.0): a test's result joined to what was tested
    ("HIV-positive people", "ER-negative tumours") names a group, not an effect; "or more" after a
    number, with or without its unit ("15 or more cigarettes a day", "3 years or more"), closes a
    bound, it states no change."""
    token = tokens[position]
    if token in _STATUS_WORDS and position > 0 and tokens[position - 1] == "-":
        return True
    # The number may carry its unit: "trials of 3 years or more".
    return (
        position >= 2
        and tokens[position - 1] == "or"
        and any(
            _NUMBER.fullmatch(tokens[before]) is not None
            for before in range(max(0, position - 3), position - 1)
        )
    )


_VALUE_AFTER: Final = frozenset({"was", "were", "is", "of", "="})
_INTERVAL: Final = (("ci",), ("confidence", "interval"), ("cri",))


def _interval_holds_one(tokens: Sequence[str], position: int) -> bool:
    """The value at `position` is followed by its confidence interval, and the interval holds 1
    ("0.98 (95% CI 0.91 to 1.05)"): the ratio states no direction."""
    after = tokens[position + 1 : position + 12]
    starts = [i for i in range(len(after)) for cue in _INTERVAL if tuple(after[i : i + len(cue)]) == cue]
    if not starts:
        return False
    bounds = [
        value
        for i, token in enumerate(after[starts[0] :], start=starts[0])
        if (value := number_value(token)) is not None and after[i + 1 : i + 2] != ["%"]
    ][:2]
    return len(bounds) == 2 and bounds[0] <= 1 <= bounds[1]


def _ratio_values(tokens: Sequence[str]) -> list[tuple[int, int, set[str]]]:
    """(position of the value, side of the first pair, the content stems of what the ratio is of)
    for each ratio of risks the text states with its value (`RATIO_NAMES`): above 1 an increase,
    below 1 a decrease, none when its confidence interval holds 1 (1.5.0). The value is the number
    right after the name or after "was"/"of"/"=" within `RATIO_VALUE_WINDOW` tokens, not a
    numbered name ("type 2 diabetes")."""
    found: list[tuple[int, int, set[str]]] = []
    window = direction_rules.RATIO_VALUE_WINDOW
    for start in range(len(tokens)):
        name = next(
            (n for n in direction_rules.RATIO_NAMES if tuple(tokens[start : start + len(n)]) == n), None
        )
        if name is None:
            continue
        after_name = start + len(name)
        for position in range(after_name, min(len(tokens), after_name + window)):
            value = number_value(tokens[position])
            if value is None or (position > after_name and tokens[position - 1] not in _VALUE_AFTER):
                continue
            if tokens[position + 1 : position + 2] in (["%"], ["percent"]):
                continue
            if value != 1 and not _interval_holds_one(tokens, position):
                described = {term for word in tokens[after_name:position] for term in _word_terms(word)}
                found.append((position, 0 if value > 1 else 1, described))
            break
    return found


def directions(tokens: Sequence[str]) -> dict[int, set[int]]:
    """For each direction pair (by index), which of its two sides the text states."""
    found: dict[int, set[int]] = {}
    index = direction_index()
    for position, token in enumerate(tokens):
        if token in index and _not_a_direction(tokens, position):
            continue
        for pair, side in index.get(token, ()):
            found.setdefault(pair, set()).add(side)
    for _position, side, _described in _ratio_values(tokens):
        found.setdefault(0, set()).add(side)
    return found


def _occurrences(tokens: Sequence[str]) -> list[tuple[int, int, set[str]]]:
    """Every direction word: (its family, its side, the content stems around it)."""
    index = direction_index()
    found = []
    for position, token in enumerate(tokens):
        if token in index and _not_a_direction(tokens, position):
            continue
        for pair, side in index.get(token, ()):
            found.append((direction_family(pair), side, _near(tokens, position)))
    # A ratio's measure is what it is of: the words between its name and its value.
    found += [(direction_family(0), side, described) for _position, side, described in _ratio_values(tokens)]
    return found


def direction_flips(claim: Sequence[str], excerpt: Sequence[str], shared: set[str]) -> int:
    """Effects the excerpt states, on the claim's measure, in the opposite direction: for each of the
    claim's direction words, the excerpt's words of the same family whose surroundings share most
    of its own (its measure: "reduces IL-10 production") decide; another measure the sentence
    reports in another direction ("led to T cell dysfunction") does not."""
    index = _direction_stems()
    theirs = _occurrences(excerpt)
    flips = 0
    for family, side, near in _occurrences(claim):
        measure = {term for term in near if term in shared and term not in index}
        scored = [(len(other & measure), s) for f, s, other in theirs if f == family and other & measure]
        if not scored:
            continue
        best = max(score for score, _ in scored)
        sides = {s for score, s in scored if score == best}
        if len(sides) == 1 and side not in sides:
            flips += 1
    return flips


def sides_on_measure(claim: Sequence[str], excerpt: Sequence[str], shared: set[str], pair: int) -> set[int]:
    """The sides of `pair` the excerpt states on the claim's measure: for each of the claim's words
    of the pair, the excerpt's words of the pair whose surroundings share most of its own (1.5.0).
    "reduces production of pro-inflammatory cytokines and increases production of
    anti-inflammatory cytokines" states a decrease of the pro-inflammatory ones. Empty when no word
    of the excerpt stands by the claim's measure."""
    index = direction_index()
    stems = _direction_stems()

    def of_pair(tokens: Sequence[str]) -> list[tuple[int, set[str]]]:
        found = [
            (side, _near(tokens, position))
            for position, token in enumerate(tokens)
            if token in index and not _not_a_direction(tokens, position)
            for word_pair, side in index[token]
            if word_pair == pair
        ]
        if pair == 0:
            found += [(side, described) for _position, side, described in _ratio_values(tokens)]
        return found

    theirs = of_pair(excerpt)
    sides: set[int] = set()
    for _side, near in of_pair(claim):
        measure = {term for term in near if term in shared and term not in stems}
        # Two of the measure's words at least (all of it if it has one): a word the two share by
        # chance ("statins" in a list of covariates beside "higher resistin") ties nothing.
        enough = min(2, len(measure))
        scored = [
            (len(other & measure), s) for s, other in theirs if enough and len(other & measure) >= enough
        ]
        if scored:
            best = max(score for score, _ in scored)
            sides |= {s for score, s in scored if score == best}
    return sides
