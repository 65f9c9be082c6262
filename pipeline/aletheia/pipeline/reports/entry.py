"""What an entry of an exported bibliography (`--format bibtex`, `--format csl-json`) is called and
what kind of work it is, for references read from a Markdown or plain list, which have neither a
key nor an entry type of their own (issue 20: they came out as `@misc{1, venue = ...}`).

Tables, not code paths: `CONFERENCE_WORDS` and `PROCEEDINGS_VENUES` say which venues publish
conference papers; `CSL_TYPES` maps BibTeX entry types to CSL's, `csl_name` a name to CSL's.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, MutableSet
from typing import Any, Final

from aletheia.core.venues import canonical_venue, venue_name

# A venue whose name holds one of these words publishes conference papers ("inproceedings").
CONFERENCE_WORDS: Final = re.compile(
    r"\b(?:conference|conf|symposium|workshop|meeting|congress|proceedings of the \d|colloquium)\b", re.I
)
# Alias keys (`core/data/venue_aliases.json`) of proceedings whose names say so in no such word.
PROCEEDINGS_VENUES: Final = frozenset({"neurips", "pmlr", "interspeech", "miccai", "iclr", "icml"})
# Alias keys of journals whose names start "Proceedings of".
JOURNAL_VENUES: Final = frozenset({"pnas", "vldb"})

# BibTeX entry type -> CSL type (CSL 1.0.2 types; Zotero's and citeproc's mapping).
CSL_TYPES: Final[dict[str, str]] = {
    "article": "article-journal",
    "inproceedings": "paper-conference",
    "conference": "paper-conference",
    "proceedings": "book",
    "book": "book",
    "booklet": "pamphlet",
    "inbook": "chapter",
    "incollection": "chapter",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "thesis": "thesis",
    "techreport": "report",
    "report": "report",
    "manual": "report",
    "unpublished": "manuscript",
    "online": "webpage",
    "www": "webpage",
    "software": "software",
    "dataset": "dataset",
    "patent": "patent",
    "misc": "document",
}


def csl_name(name: str) -> dict[str, str]:
    """One author's name as CSL names it (`family`, `given`, `suffix`; `literal` for a group or a
    name with no family part): every CSL-JSON export writes names this way."""
    from aletheia.core.authors import parse_name

    person = parse_name(name)
    if person.literal or not person.family:
        return {"literal": person.literal or name}
    parts = {"family": person.family, "given": person.given, "suffix": person.suffix}
    return {key: value for key, value in parts.items() if value}


def is_plain(obj: Mapping[str, Any]) -> bool:
    """A reference read from a string (Markdown, a plain list, a PDF): no key, no entry type."""
    return (obj.get("input") or {}).get("raw") is not None


def _venue_kind(venue: str) -> str:
    key = canonical_venue(venue)
    if key in JOURNAL_VENUES:
        return "article"
    names = [venue, (venue_name(key) or "") if key else ""]
    if key in PROCEEDINGS_VENUES or any(CONFERENCE_WORDS.search(name) for name in names):
        return "inproceedings"
    return "article"


def entry_type_of(obj: Mapping[str, Any]) -> str:
    """The BibTeX entry type: the input's own, or for a plain reference the kind its venue says (a
    conference paper, a journal article; `misc` for a preprint or a reference without venue)."""
    if not is_plain(obj):
        return str(obj.get("entry_type") or "misc")
    cited = obj.get("input") or {}
    venue = cited.get("venue") or ((obj.get("match") or {}).get("venue") if _found(obj) else None)
    return _venue_kind(str(venue)) if venue else "misc"


def _found(obj: Mapping[str, Any]) -> bool:
    return bool(obj.get("match")) and obj.get("verdict") in ("verified", "metadata_error")


def _ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z]", "", folded.lower())


def citation_key(obj: Mapping[str, Any], taken: MutableSet[str] | None = None) -> str:
    """The entry's key: the input's own, or for a plain reference author-year ("vaswani2017"), from
    the sources' record when the work was found; `a`, `b`, ... when `taken` already has it."""
    if not is_plain(obj):
        return str(obj.get("key"))
    from aletheia.core.authors import parse_name

    match = obj.get("match") or {}
    cited = obj.get("input") or {}
    authors = match.get("authors") if _found(obj) else None
    first = (authors or str(cited.get("author") or "").split(" and ") or [""])[0]
    surname = _ascii_word(parse_name(first).family or first) if first else ""
    year = (match.get("year") if _found(obj) else None) or cited.get("year") or ""
    title_word = next((w for w in (_ascii_word(t) for t in str(cited.get("title") or "").split()) if w), "")
    base = (
        f"{surname or title_word or 'ref'}{year}"
        if (surname or title_word or year)
        else f"ref{obj.get('key')}"
    )
    key, n = base, 0
    while taken is not None and key in taken:
        key = base + _suffix(n)
        n += 1
    if taken is not None:
        taken.add(key)
    return key


def _suffix(n: int) -> str:
    """a, b, ..., z, aa, ab, ...: the disambiguation author-year styles use."""
    letters = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters
