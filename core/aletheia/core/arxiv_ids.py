"""arXiv identifiers: parsed from ids, labels, arxiv.org URLs and arXiv's DataCite DOIs (pure).

Canonical form: `ArxivId(id="2502.03801", version=2)`; old-style ids lose their subject class
(`math.GT/0309136` -> `math/0309136`), which arXiv treats as an alias. Ids outside arXiv's
numbering (month 13, a 5-digit number before 2015, an archive that never had old-style ids) are
not ids. Like every `clean_*` of `identifiers`, `clean_arxiv_id` is total: None, never an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from aletheia.core.identifiers import MAX_ID_TEXT, clean_doi

__all__ = ["ARXIV_DOI_PREFIX", "ArxivId", "arxiv_doi", "arxiv_id_from_doi", "clean_arxiv_id"]


ARXIV_DOI_PREFIX: Final = "10.48550/arxiv."


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
    if len(text) > MAX_ID_TEXT:
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
