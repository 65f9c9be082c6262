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

Splitting lives in `plain_split`; this module reads one reference, with `plain_unquoted` (the
shapes of a reference without a quoted title) and `plain_sentences` (where its sentences end).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final, TypedDict

from aletheia.core.bibliography.plain_authors import is_given_first_list, read_authors
from aletheia.core.bibliography.plain_sentences import clean_title, clean_venue
from aletheia.core.bibliography.plain_split import split_references
from aletheia.core.bibliography.plain_unquoted import NOT_TITLE_WORDS, author_year_anchor, unquoted_fields
from aletheia.core.bibliography.plain_years import YEAR_TOKEN
from aletheia.core.bibliography.plain_years import masked as _masked
from aletheia.core.bibliography.plain_years import pick_year as _pick_year
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.identifiers_in_text import extract_identifiers
from aletheia.core.records import Author, CitedReference
from aletheia.core.text import decode_character_references, normalize_whitespace

__all__ = [
    "HEURISTIC_FIELDS",
    "ReferenceFields",
    "identifier_fields",
    "inherit_repeated_authors",
    "iter_plain",
    "parse_reference_string",
    "reference_from_string",
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


def _identifier_spans(text: str) -> list[tuple[int, int]]:
    pattern = re.compile(
        r"https?://\S+|\bdoi:?\s*10\.\S+|\b10\.\d{4,9}/\S+|\barxiv:?\s*(?:\d{4}\.\d{4,5}|[a-z.\-]+/\d{7})\S*"
        r"|\bisbn[\s:-]*[\dxX\- ]{10,17}"
        r"|\bpmc?id:?\s*\S+",
        re.IGNORECASE,
    )
    return [match.span() for match in pattern.finditer(text)]


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
    fields = identifier_fields(text)

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

    if quoted is not None:
        author_segment, title, venue = _quoted_fields(masked, quoted)
    else:
        author_segment, title, venue = unquoted_fields(masked, year_at)
        _year_outside_title(masked, title, year_at, fields)

    if author_segment:
        _read_author_segment(masked, author_segment, fields)
    if title:
        cleaned = clean_title(title)
        if cleaned:
            fields["title"] = cleaned
    if venue:
        fields["venue"] = venue
    return fields


def _quoted_fields(masked: str, quoted: tuple[int, int]) -> tuple[str | None, str | None, str | None]:
    """IEEE, MLA, Chicago, AIP with titles: the title is the quoted part."""
    title = masked[quoted[0] + 1 : quoted[1] - 1]
    before = masked[: quoted[0]]
    before = re.sub(rf"[\s.,(]*{YEAR_TOKEN}[a-z]?[).,]*\s*$", "", before)
    return before, title, clean_venue(masked[quoted[1] :])


def _year_outside_title(masked: str, title: str | None, year_at: int | None, fields: ReferenceFields) -> None:
    """A year inside the title is not the cited one when another follows it ("Global burden of
    lung cancer in 2022 and projections to 2050: ... Journal, 2024.")."""
    title_at = masked.find(title) if title else -1
    if title and year_at is not None and title_at <= year_at < title_at + len(title):
        later, _ = _pick_year(_masked(masked, [(0, title_at + len(title))]))
        if later is not None:
            fields["year"] = later


def _read_author_segment(masked: str, author_segment: str, fields: ReferenceFields) -> None:
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
    if words and words[-1].isalpha() and words[-1].islower() and words[-1] not in NOT_TITLE_WORDS | {"in"}:
        # "...likely to choose the “best” candidate?": a quoted word inside a running title.
        return False
    anchor = author_year_anchor(masked)
    if anchor is None or anchor.end() > quoted[0]:
        return True
    between = masked[anchor.end() : quoted[0]]
    return not re.search(r"[^\W\d_]{2}", between)


# --- references -----------------------------------------------------------------------------------


def identifier_fields(text: str) -> ReferenceFields:
    """The first identifier of each kind written in `text` (an arXiv id with its version)."""
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
        fields = {**identifier_fields(source), **fields}  # the rendered string's own values win
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
