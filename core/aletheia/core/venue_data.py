"""The venue tables, read from the data file `aletheia/core/data/venue_aliases.json`.

The file is versioned (`version`) and every venue entry says where its forms come from (`sources`).
It is read once, on first use (`venue_tables()`), never at import time. It holds:

- `venues`: the alias table (`VenueAlias`): key, display name, phrases, acronyms, exact forms;
- `pmlr_hosted`, `findings_of`: the keys PMLR publishes and the conferences with a Findings track;
- `book_series`: series that publish the proceedings of many venues (Lecture Notes in Computer
  Science, CEUR Workshop Proceedings, LIPIcs, ...);
- `publishers`: publisher names (Springer, Elsevier, IEEE, Packt, ...), with corporate suffixes
  and places that may follow them;
- `platforms`: repositories and hosting platforms (institutional repositories, PubMed Central,
  IEEE Xplore, ...), which are where a work is kept, not where it appeared; `platform_hosts`,
  the institutions OpenAlex names in parentheses after a repository's name.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Final

__all__ = ["DATA_FILE", "VenueAlias", "VenueTables", "compile_phrase", "venue_tables"]

DATA_FILE: Final = "venue_aliases.json"


@dataclass(frozen=True, slots=True)
class VenueAlias:
    """One venue (or book series): its key, its display name, and the forms it is cited under.

    `phrases` are regular expressions searched in the folded venue string (word-bounded);
    `acronyms` are whole tokens; `exact` forms must be the whole cleaned string (for venues whose
    names are common words: "Nature", "Science", "Machine Learning"). `sources` says where the
    forms come from (DBLP, proceedings titles, ISO 4 abbreviations, ...).
    """

    key: str
    name: str
    phrases: tuple[str, ...] = ()
    acronyms: tuple[str, ...] = ()
    exact: tuple[str, ...] = ()
    sources: str = ""


@dataclass(frozen=True, slots=True)
class VenueTables:
    """The data file, parsed and compiled."""

    version: str
    aliases: tuple[VenueAlias, ...]
    by_key: dict[str, VenueAlias]
    pmlr_hosted: frozenset[str]
    findings_of: tuple[str, ...]
    phrases: tuple[tuple[str, re.Pattern[str]], ...]
    acronyms: tuple[tuple[str, str], ...]
    exact: dict[str, str]
    series_phrases: tuple[tuple[str, re.Pattern[str]], ...]
    series_acronyms: dict[str, str]
    publisher: re.Pattern[str]
    platform: re.Pattern[str]
    platform_host: re.Pattern[str]  # over the raw string: "Apollo (University of Cambridge)"


def compile_phrase(pattern: str) -> re.Pattern[str]:
    """A phrase of the table as a word-bounded pattern over folded text."""
    return re.compile(rf"(?<![a-z0-9]){pattern}(?![a-z0-9])")


def _strings(value: object, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{DATA_FILE}: {what} must be a list of strings")
    return tuple(value)


def _string(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{DATA_FILE}: {what} must be a string")
    return value


def _entries(value: object, what: str) -> tuple[VenueAlias, ...]:
    if not isinstance(value, list):
        raise ValueError(f"{DATA_FILE}: {what} must be a list")
    entries: list[VenueAlias] = []
    for item in value:
        if not isinstance(item, dict):
            raise ValueError(f"{DATA_FILE}: every entry of {what} must be an object")
        key = _string(item.get("key"), f"{what}.key")
        entries.append(
            VenueAlias(
                key=key,
                name=_string(item.get("name"), f"{what}[{key}].name"),
                phrases=_strings(item.get("phrases"), f"{what}[{key}].phrases"),
                acronyms=_strings(item.get("acronyms"), f"{what}[{key}].acronyms"),
                exact=_strings(item.get("exact"), f"{what}[{key}].exact"),
                sources=_string(item.get("sources", ""), f"{what}[{key}].sources"),
            )
        )
    return tuple(entries)


def _publisher_pattern(spec: object) -> re.Pattern[str]:
    if not isinstance(spec, dict):
        raise ValueError(f"{DATA_FILE}: publishers must be an object")
    names = "|".join(_strings(spec.get("names"), "publishers.names"))
    suffixes = "|".join(_strings(spec.get("suffixes"), "publishers.suffixes"))
    places = "|".join(_strings(spec.get("places"), "publishers.places"))
    return re.compile(rf"(?:the )?(?:{names})(?: (?:{suffixes}))*(?: (?:{places}))*")


def _parse(document: object) -> VenueTables:
    if not isinstance(document, dict):
        raise ValueError(f"{DATA_FILE}: the document must be an object")
    aliases = _entries(document.get("venues"), "venues")
    series = _entries(document.get("book_series"), "book_series")
    platforms = _strings(document.get("platforms"), "platforms")
    hosts = "|".join(_strings(document.get("platform_hosts"), "platform_hosts")) or r"(?!)"
    return VenueTables(
        version=_string(document.get("version"), "version"),
        aliases=aliases,
        by_key={alias.key: alias for alias in aliases},
        pmlr_hosted=frozenset(_strings(document.get("pmlr_hosted"), "pmlr_hosted")),
        findings_of=_strings(document.get("findings_of"), "findings_of"),
        phrases=tuple((a.key, compile_phrase(p)) for a in aliases for p in a.phrases),
        acronyms=tuple((a.key, acronym) for a in aliases for acronym in a.acronyms),
        exact={form: a.key for a in aliases for form in a.exact},
        series_phrases=tuple((s.key, compile_phrase(p)) for s in series for p in s.phrases),
        series_acronyms={acronym: s.key for s in series for acronym in s.acronyms},
        publisher=_publisher_pattern(document.get("publishers")),
        platform=re.compile("|".join(f"(?:{p})" for p in platforms) or r"(?!)"),
        platform_host=re.compile(rf"\((?:[^()]*\b(?:{hosts})\b[^()]*)\)\s*$", re.IGNORECASE),
    )


@cache
def venue_tables() -> VenueTables:
    """The venue tables, read from the package data on first use and kept."""
    from importlib import resources

    text = (resources.files("aletheia.core") / "data" / DATA_FILE).read_text(encoding="utf-8")
    return _parse(json.loads(text))
