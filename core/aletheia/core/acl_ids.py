"""ACL Anthology identifiers: recognised in a citation, in a URL or in an ACL DOI. Pure.

Two forms name a paper (https://aclanthology.org/info/ids/):

- the new form, since 2020: `{year}.{venue}-{volume}.{number}`, e.g. `2023.acl-long.123`,
  `2020.findings-emnlp.12`, `2022.lrec-1.619` (venue and volume are lower-case letters/digits);
- the old form: one capital letter for the venue series, two year digits, a dash and four digits
  of volume and paper, e.g. `P19-1001`, `N18-2074`, `J88-2003`, `W19-5301`.

The anthology's pages are `https://aclanthology.org/{id}/` (and `{id}.pdf`, `{id}.bib`); older
links use `www.aclweb.org/anthology/{id}` or `aclweb.org/anthology/P/P19/P19-1001.pdf`. ACL's DOIs
carry the id too: `10.18653/v1/{id}`. A volume id (`2023.acl-long`, `P19-1`) is no paper: it is not
recognised here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from aletheia.core.records import CitedReference

__all__ = ["ACL_DOI_PREFIX", "acl_id_from_doi", "acl_id_from_text", "cited_acl_id", "clean_acl_id"]

ACL_DOI_PREFIX: Final = "10.18653/v1/"
_NEW: Final = r"(?:19|20)\d{2}\.[a-z][a-z0-9]*(?:-[a-z0-9]+)*\.\d{1,4}"
_OLD: Final = r"[A-Z]\d{2}-\d{4}"
_ID: Final = re.compile(rf"^(?:{_NEW}|{_OLD})$")
_HOSTS: Final = r"(?:www\.)?(?:aclanthology\.org|aclweb\.org/anthology(?:-new)?)"
# The id after an anthology host: optional old-style folders (`P/P19/`), then the id, then
# `/`, `.pdf`, `.bib`, `v2.pdf`, a query or the end.
_IN_URL: Final = re.compile(
    rf"(?i:https?://)?{_HOSTS}/(?:[A-Z]/[A-Z]\d{{2}}/)?(?P<id>{_NEW}|{_OLD})(?=v\d+|[/.?#\s]|$)"
)
_DOI: Final = re.compile(rf"^10\.18653/v1/(?P<id>{_NEW}|{_OLD})$", re.IGNORECASE)
# A field a citation may carry the anthology id in (BibTeX `url`, `howpublished`, `note`, `eprint`).
_FIELDS: Final = ("url", "howpublished", "note", "eprint", "pdf", "link")


def clean_acl_id(raw: str | None) -> str | None:
    """An anthology id in its canonical case (new form lower-case, old form upper-case), or None."""
    if not raw:
        return None
    text = raw.strip()
    if re.fullmatch(r"[A-Za-z]\d{2}-\d{4}", text):
        text = text.upper()
    elif text[:1].isdigit():
        text = text.lower()
    return text if _ID.fullmatch(text) else None


def acl_id_from_text(text: str | None) -> str | None:
    """The anthology id of the first aclanthology.org / aclweb.org/anthology URL in `text`."""
    if not text:
        return None
    match = _IN_URL.search(text)
    return clean_acl_id(match.group("id")) if match else None


def acl_id_from_doi(doi: str | None) -> str | None:
    """`10.18653/v1/2023.acl-long.123` -> `2023.acl-long.123`; None for any other DOI."""
    if not doi:
        return None
    match = _DOI.match(doi.strip())
    return clean_acl_id(match.group("id")) if match else None


def _texts(cited: CitedReference) -> Iterable[str]:
    if cited.url:
        yield cited.url
    for name in _FIELDS:
        value = cited.fields.get(name)
        if value:
            yield value
    if cited.raw:
        yield cited.raw


def cited_acl_id(cited: CitedReference) -> str | None:
    """The anthology id a citation gives by URL (never guessed from a title or a DOI: a cited DOI
    is looked up as a DOI)."""
    for text in _texts(cited):
        found = acl_id_from_text(text)
        if found is not None:
            return found
    return None
