"""Plain-text reference lists, and a best-effort reading of one reference string.

Splitting (`split_references`): a list numbered `[1]`, `1.`, `(1)`, `1)` or `1 ` (the numbers must
count up, which tells a marker from a page number that starts a wrapped line), else one reference
per paragraph, per hanging-indent block or per line. Wrapped lines are joined; a soft hyphen at a
line end (PDF text) joins the word halves.

Reading (`parse_reference_string`): identifiers (DOI, arXiv, PMID, PMCID, ISBN, URL) are found
exactly; year, authors, title and venue are guessed from the common shapes of the citation styles
(APA, Harvard, Chicago, MLA, IEEE, ACM, Vancouver, Springer, ACS, AIP). Those guesses are hints:
the pipeline searches with the whole string (Crossref `query.bibliographic`) and validates each
candidate field by field, and `CitedReference.heuristic_fields` names the attributes guessed here.

Splitting lives in `plain_split` (re-exported here); this module reads one reference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final, TypedDict

from aletheia.core.bibliography.plain_authors import (
    INITIALS_FIRST_NAME,
    VANCOUVER_NAME,
    is_given_first_list,
    looks_like_name_list,
    read_authors,
)
from aletheia.core.bibliography.plain_split import SplitReference, join_lines, split_references
from aletheia.core.bibliography.plain_years import EARLY_YEAR, PAREN_YEAR, YEAR_TOKEN, without_page_ranges
from aletheia.core.bibliography.plain_years import masked as _masked
from aletheia.core.bibliography.plain_years import pick_year as _pick_year
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.identifiers_in_text import extract_identifiers
from aletheia.core.records import Author, CitedReference
from aletheia.core.text import decode_character_references, normalize_whitespace
from aletheia.core.venues import is_publisher

__all__ = [
    "HEURISTIC_FIELDS",
    "ReferenceFields",
    "SplitReference",
    "inherit_repeated_authors",
    "iter_plain",
    "join_lines",
    "parse_reference_string",
    "reference_from_string",
    "split_references",
]

# A reference longer than this is not one reference (a whole page glued together); it is read
# only up to here, which also bounds the cost of every pattern below.
MAX_REFERENCE_CHARS: Final = 4000

HEURISTIC_FIELDS: Final = ("title", "authors", "authors_truncated", "year", "venue")

# "———." or "---.": the same authors as the reference above (Chicago, MLA, APA's old editions,
# AMS's \bysame); a run of three or more dashes, em dashes or underscores opening the reference.
_SAME_AUTHORS = re.compile(r"^\s*(?:[—–‒―]{2,}|-{3,}|_{3,})\s*(?=[.,]|\s|$)")


class ReferenceFields(TypedDict, total=False):
    """What `parse_reference_string` could read; absent keys were not found."""

    title: str
    authors: tuple[Author, ...]
    authors_truncated: bool
    authors_uncertain: bool  # the split admits another reading (`plain_authors`)
    year: int
    venue: str
    doi: str
    arxiv_id: str
    arxiv_version: int
    pmid: str
    pmcid: str
    isbn: str
    url: str


# --- reading one reference string -----------------------------------------------------------------------

_LEADING_MARKER = re.compile(r"^\s*(?:\[[^\]]{1,40}\]|\(\d{1,4}\)|\d{1,3}[.)]|\d{1,3}(?=\s+[^\d\s]))\s*")
_SPACED_INITIAL = re.compile(r"(?<=\b[A-Z])\s+\.(?=\s)")
_QUOTED = re.compile(r"[“\"«„](?P<title>[^“”\"«»„]{3,600}?)[”\"»“]")
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


def _identifier_spans(text: str) -> list[tuple[int, int]]:
    pattern = re.compile(
        r"https?://\S+|\bdoi:?\s*10\.\S+|\b10\.\d{4,9}/\S+|\barxiv:?\s*(?:\d{4}\.\d{4,5}|[a-z.\-]+/\d{7})\S*"
        r"|\bisbn[\s:-]*[\dxX\- ]{10,17}"
        r"|\bpmc?id:?\s*\S+",
        re.IGNORECASE,
    )
    return [match.span() for match in pattern.finditer(text)]


def _sentence_end(text: str, start: int = 0) -> int:
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


def _clean_title(title: str) -> str | None:
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
        end = _sentence_end(text, start)
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


def _clean_venue(text: str) -> str | None:
    text = _IN_PREFIX.sub("", text.strip().lstrip(".,;: ").strip())
    text = text[: _venue_end(text)]  # a sentence end, but not "Proc.", "J." or "Mach. Learn."
    match = _VENUE_END.search(text)
    venue = text[: match.start()] if match else text
    venue = venue.strip().strip(" ,;:").strip()
    if len(venue) < 2 or not re.search(r"[^\W\d_]{2}", venue):
        return None
    return venue


def parse_reference_string(s: str) -> ReferenceFields:
    """Read what can be read from one reference string (see the module docstring).

    Identifiers are exact; `title`, `authors`, `year` and `venue` are best-effort guesses.
    """
    # "Ch&apos;ng": a character reference's `;` would split the author list (`raw` keeps it).
    text = normalize_whitespace(decode_character_references(s[: MAX_REFERENCE_CHARS * 2]))
    text = text[:MAX_REFERENCE_CHARS]
    text = _LEADING_MARKER.sub("", text, count=1)
    text = _SPACED_INITIAL.sub(".", text)  # "Reuven Y . Rubinstein" (a .bib's "Y ." set apart)
    # "———." stands for the authors of the reference above (`inherit_repeated_authors`): no name.
    text = _SAME_AUTHORS.sub("", text, count=1)
    fields = _identifier_fields(text)

    # A DOI's digits, like a page range's (`pick_year`), are no year.
    masked = _masked(text, _identifier_spans(text))
    quoted = _quoted_span(masked)
    if quoted is not None and not _quote_is_title(masked, quoted):
        quoted = None
    # The cited year is outside a quoted title ("“... from 2017 to 2022.” JAMA, 2023.").
    year, year_at = _pick_year(_masked(masked, [quoted]) if quoted is not None else masked)
    if year is None and quoted is not None:
        year, year_at = _pick_year(masked)
    if year is not None:
        fields["year"] = year

    author_segment: str | None = None
    title: str | None = None
    venue: str | None = None

    if quoted is not None:
        # IEEE, MLA, Chicago, AIP with titles: the title is the quoted part.
        title = masked[quoted[0] + 1 : quoted[1] - 1]
        before = masked[: quoted[0]]
        before = re.sub(rf"[\s.,(]*{YEAR_TOKEN}[a-z]?[).,]*\s*$", "", before)
        author_segment = before
        venue = _clean_venue(masked[quoted[1] :])
    else:
        author_segment, title, venue = _unquoted_fields(masked, year_at)
        title_at = masked.find(title) if title else -1
        if title and year_at is not None and title_at <= year_at < title_at + len(title):
            # "Global burden of lung cancer in 2022 and projections to 2050: ... Journal, 2024.":
            # a year in the title is not the cited one when another follows it.
            later, later_at = _pick_year(_masked(masked, [(0, title_at + len(title))]))
            if later is not None:
                fields["year"], year_at = later, later_at

    if author_segment:
        # A sentence of given-first names opening the string, ended by its full stop (not a list
        # rebuilt from pieces, nor one cut off before a year: "R. Cole, IEEE Antennas 1992 Digest").
        given_first = (
            (
                masked.startswith(author_segment)
                and masked[len(author_segment.rstrip()) :].lstrip().startswith(".")
            )
            or author_segment.rstrip().endswith(".")
        ) and is_given_first_list(author_segment)
        authors, truncated, uncertain = read_authors(author_segment, given_first=given_first)
        if authors:
            fields["authors"] = authors
            if uncertain:
                fields["authors_uncertain"] = True
        if truncated:
            fields["authors_truncated"] = True
    if title:
        cleaned = _clean_title(title)
        if cleaned:
            fields["title"] = cleaned
    if venue:
        fields["venue"] = venue
    return fields


_NAME_PARTICLES: Final = frozenset(
    {"van", "von", "der", "den", "de", "del", "da", "di", "du", "le", "la", "dos"}
)
_NOT_TITLE_WORDS: Final = frozenset(
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
        word.isalpha() and word.islower() and len(word) >= 2 and word not in _NOT_TITLE_WORDS
        for word in words
    )


def _author_year_anchor(masked: str) -> re.Match[str] | None:
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
            and _sentence_end(masked[: anchor.start()].rstrip()) >= len(masked[: anchor.start()].rstrip()) - 1
        ):
            return anchor
    return None


def _quoted_span(masked: str) -> tuple[int, int] | None:
    """Where the first quoted passage is, quotation marks included. Curly quotes nest: the title
    “Which rule chooses the “best”’ candidate?,” (IEEE quoting a title that quotes) is one passage."""
    quoted = _QUOTED.search(masked)
    if quoted is None or masked[quoted.start()] != "\u201c" or masked[quoted.end() - 1] != "\u201c":
        return quoted.span() if quoted is not None else None
    depth = 0
    for index in range(quoted.start(), min(len(masked), quoted.start() + 600)):
        char = masked[index]
        depth += 1 if char == "\u201c" else -1 if char == "\u201d" else 0
        if depth == 0:
            return quoted.start(), index + 1
    return quoted.span()


def _quote_is_title(masked: str, quoted: tuple[int, int]) -> bool:
    """Whether a quoted passage is the title, rather than a phrase quoted inside an unquoted title
    ("Rethinking the “third mission”: UK universities..."): it must follow the authors (and year)
    directly."""
    words = masked[: quoted[0]].split()
    if words and words[-1].isalpha() and words[-1].islower() and words[-1] not in _NOT_TITLE_WORDS | {"in"}:
        # "...likely to choose the “best” candidate?": a quoted word inside a running title.
        return False
    anchor = _author_year_anchor(masked)
    if anchor is None or anchor.end() > quoted[0]:
        return True
    between = masked[anchor.end() : quoted[0]]
    return not re.search(r"[^\W\d_]{2}", between)


def _unquoted_fields(masked: str, year_at: int | None) -> tuple[str | None, str | None, str | None]:
    """Authors, title and venue of a reference without a quoted title."""
    anchor = _author_year_anchor(masked)
    if anchor is not None:
        # Author-year styles: APA, Harvard, Chicago, ACM, Springer: "Authors (2019). Title. Venue".
        authors = masked[: anchor.start()]
        rest = masked[anchor.end() :].lstrip(" .,:;)")
        if _is_title_not_authors(authors):
            # APA puts the title first when there are no authors: "Title. (2015). Venue, 46(4)".
            return None, authors, _clean_venue(rest)
        return authors, *_title_and_venue(rest)

    # plainnat (NeurIPS, ICLR), ACL, IEEE without quotes: "Diederik P. Kingma and Jimmy Ba. Title.
    # In ICLR, 2015." Given names first, so neither Springer's colon nor a Vancouver "Diederik P."
    # (a surname and its initial) may take the list apart (issue 28).
    names_end = _names_sentence_end(masked)
    if names_end < len(masked) and is_given_first_list(masked[:names_end]):
        return masked[:names_end], *_title_and_venue(masked[names_end:])

    # Springer LNCS: "Surname, I.: Title. Venue".
    colon = re.match(r"^(?P<authors>[^:]{3,400}?\b[A-Z][a-z]?\.?):\s+(?P<rest>.+)$", masked)
    if colon is not None and re.search(r"\b[A-Z]\.", colon.group("authors")):
        return colon.group("authors"), *_title_and_venue(colon.group("rest"))

    # Nature, Science, Elsevier-Harvard without a year up front: "Surname, I. J., Other, K. & Last, L.
    # Title. Venue 177, 605 (2011)."
    nature = _NATURE_AUTHORS.match(masked)
    rest = nature.group("rest").rstrip() if nature is not None else ""
    # A title is a sentence of its own; ACS's single-author "Surname, I. Venue 1926, 91, 254." has none.
    if nature is not None and _sentence_end(rest) < len(rest) - 1:
        return nature.group("authors"), *_title_and_venue(nature.group("rest"))

    # ACS: "Surname, I.; Surname, I. Venue 1985, 151, 192." (no title).
    acs = _ACS_AUTHORS.match(masked)
    if acs is not None:
        venue = re.sub(rf"\s*\b{YEAR_TOKEN}\b.*$", "", acs.group("rest"))
        return acs.group("authors"), None, _clean_venue(venue)

    # Vancouver: "Surname AB, Surname C. Title. Venue. 2013;344:23-32."
    first_end = _vancouver_authors_end(masked)
    if first_end is not None:
        return masked[:first_end], *_title_and_venue(masked[first_end:].lstrip(" ."))

    # plainnat, ACL, IEEE without quotes: "Chidi Okafor and Astrid Lindqvist. Title. Venue, 2019."
    first_end = _sentence_end(masked)
    if first_end < len(masked) and looks_like_name_list(masked[:first_end]):
        return masked[:first_end], *_title_and_venue(masked[first_end:])

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
            return authors, first[0], _clean_venue(first[1])
        return authors, None, _clean_venue(rest)
    return None, None, None


_ET_AL_END = re.compile(r"\b(?:et\s+al|Jr|Sr)\.(?=\s+\S)")


def _names_sentence_end(masked: str) -> int:
    """Where the first sentence ends, or where an author list cut with "et al." or ending in a
    suffix does ("Tom Brown, Nick Ryder, et al. Language models...", "Richard Robb, Jr. Alternative
    methods..."): "al." and "Jr." are no sentence end elsewhere."""
    end = _sentence_end(masked)
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
        return None, _clean_venue(rest)
    end = _sentence_end(rest)
    if rest[:end].endswith(("?", "!")):
        # "Evil Genius? How Dishonesty Can Lead to Greater Creativity. Psychological Science, 25":
        # a question that opens a title goes on when a sentence without numbers follows, and
        # something (the venue) follows that.
        after = _sentence_end(rest, end)
        following = rest[end:after]
        if after < len(rest.rstrip()) and not re.search(r"\d", following) and len(following.split()) >= 2:
            end = after
    title = rest[:end]
    remainder = rest[end:]
    if not remainder.strip():
        # `plain.bst`'s @misc without a venue: "Title, 2024." (the year is not the title's).
        title = _TRAILING_YEAR.sub("", title)
    return title, _clean_venue(remainder) if remainder.strip() else None


_TRAILING_YEAR = re.compile(rf"(?<=\S),\s*{YEAR_TOKEN}[a-z]?\.?\s*$")


# --- references -----------------------------------------------------------------------------------


def _identifier_fields(text: str) -> ReferenceFields:
    found = extract_identifiers(text)
    fields: ReferenceFields = {}
    if found.dois:
        fields["doi"] = found.dois[0]
    if found.arxiv_ids:
        fields["arxiv_id"] = found.arxiv_ids[0].id
        if found.arxiv_ids[0].version is not None:
            fields["arxiv_version"] = found.arxiv_ids[0].version
    if found.pmids:
        fields["pmid"] = found.pmids[0]
    if found.pmcids:
        fields["pmcid"] = found.pmcids[0]
    if found.isbns:
        fields["isbn"] = found.isbns[0]
    if found.urls:
        fields["url"] = found.urls[0]
    return fields


def reference_from_string(
    text: str,
    *,
    key: str,
    origin: str | None,
    entry_type: str | None = None,
    source: str | None = None,
) -> CitedReference:
    """A `CitedReference` for one reference string: `raw` is the string; the fields read from it
    by `parse_reference_string` are filled in, the guessed ones named in `heuristic_fields`.

    `source` is the markup the string was rendered from (Markdown, LaTeX), when there was one:
    identifiers missing from the string (a link's target) are taken from it.
    """
    raw = normalize_whitespace(text)
    fields = parse_reference_string(raw)
    if source is not None:
        fields = {**_identifier_fields(source), **fields}  # the rendered string's own values win
    guessed = tuple(name for name in HEURISTIC_FIELDS if name in fields)
    return CitedReference(
        key=key,
        entry_type=entry_type,
        raw=raw,
        title=fields.get("title"),
        authors=fields.get("authors", ()),
        authors_truncated=fields.get("authors_truncated", False),
        authors_uncertain=fields.get("authors_uncertain", False),
        year=fields.get("year"),
        venue=fields.get("venue"),
        doi=fields.get("doi"),
        arxiv_id=fields.get("arxiv_id"),
        arxiv_version=fields.get("arxiv_version"),
        pmid=fields.get("pmid"),
        pmcid=fields.get("pmcid"),
        isbn=fields.get("isbn"),
        url=fields.get("url"),
        origin=origin,
        heuristic_fields=guessed,
    )


def inherit_repeated_authors(
    items: Iterable[CitedReference | InputProblem],
) -> Iterator[CitedReference | InputProblem]:
    """A reference list in order, each reference opening with "———" (Chicago's, MLA's and
    AMS's mark for the same authors as the reference above) given those authors. Read alone it
    has none, so a planted wrong author list on the first of a pair would go unseen on the next."""
    previous: CitedReference | None = None
    for item in items:
        if isinstance(item, CitedReference):
            if previous is not None and previous.authors and _SAME_AUTHORS.match(item.raw or ""):
                item = item.model_copy(
                    update={
                        "authors": previous.authors,
                        "authors_truncated": previous.authors_truncated or item.authors_truncated,
                        "authors_uncertain": previous.authors_uncertain,
                        "heuristic_fields": tuple(
                            name
                            for name in HEURISTIC_FIELDS
                            if name in item.heuristic_fields or name in ("authors", "authors_truncated")
                        ),
                    }
                )
            previous = item
        yield item


def iter_plain(text: str, *, origin: str) -> Iterator[CitedReference | InputProblem]:
    """Read a plain-text reference list: one `CitedReference` per reference, keyed by position."""
    yield from inherit_repeated_authors(
        reference_from_string(piece.text, key=str(position), origin=f"{origin}:{piece.line}")
        for position, piece in enumerate(split_references(text), start=1)
    )
