"""Authors, title and venue of a reference string without a quoted title, by citation style (pure;
read by `plain.parse_reference_string`).

Author-year styles (APA, Harvard, Chicago, ACM, Springer) are read from the year that follows the
author list (`author_year_anchor`); the others by the shape of their author list: given names
first (plainnat, ACL, IEEE), Springer's colon, Nature's and ACS's "Surname, I." lists, Vancouver's
"Surname AB", and AIP's initials-first names. Each shape is a guess the pipeline validates.
"""

from __future__ import annotations

import re
from typing import Final

from aletheia.core.bibliography.plain_authors import (
    INITIALS_FIRST_NAME,
    VANCOUVER_NAME,
    is_given_first_list,
    looks_like_name_list,
)
from aletheia.core.bibliography.plain_sentences import clean_venue, sentence_end
from aletheia.core.bibliography.plain_years import EARLY_YEAR, PAREN_YEAR, YEAR_TOKEN, without_page_ranges

__all__ = ["NOT_TITLE_WORDS", "author_year_anchor", "unquoted_fields"]


_VANCOUVER_NAME = VANCOUVER_NAME
_VANCOUVER_AUTHORS = re.compile(rf"^(?:{_VANCOUVER_NAME},\s+)*{_VANCOUVER_NAME}(?:,?\s+et\s+al)?$")
_INITIALS_FIRST_NAME = INITIALS_FIRST_NAME
_VENUE_WORDS = re.compile(
    r"\b(?:journal|proceedings|proc\.|transactions|annals|bulletin|letters|acta|zeitschrift|conference"
    r"|symposium|workshop|review|magazine|quarterly|newsletter|[Jj]\.)",
    re.IGNORECASE,
)
_ACS_NAME = r"(?:[a-z]{1,3}\.?\s)?[A-Z][\w'’\-]+(?:[ -][A-Z][\w'’\-]+)?,\s(?:[A-Z]\.(?:\s?-?[A-Z]\.){0,3})"
_NATURE_AUTHORS = re.compile(
    rf"^(?P<authors>{_ACS_NAME}(?:,\s*{_ACS_NAME})*(?:,?\s*(?:&|and)\s*{_ACS_NAME})?(?:,?\s*et\s+al\.)?)"
    r"\s+(?![A-Z]\.)(?P<rest>[A-Z0-9“\"‘].*)$"
)
_ACS_AUTHORS = re.compile(
    rf"^(?P<authors>{_ACS_NAME}(?:;\s*{_ACS_NAME})*)\s+(?![A-Z]\.)(?P<rest>[A-Z0-9].*)$"
)


NOT_TITLE_WORDS: Final = frozenset(
    {"van", "von", "der", "den", "de", "del", "da", "di", "du", "le", "la", "dos", "ten", "ter", "al"}
    | {"and", "et", "eds", "ed", "hrsg", "others"}
)


def _is_title_not_authors(segment: str) -> bool:
    """Whether the text before an author-year's year is a title: no comma or ampersand, and a
    lower-case word that is not a name particle ("Recognition of Reviewers.")."""
    text = segment.strip().strip(".")
    if "," in text or "&" in text or ";" in text:
        return False
    words = text.split()
    return len(words) >= 2 and any(
        word.isalpha() and word.islower() and len(word) >= 2 and word not in NOT_TITLE_WORDS for word in words
    )


def author_year_anchor(masked: str) -> re.Match[str] | None:
    """The year that follows the author list in author-year styles ("Smith, J. (2019).", "Smith J,
    2019,", "Smith, J. 2019."), if it comes early enough to be that."""
    dated = without_page_ranges(masked)  # "Venue, 1735 - 1780, 1997": no year at 1780
    for pattern in (PAREN_YEAR, EARLY_YEAR):
        anchor = pattern.search(dated)
        if (
            anchor is not None
            # A page range blanked out is not the author list's end.
            and not re.search(r"\d", masked[anchor.start() : anchor.start("year")])
            # Early in the string; or later, after a long author list and before a short title
            # ("Goodfellow, Ian, Yoshua Bengio, and Aaron Courville. 2016. Deep Learning. MIT Press.").
            and (
                anchor.start() < len(masked) * 0.6
                or (
                    looks_like_name_list(masked[: anchor.start()])
                    and re.search(r"[^\W\d_]{2}", masked[anchor.end() :]) is not None
                )
            )
            and re.search(r"[^\W\d_]{2}", masked[: anchor.start()])
            # Only the author list may come before it: no sentence ends earlier.
            and sentence_end(masked[: anchor.start()].rstrip()) >= len(masked[: anchor.start()].rstrip()) - 1
        ):
            return anchor
    return None


