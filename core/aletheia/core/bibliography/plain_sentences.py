"""Where the sentences of a reference string end, and its title and venue cleaned (pure; read by
`plain` and `plain_unquoted`).

A reference's parts are sentences, but not every full stop ends one: an initial ("J."), a common
abbreviation ("Proc.", "vol."), an ellipsis and a venue's abbreviated words ("J. Mach. Learn. Res.")
do not (`sentence_end`, `clean_venue`).
"""

from __future__ import annotations

import re
from typing import Final

from aletheia.core.venues import is_publisher

__all__ = ["clean_title", "clean_venue", "sentence_end"]


_ABBREVIATIONS: Final = frozenset(
    {
        *("al", "vol", "no", "nos", "pp", "p", "ed", "eds", "edn", "proc", "conf", "int", "j"),
        *("trans", "rev", "lett", "phys", "chem", "soc", "acad", "sci", "res", "univ", "dept"),
        *("inc", "ltd", "co", "jr", "sr", "st", "dr", "mr", "mrs", "ms", "prof", "fig", "ch"),
        *("e.g", "i.e", "cf", "vs", "etc", "approx", "symp", "natl", "assoc", "am", "intl"),
    }
)
# Where a venue ends: volume, pages, a bracket, a sentence end. A number ends it only when nothing
# but punctuation follows ("Nature 295, 236"), so "Proceedings of the 2019 Conference on..." stays.
_VENUE_END = re.compile(
    r",\s*(?:vol\b|no\b|pp\b|pages?\b|\d)|\s+\d+(?=\s*(?:[,:;(.]|$))|\s*\(|[.,;:]?$", re.IGNORECASE
)
_IN_PREFIX = re.compile(r"^(?:in:?\s+|in\s*:\s*)", re.IGNORECASE)


def sentence_end(text: str, start: int = 0) -> int:
    """Index just past the end of the first sentence of `text[start:]` (or len(text)).

    A sentence ends at `.`, `?` or `!` followed by a space, except after an initial ("J."),
    a common abbreviation ("Proc.", "vol.") or inside brackets.
    """
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char in "([":
            depth += 1
        elif char in ")]" and depth:
            depth -= 1
        elif char in ".?!" and depth == 0:
            after = text[index + 1 : index + 2]
            if after and not after.isspace():
                continue
            ellipsis = text[index + 1 : index + 3] == " ." or text[max(0, index - 2) : index] == ". "
            if char == "." and ellipsis:
                continue  # an ellipsis written ". . ." ("And the Loser Is. . . Plurality Voting")
            if char == ".":
                word = re.search(r"([\w.]+)$", text[start:index])
                token = word.group(1).lower() if word else ""
                if re.fullmatch(r"(?:[^\W\d_]\.)*[^\W\d_]", token) or token in _ABBREVIATIONS:
                    continue
            return index + 1
    return len(text)


_DETACHED_ACCENTS: Final = "\u00a8\u00b4`\u02c6\u02dc\u00b8\u02c7\u02d8\u02d9\u02da\u02dd\u00af "


def clean_title(title: str) -> str | None:
    # "´ BookSum: ...": a PDF's accent left over from the last author's name.
    title = title.strip().lstrip(_DETACHED_ACCENTS).strip(" ,;:").strip()
    title = re.sub(r"\.$", "", title).strip()
    if len(title) < 3 or not re.search(r"[^\W\d_]{2}", title):
        return None
    return title


# A venue's abbreviated words ("J. Mach. Learn. Res.", "Bull. Amer. Math. Soc.", "Found. Trends
# Mach. Learn."): a short capitalised word before a full stop, the venue going on after it. What
# follows a venue in the styles (a volume, "Edited by", a URL, a publisher in capitals) ends it.
_VENUE_ABBREVIATION = re.compile(r"(?:^|[\s(])(?:[A-Z][a-z]{1,5}|[A-Z])$")
_VENUE_GOES_ON = re.compile(r"\s+(?:[A-Z][a-z]|[A-Z]{2,6}\b|&\s|(?:of|and|the|for|on|in)\s)")
_AFTER_VENUE_WORDS: Final = frozenset(
    {"vol", "edited", "translated", "accessed", "retrieved", "available", "in", "pp", "chapter"}
    | {"technical", "online", "preprint", "published", "doi", "url", "https", "http", "edn", "ed"}
)


def _venue_end(text: str) -> int:
    """Where a venue's text ends: its first sentence end that is no abbreviation's full stop."""
    start = 0
    while True:
        end = sentence_end(text, start)
        if end >= len(text) or text[end - 1] != ".":
            return end
        following = re.match(r"\s+([\w&]+)", text[end:])
        if (
            _VENUE_ABBREVIATION.search(text[: end - 1]) is None
            or _VENUE_GOES_ON.match(text[end:]) is None
            or following is None
            or following.group(1).lower() in _AFTER_VENUE_WORDS
            # "J. Biomol. NMR" goes on; "Proc. Mach. Learn. PMLR" is a venue and its publisher.
            or is_publisher(following.group(1))
        ):
            return end
        start = end


def clean_venue(text: str) -> str | None:
    text = _IN_PREFIX.sub("", text.strip().lstrip(".,;: ").strip())
    text = text[: _venue_end(text)]  # a sentence end, but not "Proc.", "J." or "Mach. Learn."
    match = _VENUE_END.search(text)
    venue = text[: match.start()] if match else text
    venue = venue.strip().strip(" ,;:").strip()
    if len(venue) < 2 or not re.search(r"[^\W\d_]{2}", venue):
        return None
    return venue
