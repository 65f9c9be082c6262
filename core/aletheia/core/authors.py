"""Author names: parsing as cited, comparison keys, placeholder detection (lists: `author_lists`).

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
Neuroimaging"; PMLR's "Iii, Hal Daumé"): `author_lists.compare_author_lists` reads both lists through
`normalize_source_author` and compares group authors apart (`author_kinds`).
"""

from __future__ import annotations

import re
from typing import Final

from aletheia.core.author_cjk import has_cjk, split_cjk
from aletheia.core.author_kinds import (
    NAME_SUFFIXES,
    PARTICLES,
    has_placeholder_authors,
    is_group_author,
    is_organisation_name,
    is_placeholder_author,
    normalize_source_author,
)
from aletheia.core.records import Author
from aletheia.core.text import decode_character_references as decode_references
from aletheia.core.text import fold, fold_name, latex_to_unicode, normalize_whitespace, repair_pdf_name

__all__ = [
    "authors_match",
    "given_names_compatible",
    "has_placeholder_authors",
    "is_group_author",
    "is_organisation_name",
    "is_placeholder_author",
    "normalize_source_author",
    "one_letter_slip",
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
    name is the other written in the opposite order (romanised East Asian names)."""
    return (
        surnames_match(a, b)
        or _order_swapped_match(a, b)
        or _order_swapped_match(b, a)
        or _compound_surname_match(a, b)
        or _compound_surname_match(b, a)
    )


# Surnames at least this long may differ by one letter and still be one person's, given the same
# full first name, in a list whose other names match (issue 28: OpenAlex's "Xingrui Wong" for
# Xingrui Wang, a PDF's "Kristof T. Schüttl" for Schütt, "Weichen Zhan" for Weichen Zhang). Never
# alone: "John Smith" and "John Smyth" are two people (`author_lists` asks for the rest of the list).
MIN_SURNAME_FOR_ONE_LETTER: Final = 4


def one_letter_slip(a: Author, b: Author) -> bool:
    if not (a.family and b.family and a.given and b.given):
        return False
    first_a, first_b = _first_given_word(a.given), _first_given_word(b.given)
    if len(first_a) < 2 or first_a != first_b:
        return False
    key_a, key_b = fold_name(a.family), fold_name(b.family)
    if not (key_a.isalpha() and key_b.isalpha()):
        return False  # a digit is no slip of the pen: "Okafor9" and "Okafor0" are two names
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
