"""The author list of one reference string: which shape it has, and whether the split is sure.

A reference string's authors are a comma list whose commas mean two things: between people, and
between a surname and its given names. Each citation style settles that in its own way, and the
list is read by the shape it has (`read_authors`):

| shape | example | read as |
|---|---|---|
| semicolons | `Suresh, M. R.; Milstein, C.` (ACS) | one name per item |
| whole names | `M. R. Suresh, C. Milstein` (IEEE), `Iz Beltagy, Kyle Lo, and Arman Cohan` | one each |
| Vancouver | `Patton GC, Selzer R, Coffey C` | one each |
| surname, initials | `Suresh, M. R., & Milstein, C.` (APA, Harvard) | pairs |
| first inverted | `Lin, Zhiyuan Jerry, Raul Astudillo, and Eytan Bakshy` (Chicago, MLA) | 2, then 1 each |

The first-inverted shape needs an anchor: a one-word surname first ("Lin") or given names that
end with an initial ("Abdul Salam, Vahitha B."); "Kimitaka Asatani, Junichiro Mori" is two whole
names. A comma list that fits none of the shapes ("Zhang, Wei, Li, Na": three people or six?) is
read as best it can be and marked uncertain: `decide` never calls a disagreement on it a major
error (`field_rules`), since the parser, not the citation, may be what is wrong.

APA cuts a long list with an ellipsis before the last author ("..., Ponce, F. A., … Holman, Z.
C."): the list is read up to the ellipsis and marked truncated.

Names as they arrive from PDFs and from BibTeX's styles are read too: an initial with a space
before its period ("Y . Liu", "R. Y. . Rubinstein"), combining accents ("Loı̈c"), a capitalised
particle opening a surname ("De Kroon, Arnoud", "Van Veen, Dave"), Chicago's particle after the
given names ("Bono, Johann de": family "de Bono"), bare initials first ("A Ercument Cicek", "V A
Traag", "D-C Kim"). One odd name in a long first-inverted list ("Roberto Dess ı́", a PDF's broken
accent) does not turn the list into a comma soup: the shape holds when most names fit it.
"""

from __future__ import annotations

import re
from typing import Final

from aletheia.core.authors import parse_author_list, parse_name
from aletheia.core.records import Author
from aletheia.core.text import repair_pdf_name

__all__ = [
    "INITIALS_FIRST_NAME",
    "VANCOUVER_NAME",
    "AuthorReading",
    "is_given_first_list",
    "is_whole_name",
    "looks_like_name_list",
    "read_authors",
]

AuthorReading = tuple[tuple[Author, ...], bool, bool]  # authors, truncated, uncertain

# The most names a list may hold (a foundation-models paper has 114 authors), and the longest
# author segment read: they bound the work done on one reference string.
MAX_NAMES: Final = 400
MAX_SEGMENT_CHARS: Final = 4000

