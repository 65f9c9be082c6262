"""Reading a sentence for the claim judge (pure): tokens, multi-word phrases, and the quantities a
sentence states (values with their unit, bounds, ranges, ratios) and whether one shows another.

Split from `claim_judge` so that each stays one responsibility: this module knows how a sentence is
read, the judge what the readings mean. Tables are in `claim_number_rules`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from aletheia.core import claim_number_rules as number_rules
from aletheia.core.lexical_ranking import STOPWORDS, stem
from aletheia.core.text import strip_accents

__all__ = ["Quantity", "fits", "has_phrase", "phrase_positions", "quantities", "tokens_of"]

# --- tokens ---------------------------------------------------------------------------------------------

# Identifiers that hold digits are words ("covid-19", "il-6", "sars-cov-2", "p53"), not quantities.
# A name's own decimal is part of it ("kir7.1", "nav1.7"): not a quantity of 1 or 7.
_TOKEN: Final = re.compile(
    r"[a-z]+(?:[-/][a-z0-9]+)*-?\d+(?:\.\d+(?!\.?\d))?[a-z0-9]*(?:-[a-z0-9]+)*"
    r"|\d+(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
    r"|[a-z]+(?:'[a-z]+)*"
    r"|%|[-\u2010-\u2015\u2212]"
)
_NUMBER: Final = re.compile(r"\d[\d,]*(?:\.\d+)?")
_RAISED_DECIMAL: Final = re.compile(r"(?<=\d)[\u00b7\u2027\u22c5](?=\d)")
# Thousands grouped by a space ("499 000", "1 250 000", The Lancet's style): one number.
_SPACED_THOUSANDS: Final = re.compile(r"(?<![\d.,])\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+(?![\d.,]\d)(?!\d)")


def tokens_of(text: str) -> list[str]:
    folded = strip_accents(text).casefold().replace("\u2019", "'")
    # The raised decimal point some journals print ("11\u00b79 million", The Lancet) is a decimal point.
    folded = _RAISED_DECIMAL.sub(".", folded)
    folded = _SPACED_THOUSANDS.sub(lambda match: re.sub(r"\s", ",", match.group()), folded)
    out: list[str] = []
    for token in _TOKEN.findall(folded):
        if token.endswith("n't"):
            out.extend((token[:-3] or "not", "not"))
        elif token == "cannot":  # noqa: S105 (a word, not a password)
            out.extend(("can", "not"))
        elif token[0] in "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212":
            out.append("-")
        else:
            out.append(token)
    return out


def phrase_positions(tokens: Sequence[str], phrase: tuple[str, ...]) -> list[int]:
    size = len(phrase)
    return [i for i in range(len(tokens) - size + 1) if tuple(tokens[i : i + size]) == phrase]


def has_phrase(tokens: Sequence[str], phrases: Iterable[tuple[str, ...]]) -> bool:
    return any(phrase_positions(tokens, phrase) for phrase in phrases)


# --- numbers ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Quantity:
    low: float
    high: float
    unit: str  # "%", a stemmed unit word, or "" for a bare number
    relation: str = "eq"  # eq | lt | le | gt | ge (a bound: "under 30%")
    text: str = ""


_RATIO_WORDS: Final = frozenset({"in", "times", "fold", "out", "percent", "%", "of"})


def number_value(token: str) -> float | None:
    """A numeric token's value ("1,024" is 1024.0), else None."""
    if not _NUMBER.fullmatch(token):
        return None
    try:
        return float(token.replace(",", ""))
    except ValueError:
        return None


def _value(token: str, following: str = "") -> float | None:
    if token in number_rules.NUMBER_WORDS and following in _RATIO_WORDS - {"of"} | {"%"}:
        return float(number_rules.NUMBER_WORDS[token])
    return number_value(token)


