"""The ACL Anthology's BibTeX export (`https://aclanthology.org/{id}.bib`) as a `WorkRecord`. Pure.

The anthology serves one BibTeX entry per paper: `@inproceedings` (or `@article` for TACL and
Computational Linguistics) with `title`, `author` ("Devlin, Jacob and ..."), `editor`, `booktitle`
or `journal`, `year`, `publisher`, `url` ("https://aclanthology.org/{id}/"), `doi` (ACL's
`10.18653/v1/{id}`, for most papers since 2012) and `pages`. The entry is read with the same
BibTeX reader as a user's bibliography (LaTeX to Unicode, names split), so the two sides of a
comparison are read alike; the raw text is kept beside the record by the client.
"""

from __future__ import annotations

from typing import Final

from aletheia.core.acl_ids import acl_id_from_doi, acl_id_from_text, clean_acl_id
from aletheia.core.bibliography.bibtex import iter_bibtex
from aletheia.core.identifiers import clean_doi
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.sources.base import SourceParseError

__all__ = ["parse_acl_bibtex"]

SOURCE: Final = SourceName.ACL_ANTHOLOGY
_TYPES: Final = {
    "inproceedings": "proceedings-article",
    "article": "journal-article",
    "proceedings": "proceedings",
    "book": "book",
}


def parse_acl_bibtex(text: str, anthology_id: str | None = None) -> WorkRecord:
    """The one entry of an anthology `.bib`; `anthology_id` is the id asked for (else read from the
    entry's `url` or DOI). SourceParseError when the text holds no entry with a title."""
    entries = [e for e in iter_bibtex([text], origin="acl_anthology") if isinstance(e, CitedReference)]
    if not entries:
        raise SourceParseError(SOURCE.value, "no BibTeX entry in the ACL Anthology answer")
    entry = entries[0]
    if not entry.title:
        raise SourceParseError(SOURCE.value, f"ACL Anthology entry {entry.key!r} has no title")
    ident = (
        clean_acl_id(anthology_id) or acl_id_from_text(entry.fields.get("url")) or acl_id_from_doi(entry.doi)
    )
    doi = clean_doi(entry.doi) if entry.doi else None
    urls = {"acl_anthology": entry.url} if entry.url else {}
    publisher = entry.fields.get("publisher")
    return WorkRecord(
        source=SOURCE,
        source_id=ident,
        title=entry.title,
        authors=entry.authors,
        authors_truncated=entry.authors_truncated,
        year=entry.year,
        venue=entry.venue,
        work_type=_TYPES.get((entry.entry_type or "").lower(), "other"),
        doi=doi,
        urls=urls,
        publisher=publisher,
    )
