"""The golden table: real-world-flavoured field pairs and the outcome each must get.

`golden/field_pairs.csv` has one row per pair: `kind, cited, found, expected, why`.

| kind        | compares with                                   | expected values                          |
|-------------|-------------------------------------------------|------------------------------------------|
| title       | `titles_match` (the decisive rule)              | match, no_match                          |
| title_exact | `titles_identical` (no tolerance)               | identical, different                     |
| surname     | `authors_match` on two `parse_name` results     | match, no_match                          |
| venue       | `venues_agree`                                  | agree, differ, not_comparable            |
| author_list | `compare_author_lists` on `parse_author_list`   | same, truncated, swapped, first_differs, |
|             |                                                 | differs                                  |

Every pair is also checked the other way round where the rule is symmetric.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import pytest

from aletheia.core.author_lists import compare_author_lists
from aletheia.core.author_match import authors_match
from aletheia.core.authors import parse_author_list, parse_name
from aletheia.core.titles import titles_identical, titles_match
from aletheia.core.venues import venues_agree

GOLDEN = Path(__file__).parent / "golden" / "field_pairs.csv"


class Pair(NamedTuple):
    kind: str
    cited: str
    found: str
    expected: str
    why: str


def _rows() -> list[Pair]:
    with GOLDEN.open(newline="", encoding="utf-8") as handle:
        return [Pair(**row) for row in csv.DictReader(handle)]


ROWS = _rows()


def _title(a: str, b: str) -> str:
    return "match" if titles_match(a, b) else "no_match"


def _title_exact(a: str, b: str) -> str:
    return "identical" if titles_identical(a, b) else "different"


def _surname(a: str, b: str) -> str:
    return "match" if authors_match(parse_name(a), parse_name(b)) else "no_match"


def _venue(a: str, b: str) -> str:
    agree = venues_agree(a, b)
    return "not_comparable" if agree is None else ("agree" if agree else "differ")


def _author_list(a: str, b: str) -> str:
    cited, cited_truncated = parse_author_list(a)
    found, found_truncated = parse_author_list(b)
    result = compare_author_lists(
        cited, found, cited_truncated=cited_truncated, found_truncated=found_truncated
    )
    if result.first_author_agrees is False:
        return "first_differs"
    if result.truncated:
        return "truncated"
    if result.swapped:
        return "swapped"
    if result.extra or result.missing:
        return "differs"
    return "same"


OUTCOME = {
    "title": _title,
    "title_exact": _title_exact,
    "surname": _surname,
    "venue": _venue,
    "author_list": _author_list,
}
SYMMETRIC = {"title", "title_exact", "surname", "venue"}


def test_the_table_is_well_formed() -> None:
    kinds = Counter(row.kind for row in ROWS)
    assert set(kinds) == set(OUTCOME)
    assert len(ROWS) >= 60
    assert all(row.cited and row.found and row.expected and row.why for row in ROWS)
    # Every kind has rows on both sides of its rule.
    for kind in OUTCOME:
        assert len({row.expected for row in ROWS if row.kind == kind}) >= 2, kind


@pytest.mark.parametrize("row", ROWS, ids=[f"{r.kind}:{r.cited[:40]}|{r.found[:30]}" for r in ROWS])
def test_golden_pair(row: Pair) -> None:
    outcome = OUTCOME[row.kind]
    assert outcome(row.cited, row.found) == row.expected, row.why
    if row.kind in SYMMETRIC:
        assert outcome(row.found, row.cited) == row.expected, f"not symmetric: {row.why}"
