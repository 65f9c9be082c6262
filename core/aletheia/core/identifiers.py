"""Scholarly identifiers: DOI, PMID, PMCID, ISBN and ISSN, cleaned to one canonical form (arXiv ids:
`arxiv_ids`; identifiers found in free text: `identifiers_in_text`).

Every `clean_*` function is total: it never raises, and returns None when the input does not hold a
valid identifier of its kind. Canonical forms:

- DOI: lower case (DOIs are case-insensitive), no resolver prefix, percent-escapes decoded,
  trailing sentence punctuation trimmed: `10.1016/0370-2693(85)91220-9`.
- PMID: decimal digits without leading zeros; PMCID: `PMC` + digits.
- ISBN: the 13 digits of the ISBN-13 (an ISBN-10 is converted).
- ISSN: `NNNN-NNNC` with an upper-case check character (`clean_issn`; the checksum is not checked:
  the sources publish what was registered, and this is only for comparing their spellings).

Versioned DOIs: some preprint servers and repositories mint one DOI per version, the version as a
suffix (bioRxiv/medRxiv `10.1101/2023.10.11.561234v1`, figshare `10.6084/m9.figshare.1234567.v2`,
Research Square, ChemRxiv, Preprints.org). `doi_version_base` strips that suffix and `same_doi` takes
two such DOIs of one work for the same DOI.

Libraries: ISBN checksums and ISBN-10 -> 13 conversion come from python-stdnum (`stdnum.isbn`),
which is maintained, typed, pure and already does exactly that. `idutils` (inveniosoftware) was
considered for the rest and not used: it normalises DOIs without lower-casing or trimming trailing
punctuation, accepts arXiv ids without checking the yymm month or the 4/5-digit number, and its
regular expressions were not written for hostile free text; `extract_identifiers` needs scanning
in linear time, which its match-one-string API does not provide. The arXiv, PubMed and DOI rules
below are small enough to own and test.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import unquote

__all__ = [
    "MAX_ID_TEXT",
    "clean_doi",
    "clean_isbn",
    "clean_issn",
    "clean_pmcid",
    "clean_pmid",
    "doi_version_base",
    "is_doi",
    "same_doi",
    "trim_trailing_punctuation",
]


# Longer than any URL or label holding a single arXiv id, PMID or PMCID: not one of those.
MAX_ID_TEXT: Final = 500

# --- trailing punctuation ---------------------------------------------------------------------

_TRAILING_PUNCTUATION: Final = frozenset(".,;:)]}>'\"")
_OPENER_OF: Final = {")": "(", "]": "[", "}": "{", ">": "<"}


def trim_trailing_punctuation(s: str) -> str:
    """Drop sentence punctuation from the end, but keep a closing bracket that closes one inside.

    `10.1016/0370-2693(85)91220-9).` -> `10.1016/0370-2693(85)91220-9`;
    `10.1002/(sici)1097-0258(19960315)15:5<499::aid-sim191>3.0.co;2-r` is untouched.
    """
    end = len(s)
    # Counted once, then kept up to date, so a run of closers costs linear time, not quadratic.
    closers = {closer: s.count(closer) for closer in _OPENER_OF}
    openers = {opener: s.count(opener) for opener in _OPENER_OF.values()}
    while end:
        last = s[end - 1]
        if last not in _TRAILING_PUNCTUATION:
            break
        opener = _OPENER_OF.get(last)
        if opener is not None:
            if openers[opener] >= closers[last]:
                break
            closers[last] -= 1
        end -= 1
    return s[:end]


# --- DOI ----------------------------------------------------------------------------------------

# Resolver URLs and labels in front of a DOI, any case, with or without a scheme.
_DOI_PREFIX = re.compile(
    r"^(?:(?:https?://)?(?:(?:dx\.|www\.)?doi\.org|doi\.acm\.org|hdl\.handle\.net)/"
    r"|info:doi/|urn:doi:|doi\s*[:=]\s*|doi\s+)",
    re.IGNORECASE,
)
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_LEADING_JUNK: Final = "<([{\"' \t\r\n"
_MAX_PERCENT_ROUNDS: Final = 4


def _percent_decoded(s: str) -> str | None:
    """Decode percent-escapes until none are left, so that cleaning twice changes nothing.

    None when escapes are nested deeper than any real link would (`%252525...`).
    """
    for _ in range(_MAX_PERCENT_ROUNDS):
        if "%" not in s:
            return s
        decoded = unquote(s)
        if decoded == s:
            return s
        s = decoded
    return s if unquote(s) == s else None


def clean_doi(raw: str | None) -> str | None:
    """The canonical form of a DOI, or None: `https://doi.org/10.1000/ABC.` -> `10.1000/abc`."""
    if not raw:
        return None
    decoded = _percent_decoded(raw.strip())
    if decoded is None:
        return None
    text = decoded.strip().lstrip(_LEADING_JUNK)
    # Prefixes can stack: `doi: https://doi.org/10...`.
    for _ in range(3):
        stripped = _DOI_PREFIX.sub("", text, count=1).lstrip()
        if stripped == text:
            break
        text = stripped
    doi = trim_trailing_punctuation(text.lower())
    return doi if _DOI.fullmatch(doi) else None


def is_doi(s: str | None) -> bool:
    """Whether `s` names a DOI, in any spelling `clean_doi` accepts (bare, `doi:`, doi.org URL)."""
    return clean_doi(s) is not None


# Version suffixes of DOIs minted per version: (the unversioned DOI)(the version suffix). Each base
# ends in a character its suffix pattern cannot end with, so a base never has a base of its own.
_VERSIONED_DOIS: Final = (
    # bioRxiv / medRxiv: 10.1101/2023.10.11.561234v1, and the older 10.1101/123456v2. Cold Spring
    # Harbor's journals share the prefix (10.1101/gr.123.110): only these two forms are taken.
    re.compile(r"(10\.1101/(?:\d{6}|\d{4}\.\d{2}\.\d{2}\.\d{5,7}))v\d{1,3}"),
    # figshare (items and collections): 10.6084/m9.figshare.1234567.v2
    re.compile(r"(10\.6084/m9\.figshare\.(?:c\.)?\d+)\.v\d{1,3}"),
    # Research Square: 10.21203/rs.3.rs-123456/v1
    re.compile(r"(10\.21203/rs\.\d\.rs-\d+)/v\d{1,3}"),
    # ChemRxiv: 10.26434/chemrxiv.12345678.v2 and 10.26434/chemrxiv-2021-abc12-v2
    re.compile(r"(10\.26434/chemrxiv\.\d+)\.v\d{1,3}"),
    re.compile(r"(10\.26434/chemrxiv-\d{4}-[a-z0-9]+)-v\d{1,3}"),
    # Preprints.org: 10.20944/preprints202001.0001.v1
    re.compile(r"(10\.20944/preprints\d{6}\.\d{4})\.v\d{1,3}"),
)


def doi_version_base(doi: str) -> str | None:
    """The unversioned DOI of a DOI minted for one version, or None when `doi` carries no version
    suffix (or is no DOI): `10.1101/2023.10.11.561234v1` -> `10.1101/2023.10.11.561234`."""
    cleaned = clean_doi(doi)
    if cleaned is None:
        return None
    for pattern in _VERSIONED_DOIS:
        match = pattern.fullmatch(cleaned)
        if match is not None:
            return match.group(1)
    return None


def same_doi(a: str | None, b: str | None) -> bool:
    """Whether two strings name the same DOI: equal once cleaned, or two versions (or a version
    and the base) of one versioned DOI. Strings that are no DOI are never the same DOI."""
    clean_a, clean_b = clean_doi(a), clean_doi(b)
    if clean_a is None or clean_b is None:
        return False
    if clean_a == clean_b:
        return True
    return (doi_version_base(clean_a) or clean_a) == (doi_version_base(clean_b) or clean_b)


# --- PubMed -------------------------------------------------------------------------------------

_PMID_FORMS = re.compile(
    r"(?:(?:https?://)?(?:www\.)?(?:pubmed\.ncbi\.nlm\.nih\.gov/|ncbi\.nlm\.nih\.gov/pubmed/(?:\?term=)?"
    r"|europepmc\.org/(?:abstract|article)/med/)"
    r"|pmid\s*(?::\s*)?|pubmed(?:\s*id)?\s*(?::\s*)?)?(?P<digits>\d{1,9})/?(?:[?#]\S*)?",
    re.IGNORECASE,
)
_PMCID_FORMS = re.compile(
    r"(?:(?:https?://)?(?:www\.)?(?:(?:ncbi\.nlm\.nih\.gov/pmc|pmc\.ncbi\.nlm\.nih\.gov)/articles/"
    r"|europepmc\.org/(?:abstract|article)/pmc/)"
    r"|pmcid\s*(?::\s*)?)?(?:pmc\s?)?(?P<digits>\d{1,9})(?:\.\d{1,3})?/?(?:[?#]\S*)?",
    re.IGNORECASE,
)


def clean_pmid(raw: str | int | None) -> str | None:
    """A PubMed id as digits, from `123`, `PMID: 123` or a PubMed URL; else None."""
    if raw is None or isinstance(raw, bool):
        return None
    text = str(raw).strip()
    if len(text) > MAX_ID_TEXT:
        return None
    match = _PMID_FORMS.fullmatch(text)
    if match is None:
        return None
    value = int(match.group("digits"))
    return str(value) if value > 0 else None


def clean_pmcid(raw: str | None) -> str | None:
    """A PubMed Central id as `PMC` + digits; else None.

    Bare digits are accepted only with context saying they are a PMCID (`PMCID: 123`, a PMC URL):
    alone, they could as well be a PMID.
    """
    if not raw:
        return None
    text = raw.strip()
    if len(text) > MAX_ID_TEXT:
        return None
    match = _PMCID_FORMS.fullmatch(text)
    if match is None:
        return None
    # Something (a URL, a `PMCID:` label, the `PMC` itself) precedes the digits.
    has_context = match.start("digits") > 0
    value = int(match.group("digits"))
    return f"PMC{value}" if has_context and value > 0 else None


# --- ISBN ---------------------------------------------------------------------------------------

# Spaces, hyphens and the Unicode dashes PDF extraction leaves between an ISBN's groups.
_ISBN_SEPARATORS = re.compile(r"[\s\-\u2010-\u2015]")
_ISBN_LABEL = re.compile(r"^isbn(?:-?1[03])?\s*(?::\s*)?", re.IGNORECASE)


def clean_isbn(raw: str | None) -> str | None:
    """The 13 digits of a valid ISBN-10 or ISBN-13 (checksum checked), else None."""
    if not raw or len(raw) > 64:
        return None
    # Imported here: stdnum's package imports `ssl` (hence `socket`) and `pydoc` at start-up, which
    # the pure core should not pull in for every user of this module.
    from stdnum import isbn as stdnum_isbn
    from stdnum.exceptions import ValidationError

    text = _ISBN_SEPARATORS.sub("", _ISBN_LABEL.sub("", raw.strip()))
    # stdnum also takes a 9-digit SBN (the pre-1970 form); nine digits in a reference are far more
    # often something else.
    if len(text) not in (10, 13):
        return None
    try:
        return str(stdnum_isbn.to_isbn13(stdnum_isbn.validate(text)))
    except ValidationError:
        return None


# --- ISSN ---------------------------------------------------------------------------------------

_ISSN: Final = re.compile(
    r"(?:(?:[ep]-?)?issn\s*:?\s*)?(\d{4})\s*[-\u2010-\u2015]?\s*(\d{3})([\dxX])", re.IGNORECASE
)


def issn_check_character(first_seven: str) -> str:
    """The check character of an ISSN's first seven digits (ISO 3297): the digits weighted 8 down
    to 2, the sum's complement modulo 11, `X` for 10."""
    total = sum(int(digit) * weight for digit, weight in zip(first_seven, range(8, 1, -1), strict=True))
    check = (11 - total % 11) % 11
    return "X" if check == 10 else str(check)


def clean_issn(raw: str | None) -> str | None:
    """An ISSN as `NNNN-NNNC` (check character upper-cased), from `0028-0836`, `00280836`,
    `ISSN 1476-4687`, `eISSN 2041-1723`; None unless it is one, its check character included
    (`issn_check_character`: a mistyped digit is no ISSN of any journal)."""
    if not raw or len(raw) > 64:
        return None
    match = _ISSN.fullmatch(raw.strip())
    if match is None:
        return None
    head, body, check = match.group(1), match.group(2), match.group(3).upper()
    return f"{head}-{body}{check}" if issn_check_character(head + body) == check else None
