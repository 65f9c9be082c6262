"""Scholarly identifiers: DOI, arXiv id, PMID, PMCID and ISBN, cleaned to one canonical form.

Every `clean_*` function is total: it never raises, and returns None when the input does not hold a
valid identifier of its kind. Canonical forms:

- DOI: lower case (DOIs are case-insensitive), no resolver prefix, percent-escapes decoded,
  trailing sentence punctuation trimmed: `10.1016/0370-2693(85)91220-9`.
- arXiv: `ArxivId(id="2502.03801", version=2)`; old-style ids lose their subject class
  (`math.GT/0309136` -> `math/0309136`), which arXiv treats as an alias.
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
from dataclasses import dataclass
from typing import Final, Generic, TypeVar
from urllib.parse import unquote

__all__ = [
    "ArxivId",
    "ExtractedIdentifiers",
    "arxiv_doi",
    "arxiv_id_from_doi",
    "clean_arxiv_id",
    "clean_doi",
    "clean_isbn",
    "clean_issn",
    "clean_pmcid",
    "clean_pmid",
    "doi_version_base",
    "extract_identifiers",
    "is_doi",
    "same_doi",
    "url_kind",
]

ARXIV_DOI_PREFIX: Final = "10.48550/arxiv."

# extract_identifiers looks at no more than this many characters of its input.
MAX_EXTRACT_CHARS: Final = 1_000_000

# Longer than any URL or label holding a single arXiv id, PMID or PMCID: not one of those.
_MAX_ID_TEXT: Final = 500

# --- trailing punctuation ---------------------------------------------------------------------

_TRAILING_PUNCTUATION: Final = frozenset(".,;:)]}>'\"")
_OPENER_OF: Final = {")": "(", "]": "[", "}": "{", ">": "<"}


def _trim_trailing(s: str) -> str:
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
    doi = _trim_trailing(text.lower())
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


# --- arXiv --------------------------------------------------------------------------------------

# Archives that had old-style (before April 2007) identifiers, `archive/YYMMNNN`.
_OLD_ARCHIVES: Final = frozenset(
    {
        "acc-phys",
        "adap-org",
        "alg-geom",
        "ao-sci",
        "astro-ph",
        "atom-ph",
        "bayes-an",
        "chao-dyn",
        "chem-ph",
        "cmp-lg",
        "comp-gas",
        "cond-mat",
        "cs",
        "dg-ga",
        "funct-an",
        "gr-qc",
        "hep-ex",
        "hep-lat",
        "hep-ph",
        "hep-th",
        "math",
        "math-ph",
        "mtrl-th",
        "nlin",
        "nucl-ex",
        "nucl-th",
        "patt-sol",
        "physics",
        "plasm-ph",
        "q-alg",
        "q-bio",
        "quant-ph",
        "solv-int",
        "supr-con",
    }
)

_NEW_STYLE = r"(?P<yymm>\d{4})\.(?P<number>\d{4,5})"
# An archive, an optional subject class (`math.GT`, `cond-mat.mes-hall`), then YYMMNNN.
_OLD_STYLE = r"(?P<archive>[a-z]{2,8}(?:-[a-z]{2,4})?)(?:\.[a-z]{2,9}(?:-[a-z]{2,4})?)?/(?P<old>\d{7})"
_VERSION = r"(?:v(?P<version>\d{1,4}))?"
_ARXIV_ID = re.compile(rf"(?:{_NEW_STYLE}|{_OLD_STYLE}){_VERSION}", re.IGNORECASE)
_ARXIV_PREFIX = re.compile(
    r"^(?:(?:https?://)?(?:www\.|export\.|[a-z]{2}\.)?arxiv\.org/(?:abs|pdf|html|format|ps)/"
    r"|arxiv\s+preprint\s+|arxiv\s*:\s*|arxiv\s+|e-?print\s*(?::\s*)?)",
    re.IGNORECASE,
)
# What may follow an id: `.pdf`, a slash, a query or fragment, or a `[hep-th]` category tag.
_ARXIV_TAIL = re.compile(r"(?:\.pdf)?/?(?:[?#]\S*)?(?:\s*\[[a-z.-]{2,20}\])?", re.IGNORECASE)


@dataclass(frozen=True)
class ArxivId:
    """An arXiv identifier without its version (`id`), and the version when one was given."""

    id: str
    version: int | None = None

    def __str__(self) -> str:
        return self.id if self.version is None else f"{self.id}v{self.version}"


def _valid_new_style(yymm: str, number: str) -> bool:
    year, month = int(yymm[:2]), int(yymm[2:])
    if not 1 <= month <= 12 or (year, month) < (7, 4) or int(number) == 0:
        return False
    # Four-digit sequence numbers until December 2014, five from January 2015.
    return len(number) == (5 if year >= 15 else 4)


def _valid_old_style(archive: str, digits: str) -> bool:
    year, month, number = int(digits[:2]), int(digits[2:4]), int(digits[4:])
    # Old-style ids ran from August 1991 to March 2007.
    in_range = (91, 8) <= (year, month) <= (99, 12) or (0, 1) <= (year, month) <= (7, 3)
    return archive in _OLD_ARCHIVES and 1 <= month <= 12 and in_range and number > 0


def _arxiv_from_match(match: re.Match[str]) -> ArxivId | None:
    version_text = match.group("version")
    version = int(version_text) if version_text else None
    if version == 0:
        return None
    if match.group("yymm"):
        yymm, number = match.group("yymm"), match.group("number")
        return ArxivId(f"{yymm}.{number}", version) if _valid_new_style(yymm, number) else None
    archive, digits = match.group("archive").lower(), match.group("old")
    return ArxivId(f"{archive}/{digits}", version) if _valid_old_style(archive, digits) else None


def clean_arxiv_id(raw: str | None) -> ArxivId | None:
    """Parse an arXiv id from an id, an `arXiv:` label, an arxiv.org URL or an arXiv DataCite DOI.

    `arXiv:2502.03801v2` -> `ArxivId("2502.03801", 2)`; `https://arxiv.org/pdf/1706.03762v5.pdf`,
    `hep-th/9901001`, `10.48550/arXiv.2502.03801` also parse. Returns None for anything else,
    including ids outside arXiv's numbering (month 13, a 5-digit number before 2015).
    """
    if not raw:
        return None
    text = raw.strip()
    if len(text) > _MAX_ID_TEXT:
        return None
    if "10.48550/" in text.lower():
        return arxiv_id_from_doi(text)
    for _ in range(3):
        stripped = _ARXIV_PREFIX.sub("", text, count=1).lstrip()
        if stripped == text:
            break
        text = stripped
    match = _ARXIV_ID.match(text)
    if match is None or not _ARXIV_TAIL.fullmatch(text, match.end()):
        return None
    return _arxiv_from_match(match)


def arxiv_id_from_doi(doi: str) -> ArxivId | None:
    """The arXiv id behind an arXiv DataCite DOI (`10.48550/arXiv.2502.03801`), else None."""
    cleaned = clean_doi(doi)
    if cleaned is None or not cleaned.startswith(ARXIV_DOI_PREFIX):
        return None
    match = _ARXIV_ID.fullmatch(cleaned[len(ARXIV_DOI_PREFIX) :])
    return None if match is None else _arxiv_from_match(match)


def arxiv_doi(arxiv_id: str) -> str:
    """The DataCite DOI arXiv registers for an id, in `clean_doi` form: `10.48550/arxiv.2502.03801`.

    The version is dropped (arXiv's DOIs name the work, not a version). Raises ValueError when
    `arxiv_id` is not an arXiv id in any form `clean_arxiv_id` accepts.
    """
    parsed = clean_arxiv_id(arxiv_id)
    if parsed is None:
        raise ValueError(f"not an arXiv identifier: {arxiv_id!r}")
    return f"{ARXIV_DOI_PREFIX}{parsed.id}"


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
    if len(text) > _MAX_ID_TEXT:
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
    if len(text) > _MAX_ID_TEXT:
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


# --- URLs ---------------------------------------------------------------------------------------


def url_kind(url: str) -> str | None:
    """What a URL identifies: "doi", "arxiv", "pubmed" or "pmc" when it resolves an id of that kind."""
    if not url:
        return None
    if clean_doi(url) is not None and re.search(r"doi\.org/", url, re.IGNORECASE):
        return "arxiv" if arxiv_id_from_doi(url) is not None else "doi"
    lowered = url.lower()
    if "arxiv.org/" in lowered and clean_arxiv_id(url) is not None:
        return "arxiv"
    if "pmc" in lowered and clean_pmcid(url) is not None:
        return "pmc"
    if "pubmed" in lowered or "/med/" in lowered:
        return "pubmed" if clean_pmid(url) is not None else None
    return None


# --- extraction from free text ------------------------------------------------------------------

_T = TypeVar("_T")


@dataclass(frozen=True)
class ExtractedIdentifiers:
    """Every identifier found in a text, each kind in order of first appearance, without repeats."""

    dois: tuple[str, ...] = ()
    arxiv_ids: tuple[ArxivId, ...] = ()
    pmids: tuple[str, ...] = ()
    pmcids: tuple[str, ...] = ()
    isbns: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()


# Each pattern is a literal anchor followed by bounded or possessive-in-effect runs (a greedy
# character class with nothing after it), so a scan is linear in the input length.
_URL_IN_TEXT = re.compile(r"\bhttps?://[^\s<>\"]+", re.IGNORECASE)
_DOI_IN_TEXT = re.compile(r"(?<![0-9])10\.\d{4,9}/[^\s\"]+")
# A publisher's page path after the DOI in its article URL (Frontiers' `.../10.3389/x.911679/full`,
# Wiley's `/epdf`, `/abstract`): the view of the article, not part of its DOI (issue 28).
_PUBLISHER_VIEW = re.compile(
    r"/(?:full|abstract|pdf|epdf|fulltext|full\.pdf|html|summary|references|figures|meta)/?$", re.IGNORECASE
)
_ARXIV_IN_TEXT = re.compile(
    r"\barxiv(?:\s*[:.]\s*|\s+|\.org/(?:abs|pdf|html|format)/)"
    r"(?P<id>(?:\d{4}\.\d{4,5}|[a-z]{2,8}(?:-[a-z]{2,4})?(?:\.[a-z]{2,9}(?:-[a-z]{2,4})?)?/\d{7})"
    r"(?:v\d{1,4})?)",
    re.IGNORECASE,
)
# `\s*(?::\s*)?`, not `\s*:?\s*`: two adjacent `\s*` would backtrack quadratically over a run of spaces.
_PMID_IN_TEXT = re.compile(r"\b(?:pmid|pubmed\s+id)\s*(?::\s*)?(?P<digits>\d{1,9})\b", re.IGNORECASE)
_PMCID_IN_TEXT = re.compile(r"\b(?:pmcid\s*(?::\s*)?(?:pmc\s?)?|pmc)(?P<digits>\d{1,9})\b", re.IGNORECASE)
_ISBN_IN_TEXT = re.compile(
    r"\bisbn(?:-?1[03])?\s*(?:[:=]\s*)?[{\"]?(?P<number>[0-9][0-9 -]{8,20}[0-9Xx]?)", re.IGNORECASE
)


def _first_isbn(candidate: str) -> str | None:
    """The ISBN at the start of `candidate`, which may run on into other digits (`978-... 978-...`)."""
    digits = ""
    found: str | None = None
    for char in candidate:
        if char in " -":
            continue
        digits += char
        if len(digits) == 10 and not digits.startswith(("978", "979")):
            found = clean_isbn(digits)
            if found is not None:
                return found
        if len(digits) == 13:
            return clean_isbn(digits) or found
    if len(digits) >= 10 and found is None:
        return clean_isbn(digits[:10])
    return found


class _Found(Generic[_T]):
    """Identifiers of one kind, each at the first position it was seen (scans run kind by kind)."""

    def __init__(self) -> None:
        self._first_seen: dict[_T, int] = {}

    def add(self, position: int, value: _T | None) -> None:
        if value is not None and position < self._first_seen.get(value, MAX_EXTRACT_CHARS + 1):
            self._first_seen[value] = position

    def ordered(self) -> tuple[_T, ...]:
        return tuple(sorted(self._first_seen, key=self._first_seen.__getitem__))


def extract_identifiers(text: str) -> ExtractedIdentifiers:
    """Find every DOI, arXiv id, PMID, PMCID, ISBN and URL in free text (a reference, a page).

    DOIs are found bare, after `doi:` and in doi.org URLs; an arXiv DataCite DOI also yields its
    arXiv id. Only the first `MAX_EXTRACT_CHARS` characters are read; every scan is linear-time.
    """
    text = text[:MAX_EXTRACT_CHARS]
    dois, pmids, pmcids, isbns, urls = (_Found[str]() for _ in range(5))
    arxiv_ids = _Found[ArxivId]()

    for match in _URL_IN_TEXT.finditer(text):
        url = _trim_trailing(match.group())
        urls.add(match.start(), url)
        kind = url_kind(url)
        if kind in ("doi", "arxiv") and "doi.org/" in url.lower():
            dois.add(match.start(), clean_doi(url))
        if kind == "arxiv":
            arxiv_ids.add(match.start(), clean_arxiv_id(url))
        elif kind == "pubmed":
            pmids.add(match.start(), clean_pmid(url))
        elif kind == "pmc":
            pmcids.add(match.start(), clean_pmcid(url))

    for match in _DOI_IN_TEXT.finditer(text):
        doi = clean_doi(_PUBLISHER_VIEW.sub("", match.group()))
        dois.add(match.start(), doi)
        if doi is not None:
            arxiv_ids.add(match.start(), arxiv_id_from_doi(doi))

    for match in _ARXIV_IN_TEXT.finditer(text):
        arxiv_ids.add(match.start(), clean_arxiv_id(match.group("id")))

    for match in _PMID_IN_TEXT.finditer(text):
        pmids.add(match.start(), clean_pmid(match.group("digits")))

    for match in _PMCID_IN_TEXT.finditer(text):
        pmcids.add(match.start(), clean_pmcid(f"PMC{match.group('digits')}"))

    for match in _ISBN_IN_TEXT.finditer(text):
        isbns.add(match.start(), _first_isbn(match.group("number")))

    return ExtractedIdentifiers(
        dois=dois.ordered(),
        arxiv_ids=arxiv_ids.ordered(),
        pmids=pmids.ordered(),
        pmcids=pmcids.ordered(),
        isbns=isbns.ordered(),
        urls=urls.ordered(),
    )