def _unit_after(tokens: Sequence[str], index: int) -> tuple[str, int]:
    """The unit of the number ending at `index`: `%`/percent, or the next word (stemmed) unless it
    is a function word ("3.3 in the cohort" has no unit)."""
    following = tokens[index + 1] if index + 1 < len(tokens) else ""
    if following in ("%", "percent", "per"):
        return "%", index + 1
    if (
        following
        and following.isalpha()
        and following not in number_rules.RANGE_JOINERS
        and following not in STOPWORDS
    ):
        return stem(following), index
    return "", index


def quantities(tokens: Sequence[str]) -> list[Quantity]:
    """Every quantity the tokens state, in order: "30%", "under 30%", "between 3 and 4", "one in two",
    "halves" (a change of 50%)."""
    found: list[Quantity] = []
    i = 0
    while i < len(tokens):
        if tokens[i] in number_rules.HALF_WORDS:
            found.append(Quantity(50.0, 50.0, "%", "eq", tokens[i]))
            i += 1
            continue
        low = _value(tokens[i], tokens[i + 1] if i + 1 < len(tokens) else "")
        if low is None:
            i += 1
            continue
        previous = tokens[i - 1] if i > 0 else ""
        if previous in number_rules.NUMBER_LABELS or (previous == "=" or (previous == "n")):
            i += 1
            continue
        # A ratio: "one in two", "1 in 2,000".
        if i + 2 < len(tokens) and tokens[i + 1] == "in":
            denominator = _value(tokens[i + 2], "in")
            if denominator:
                found.append(
                    Quantity(low / denominator, low / denominator, "ratio", "eq", " ".join(tokens[i : i + 3]))
                )
                i += 3
                continue
        high, end = low, i
        # A range: "3 to 4", "3 - 4", "between 3 and 4" (and "3% to 4%").
        unit_probe, after_unit = _unit_after(tokens, i)
        joiner_at = after_unit + 1 if unit_probe == "%" else i + 1
        if joiner_at + 1 < len(tokens) and tokens[joiner_at] in number_rules.RANGE_JOINERS:
            upper = _value(tokens[joiner_at + 1], "in")
            is_range = tokens[joiner_at] != "and" or (i > 0 and tokens[i - 1] == "between")
            if upper is not None and is_range and upper >= low:
                high, end = upper, joiner_at + 1
        unit, end = _unit_after(tokens, end)
        if not unit and unit_probe == "%":
            unit = "%"
        relation = "eq"
        for cue, bound in number_rules.NUMBER_BOUNDS:
            size = len(cue)
            if i >= size and tuple(tokens[i - size : i]) == cue:
                relation = bound
        if not unit and low == high and low.is_integer() and 1800 <= low <= 2100:
            unit = "year"
        found.append(Quantity(low, high, unit, relation, " ".join(tokens[i : end + 1])))
        i = end + 1
    return found


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= number_rules.NUMBER_TOLERANCE * max(abs(a), abs(b), 1e-9)


def fits(claim: Quantity, stated: Quantity) -> bool:
    """The excerpt's quantity is consistent with (shows) the claim's."""
    low, high = stated.low, stated.high
    if claim.relation == "eq":
        if low == high and claim.low == claim.high:
            return _close(low, claim.low)
        # A claimed range is shown by a value or a range inside it, not by one that merely overlaps
        # it (a confidence interval from 1.4 to 3.9 does not show "between 3 and 4").
        return (low >= claim.low or _close(low, claim.low)) and (
            high <= claim.high or _close(high, claim.high)
        )
    bound = claim.low if claim.relation in ("gt", "ge") else claim.high
    if claim.relation in ("lt", "le"):
        return (
            high < bound
            or (claim.relation == "le" and _close(high, bound))
            or (stated.relation in ("lt", "le") and high <= bound)
        )
    return (
        low > bound
        or (claim.relation == "ge" and _close(low, bound))
        or (stated.relation in ("gt", "ge") and low >= bound)
    )
