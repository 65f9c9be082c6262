"""Identifiers as the simulator's universe writes them (DOI, arXiv id with its version, PMCID), and
the deterministic numbers from which it derives the ids a source would mint (OpenAlex W-ids,
Semantic Scholar paperIds and CorpusIds): the same universe file gives byte-identical answers."""

from __future__ import annotations

import hashlib
import re
from typing import Final

__all__ = ["normalize_doi", "normalize_pmcid", "split_arxiv_id", "stable_hex", "stable_int"]

_DOI_PREFIXES: Final = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_ARXIV_PREFIXES: Final = re.compile(
    r"^(?:arxiv:|https?://(?:export\.)?arxiv\.org/(?:abs|pdf)/)", re.IGNORECASE
)
_ARXIV_NEW: Final = re.compile(r"^(\d{4}\.\d{4,5})(?:v(\d+))?$")
_ARXIV_OLD: Final = re.compile(r"^([a-z][a-z.\-]*(?:\.[A-Z]{2})?/\d{7})(?:v(\d+))?$")


def normalize_doi(value: str) -> str:
    """A DOI without resolver prefix, lower-cased (DOIs are case-insensitive)."""
    return _DOI_PREFIXES.sub("", value.strip()).strip().lower()


def split_arxiv_id(value: str) -> tuple[str, int | None] | None:
    """`"arXiv:2104.12255v2"` -> `("2104.12255", 2)`; None when it is not an arXiv id."""
    text = _ARXIV_PREFIXES.sub("", value.strip()).strip()
    text = text.removesuffix(".pdf")
    for pattern in (_ARXIV_NEW, _ARXIV_OLD):
        match = pattern.match(text)
        if match:
            return match.group(1), int(match.group(2)) if match.group(2) else None
    return None


def normalize_pmcid(value: str) -> str:
    digits = value.strip().upper().removeprefix("PMC")
    return f"PMC{digits}"


def stable_int(*parts: str, digits: int = 9) -> int:
    """A deterministic number from text (the same on every run and machine, unlike `hash`)."""
    digest = hashlib.sha1("\x1f".join(parts).encode("utf-8"), usedforsecurity=False).hexdigest()
    number: int = int(digest[:15], 16) % (10**digits)
    return number


def stable_hex(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode("utf-8"), usedforsecurity=False).hexdigest()