_Fields = tuple[str | None, str | None, str | None]


def unquoted_fields(masked: str, year_at: int | None) -> _Fields:
    """Authors, title and venue of a reference without a quoted title."""
    anchor = author_year_anchor(masked)
    if anchor is not None:
        return _author_year_fields(masked, anchor)
    for read in (
        _given_first_fields,
        _springer_fields,
        _nature_fields,
        _acs_fields,
        _vancouver_fields,
        _name_sentence_fields,
    ):
        fields = read(masked)
        if fields is not None:
            return fields
    return _initials_first_fields(masked)


def _author_year_fields(masked: str, anchor: re.Match[str]) -> _Fields:
    # Author-year styles: APA, Harvard, Chicago, ACM, Springer: "Authors (2019). Title. Venue".
    authors = masked[: anchor.start()]
    rest = masked[anchor.end() :].lstrip(" .,:;)")
    if _is_title_not_authors(authors):
        # APA puts the title first when there are no authors: "Title. (2015). Venue, 46(4)".
        return None, authors, clean_venue(rest)
    return authors, *_title_and_venue(rest)


def _given_first_fields(masked: str) -> _Fields | None:
    # plainnat (NeurIPS, ICLR), ACL, IEEE without quotes: "Diederik P. Kingma and Jimmy Ba. Title.
    # In ICLR, 2015." Given names first, so neither Springer's colon nor a Vancouver "Diederik P."
    # (a surname and its initial) may take the list apart (issue 28).
    names_end = _names_sentence_end(masked)
    if names_end < len(masked) and is_given_first_list(masked[:names_end]):
        return masked[:names_end], *_title_and_venue(masked[names_end:])
    return None


def _springer_fields(masked: str) -> _Fields | None:
    # Springer LNCS: "Surname, I.: Title. Venue".
    colon = re.match(r"^(?P<authors>[^:]{3,400}?\b[A-Z][a-z]?\.?):\s+(?P<rest>.+)$", masked)
    if colon is not None and re.search(r"\b[A-Z]\.", colon.group("authors")):
        return colon.group("authors"), *_title_and_venue(colon.group("rest"))
    return None


def _nature_fields(masked: str) -> _Fields | None:
    # Nature, Science, Elsevier-Harvard without a year up front: "Surname, I. J., Other, K. & Last, L.
    # Title. Venue 177, 605 (2011)."
    nature = _NATURE_AUTHORS.match(masked)
    rest = nature.group("rest").rstrip() if nature is not None else ""
    # A title is a sentence of its own; ACS's single-author "Surname, I. Venue 1926, 91, 254." has none.
    if nature is not None and sentence_end(rest) < len(rest) - 1:
        return nature.group("authors"), *_title_and_venue(nature.group("rest"))
    return None


def _acs_fields(masked: str) -> _Fields | None:
    # ACS: "Surname, I.; Surname, I. Venue 1985, 151, 192." (no title).
    acs = _ACS_AUTHORS.match(masked)
    if acs is not None:
        venue = re.sub(rf"\s*\b{YEAR_TOKEN}\b.*$", "", acs.group("rest"))
        return acs.group("authors"), None, clean_venue(venue)
    return None


def _vancouver_fields(masked: str) -> _Fields | None:
    # Vancouver: "Surname AB, Surname C. Title. Venue. 2013;344:23-32."
    first_end = _vancouver_authors_end(masked)
    if first_end is not None:
        return masked[:first_end], *_title_and_venue(masked[first_end:].lstrip(" ."))
    return None


