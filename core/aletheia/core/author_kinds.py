"""What kind of name an author record holds, and a source's record made comparable.

Sources write groups as people and suffixes as surnames: Crossref and PubMed give the ADNI
consortium as family "Initiative", given "Alzheimer's Disease Neuroimaging", or "Consortium, The
GTEx"; PMLR exports Hal Daumé III as family "Iii", given "Hal Daumé"; "Jr" arrives as a family
name. `normalize_source_author` repairs such records (the organisation becomes a `literal`, the
suffix moves to `suffix`), `is_group_author` tells a consortium, collaboration or organisation
from a person, `groups_match` compares two groups. Placeholder names ("John Doe", "Author 1") are
recognised here too (`is_placeholder_author`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from aletheia.core.records import Author
from aletheia.core.text import fold, fold_name

__all__ = [
    "NAME_SUFFIXES",
    "PARTICLES",
    "groups_match",
    "has_placeholder_authors",
    "is_group_author",
    "is_organisation_name",
    "is_placeholder_author",
    "normalize_source_author",
    "people_and_groups",
    "without_truncation_marker",
]

# Lower-case words that belong to the family name when they precede it ("van der Maaten").
PARTICLES: Final = frozenset(
    {
        *("van", "von", "vom", "der", "den", "de", "del", "della", "delle", "dei", "degli"),
        *("di", "da", "das", "dos", "do", "du", "des", "la", "le", "les", "lo", "ter", "ten"),
        *("te", "zu", "zum", "zur", "af", "av", "bin", "binti", "binte", "ibn", "al", "el"),
        *("ben", "abu", "st", "mac", "y", "e", "op", "vd", "vander", "vanden", "van't"),
    }
)
NAME_SUFFIXES: Final = frozenset({"jr", "sr", "junior", "senior", "ii", "iii", "iv", "2nd", "3rd", "4th"})
# "AI" joined to a name in capitals: a company or a lab ("DeepSeek-AI", "AI@Meta"). Not "Meta
# AI" or "Smith AI": in Vancouver style those are a surname and the initials A. I.
_AI_WORD: Final = re.compile(r"(?<=[A-Za-z0-9])-AI(?![A-Za-z])|(?<![A-Za-z])AI@")
# Words that make a name an organisation ("The ATLAS Collaboration", "Gemini Team").
_ORG_WORDS: Final = frozenset(
    {
        *("collaboration", "collaborations", "consortium", "team", "group", "inc", "incorporated"),
        *("institute", "institution", "organization", "organisation", "committee", "association"),
        *("university", "universitat", "universite", "universidad", "laboratory", "laboratories"),
        *("lab", "labs", "corporation", "corp", "company", "ltd", "llc", "gmbh", "foundation"),
        *("society", "council", "project", "initiative", "agency", "ministry", "department"),
        *("centre", "center", "network", "alliance", "federation", "board", "office", "authority"),
        *("commission", "bureau", "program", "programme", "research", "contributors", "developers"),
        *("community", "working", "taskforce", "academy", "services", "systems", "technologies"),
        *("partnership", "study", "investigators", "registry", "trialists", "writing"),
    }
)


def is_organisation_name(name: str) -> bool:
    """Whether a name is an organisation's: it starts with "The" or has a word such as
    Collaboration, Consortium, Team, Group, Inc, Institute, Committee, University, or "AI" joined
    to it in capitals ("DeepSeek-AI", which OpenAlex lists before the report's people).
    """
    words = fold(name).split()
    return bool(words) and (
        words[0] == "the" or any(word in _ORG_WORDS for word in words) or bool(_AI_WORD.search(name))
    )


# The last word of a group's name when a source files the group as a person: family "Initiative",
# given "Alzheimer's Disease Neuroimaging". Narrower than `_ORG_WORDS`: a family name such as
# "Bureau" or "Board" may be a person's.
_GROUP_FAMILIES: Final = frozenset(
    {
        *("collaboration", "collaborations", "collaborators", "consortium", "consortia", "team"),
        *("group", "initiative", "investigators", "committee", "network", "alliance", "project"),
        *("study", "trialists", "taskforce", "partnership", "registry", "association", "society"),
        *("organization", "organisation", "institute", "foundation", "council", "program"),
        *("programme", "inc", "ltd", "llc", "gmbh", "corporation", "university", "laboratory"),
        *("contributors", "developers", "community"),
    }
)
_ROMAN_SUFFIXES: Final = frozenset({"ii", "iii", "iv"})
_INITIALS_ONLY: Final = re.compile(r"^(?:[A-Z]\.?[\s-]*){1,4}$")
_BEHALF: Final = re.compile(r"^(?:(?:for|on behalf of)\s+(?:the\s+)?)+", re.IGNORECASE)
_GROUP_STOP_WORDS: Final = frozenset({"the", "for", "of", "on", "and", "behalf", "s", "in"})


def _is_suffix_word(word: str) -> bool:
    return word.strip().strip(".,").casefold() in NAME_SUFFIXES


def _suffix_form(word: str) -> str:
    bare = word.strip().strip(",")
    return bare.upper() if bare.casefold() in _ROMAN_SUFFIXES else bare


def _clean_literal(literal: str) -> str:
    """A group name in reading order, without "for the"/"on behalf of": "Consortium, The GTEx"
    -> "The GTEx Consortium", "for the ADNI" -> "ADNI". Repeated until nothing changes."""
    for _ in range(4):
        parts = [p.strip() for p in literal.split(",")]
        cleaned = literal
        if len(parts) == 2 and parts[1] and fold(parts[0]) in _GROUP_FAMILIES:
            cleaned = f"{parts[1]} {parts[0]}"
        cleaned = _BEHALF.sub("", cleaned).strip() or cleaned
        if cleaned == literal:
            break
        literal = cleaned
    return literal


def _group_literal(given: str | None, family: str) -> str | None:
    """The group's name when family/given together read as one ("Initiative" + "Alzheimer's
    Disease Neuroimaging"), else None."""
    words = fold(family).split()
    if not words or words[-1] not in _GROUP_FAMILIES:
        return None
    if given and _INITIALS_ONLY.match(given.strip()):
        return None  # "Network, J." is a person with an unusual surname
    return _clean_literal(" ".join(p for p in (given, family) if p))


def _last_name_words(words: list[str]) -> int:
    """Where the family name starts in a given-name string that swallowed it: the last word and
    the lower-case particles before it ("Ludwig van Beethoven" -> 1)."""
    start = len(words) - 1
    while start > 1 and words[start - 1] in PARTICLES:
        start -= 1
    return start


def normalize_source_author(author: Author) -> Author:
    """A source's author record made comparable (idempotent).

    - A family name that is a name suffix (Jr, Sr, II, III, IV, "Iii", ...): the last word of
      `given` (with its particles) becomes the family, the suffix goes to `suffix` ("Iii", "Hal
      Daumé" -> given "Hal", family "Daumé", suffix "III"). Only when `given` has two words or
      more: "Ii, Naosuke" is a family name.
    - A family/given pair that together read as a group ("Initiative" + "Alzheimer's Disease
      Neuroimaging", "Consortium" + "The GTEx", "Team" + "Gemini", "Collaboration" + "ATLAS"), or
      a group name in `family` alone: `literal` "Alzheimer's Disease Neuroimaging Initiative".
      A literal written "Consortium, The GTEx" is put in reading order.
    Everything else is returned unchanged.
    """
    if author.literal and not (author.family or author.given):
        literal = _clean_literal(author.literal)
        return author if literal == author.literal else author.model_copy(update={"literal": literal})
    family = (author.family or "").strip()
    given_words = (author.given or "").split()
    if family and _is_suffix_word(family) and len(given_words) >= 2:
        start = _last_name_words(given_words)
        new_family = " ".join(given_words[start:])
        if _is_suffix_word(new_family):
            return author
        author = author.model_copy(
            update={
                "given": " ".join(given_words[:start]),
                "family": new_family,
                "suffix": author.suffix or _suffix_form(family),
            }
        )
    group = _group_literal(author.given, author.family or "")
    if group is not None:
        return Author(literal=group, orcid=author.orcid)
    return author


def is_group_author(author: Author) -> bool:
    """Whether an author is an organisation, consortium or collaboration rather than a person
    ("The ATLAS Collaboration", "Alzheimer's Disease Neuroimaging Initiative" even when a source
    filed it as family "Initiative"). Read on `normalize_source_author`'s form."""
    normal = normalize_source_author(author)
    return (
        bool(normal.literal)
        and not (normal.family or normal.given)
        and is_organisation_name(normal.literal or "")
    )


# "et al." left inside a name: "Greg Landrum et al" (given "Greg Landrum et", family "al"),
# "Landrum, Greg et al." (given "Greg et al."), a braced "{et al.}" read as a literal.
_ET_AL_TAIL: Final = re.compile(r"[\s,;]*(?<![A-Za-z])et\.?\s*al(?:ii|ia)?\.?\s*$", re.IGNORECASE)
_MARKER_ONLY: Final = re.compile(r"^(?:and\s+|&\s*)?(?:et\.?\s*al(?:ii|ia)?\.?|others)$", re.IGNORECASE)
_ET_WORD: Final = re.compile(r"\s*(?<![A-Za-z])et\.?$", re.IGNORECASE)
# "et al. Wallace, Eric": a PDF extraction that put the marker before the name it followed.
_ET_AL_HEAD: Final = re.compile(r"^(?:et\.?\s*al(?:ii|ia)?\.?)[\s,;]+(?=\S)", re.IGNORECASE)


def _split_whole_name(text: str) -> Author | None:
    """A whole personal name as given words and a family name (the last word)."""
    words = text.split()
    if not words:
        return None
    return Author(given=" ".join(words[:-1]) or None, family=words[-1])


def without_truncation_marker(author: Author) -> tuple[Author | None, bool]:
    """The author with an "et al." left inside its name taken out, and whether one was there.

    None for an author that is only the marker. A name carrying it is the last one named before
    the list was cut, not a person called "al" nor a truncation error (issue 21)."""
    given, family, literal = (author.given or "").strip(), (author.family or "").strip(), author.literal
    if literal is not None and not (given or family):
        if _MARKER_ONLY.match(literal.strip()):
            return None, True
        if not _ET_AL_TAIL.search(literal):
            return author, False
        rest = _ET_AL_TAIL.sub("", literal).strip()
        if not rest:
            return None, True
        whole = None if is_organisation_name(rest) else _split_whole_name(rest)
        return (whole or Author(literal=rest)).model_copy(update={"orcid": author.orcid}), True
    if _MARKER_ONLY.match(family) and not given:
        return None, True
    if family.casefold().rstrip(".") == "al" and _ET_WORD.search(given):
        whole = _split_whole_name(_ET_WORD.sub("", given))  # "Greg Landrum et" + "al"
        return (whole.model_copy(update={"orcid": author.orcid}) if whole else None), True
    if _ET_AL_TAIL.search(given):
        return author.model_copy(update={"given": _ET_AL_TAIL.sub("", given).strip() or None}), True
    if _ET_AL_TAIL.search(family) and _ET_AL_TAIL.sub("", family).strip():
        return author.model_copy(update={"family": _ET_AL_TAIL.sub("", family).strip()}), True
    if _ET_AL_HEAD.match(family):
        return author.model_copy(update={"family": _ET_AL_HEAD.sub("", family).strip()}), True
    return author, False


def people_and_groups(authors: Sequence[Author]) -> tuple[list[Author], list[Author], bool]:
    """A list read for comparison: its people and its group authors apart (each through
    `normalize_source_author`), and whether it was cut ("et al." left inside a name)."""
    people: list[Author] = []
    groups: list[Author] = []
    cut = False
    for author in authors:
        cleaned, marker = without_truncation_marker(author)
        cut = cut or marker
        if cleaned is None:
            continue
        normal = normalize_source_author(cleaned)
        (groups if is_group_author(normal) else people).append(normal)
    return people, groups, cut


def _group_words(author: Author) -> list[str]:
    words = fold(_BEHALF.sub("", normalize_source_author(author).display)).split()
    return [w for w in words if w not in _GROUP_STOP_WORDS]


def groups_match(a: Author, b: Author) -> bool:
    """Whether two group authors are the same group: the same name ("The GTEx Consortium" /
    "GTEx Consortium"), one's words within the other's ("ATLAS" / "The ATLAS Collaboration"), or
    one an acronym of the other ("ADNI" / "Alzheimer's Disease Neuroimaging Initiative")."""
    words_a, words_b = _group_words(a), _group_words(b)
    if not words_a or not words_b:
        return False
    if fold_name(" ".join(words_a)) == fold_name(" ".join(words_b)):
        return True
    core_a = {w for w in words_a if w not in _ORG_WORDS} or set(words_a)
    core_b = {w for w in words_b if w not in _ORG_WORDS} or set(words_b)
    if core_a <= core_b or core_b <= core_a:
        return True
    for short, long in ((words_a, words_b), (words_b, words_a)):
        initials = "".join(w[0] for w in long if w not in _ORG_WORDS)
        initials_all = "".join(w[0] for w in long)
        if any(len(w) >= 3 and w in (initials, initials_all) for w in short):
            return True
    return False


# --- placeholders ---------------------------------------------------------------------------------

_PLACEHOLDER_NAMES: Final = frozenset(
    {
        *("author", "authors", "the author", "the authors", "unknown", "unknown author"),
        *("unknown authors", "anonymous", "anon", "anonymous author", "anonymous authors"),
        *("anonymized", "anonymised", "anonymous for review", "anonymized for review"),
        *("john doe", "jane doe", "doe john", "doe jane", "doe", "richard roe"),
        *("first author", "second author", "third author", "fourth author", "last author"),
        *("corresponding author", "co author", "coauthor", "author one", "author two"),
        *("author three", "author name", "author names", "authors names", "name of author"),
        *("firstname lastname", "first name last name", "lastname firstname", "first last"),
        *("last name first name", "last first", "surname name", "name surname", "surname"),
        *("surname firstname", "firstname surname", "given family", "family given"),
        *("given name family name", "your name", "name", "names", "et al", "others", "n a"),
        *("na", "none", "null", "tbd", "tba", "todo", "placeholder", "foo bar", "foo", "bar"),
        *("lorem ipsum", "max mustermann", "erika mustermann", "someone", "somebody", "nobody"),
        *("test author", "sample author", "example author", "some author", "dummy author"),
        *("a n other", "x", "xx", "xxx", "xxxx"),
    }
)
# "Doe" with an initial ("Doe, A.", "J. Doe") is a person: Doe is a surname (issue 20). Only the
# template names are placeholders: "John Doe", "Jane Doe", "Doe" alone, "Doe1".
_PLACEHOLDER_PATTERN = re.compile(
    r"(?:author ?\d{1,2}|[a-z] author|author [a-z]|(?:[a-z] )?author\d*|doe\d+)"
)


def is_placeholder_author(author: Author) -> bool:
    """Whether a name is a template rather than a person: "Author", "Anonymous", "John Doe",
    "A. Author", "Lastname, Firstname", "et al." alone, "First Author", "Author 1".

    Only the classic template names: fabricated lists of plausible names ("Elena Garcia and
    Kenji Tanaka") look like real people and are caught by comparison with the sources, never here.
    """
    forms = {fold(author.display)}
    if author.family or author.given:
        forms.add(fold(" ".join(p for p in (author.family, author.given) if p)))
    forms.discard("")
    if not forms:
        return True
    return any(form in _PLACEHOLDER_NAMES or _PLACEHOLDER_PATTERN.fullmatch(form) for form in forms)


def has_placeholder_authors(authors: Sequence[Author]) -> bool:
    """Whether any author of a list is a placeholder (see `is_placeholder_author`). An "et al."
    after named authors ("Brown, Tom and {et al.}") marks a cut list; alone, it is a template."""
    named = [a for a in (without_truncation_marker(author)[0] for author in authors) if a is not None]
    return any(is_placeholder_author(author) for author in (named if named else authors))
