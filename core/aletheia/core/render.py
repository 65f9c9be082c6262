"""Render a work record as BibTeX and the artifact's citation snippet (seed 000 §6.3; CSL-JSON is
written from the artifact, `pipeline/reports/artifact_csl.py`).

Every field value is treated as plain text and escaped for its format; nothing a source returns can
break the entry around it. BibTeX specifics:

- `& % $ # _` get a backslash; `\\`, `~` and `^` become `\\textbackslash{}`, `\\textasciitilde{}` and
  `\\textasciicircum{}`. Braces: BibTeX counts every brace, escaped or not, so a literal brace that
  has a partner in the same value is written `\\{`/`\\}` (balanced either way) and one without a
  partner becomes `\\textbraceleft{}`/`\\textbraceright{}`.
- TeX ligatures are broken with `{}` so that text comes back as it went in: `--` would print an en
  dash, two quotes a curly quote, `?``/`!`` an inverted mark (`-{}-`, `'{}'`, `?{}``).
- Whitespace runs collapse to one space and control characters are dropped: BibTeX does the first
  anyway, and the second never belongs in a bibliography.
- DOIs and URLs are written verbatim (biblatex reads them as verbatim fields), except that braces,
  backslashes and whitespace are percent-encoded so the value stays balanced.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from aletheia.core.artifacts import (
    ArtifactBody,
    Excerpt,
    author_token,
    is_arxiv_preprint,
    title_keyword,
    urls_for,
)
from aletheia.core.bibtex_value import bibtex_escape, clean_text
from aletheia.core.records import Author, WorkRecord

__all__ = [
    "bibtex_escape",
    "bibtex_key",
    "body_from_record",
    "citation_snippet",
    "full_title",
    "render_bibtex",
]

# --- shared -----------------------------------------------------------------------------------------


def full_title(record: WorkRecord) -> str:
    """Title and subtitle as one title (`Title: Subtitle`), unless the title already holds it."""
    title = clean_text(record.title or "")
    subtitle = clean_text(record.subtitle or "")
    if subtitle and subtitle.casefold() not in title.casefold():
        separator = " " if title.endswith((":", "?", "!", ".")) else ": "
        return f"{title}{separator}{subtitle}" if title else subtitle
    return title


def _primary_url(record: WorkRecord) -> str | None:
    urls = urls_for(record)
    return urls.abs or urls.doi or urls.html or urls.pdf


# --- BibTeX -------------------------------------------------------------------------------------------

_KEY_FORBIDDEN: Final = re.compile(r"[\s,{}()=#%\"'\\~]")
_ENTRY_TYPE: Final = re.compile(r"[A-Za-z]+")
_AND: Final = re.compile(r"\band\b", re.IGNORECASE)


def _verbatim_value(text: str) -> str:
    """A DOI or URL for a verbatim field: only what would unbalance or split it is percent-encoded."""
    return "".join(f"%{ord(c):02X}" if c in "{}\\" or c.isspace() else c for c in clean_text(text))


def _bibtex_part(text: str) -> str:
    escaped = bibtex_escape(text)
    # A comma or the word `and` inside one name part would split it; braces keep it whole.
    return f"{{{escaped}}}" if "," in escaped or _AND.search(escaped) else escaped


def bibtex_name(author: Author) -> str | None:
    literal = clean_text(author.literal or "")
    family = clean_text(author.family or "")
    given = clean_text(author.given or "")
    suffix = clean_text(author.suffix or "")
    if literal:
        return "{" + bibtex_escape(literal) + "}"
    if family:
        parts = [_bibtex_part(family)]
        if suffix:
            parts.append(_bibtex_part(suffix))
        if given or suffix:
            parts.append(_bibtex_part(given) if given else "")
        return ", ".join(parts).rstrip()
    if given:  # a single name (a mononym): braced so BibTeX does not take it for a family name
        return "{" + bibtex_escape(given) + "}"
    return None


def bibtex_key(record: WorkRecord) -> str:
    """`{surname}{year}{keyword}`, lower-case ASCII: `zhang2025sok` (the seed's key).

    The surname is `author_token` of the first author (`anon` when there is none), the keyword
    `title_keyword` of the title; a missing year is left out.
    """
    year = str(record.year) if record.year is not None else ""
    return f"{author_token(record.first_author)}{year}{title_keyword(full_title(record))}"


def _entry_type(record: WorkRecord) -> str:
    if is_arxiv_preprint(record):
        return "article"  # the seed's form: @article{..., journal={arXiv preprint arXiv:ID}}
    match record.work_type:
        case "journal-article":
            return "article"
        case "proceedings-article":
            return "inproceedings"
        case "book" | "proceedings":
            return "book"
        case "book-chapter":
            return "incollection"
        case "report":
            return "techreport"
        case "thesis":
            return "phdthesis"
        case None if record.venue and not record.is_preprint:
            return "article"
        case _:
            return "misc"


# Which field holds the venue, for each entry type.
_VENUE_FIELD: Final = {
    "article": "journal",
    "inproceedings": "booktitle",
    "conference": "booktitle",
    "incollection": "booktitle",
    "inbook": "booktitle",
    "book": "publisher",
    "techreport": "institution",
    "report": "institution",
    "phdthesis": "school",
    "mastersthesis": "school",
    "thesis": "school",
}


def _bibtex_fields(record: WorkRecord, entry_type: str) -> Iterator[tuple[str, str]]:
    """(field, already-escaped value) in the order the seed writes them, then the identifiers."""
    title = full_title(record)
    if title:
        yield "title", bibtex_escape(title)
    names = [name for author in record.authors if (name := bibtex_name(author))]
    if names:
        if record.authors_truncated:
            names.append("others")
        yield "author", " and ".join(names)
    venue_field = _VENUE_FIELD.get(entry_type.lower(), "howpublished")
    if is_arxiv_preprint(record) and record.arxiv_id:
        yield venue_field, bibtex_escape(f"arXiv preprint arXiv:{record.arxiv_id}")
    elif record.venue and clean_text(record.venue):
        yield venue_field, bibtex_escape(record.venue)
    if record.year is not None:
        yield "year", str(record.year)
    if record.doi:
        yield "doi", _verbatim_value(record.doi)
    if record.arxiv_id:
        yield "eprint", _verbatim_value(record.arxiv_id)
        yield "archivePrefix", "arXiv"
    if record.pmid:
        yield "pmid", _verbatim_value(record.pmid)
    if record.isbn:
        yield "isbn", _verbatim_value(record.isbn[0])
    url = _primary_url(record)
    if url:
        yield "url", _verbatim_value(url)


def render_bibtex(record: WorkRecord, *, key: str | None = None, entry_type: str | None = None) -> str:
    """One BibTeX entry for the record, in the seed's layout (`field={value},` one per line).

    `key` defaults to `bibtex_key(record)`; `entry_type` to the type the record's `work_type` maps
    to (arXiv preprints are `@article` with `journal={arXiv preprint arXiv:ID}`, as in the seed).
    Raises ValueError for a key or entry type BibTeX could not read.
    """
    key = bibtex_key(record) if key is None else key
    if not key or _KEY_FORBIDDEN.search(key):
        raise ValueError(f"not a usable BibTeX key: {key!r}")
    entry_type = _entry_type(record) if entry_type is None else entry_type
    if not _ENTRY_TYPE.fullmatch(entry_type):
        raise ValueError(f"not a BibTeX entry type: {entry_type!r}")
    fields = [f"  {name}={{{value}}}" for name, value in _bibtex_fields(record, entry_type)]
    return f"@{entry_type}{{{key},\n" + ",\n".join(fields) + "\n}"


# --- the citation snippet -----------------------------------------------------------------------------

_MARKDOWN_SPECIAL: Final = re.compile(r"([\\*_`\[\]<>])")


def _markdown_text(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", clean_text(text))


def _sentence(text: str) -> str:
    return text if text.endswith((".", "?", "!")) else text + "."


def citation_snippet(record: WorkRecord) -> str:
    """The seed's plain citation, on one line of Markdown:

    `Heyi Zhang, Yule Liu, Xinlei He. *SoK: Benchmarking ...*. arXiv:2502.03801 (2025).` for an
    arXiv preprint; `Names. *Title*. Venue (2022). doi:10.1109/tsp.2022.3153135.` for a published
    work. A truncated author list ends in `et al.`; missing parts are left out.
    """
    parts: list[str] = []
    names = [_markdown_text(author.display) for author in record.authors]
    names = [name for name in names if name]
    if names:
        if record.authors_truncated:
            names.append("et al")
        parts.append(_sentence(", ".join(names)))
    title = full_title(record)
    if title:
        parts.append(f"*{_markdown_text(title).removesuffix('.')}*.")
    year = f"({record.year})" if record.year is not None else ""
    if is_arxiv_preprint(record):
        parts.append(_sentence(" ".join(p for p in (f"arXiv:{record.arxiv_id}", year) if p)))
    else:
        venue = " ".join(p for p in (_markdown_text(record.venue or ""), year) if p)
        if venue:
            parts.append(_sentence(venue))
        if record.doi:
            parts.append(f"doi:{clean_text(record.doi)}.")
        elif record.arxiv_id:
            parts.append(f"arXiv:{record.arxiv_id}.")
    return " ".join(parts)


def body_from_record(record: WorkRecord, excerpts: list[Excerpt]) -> ArtifactBody:
    """The artifact body for a work: its abstract verbatim, the excerpts, the snippet and BibTeX."""
    return ArtifactBody(
        abstract=record.abstract,
        excerpts=excerpts,
        citation_snippet=citation_snippet(record),
        bibtex=render_bibtex(record),
    )
