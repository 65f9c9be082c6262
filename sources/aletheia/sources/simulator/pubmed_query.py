"""How PubMed's esearch reads a term's clauses (`pubmed.py` answers the request): field tags
(`[ti]`, `[au]`, `[dp]`, `[doi]`, `[pt]`, ...) each searching their field, an untagged clause
searching every field (and, for a four-digit number, the year), a tag PubMed does not know
finding nothing, and author names written "Smith J", "Smith JA", "Smith" or "Smith, John".
"""

from __future__ import annotations

import re
from typing import Final

from aletheia.sources.simulator.ids import normalize_doi
from aletheia.sources.simulator.search import Clause, fold, tokenize
from aletheia.sources.simulator.universe import SourceCatalog
from aletheia.sources.simulator.work import SimAuthor, SimWork

_AUTHOR_TAGS: Final = frozenset(
    {"au", "author", "fau", "full author name", "1au", "author - first", "lastau"}
)
_DATE_TAGS: Final = frozenset({"dp", "pdat", "publication date", "ppdat", "epdat", "edat", "crdt"})
_DOI_TAGS: Final = frozenset({"doi", "aid", "lid", "location id", "article identifier"})


def resolve(clause: Clause, catalog: SourceCatalog, default_field: str | None) -> set[int]:
    """The works one clause of a term finds, by its field tag or else by esearch's `field`."""
    tag = clause.field or (default_field.lower() if default_field else None)
    works = catalog.works
    text = clause.text.strip()
    if tag in _DOI_TAGS:
        doi = normalize_doi(text.replace(" ", ""))
        index = catalog.by_doi.get(doi)
        return {index} if index is not None else set()
    if tag in ("pmid", "uid"):
        index = catalog.by_pmid.get(text.lstrip("0")) if text.isdigit() else None
        return {index} if index is not None else set()
    if tag in _DATE_TAGS:
        years = re.findall(r"\d{4}", text)
        if not years:
            return set()
        low = int(years[0])
        high = int(years[-1]) if ":" in text else low
        return {i for i, w in enumerate(works) if w.year is not None and low <= w.year <= high}
    if tag in _AUTHOR_TAGS:
        return _authors_matching(
            text, works, first_only=tag in ("1au", "author - first"), last_only=tag == "lastau"
        )
    if tag in ("pt", "publication type"):
        wanted = fold(text)
        if wanted == "retracted publication":
            return {i for i, w in enumerate(works) if w.retracted}
        if wanted == "preprint":
            return {i for i, w in enumerate(works) if w.type == "posted-content"}
        if wanted == "journal article":
            return {i for i, w in enumerate(works) if w.type != "posted-content"}
        return set()
    words = tokenize(text)
    if not words:
        return set(range(len(works)))
    if tag in ("ti", "title"):
        fields = [catalog.title]
    elif tag in ("ab", "abstract"):
        fields = [catalog.abstract]
    elif tag in ("tiab", "title/abstract"):
        fields = [catalog.title, catalog.abstract]
    elif tag in ("ta", "journal", "jour"):
        fields = [catalog.venue]
    elif tag in (None, "all", "all fields", "mh", "mesh", "mesh terms", "tw", "text word"):
        fields = [catalog.all, catalog.venue]
    else:
        return set()  # a field PubMed does not know finds nothing
    if clause.phrase:
        return set().union(*(f.docs_with_phrase(words) for f in fields))
    result: set[int] | None = None
    for word in words:
        found: set[int] = set().union(*(f.docs_with(word) for f in fields))
        if tag in (None, "all", "all fields") and re.fullmatch(r"\d{4}", word):
            found |= {i for i, w in enumerate(works) if w.year == int(word)}
        result = found if result is None else result & found
        if not result:
            return set()
    return result or set()


def _authors_matching(text: str, works: list[SimWork], *, first_only: bool, last_only: bool) -> set[int]:
    """PubMed author search: "Smith J", "Smith JA", "Smith", or "Smith, John" (full name)."""
    parts = text.replace(",", " ").split()
    if not parts:
        return set()
    initials = ""
    if len(parts) > 1 and re.fullmatch(r"[A-Z]{1,3}", parts[-1]):
        initials, parts = parts[-1], parts[:-1]
        family = fold(" ".join(parts))
    elif "," in text:
        family = fold(text.split(",", 1)[0].strip())
        initials = "".join(p[0].upper() for p in text.split(",", 1)[1].split() if p)
    else:
        family = fold(" ".join(parts))

    def matches(author: SimAuthor) -> bool:
        if author.literal:
            return family in fold(author.literal)
        return fold(author.family or "") == family and author.initials.startswith(initials)

    found = set()
    for index, work in enumerate(works):
        authors = list(work.authors)
        if first_only:
            authors = authors[:1]
        elif last_only:
            authors = authors[-1:]
        if any(matches(a) for a in authors):
            found.add(index)
    return found
