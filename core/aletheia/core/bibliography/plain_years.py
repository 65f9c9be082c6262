"""The cited year of one reference string, and the numbers that only look like years.

A reference string holds many four-digit numbers: the year, and pages, volumes and identifiers
that fall in the years' range. Identifiers are blanked out before the year is looked for (`masked`,
with their spans from `plain`); so are page ranges (`page_range_spans`): "9(8):1735- 1780, 1997"
and "pp. 1735 - 1780, 1997" (a PDF's line break after the dash, a spaced dash) were read as 1780
and 1735 (issue 28), and `decide` called the genuine 1997 a major year error.

A page range is two numbers joined by a dash (`-`, `--`, en or em dash), spaces or none around it,
that goes up: the end above the start, or an end that replaces the start's last digits and so is
above it ("1735-80"). Page ranges are short, so an end a thousand or more above the start is not one
("Volume 1 - 2019": a volume and a year). An ISO date ("2020-05-12") is not a range (three parts),
nor a year and month ("2020-05": it goes down); a year range ("2019-2020") is one and gives no year,
as it never did.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "ANY_YEAR",
    "EARLY_YEAR",
    "PAREN_YEAR",
    "YEAR_TOKEN",
    "masked",
    "page_range_spans",
    "pick_year",
    "without_page_ranges",
]

YEAR_TOKEN: Final = r"(?:1[5-9]\d\d|20\d\d)"  # noqa: S105 (a pattern, not a password)
PAREN_YEAR: Final = re.compile(rf"\(\s*(?:[A-Za-z.]+\s+)?(?P<year>{YEAR_TOKEN})[a-z]?\s*\)")
ANY_YEAR: Final = re.compile(rf"(?<![\d./:–-])(?P<year>{YEAR_TOKEN})[a-z]?(?![\d–-]|\.\d)")
# The year right after the authors: "Smith, J. 2019. Title", "Smith J, 2019, Title", "Smith (2019)".
EARLY_YEAR: Final = re.compile(
    rf"(?:[.,:;]\s*|\s)\(?\s*(?P<year>{YEAR_TOKEN})[a-z]?\s*\)?\s*(?:[.,:;]|(?=\s+[A-Z\"“‘]))"
)
# Two numbers joined by a dash; not a part of a longer chain ("2020-05-12") or of a decimal.
_NUMBER_RANGE: Final = re.compile(
    r"(?<![\d.\-–—])(?P<start>\d{1,6})[ \t]*(?:-{1,3}|[–—‒])[ \t]*(?P<end>\d{1,6})(?![\d\-–—]|\.\d)"
)
# The widest page range: an end this far above its start is something else.
_MAX_PAGES: Final = 1000


def _goes_up(start: str, end: str) -> bool:
    first, last = int(start), int(end)
    if len(end) < len(start):
        # "1735-80": the end replaces the start's last digits.
        last = int(start[: len(start) - len(end)] + end)
    return first < last < first + _MAX_PAGES


def page_range_spans(text: str) -> list[tuple[int, int]]:
    """Where the page ranges of `text` are (see the module docstring)."""
    return [
        match.span()
        for match in _NUMBER_RANGE.finditer(text)
        if _goes_up(match.group("start"), match.group("end"))
    ]


def masked(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each span blanked out (same length, so positions still hold)."""
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        for index in range(start, min(end, len(chars))):
            chars[index] = " "
    return "".join(chars)


def without_page_ranges(text: str) -> str:
    """`text` with its page ranges blanked out."""
    return masked(text, page_range_spans(text))


def pick_year(text: str) -> tuple[int | None, int | None]:
    """The cited year and where it is: a parenthesised year, else the year after the authors, else
    the first plausible one; page ranges are never years."""
    text = without_page_ranges(text)
    paren = PAREN_YEAR.search(text)
    if paren is not None:
        return int(paren.group("year")), paren.start()
    candidates = list(ANY_YEAR.finditer(text))
    if not candidates:
        return None, None
    early = EARLY_YEAR.search(text)
    if early is not None and early.start() < len(text) // 2:
        return int(early.group("year")), early.start()
    chosen = candidates[0]
    return int(chosen.group("year")), chosen.start()