_PARTICLES_RE = r"(?:(?:van|von|de|der|den|da|di|du|le|la|del|dos|ten|ter|y)\s+)*"
VANCOUVER_NAME: Final = rf"{_PARTICLES_RE}[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+)?\s+[A-Z]{{1,3}}"
INITIALS_FIRST_NAME: Final = re.compile(
    r"^(?:[^\W\d_][a-z]?\.[\s\-]?){1,4}\s*(?:(?:v|van|von|de|der|den|da|di|du|le|la|del|dos|y)\.?\s+)*"
    r"[^\W\d_][\w'’\-]+(?:\s+[^\W\d_][\w'’\-]+)?$"
)
_NAME_PARTICLE_WORDS: Final = frozenset(
    {"van", "von", "der", "den", "de", "del", "da", "di", "du", "le", "la", "dos", "ten", "ter", "v.", "d'"}
    | {"las", "los", "della", "des", "do", "das", "y", "e"}
)
# Particles that open a surname capitalised ("De Kroon", "Van Veen", "Di Camillo"): the surname's
# core is the word after them, so "De Kroon, Arnoud" is anchored like "Lin, Zhiyuan".
# Not "Di", "Da", "Le", "Du": given names too ("Di Jin, Eileen Pan" is two whole names). And the
# surname's first piece must stand alone after it ("De Kroon, Arnoud"), see `_first_inverted`.
_CAPITAL_PARTICLES: Final = frozenset(
    {"De", "Van", "Von", "Der", "Den", "Del", "Della", "Des", "Dos", "Ten", "Ter"}
)
# PDF text and some .bst styles set an initial's period apart ("Y . Liu", "R. Y. . Rubinstein").
_SPACED_PERIOD = re.compile(r"(?<=\b[^\W\d_])\s+\.(?=[\s,;]|$)")
_DOUBLED_PERIOD = re.compile(r"(?<=\.)\s+\.(?=[\s,;]|$)")
_ELIDED_PARTICLE = re.compile(r"^(?:d|l|dell)['’][A-Z][\w'’\-]+$")
# A suffix written as a piece of its own after a whole name ("Cosby A Stone, Jr, and ...").
_SUFFIX_PIECE = re.compile(r"^(?:Jr|Sr|II|III|IV)\.?$")
# The shape of a first-inverted list holds when this share of the names after the first fit it.
_FIRST_INVERTED_SHARE: Final = 0.75
# A separator between pieces: a comma (with "and" or "&" after it) or "and"/"&" alone.
_SEPARATOR = re.compile(r"(,\s*(?:and\s+|&\s*)?|\s+(?:and|&)\s+)")
_ELLIPSIS = re.compile(r"\s*(?:…|\.\s?\.\s?\.)\s*")
_ET_AL_TAIL = re.compile(r"(?:,?\s*(?:et\.?\s*al(?:ii|ia)?\.?|and\s+others))\s*$", re.IGNORECASE)
# "J.", "M.R.", "S.-T.", "Ch.", a last initial whose period was cut ("G.D"), Vancouver's "GC",
# hyphenated initials without periods ("D-C").
_INITIAL_TOKEN = re.compile(
    r"^(?:[^\W\d_][a-z]?\.\s?-?\s?)*(?:[^\W\d_][a-z]?\.|[^\W\d_])$|^[A-Z]{1,3}$|^[A-Z](?:-[A-Z]){1,2}\.?$"
)
# A word of a name; combining accents count as letters ("Loı̈c": a dotless i and a diaeresis).
_WORD = re.compile(r"^[^\W\d_][\w'’\-\u0300-\u036f]*$")
# Initials without periods before a written-out surname: "A Ercument Cicek", "V A Traag", "L
# Waltman", "D-C Kim". (Vancouver writes them after: "Traag VA".)
_BARE_INITIALS_FIRST = re.compile(
    rf"^(?:(?:[A-Z]{{1,2}}|[A-Z](?:-[A-Z]){{1,2}})\s+){{1,3}}(?:[A-Z][\w'’\-]+\s+){{0,2}}{_PARTICLES_RE}"
    r"[A-Z][a-z][\w'’\-]*$"
)


def _is_capitalised(word: str) -> bool:
    """ "Lin", "Häse", and an elided particle before a capital ("d'Amore", "d’Andrea")."""
    if _ELIDED_PARTICLE.match(word):
        return True
    return bool(_WORD.match(word)) and word[0].isupper() and len(word) >= 2


def _is_initial(word: str) -> bool:
    """ "J.", "M.R.", "S.-T.", and a Vancouver block of capitals ("GC")."""
    return bool(_INITIAL_TOKEN.match(word))


