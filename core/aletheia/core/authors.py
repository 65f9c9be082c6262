"""Author names as cited: parsing, and placeholder detection (comparison: `author_match`; lists:
`author_lists`).

Names arrive as BibTeX (`Last, First`, `Last, Jr., First`, `First von Last`, `{Org Name}`, LaTeX
accents, `and others`), as reference-string lists (`Smith J, Doe A, et al.`, `A, B, and C`,
`Smith, J., & Doe, A.`) and from APIs (given/family pairs, DBLP's homonym numbers `Wei Wang 0001`).
`parse_name` and `parse_author_list` turn them into `records.Author`.

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
from aletheia.core.latex import latex_to_unicode
from aletheia.core.records import Author
from aletheia.core.text import decode_character_references as decode_references
from aletheia.core.text import normalize_whitespace, repair_pdf_name

__all__ = [
    "VANCOUVER_INITIALS",
    "has_placeholder_authors",
    "is_group_author",
    "is_organisation_name",
    "is_placeholder_author",
    "normalize_source_author",
    "parse_author_list",
    "parse_name",
]

_DBLP_HOMONYM = re.compile(r"^\d{4}$")
# Vancouver style: the initials follow the surname, capitals without dots ("Smith JR").
VANCOUVER_INITIALS = re.compile(r"^[A-Z]{1,3}$")
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
    if VANCOUVER_INITIALS.match(tokens[-1]) and not _INITIALS_PIECE.match(tokens[0]):
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
    if VANCOUVER_INITIALS.match(tokens[-1]) and _is_capitalised_word(tokens[0]):
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