def _name_sentence_fields(masked: str) -> _Fields | None:
    # plainnat, ACL, IEEE without quotes: "Chidi Okafor and Astrid Lindqvist. Title. Venue, 2019."
    first_end = sentence_end(masked)
    if first_end < len(masked) and looks_like_name_list(masked[:first_end]):
        return masked[:first_end], *_title_and_venue(masked[first_end:])
    return None


def _initials_first_fields(masked: str) -> _Fields:
    # AIP, Elsevier, IEEE without quotes: "M. R. Suresh and C. Milstein, Title, Venue 151, 192 (1985)".
    pieces = [piece.strip() for piece in masked.split(",")]
    names: list[str] = []
    for piece in pieces:
        words = re.sub(r"^(?:and|&)\s+", "", piece)
        parts = re.split(r"\s+(?:and|&)\s+", words)
        if all(_INITIALS_FIRST_NAME.match(part.strip()) for part in parts if part.strip()):
            names.append(piece)
        else:
            break
    if names:
        # Each piece is a whole name ("M.R. Suresh"): joined with "and" so that two of them are not
        # read as one "Last, First".
        authors = " and ".join(re.sub(r"^(?:and|&)\s+", "", name) for name in names)
        rest = ", ".join(pieces[len(names) :])
        first = re.split(r",\s*", rest, maxsplit=1)
        if (
            len(first) == 2
            and not re.search(r"\d", first[0])
            and len(first[0].split()) >= 3
            and not _VENUE_WORDS.search(first[0])
            and re.search(r"[^\W\d_]{2}", first[1])
        ):
            return authors, first[0], clean_venue(first[1])
        return authors, None, clean_venue(rest)
    return None, None, None


_ET_AL_END = re.compile(r"\b(?:et\s+al|Jr|Sr)\.(?=\s+\S)")


def _names_sentence_end(masked: str) -> int:
    """Where the first sentence ends, or where an author list cut with "et al." or ending in a
    suffix does ("Tom Brown, Nick Ryder, et al. Language models...", "Richard Robb, Jr. Alternative
    methods..."): "al." and "Jr." are no sentence end elsewhere."""
    end = sentence_end(masked)
    et_al = _ET_AL_END.search(masked, 0, end)
    if et_al is not None and looks_like_name_list(masked[: et_al.end()]):
        return et_al.end()
    return end


def _vancouver_authors_end(masked: str) -> int | None:
    end = _sentence_end_simple(masked)
    if end is None:
        return None
    segment = masked[:end].strip().rstrip(".")
    if _VANCOUVER_AUTHORS.match(segment):
        return end
    return None


def _sentence_end_simple(text: str) -> int | None:
    match = re.search(r"\.\s", text)
    return match.end() if match else None


def _title_and_venue(rest: str) -> tuple[str | None, str | None]:
    rest = rest.strip()
    if not rest:
        return None, None
    if re.match(r"^in\s*:\s", rest, re.IGNORECASE):
        return None, clean_venue(rest)
    end = sentence_end(rest)
    if rest[:end].endswith(("?", "!")):
        # "Evil Genius? How Dishonesty Can Lead to Greater Creativity. Psychological Science, 25":
        # a question that opens a title goes on when a sentence without numbers follows, and
        # something (the venue) follows that.
        after = sentence_end(rest, end)
        following = rest[end:after]
        if after < len(rest.rstrip()) and not re.search(r"\d", following) and len(following.split()) >= 2:
            end = after
    title = rest[:end]
    remainder = rest[end:]
    if not remainder.strip():
        # `plain.bst`'s @misc without a venue: "Title, 2024." (the year is not the title's).
        title = _TRAILING_YEAR.sub("", title)
    return title, clean_venue(remainder) if remainder.strip() else None


_TRAILING_YEAR = re.compile(rf"(?<=\S),\s*{YEAR_TOKEN}[a-z]?\.?\s*$")