def is_whole_name(piece: str) -> bool:
    """ "Kimitaka Asatani", "Lee M Seversky", "Madeleine van Zuylen": a given name written out,
    then a surname of two letters or more; not "Smith" alone, "Smith J" (Vancouver) or initials."""
    words = piece.split()
    if not 2 <= len(words) <= 5:
        return False
    given, middle, surname = words[0], words[1:-1], words[-1]
    if not re.fullmatch(r"[A-Z][\w'’\-]+", given) or given.isupper():
        return False
    elided = _ELIDED_PARTICLE.match(surname) is not None  # "Francesco d'Amore"
    if not elided and (
        not re.fullmatch(r"[^\W\d_][\w'’\-]+", surname) or not surname[0].isupper() or surname.isupper()
    ):
        return False
    return all(
        word in _NAME_PARTICLE_WORDS or re.fullmatch(r"[A-Z][\w'’\-]*\.?", word) is not None
        for word in middle
    )


def _given_first(piece: str) -> bool:
    """A name written given names first, in any case: "J. Sanford Schwartz", "WILLIAM F. LINE",
    "R.J. Leigh", "Else R Danielsen"."""
    if is_whole_name(piece) or INITIALS_FIRST_NAME.match(piece) or _BARE_INITIALS_FIRST.match(piece):
        return True
    words = piece.split()
    if not 2 <= len(words) <= 5 or not (_is_capitalised(words[0]) or _is_initial(words[0])):
        return False
    surname = words[-1]
    # An upper-case surname of three letters or fewer is Vancouver initials, unless the whole name
    # is upper case ("ANDA KWONG").
    if not _is_capitalised(surname) or (surname.isupper() and len(surname) <= 3 and not piece.isupper()):
        return False
    return all(
        _is_capitalised(word) or _is_initial(word) or word.lower() in _NAME_PARTICLE_WORDS
        for word in words[1:-1]
    )


def _surname_words(piece: str) -> list[str] | None:
    """The words of a surname written first ("Lin", "v. Thurzó", "Abdul Salam", "OWEN-SMITH"),
    particles left out; None when the piece is not one (an initial, a lower-case word)."""
    words = piece.split()
    core = [word for word in words if word not in _NAME_PARTICLE_WORDS]  # particles are lower case
    # A capitalised particle opening the surname ("De Kroon", "Van Veen") is no part of its core.
    while len(core) > 1 and core[0] in _CAPITAL_PARTICLES:
        core = core[1:]
    if not core or len(core) > 3 or not all(_is_capitalised(word) for word in core):
        return None
    # "Patton GC" is Vancouver; "MOY" and "ASO" in an upper-case list are surnames.
    if not piece.isupper() and any(_is_initial(word) for word in core):
        return None
    return core


def _given_names(piece: str) -> bool:
    """Given names after an inverted surname: "Zhiyuan Jerry", "M.R.", "Stacy W.", "J."."""
    words = _given_and_particles(piece)[0].split()
    return 1 <= len(words) <= 4 and all(_is_capitalised(w) or _is_initial(w) for w in words)


def _given_and_particles(piece: str) -> tuple[str, str]:
    """Given names after an inverted surname, and the particles Chicago writes after them
    ("Johann de" -> "Johann", "de"; "Ulrike von" -> "Ulrike", "von")."""
    words = piece.split()
    cut = len(words)
    while cut > 1 and words[cut - 1] in _NAME_PARTICLE_WORDS:
        cut -= 1
    return " ".join(words[:cut]), " ".join(words[cut:])


def _first_inverted(pieces: list[str], separators: list[str]) -> bool:
    """Chicago and MLA: "Surname, Given, Given Surname, ..., and Given Surname", anchored."""
    if len(pieces) < 2 or "and" in separators[0] or "&" in separators[0]:
        return False
    surname = _surname_words(pieces[0])
    if surname is None or not _given_names(pieces[1]):
        return False
    # "Van Uden, Cara Maria", or two whole names "Van Anh, Thi Nguyen"? Only "Van Veen, Dave".
    if (
        len(surname) < len(pieces[0].split())
        and len(_given_and_particles(pieces[1])[0].split()) > 1
        and not _is_initial(pieces[1].split()[-1])
    ):
        return False
    rest = pieces[2:]
    fitting = sum(1 for p in rest if _given_first(p))
    # Every name must fit a short list; in a long one a name or two mangled by a PDF ("Roberto
    # Dess ı́", "Enrique Mac ı́as") does not undo a shape the others confirm.
    if fitting < len(rest) and (len(rest) < 4 or fitting < _FIRST_INVERTED_SHARE * len(rest)):
        return False
    return len(surname) == 1 or _is_initial(_given_and_particles(pieces[1])[0].split()[-1])


