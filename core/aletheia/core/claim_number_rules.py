"""The claim judge's rules for numbers, as data (read by `claim_reading`, which finds the numbers of
a claim and an excerpt, and by `claim_terms`).

Versioned with the judge's other rules: a change to a row changes what the judge decides, so
`claim_judge_rules.JUDGE_RULES_VERSION` is bumped with it.
"""

from __future__ import annotations

from typing import Final

# Relative tolerance when comparing two numbers stated in the same unit (rounding in a paraphrase:
# "about a third" is not handled; "33%" against "33.3%" is).
NUMBER_TOLERANCE: Final = 0.05
# Words before a number that make it a bound, not a value: (cue, relation).
NUMBER_BOUNDS: Final[tuple[tuple[tuple[str, ...], str], ...]] = tuple(
    (tuple(text.split()), relation)
    for text, relation in (
        ("under", "lt"),
        ("below", "lt"),
        ("less than", "lt"),
        ("fewer than", "lt"),
        ("lower than", "lt"),
        ("up to", "le"),
        ("at most", "le"),
        ("no more than", "le"),
        ("not more than", "le"),
        ("over", "gt"),
        ("above", "gt"),
        ("more than", "gt"),
        ("greater than", "gt"),
        ("higher than", "gt"),
        ("exceeding", "gt"),
        ("at least", "ge"),
        ("no less than", "ge"),
        ("not less than", "ge"),
    )
)
# Tokens joining the two ends of a range: "3 to 4", "3-4", "between 3 and 4".
RANGE_JOINERS: Final = frozenset({"to", "-", "and"})
# A number right after one of these is an identifier or a label, not a quantity ("COVID-19",
# "Figure 3", "IL-6", "n = 17" is a sample size: kept apart as its own unit).
NUMBER_LABELS: Final = frozenset(
    {"figure", "fig", "table", "tab", "section", "sec", "chapter", "eq", "equation", "ref", "step",
     "phase", "type", "grade", "stage", "class", "day", "week", "month", "year", "version", "covid",
     "sars", "cov", "il", "cd", "p", "tp", "h", "hla", "apoe", "brca", "kras", "egfr", "her", "t"}
)  # fmt: skip
# Number words read as numbers ("one in two", "three times").
NUMBER_WORDS: Final[dict[str, str]] = {
    word: str(value)
    for value, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ]
    )
} | {"twice": "2", "thrice": "3", "dozen": "12", "hundred": "100", "thousand": "1000"}
# "halves the running time", "cut by half": a change of 50%.
HALF_WORDS: Final = frozenset({"halve", "halves", "halved", "halving", "half"})
