"""An OpenAlex work's bylines as `Author`s: the name as published split into given and family
names (`split_display_name`), with the author's ORCID and OpenAlex author id.

OpenAlex gives each authorship a `raw_author_name` (the byline as printed) and a disambiguated
`author.display_name` in "Given Family" order; organisations ("The ATLAS Collaboration") and
family-name particles ("van", "de la") are kept as they are meant.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from aletheia.core.records import Author
from aletheia.sources.markup_text import markup_to_text
from aletheia.sources.orcid_text import orcid_in

__all__ = ["authors_of", "openalex_author_id", "split_display_name"]

_SUFFIXES: Final = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "v"})
# Lower-case particles that belong to the family name ("Ludwig van Beethoven", "Juan de la Cruz").
_PARTICLES: Final = frozenset(
    {
        "van",
        "von",
        "der",
        "den",
        "de",
        "del",
        "della",
        "di",
        "da",
        "du",
        "dos",
        "das",
        "la",
        "le",
        "ter",
        "ten",
    }
    | {"zu", "af", "bin", "ibn", "al", "el"}
)
# Words that make a byline an organisation, not a person ("Gemini Team", "The ATLAS Collaboration").
_ORGANISATION_WORDS: Final = frozenset(
    {
        "team",
        "consortium",
        "collaboration",
        "group",
        "committee",
        "organization",
        "organisation",
        "society",
        "association",
        "institute",
        "university",
        "project",
        "network",
        "council",
        "initiative",
        "alliance",
        "foundation",
        "laboratory",
        "investigators",
        "club",
        "inc",
        "inc.",
        "ltd",
        "ltd.",
        "corporation",
        "office",
        "agency",
        "ministry",
        "department",
        "board",
    }
)


def split_display_name(name: str, *, orcid: str | None = None) -> Author | None:
    """A byline name as an `Author`.

    `Family, Given` splits at the comma (a middle part that is a suffix, `Jr.`, goes to `suffix`);
    `Given Family` splits before the last word, which takes lower-case particles before it
    (`van`, `de la`) and leaves a trailing suffix aside; organisations and single words are kept
    whole (`literal`, resp. `family`).
    """
    text = " ".join(name.split())
    if not text:
        return None
    words = text.replace(",", " ").split()
    if any(word.casefold() in _ORGANISATION_WORDS for word in words):
        return Author(literal=text, orcid=orcid)
    if "," in text:
        parts = [part.strip() for part in text.split(",")]
        family = parts[0]
        rest = [part for part in parts[1:] if part]
        suffix = None
        if rest and rest[0].casefold() in _SUFFIXES and len(rest) > 1:
            suffix, rest = rest[0], rest[1:]
        elif rest and rest[-1].casefold() in _SUFFIXES and len(rest) > 1:
            suffix, rest = rest[-1], rest[:-1]
        given = ", ".join(rest) or None
        if not family:
            return Author(literal=text, orcid=orcid)
        return Author(given=given, family=family, suffix=suffix, orcid=orcid)
    suffix = None
    if len(words) > 2 and words[-1].casefold() in _SUFFIXES:
        suffix, words = words[-1], words[:-1]
    if len(words) == 1:
        return Author(family=words[0], suffix=suffix, orcid=orcid)
    start = len(words) - 1
    while start > 1 and words[start - 1] in _PARTICLES:
        start -= 1
    return Author(given=" ".join(words[:start]), family=" ".join(words[start:]), suffix=suffix, orcid=orcid)


def openalex_author_id(value: Any) -> str | None:
    """`A5023888391` from an author id as OpenAlex gives it (`https://openalex.org/A...`)."""
    if not isinstance(value, str):
        return None
    match = re.fullmatch(r"\s*(?:https?://(?:api\.)?openalex\.org/(?:authors/)?)?([Aa]\d+)\s*", value)
    return match.group(1).upper() if match else None


def authors_of(authorships: Any) -> tuple[Author, ...]:
    """The authors of a work's `authorships`, in byline order, with ORCID and OpenAlex author id."""
    if not isinstance(authorships, list):
        return ()
    authors: list[Author] = []
    for authorship in authorships:
        if not isinstance(authorship, Mapping):
            continue
        author = authorship.get("author")
        author = author if isinstance(author, Mapping) else {}
        # The byline as published beats OpenAlex's disambiguated profile name, which can belong
        # to a different spelling or even a different entity ("Gemini Team" -> "Gemini Robotics Team").
        raw = authorship.get("raw_author_name")
        display = author.get("display_name")
        name = raw if isinstance(raw, str) and raw.strip() else display
        if not isinstance(name, str):
            continue
        parsed = split_display_name(markup_to_text(name), orcid=orcid_in(author.get("orcid")))
        if parsed is not None:
            author_id = openalex_author_id(author.get("id"))
            authors.append(parsed.model_copy(update={"source_id": author_id}) if author_id else parsed)
    return tuple(authors)