def _surname_initials_pairs(pieces: list[str], separators: list[str]) -> bool:
    """APA and Harvard: "Suresh, M. R., & Milstein, C." - surnames and initials alternate."""
    if len(pieces) % 2 or any(sep.strip() not in ("", ",") for sep in separators[::2]):
        return False
    return all(_surname_words(p) is not None for p in pieces[::2]) and all(
        all(_is_initial(word) for word in p.split()) for p in pieces[1::2]
    )


def _split(segment: str) -> tuple[list[str], list[str]]:
    """The pieces of a list and the separator before each piece after the first."""
    pieces: list[str] = []
    separators: list[str] = []
    pending = ""
    for index, part in enumerate(_SEPARATOR.split(segment)):
        if index % 2:
            pending += part
        elif part.strip():
            if (
                pieces
                and _SUFFIX_PIECE.match(part.strip())
                and len(pieces[-1].split()) > 1
                and not _is_initial(pieces[-1].split()[-1])
            ):
                # "Cosby A Stone, Jr": the suffix belongs to the whole name before it.
                pieces[-1] += " " + part.strip()
                pending = ""
                continue
            if pieces:
                separators.append(pending)
            pieces.append(part.strip())
            pending = ""
    return pieces, separators


def read_authors(segment: str, *, given_first: bool = False) -> AuthorReading:
    """The authors of a reference string's author segment, whether the list was cut ("et al.",
    an ellipsis), and whether its split is uncertain (see the module docstring). `given_first`:
    the segment is a sentence of its own that `is_given_first_list` accepts, so every comma
    separates people (plainnat, ACL)."""
    segment = _DOUBLED_PERIOD.sub("", _SPACED_PERIOD.sub(".", segment))
    segment = segment.strip().strip(" ,;:.(").strip()
    segment = re.sub(r"\s*\((?:eds?|hrsg|coord)\.?\)\s*$", "", segment, flags=re.IGNORECASE)
    if not segment or len(segment) > MAX_SEGMENT_CHARS or not re.search(r"[^\W\d_]{2}", segment):
        return (), False, False
    truncated = False
    ellipsis = _ELLIPSIS.search(segment)
    if ellipsis is not None:
        segment, truncated = segment[: ellipsis.start()].rstrip(" ,;&"), True
    tail = _ET_AL_TAIL.search(segment)
    if tail is not None:
        segment, truncated = segment[: tail.start()].rstrip(" ,;"), True
    if ";" in segment:
        authors, cut = parse_author_list(segment)
        return authors, truncated or cut, False
    pieces, separators = _split(segment)
    if not pieces:
        return (), truncated, False
    if given_first and len(pieces) > 1:
        # plainnat, ACL: "Michael J. Bommarito II, Łukasz Kaiser, and Cicero Nogueira dos santos".
        authors, cut = parse_author_list(" and ".join(pieces))
        return authors, truncated or cut, False
    if _first_inverted(pieces, separators):
        given, particles = _given_and_particles(pieces[1])
        first = Author(family=f"{particles} {pieces[0]}".strip(), given=given)
        rest = tuple(parse_name(piece) for piece in pieces[2:])
        return (first, *rest), truncated, False
    if len(pieces) > 1 and all(
        INITIALS_FIRST_NAME.match(p)
        or is_whole_name(p)
        or _BARE_INITIALS_FIRST.match(p)
        or re.fullmatch(VANCOUVER_NAME, p)
        for p in pieces
    ):
        # "D. E. Swanson, C. Reich", "Kimitaka Asatani, Junichiro Mori, and Ichiro Sakata": whole
        # names, given names first; with "and" between them none is read as "Last, First".
        authors, cut = parse_author_list(" and ".join(pieces))
        # One style writes every name alike: Vancouver names among given-first ones ("T. Iryo,
        # Transportmetrica A") are a venue taken for a name, or two styles run together.
        vancouver = {
            bool(re.fullmatch(VANCOUVER_NAME, p)) and not INITIALS_FIRST_NAME.match(p) for p in pieces
        }
        return authors, truncated or cut, len(vancouver) > 1
    if _surname_initials_pairs(pieces, separators):
        pairs = zip(pieces[::2], pieces[1::2], strict=True)
        return tuple(Author(family=family, given=given) for family, given in pairs), truncated, False
    authors, cut = parse_author_list(segment)
    return authors, truncated or cut, "," in segment and len(pieces) > 1


