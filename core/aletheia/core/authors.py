"""Author names: parsing as cited, comparison keys, placeholder detection, list comparison.

Names arrive as BibTeX (`Last, First`, `Last, Jr., First`, `First von Last`, `{Org Name}`, LaTeX
accents, `and others`), as reference-string lists (`Smith J, Doe A, et al.`, `A, B, and C`,
`Smith, J., & Doe, A.`) and from APIs (given/family pairs, DBLP's homonym numbers `Wei Wang 0001`).
`parse_name` and `parse_author_list` turn them into `records.Author`.

Comparison is by surname (seed 000 §5.2: the first-author surname is decisive): `surname_key` folds
accents, case, hyphens, apostrophes and spaces. Two surnames also match when, particles aside,
one's words are a subset of the other's, because sources disagree on compound and particle
surnames ("van der Maaten" / "Maaten", "De Cao" / "Cao", "García Márquez" / "Márquez"). Given
names are never decisive: an initial matches any name with that initial ("J. Smith" ~ "John
Smith"); two full first names that differ ("Rui" / "Ruoxuan") are reported as evidence only.
Romanised East Asian names are written in either order, so "Zhang Heyi" and "Heyi Zhang" match.

Sources file groups as people and suffixes as surnames ("Initiative, Alzheimer's Disease
Neuroimaging"; PMLR's "Iii, Hal Daumé"): `compare_author_lists` reads both lists through
`normalize_source_author` and compares group authors apart (`author_kinds`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Final

from aletheia.core.author_cjk import has_cjk, split_cjk
from aletheia.core.author_kinds import (
    NAME_SUFFIXES,
    PARTICLES,
    groups_match,
    has_placeholder_authors,
    is_group_author,
    is_organisation_name,
    is_placeholder_author,
    normalize_source_author,
    people_and_groups,
)
from aletheia.core.records import Author
from aletheia.core.text import decode_character_references as decode_references
from aletheia.core.text import fold, fold_name, latex_to_unicode, normalize_whitespace, repair_pdf_name

__all__ = [
    "AuthorComparison",
    "authors_match",
    "compare_author_lists",
    "given_names_compatible",
    "has_placeholder_authors",
    "is_group_author",
    "is_organisation_name",
    "is_placeholder_author",
    "normalize_source_author",
    "parse_author_list",
    "parse_name",
    "surname_key",
    "surnames_match",
]

_DBLP_HOMONYM = re.compile(r"^\d{4}$")
_TRAILING_HOMONYM = re.compile(r"(?<=\S)\s+\d{4}$")
# Vancouver style: the initials follow the surname, capitals without dots ("Smith JR").
_VANCOUVER_INITIALS = re.compile(r"^[A-Z]{1,3}$")
_INITIALS_PIECE = re.compile(r"^(?:[A-Z]\.?(?:\s*-?\s*[A-Z]\.?){0,3}|[A-Z]{1,3})$")
_TRUNCATION_TAIL = re.compile(
    r"(?:[,;]\s*)?(?:(?<![A-Za-z])(?:and|&)\s+)?(?<![A-Za-z])(?:et\.?\s*al(?:ii|ia)?\.?|others)\s*$",
    re.IGNORECASE,
)
_TRUNCATION_ITEM = re.compile(r"^(?:and\s+|&\s*)?(?:et\.?\s*al(?:ii|ia)?\.?|others)$", re.IGNORECASE)
_AND_SEPARATOR = re.compile(r"\s+and\s+|\s*(?<!\\)&\s*", re.IGNORECASE)
_UNESCAPED_TILDE = re.compile(r"(?<!\\)~")


# --- brace-aware splitting ---------------------------------------------------------------------------


def _depth_zero_splits(text: str, separator: re.Pattern[str]) -> list[str]:
    """Split at separators outside `{...}`; unbalanced braces are ignored altogether."""
    depth = 0
    depths: list[int] = []
    for char in text:
        depths.append(depth)
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
    balanced = depth == 0
    pieces: list[str] = []
    start = 0
    for match in separator.finditer(text):
        if match.start() == match.end():
            continue
        if balanced and (depths[match.start()] or "{" in match.group() or "}" in match.group()):
            continue
        pieces.append(text[start : match.start()])
        start = match.end()
    pieces.append(text[start:])
    return pieces


def _is_wholly_braced(text: str) -> bool:
    if not (text.startswith("{") and text.endswith("}")):
        return False
    depth = 0
    for index, char in enumerate(text):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0 and index != len(text) - 1:
                return False
    return depth == 0


_COMMA: Final = re.compile(r",")
_SEMICOLON: Final = re.compile(r";")


# --- single names ---------------------------------------------------------------------------------


def _bare(token: str) -> str:
    return token.strip().strip(".,;").casefold()


def _is_suffix(piece: str) -> bool:
    # "JR" and "SR" in capitals are Vancouver initials ("Smith JR"), not Junior and Senior.
    return _bare(piece) in NAME_SUFFIXES and piece.strip() not in ("JR", "SR")


def _is_particle(token: str) -> bool:
    # "E." in "D. E. Swanson" and "Y." in "A. Y. Ng" are initials, not the particles "e" and "y".
    stripped = token.strip()
    if len(_bare(stripped)) == 1 and (stripped.endswith(".") or stripped.isupper()):
        return False
    return _bare(token) in PARTICLES


def _looks_like_personal_name(text: str) -> bool:
    tokens = text.split()
    if not 2 <= len(tokens) <= 5 or is_organisation_name(text):
        return False
    return all(
        _is_particle(t)
        or _INITIALS_PIECE.match(t)
        or (t[:1].isupper() and t.replace("-", "").replace(".", "").isalpha())
        for t in tokens
    )


def _name_text(raw: str) -> str:
    return normalize_whitespace(latex_to_unicode(_UNESCAPED_TILDE.sub(" ", raw)))


def _drop_homonym_numbers(tokens: list[str]) -> list[str]:
    kept = [token for token in tokens if not _DBLP_HOMONYM.match(token)]
    return kept or tokens


def _without_comma(tokens: list[str], suffix: str | None) -> Author:
    tokens = _drop_homonym_numbers(tokens)
    while len(tokens) > 1 and _is_suffix(tokens[-1]) and suffix is None:
        suffix = tokens.pop()
    if not tokens:
        return Author(suffix=suffix)
    if any(has_cjk(token) for token in tokens):
        if len(tokens) == 1:
            return split_cjk(tokens[0]).model_copy(update={"suffix": suffix})
        return Author(family=tokens[0], given=" ".join(tokens[1:]), suffix=suffix)
    if len(tokens) == 1:
        return Author(family=tokens[0], suffix=suffix)
    if _VANCOUVER_INITIALS.match(tokens[-1]) and not _INITIALS_PIECE.match(tokens[0]):
        return Author(family=" ".join(tokens[:-1]), given=tokens[-1], suffix=suffix)
    start = len(tokens) - 1
    while start > 1 and _is_particle(tokens[start - 1]):
        start -= 1
    if start == 1 and _is_particle(tokens[0]) and tokens[0][:1].islower():
        start = 0  # BibTeX: a name that starts with a lower-case particle has no given name
    return Author(given=" ".join(tokens[:start]), family=" ".join(tokens[start:]), suffix=suffix)


def parse_name(name: str) -> Author:
    """Parse one personal or corporate name as a citation gives it.

    "Last, First", "Last, Jr., First", "First Last", "First van der Last", "Smith JR" (Vancouver),
    "Wei Wang 0001" (DBLP: the homonym number is dropped), "王伟" (family name first), and
    organisations (`{The ATLAS Collaboration}`, "Gemini Team") as `literal`. LaTeX is rendered.
    """
    raw = repair_pdf_name(normalize_whitespace(name))
    if _is_wholly_braced(raw):
        # BibTeX reads a braced name as one literal; exporters also brace plain personal names
        # ("{Yann LeCun}"), which are parsed as names so that their surname can be compared.
        inner = _name_text(raw[1:-1])
        if not _looks_like_personal_name(inner):
            return Author(literal=inner) if inner else Author()
        raw = raw[1:-1]
    parts = [_name_text(part) for part in _depth_zero_splits(raw, _COMMA)]
    parts = [part for part in parts if part]
    if not parts:
        return Author()
    whole = ", ".join(parts)
    if is_organisation_name(whole):
        return Author(literal=whole)
    if len(parts) == 1:
        return _without_comma(parts[0].split(), None)
    if len(parts) == 2 and _is_suffix(parts[1]):
        return _without_comma(parts[0].split(), parts[1])
    family_tokens = _drop_homonym_numbers(parts[0].split())
    suffix: str | None = None
    if len(family_tokens) > 1 and _is_suffix(family_tokens[-1]):
        suffix = family_tokens.pop()
    rest = parts[1:]
    if len(rest) > 1 and _is_suffix(rest[0]):
        suffix, rest = rest[0], rest[1:]  # BibTeX's "Last, Jr, First"
    elif len(rest) > 1 and _is_suffix(rest[-1]):
        suffix, rest = rest[-1], rest[:-1]  # "Last, First, Jr."
    given_tokens = _drop_homonym_numbers(" ".join(rest).split())
    return Author(family=" ".join(family_tokens), given=" ".join(given_tokens) or None, suffix=suffix)


# --- author lists ----------------------------------------------------------------------------------


def _is_capitalised_word(token: str) -> bool:
    letters = token.replace("-", "").replace("'", "").replace("’", "")
    return len(letters) >= 2 and letters.isalpha() and letters[0].isupper() and not letters.isupper()


_INITIAL_TOKEN: Final = re.compile(r"(?:[A-Z]\.)+(?:-[A-Z]\.)?")


def _looks_like_whole_name(piece: str) -> bool:
    """Whether a piece of a comma list is a name by itself: "Yann LeCun", "Smith JR"."""
    tokens = _name_text(piece).split()
    if len(tokens) < 2:
        return False
    if _VANCOUVER_INITIALS.match(tokens[-1]) and _is_capitalised_word(tokens[0]):
        return True
    if all(_INITIAL_TOKEN.fullmatch(t) for t in tokens[:-1]) and _is_capitalised_word(tokens[-1]):
        return True  # "D. E. Swanson", "C. Reich"
    return (
        _is_capitalised_word(tokens[0]) and not _is_particle(tokens[0]) and _is_capitalised_word(tokens[-1])
    )


def _is_surname_piece(piece: str) -> bool:
    """The part before the comma of "Last, First": one word, or particles and a word."""
    tokens = _name_text(piece).split()
    return len(tokens) == 1 or (len(tokens) > 1 and all(_is_particle(t) for t in tokens[:-1]))


def _bibtex_form(and_parts: list[str]) -> bool:
    """Whether "X, Y and Z, W" is BibTeX's "Last, First and Last, First" rather than a written
    list ("A B, C D, and E F", "Smith, J., Doe, A., and Lee, K."). Each part with commas votes."""
    votes = 0
    for part in and_parts:
        pieces = [p for p in _depth_zero_splits(part, _COMMA) if p.strip()]
        if len(pieces) < 2:
            continue
        if len(pieces) > 3:
            votes -= 2  # no BibTeX name has three commas: several names in one part
        elif len(pieces) == 3 and not (_is_suffix(pieces[1]) or _is_suffix(pieces[2])):
            if all(_looks_like_whole_name(p) for p in pieces):
                votes -= 1  # "Kimitaka Asatani, Junichiro Mori, Masanao Ochi"
            continue  # a stray comma ("Yang, Jimei Sohn, Kihyuk"): no evidence either way
        elif _is_surname_piece(pieces[0]):
            votes += 1
        elif _looks_like_whole_name(pieces[0]) and _looks_like_whole_name(pieces[-1]):
            votes -= 1
    return votes >= 0


def _group_comma_pieces(pieces: list[str]) -> list[str]:
    """Rebuild names from a comma-separated list: initials and suffixes join the piece before
    ("Smith, J., Doe, A." -> "Smith, J.", "Doe, A.")."""
    names: list[str] = []
    for piece in pieces:
        text = piece.strip()
        if not text:
            continue
        attach = _INITIALS_PIECE.match(_name_text(text)) or _is_suffix(text)
        if names and attach and "," not in names[-1] and not _looks_like_whole_name(names[-1]):
            names[-1] = f"{names[-1]}, {text}"
        else:
            names.append(text)
    return names


def _single_name_with_commas(pieces: list[str]) -> bool:
    if len(pieces) == 2:
        return not (_looks_like_whole_name(pieces[0]) and _looks_like_whole_name(pieces[1]))
    return len(pieces) == 3 and (_is_suffix(pieces[1]) or _is_suffix(pieces[2]))


def _name_strings(text: str) -> list[str]:
    items = _depth_zero_splits(text, _SEMICOLON)
    if len(items) > 1:
        # "Smith, J.; Doe, A.; and Lee, K." or "Smith, J.; Doe, A. & Lee, K.": each item a name.
        return [name for item in items for name in _depth_zero_splits(item, _AND_SEPARATOR)]
    and_parts = [part for part in _depth_zero_splits(text, _AND_SEPARATOR) if part.strip()]
    comma_pieces = [_depth_zero_splits(part, _COMMA) for part in and_parts]
    if all(len([p for p in pieces if p.strip()]) < 2 for pieces in comma_pieces):
        return and_parts
    if len(and_parts) > 1 and _bibtex_form(and_parts):
        return and_parts
    if len(and_parts) == 1:
        pieces = [p for p in comma_pieces[0] if p.strip()]
        if _single_name_with_commas(pieces):
            return and_parts
    return _group_comma_pieces([piece for pieces in comma_pieces for piece in pieces])


def parse_author_list(authors: str) -> tuple[tuple[Author, ...], bool]:
    """Parse an author field or a written author list; the bool says the list was cut short.

    BibTeX ("A and B and others"), comma lists ("Smith J, Doe A, et al.", "A, B, and C",
    "Smith, J., & Doe, A."), semicolon lists ("Smith, J.; Doe, A."). "and others", "et al." mark
    the list as truncated. Separators inside `{...}` do not split.
    """
    text = normalize_whitespace(_UNESCAPED_TILDE.sub(" ", decode_references(authors)))
    truncated = False
    tail = _TRUNCATION_TAIL.search(text)
    if tail is not None:
        truncated = True
        text = text[: tail.start()].rstrip(" ,;")
    parsed: list[Author] = []
    for name in _name_strings(text):
        stripped = name.strip().strip(",;").strip()
        if not stripped:
            continue
        if _TRUNCATION_ITEM.match(stripped):
            truncated = True
            continue
        author = parse_name(stripped)
        if author.family or author.given or author.literal:
            parsed.append(author)
    return tuple(parsed), truncated


# --- comparison keys --------------------------------------------------------------------------------


def surname_key(author: Author) -> str:
    """The comparison key of an author's surname (of the whole name for an organisation):
    accents, case, hyphens, apostrophes, spaces and a generational suffix do not count.
    A leading "The" of an organisation does not count either.
    """
    if author.family:
        return fold_name(_TRAILING_HOMONYM.sub("", author.family))
    if author.literal:
        words = fold(author.literal).split()
        if len(words) > 1 and words[0] == "the":
            words = words[1:]
        return fold_name(" ".join(words))
    if author.given:
        return fold_name(author.given)
    return ""


def _core_surname_words(family: str) -> frozenset[str]:
    words = [fold_name(word) for word in re.split(r"[\s\-‐‑–]+", latex_to_unicode(family))]
    words = [word for word in words if word]
    core = [word for word in words if word not in PARTICLES]
    return frozenset(core or words)


def surnames_match(a: Author, b: Author) -> bool:
    """Whether two authors have the same surname: equal `surname_key`, or (for people) the
    particle-free words of one surname are a subset of the other's ("van der Maaten" ~ "Maaten",
    "García Márquez" ~ "Márquez", "Lacoste-Julien" ~ "Julien").
    """
    key_a, key_b = surname_key(a), surname_key(b)
    if not key_a or not key_b:
        return False
    if key_a == key_b:
        return True
    if not (a.family and b.family):
        return False
    words_a, words_b = _core_surname_words(a.family), _core_surname_words(b.family)
    if not words_a or not words_b or any(len(word) < 2 for word in words_a | words_b):
        return False
    return words_a <= words_b or words_b <= words_a


def _first_given_word(given: str | None) -> str:
    if not given:
        return ""
    text = latex_to_unicode(given)
    if _VANCOUVER_INITIALS.match(text.strip()):
        return fold(text.strip()[0])
    words = [w for w in re.split(r"[\s.]+", text) if w.strip("-‐‑")]
    return fold_name(words[0]) if words else ""


def given_names_compatible(a: str | None, b: str | None) -> bool:
    """Whether two given names can be the same person's: an initial matches any name with that
    initial; two full first names must be equal (accent-, case- and hyphen-insensitive).
    A missing given name is compatible with anything.
    """
    first_a, first_b = _first_given_word(a), _first_given_word(b)
    if not first_a or not first_b:
        return True
    if len(first_a) == 1 or len(first_b) == 1:
        return first_a[0] == first_b[0]
    return first_a == first_b


def _order_swapped_match(a: Author, b: Author) -> bool:
    """ "Zhang Heyi" (parsed as given Zhang, family Heyi) against "Heyi Zhang" or "H. Zhang"."""
    if not (a.given and a.family and b.family):
        return False
    return fold_name(a.given) == surname_key(b) and given_names_compatible(a.family, b.given)


def authors_match(a: Author, b: Author) -> bool:
    """Whether two authors are the same person by the decisive rule: the surnames match, or one
    name is the other written in the opposite order (romanised East Asian names), or the same
    first name with a surname one letter apart (a slip of one side's hand or extraction)."""
    return (
        surnames_match(a, b)
        or _order_swapped_match(a, b)
        or _order_swapped_match(b, a)
        or _compound_surname_match(a, b)
        or _compound_surname_match(b, a)
        or _one_letter_apart(a, b)
    )


# Surnames at least this long may differ by one letter and still be one person's, given the same
# full first name (issue 28: OpenAlex's "Xingrui Wong" for Xingrui Wang, a PDF's "Kristof T.
# Schüttl" for Schütt, "Weichen Zhan" for Weichen Zhang).
MIN_SURNAME_FOR_ONE_LETTER: Final = 4


def _one_letter_apart(a: Author, b: Author) -> bool:
    if not (a.family and b.family and a.given and b.given):
        return False
    first_a, first_b = _first_given_word(a.given), _first_given_word(b.given)
    if len(first_a) < 2 or first_a != first_b:
        return False
    key_a, key_b = fold_name(a.family), fold_name(b.family)
    if key_a == key_b or min(len(key_a), len(key_b)) < MIN_SURNAME_FOR_ONE_LETTER - 1:
        return False
    if max(len(key_a), len(key_b)) < MIN_SURNAME_FOR_ONE_LETTER:
        return False
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(key_a, key_b) == 1


def _compound_surname_match(a: Author, b: Author) -> bool:
    """Spanish and Portuguese double surnames read as given + family: "Huziel Enoc Sauceda Felix"
    (family "Felix") is "Huziel E. Sauceda" when `b`'s surname is one of `a`'s later given words
    and the first given names agree."""
    if not (a.given and a.family and b.given and b.family):
        return False
    given_words = [fold_name(w) for w in a.given.split()]
    if len(given_words) < 2 or fold_name(b.family) not in given_words[1:]:
        return False
    return given_names_compatible(a.given, b.given)


# --- list comparison --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AuthorComparison:
    """How a cited author list compares with a source's.

    The first author is decisive; everything else is evidence. `matched_count` counts one-to-one
    surname matches (a multiset). With a truncation marker ("et al.") on the cited side, the
    source's authors after the cited ones are not `missing`; with a truncated source list, the
    cited authors past its end are not `extra`.

    Group authors (consortia, collaborations, organisations) are not aligned: a citation may omit
    "the ADNI consortium" and a source may add it. A cited group that matches a found group counts
    as matched (and in both counts); the other groups are `groups_ignored`. Counts, order and
    positions are those of the compared authors.
    """

    first_author_agrees: bool | None  # None when either list is empty
    cited_count: int
    found_count: int
    matched_count: int
    order_agrees: bool  # the shared authors appear in the same relative order
    swapped: bool  # shared authors in another order, or the cited first author later in the list
    truncated: bool  # the cited list is a strict prefix of the source's, without "et al."
    missing_trailing: int  # how many of the source's last authors a truncated cited list lacks
    extra: tuple[str, ...]  # cited names the source does not have
    missing: tuple[str, ...]  # source names the citation does not have
    given_name_conflicts: tuple[tuple[str, str], ...]  # (cited, found): same surname, other first name
    similarity: float  # matched / (compared cited + compared found - matched), Jaccard-like
    groups_ignored: int = 0  # group authors on either side left out of the comparison


def _match_lists(cited: Sequence[Author], found: Sequence[Author]) -> dict[int, int]:
    """One-to-one matching, cited index -> found index.

    Passes from the most to the least specific, so that of two authors with one surname the one
    whose given name fits is taken: same position, then equal surname keys, then the looser
    surname rules, each first with compatible given names, then without.
    """
    pairs: dict[int, int] = {}
    used: set[int] = set()
    cited_keys = [surname_key(a) for a in cited]
    found_keys = [surname_key(a) for a in found]

    def fits(i: int, j: int) -> bool:
        return given_names_compatible(cited[i].given, found[j].given)

    def same_key(i: int, j: int) -> bool:
        return bool(cited_keys[i]) and cited_keys[i] == found_keys[j]

    def matches(i: int, j: int) -> bool:
        return authors_match(cited[i], found[j])

    passes = (
        (True, lambda i, j: matches(i, j) and fits(i, j)),
        (False, lambda i, j: same_key(i, j) and fits(i, j)),
        (False, lambda i, j: matches(i, j) and fits(i, j)),
        (True, matches),
        (False, same_key),
        (False, matches),
    )
    for same_position, predicate in passes:
        for i in range(len(cited)):
            if i in pairs:
                continue
            candidates = [i] if same_position else range(len(found))
            for j in candidates:
                if j < len(found) and j not in used and predicate(i, j):
                    pairs[i] = j
                    used.add(j)
                    break
    return pairs


def _matched_groups(cited: Sequence[Author], found: Sequence[Author]) -> int:
    used: set[int] = set()
    for group in cited:
        for j, other in enumerate(found):
            if j not in used and groups_match(group, other):
                used.add(j)
                break
    return len(used)


def _group_prefix_split(cited: Sequence[Author], found: Sequence[Author]) -> Sequence[Author]:
    """A source's first author that is the cited first author's name followed by a person's
    ("Gemma Team Aishwarya Kamath", "OpenAI Josh Achiam" at Semantic Scholar, where the citation
    gives "Gemma Team", "OpenAI"): the group byline and its first member run together, read as two
    authors (issue 28)."""
    if not cited or not found or cited[0].given:
        return found
    lead = fold(cited[0].display).split()
    words = found[0].display.split()
    if not lead or len(words) < len(lead) + 2 or fold(" ".join(words[: len(lead)])).split() != lead:
        return found
    person = Author(given=" ".join(words[len(lead) : -1]) or None, family=words[-1])
    return (Author(literal=" ".join(words[: len(lead)])), person, *found[1:])


def compare_author_lists(
    cited: Sequence[Author],
    found: Sequence[Author],
    *,
    cited_truncated: bool = False,
    found_truncated: bool = False,
) -> AuthorComparison:
    """Compare a cited author list with a source's (see `AuthorComparison`).

    Both lists are read through `normalize_source_author` (a source's "Iii, Hal Daumé" is Hal
    Daumé III; family "Initiative", given "Alzheimer's Disease Neuroimaging" is a group), and
    group authors are compared apart (see `AuthorComparison`). An "et al." left inside a name
    cuts the list there; a group author ("Qwen Team", "DeepSeek-AI") stands for members it does
    not name, so the other list's people it leaves unmatched are neither missing nor extra.
    """
    split = _group_prefix_split(cited, found)
    # The cited byline is a group's ("OpenAI"): it stands for the members it does not name.
    cited_truncated = cited_truncated or split is not found
    found = split
    cited, cited_groups, cited_cut = people_and_groups(cited)
    found, found_groups, found_cut = people_and_groups(found)
    groups_matched = _matched_groups(cited_groups, found_groups)
    cited_truncated = cited_truncated or cited_cut or bool(cited_groups)
    found_truncated = found_truncated or found_cut or bool(found_groups)
    pairs = _match_lists(cited, found)
    matched_found = set(pairs.values())
    if cited and found:
        first_agrees: bool | None = authors_match(cited[0], found[0])
    elif cited_groups and found_groups:
        first_agrees = groups_matched > 0  # the only comparable authors are groups
    else:
        first_agrees = None
    found_order = [pairs[i] for i in sorted(pairs)]
    order_agrees = all(x < y for x, y in pairwise(found_order))
    cited_first_later = first_agrees is False and 0 in pairs and pairs[0] != 0
    prefix = len(cited) < len(found) and all(pairs.get(i) == i for i in range(len(cited)))
    truncated = bool(cited) and prefix and not cited_truncated

    extra = tuple(
        cited[i].display
        for i in range(len(cited))
        if i not in pairs and not (found_truncated and i >= len(found))
    )
    missing = tuple(
        found[j].display
        for j in range(len(found))
        if j not in matched_found and not (cited_truncated and j >= len(cited))
    )
    conflicts = tuple(
        (cited[i].display, found[j].display)
        for i, j in sorted(pairs.items())
        if surnames_match(cited[i], found[j]) and not given_names_compatible(cited[i].given, found[j].given)
    )
    matched = len(pairs) + groups_matched
    compared = matched + len(extra) + len(missing)
    return AuthorComparison(
        first_author_agrees=first_agrees,
        cited_count=len(cited) + groups_matched,
        found_count=len(found) + groups_matched,
        matched_count=matched,
        order_agrees=order_agrees,
        swapped=not order_agrees or cited_first_later,
        truncated=truncated,
        missing_trailing=len(found) - len(cited) if truncated else 0,
        extra=extra,
        missing=missing,
        given_name_conflicts=conflicts,
        similarity=matched / compared if compared else 0.0,
        groups_ignored=len(cited_groups) + len(found_groups) - 2 * groups_matched,
    )