# --- where an author list ends: a sentence of names -------------------------------------------------

_LOWER_PARTICLES: Final = frozenset(
    {"van", "von", "der", "den", "de", "del", "da", "di", "du", "le", "la", "dos", "das", "do", "della"}
    | {"des", "ten", "ter", "al", "el", "bin", "y"}
)
# "J.", "M.R.", "S.-T.", "Ch." and "U.S." (a group's name); a capitalised word in any script
# ("Łukasz", "Ölçer"); a lower-case particle.
_INITIAL_WORD = re.compile(r"^[^\W\d_][a-z]?\.(?:-?[^\W\d_]\.)*$")
_NAME_WORD = re.compile(r"^[^\W\d_][\w'’\-]*$")
_NAME_SEPARATOR = re.compile(r",\s*(?:and\s+|&\s*)?|\s+(?:and|&)\s+")
_NAMES_TAIL = re.compile(r",?\s+et\s+al\.?$|,?\s+and\s+others$")
# Words of a venue or an institution, never of a person's name: AIP and Elsevier write "Є.О.
# Рябоконь, Odesa National University Herald. Jurisprudence 23" (a name, then the venue).
_INSTITUTION_WORDS: Final = frozenset(
    {"University", "Journal", "Society", "Institute", "Herald", "Symposium", "Proceedings", "Press"}
    | {"Conference", "Transactions", "Review", "Letters", "Bulletin", "Annals", "Workshop", "Magazine"}
    | {"Association", "Foundation", "Laboratory", "Department", "Council", "Committee", "Agency"}
    | {"Ministry", "National", "International", "Digest", "Organization", "Organisation", "Academy"}
)
_SUFFIX_WORD = re.compile(r"^(?:Jr|Sr|II|III|IV|Iii)\.?$")


# Common words of a title, never the tail of a name a PDF broke at an accent ("Niccol o", "Dess ı").
_TITLE_WORDS: Final = frozenset(
    {"a", "an", "the", "of", "in", "on", "for", "to", "and", "or", "is", "at", "by", "via", "with"}
    | {"from", "as", "its", "are", "be", "not", "can", "do", "we", "how", "what", "why", "into"}
)
_MAX_NAME_WORDS: Final = 6  # "Marcel R M van den Brink"


def _name_words_fit(words: list[str], *, fragments: bool = False) -> bool:
    """Whether the words make a name. `fragments`: a short lower-case piece after the first word
    is the tail of a word a PDF broke at its accent ("Niccol o Zani", "Kov ács", "Mac ıas")."""
    for index, word in enumerate(words):
        if word in _LOWER_PARTICLES or _ELIDED_PARTICLE.match(word):
            continue
        if not _NAME_WORD.match(word) and not _INITIAL_WORD.match(word):
            return False
        if word[0].isupper():
            continue
        # "Cicero Nogueira dos santos": a PDF's lower-case surname after a particle.
        if index > 0 and words[index - 1] in _LOWER_PARTICLES:
            continue
        if not (fragments and index > 0 and len(word) <= 4 and word not in _TITLE_WORDS):
            return False
    return True


def _names(segment: str) -> list[str] | None:
    """The names of a sentence that may be an author list ("et al." dropped, a suffix written as
    a piece of its own joined to its name), or None when it holds a digit or too many names."""
    text = repair_pdf_name(segment).strip().rstrip(".").strip()
    if not text or re.search(r"\d", text):
        return None
    text = _NAMES_TAIL.sub("", text)
    names: list[str] = []
    for name in (piece.strip() for piece in _NAME_SEPARATOR.split(text)):
        if names and _SUFFIX_WORD.match(name):
            names[-1] += " " + name  # "Richard Robb, Jr."
        elif name:
            names.append(name)
    if not names or len(names) > MAX_NAMES:
        return None
    return names


def looks_like_name_list(segment: str) -> bool:
    """Whether a sentence is only names: "Chidi Okafor and Astrid Lindqvist.", "R. Tanaka.",
    "Łukasz Kaiser, Tom Brown, et al.". In a list of three or more, a quarter of the names may
    hold a word's tail a PDF broke off at an accent."""
    names = _names(segment)
    if names is None:
        return False
    broken = 0
    for name in names:
        words = name.split()
        if not 1 <= len(words) <= _MAX_NAME_WORDS or any(word in _INSTITUTION_WORDS for word in words):
            return False
        if not _name_words_fit(words):
            if len(names) < 3 or not _name_words_fit(words, fragments=True):
                return False
            broken += 1
    if broken > len(names) / 4:
        return False
    # "Surname, Initials" pairs split at the comma are fine too; a lone capitalised word is a name
    # only in a list ("Smith, Jones").
    return len(names) > 1 or len(names[0].split()) > 1


def _one_given_first(name: str) -> bool:
    words = name.split()
    if len(words) > 2 and _SUFFIX_WORD.match(words[-1]):
        words = words[:-1]  # "Michael J. Bommarito II"
    if len(words) > 2 and not _name_words_fit(words) and _name_words_fit(words, fragments=True):
        return True  # "Niccol o Zani": broken at an accent, counted by `looks_like_name_list`
    if words[-1] in _LOWER_PARTICLES or any(word in _INSTITUTION_WORDS for word in words):
        return False  # "Den Steinen, K. von" (Chicago's particle last); "Odesa National University Herald"
    if len(words) > 2 and words[-2] in _LOWER_PARTICLES and words[-1].islower():
        words[-1] = words[-1].capitalize()  # "Cicero Nogueira dos santos"
    return _given_first(" ".join(words))


def is_given_first_list(segment: str) -> bool:
    """Whether a sentence is a list of names written given names first, as natbib's `plainnat`,
    ACL and IEEE write them: "Diederik P. Kingma and Jimmy Ba.", "Michael J. Bommarito II, Daniel
    Martin Katz, and Eric M. Detterman.", "Claude E. Shannon.", "Tom Brown, Nick Ryder, et al.".

    Each name's given names come first; a lone name must hold an initial between its given name and
    its surname, which a Vancouver surname-and-initials never does ("Claude E. Shannon", not
    "Smith J."). In such a sentence a comma separates people, never a surname from its given names.
    """
    names = _names(segment)
    if names is None or not looks_like_name_list(segment):
        return False
    cut = _NAMES_TAIL.search(segment.strip().rstrip(".").strip()) is not None
    if len(names) == 1 and not cut:  # "Greg Landrum et al." is a list
        words = names[0].split()
        return (
            len(words) >= 3
            and _is_capitalised(words[0])
            and _INITIAL_WORD.match(words[1]) is not None
            and _one_given_first(names[0])
        )
    return all(_one_given_first(name) for name in names)
