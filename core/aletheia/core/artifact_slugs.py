"""Citation artifacts: slugs (`docs/citations/{slug}.md`), the safe path of an artifact, and the
verbatim-excerpt rule (seed 000 §6.4). Re-exported by `aletheia.core.artifacts`.
"""

from __future__ import annotations

import hashlib
import re
from typing import Final

from aletheia.core.arxiv_ids import clean_arxiv_id
from aletheia.core.author_match import surname_key
from aletheia.core.errors import AletheiaError
from aletheia.core.identifiers import clean_doi
from aletheia.core.records import Author, WorkRecord
from aletheia.core.text import fold, normalize_title, normalize_whitespace


class ArtifactPathError(ValueError, AletheiaError):
    """A slug or path that could name a file outside `docs/citations/`, or not a portable one."""


# --- slugs ----------------------------------------------------------------------------------------

SLUG_MAX_LENGTH: Final = 120
_KEYWORD_MAX: Final = 32
_SURNAME_MAX: Final = 32
_SLUG: Final = re.compile(r"[a-z0-9][a-z0-9._-]*")
_NOT_SLUG_CHAR: Final = re.compile(r"[^a-z0-9._-]")
_NOT_ASCII_ALNUM: Final = re.compile(r"[^a-z0-9]")
_DOTS: Final = re.compile(r"\.{2,}")
# Names Windows reserves for devices, with or without an extension: `con.md` cannot be created.
_WINDOWS_DEVICE: Final = re.compile(r"(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\..*)?")

# Words that are never a title's keyword: articles, prepositions, conjunctions, pronouns,
# auxiliaries and question words (English, plus the articles of the commonest other languages).
_STOPWORD_TEXT: Final = """
a an the of on in at to for from by with without within into onto upon over under via vs versus
about above across after against along among around before behind below beneath beside besides
between beyond despite during except inside near off out outside past per since than through
throughout till toward towards until up
and or nor but so yet if then else whether either neither both
is are was were be been being am do does did done has have had can could may might must shall should
will would
it its this that these those we our us you your they their them he his she her i my me
how what why when where which who whom whose not no
der die das den dem des ein eine einer eines und le la les un une du et el los las una y il lo gli
"""
_STOPWORDS: Final = frozenset(_STOPWORD_TEXT.split())


def _stable_hex(text: str, length: int) -> str:
    """`length` hex digits of SHA-256: the same on every machine and Python (unlike `hash`)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:length]


def _ascii_tokens(text: str) -> list[str]:
    """The words of `fold(text)`, each reduced to its ASCII letters and digits (empty ones dropped)."""
    tokens = (_NOT_ASCII_ALNUM.sub("", token) for token in fold(text).split())
    return [token for token in tokens if token]


def _first_significant_word(text: str) -> str | None:
    for token in _ascii_tokens(text):
        # Single letters are initials or elided articles (`l'apprentissage`), never a keyword.
        if token not in _STOPWORDS and not (len(token) == 1 and token.isalpha()):
            return token[:_KEYWORD_MAX]
    return None


def title_keyword(title: str | None) -> str:
    """The first significant word of a title: lower-case ASCII letters and digits only.

    `SoK: Benchmarking Poisoning Attacks...` -> `sok`; `The Byzantine Generals Problem` ->
    `byzantine`. LaTeX is decoded and accents folded first (`Über...` -> `uber`). A title with no
    such word (one in a non-Latin script) gets `u` + six hex digits of its normalised form; a
    missing title gets `untitled`.

    The seed's slug examples (`flpoison`, `rfa`, `krum`) are mnemonics a person chose (the
    benchmark's, the method's and the rule's names); none is the title's first significant word,
    and no mechanical rule can derive them. `slug_for_paper(keyword=...)` takes such a mnemonic.
    """
    if not title or not title.strip():
        return "untitled"
    word = _first_significant_word(title)
    if word is not None:
        return word
    normalised = normalize_title(title)
    return "u" + _stable_hex(normalised, 6) if normalised else "untitled"


def _token_from_key(key: str) -> str:
    ascii_key = _NOT_ASCII_ALNUM.sub("", key)
    if ascii_key:
        return ascii_key[:_SURNAME_MAX]
    return "u" + _stable_hex(key, 6) if key else "anon"


def surname_token(surname: str | None) -> str:
    """A surname as lower-case ASCII letters and digits: `García-Pérez` -> `garciaperez`.

    It is `author_match.surname_key` (accents, case, hyphens, apostrophes, spaces and a generational
    suffix folded away) reduced to ASCII. A surname with no ASCII letters left (Chinese, Japanese,
    Korean, Arabic...) is not transliterated: it becomes `u` + six hex digits of its key, stable
    across runs. No surname gives `anon`.
    """
    return _token_from_key(surname_key(Author(family=surname))) if surname else "anon"


def author_token(author: Author | None) -> str:
    """`surname_token` for an author: of the family name, or for an organisation of its whole name
    without a leading "The" (`The ATLAS Collaboration` -> `atlascollaboration`), or of a lone
    given name."""
    return "anon" if author is None else _token_from_key(surname_key(author))


def _keyword_token(keyword: str) -> str:
    token = _NOT_ASCII_ALNUM.sub("", fold(keyword))
    return token[:_KEYWORD_MAX] if token else "u" + _stable_hex(fold(keyword) or keyword, 6)


def _sanitised_id(identifier: str) -> tuple[str, bool]:
    """The identifier as slug characters (`/` -> `_`), and whether anything else had to change."""
    faithful = identifier.lower().replace("/", "_")
    safe = _DOTS.sub(".", _NOT_SLUG_CHAR.sub("_", faithful)).lstrip("._-")
    return safe, safe != faithful


def slug_for_paper(
    *,
    doi: str | None,
    arxiv_id: str | None,
    first_author_surname: str | None,
    title: str | None,
    keyword: str | None = None,
) -> str:
    """The artifact slug of seed §6.1: `{paper_id}-{first_author_surname}-{title_keyword}`.

    `paper_id` is the arXiv id without version when there is one (`2502.03801`, old-style
    `hep-th/9901001` -> `hep-th_9901001`), else the DOI lower-cased with `/` -> `_`
    (`10.1109_tsp.2022.3153135`), else `noid`, in which case four hex digits of a hash of the
    normalised title are appended (`noid-blanchard-machine-45eb`). An identifier that does not
    parse is ignored. A DOI holding characters outside `[a-z0-9._/-]` has them replaced by `_` and
    a hash of the DOI appended, so two such DOIs cannot share a slug. `keyword` replaces the title
    keyword with a chosen mnemonic (`flpoison`).

    Deterministic; the result always passes `validate_slug`. Slugs longer than
    `SLUG_MAX_LENGTH` are cut, and four hex digits of the full slug appended.
    """
    surname = surname_token(first_author_surname)
    word = _keyword_token(keyword) if keyword and keyword.strip() else title_keyword(title)
    parsed_arxiv = clean_arxiv_id(arxiv_id)
    cleaned_doi = None if parsed_arxiv is not None else clean_doi(doi)
    identifier = parsed_arxiv.id if parsed_arxiv is not None else cleaned_doi
    if identifier is not None:
        paper_id, lossy = _sanitised_id(identifier)
        parts = [paper_id, surname, word]
        if lossy:
            parts.append(_stable_hex(identifier, 4))
    else:
        parts = ["noid", surname, word, _stable_hex(normalize_title(title or ""), 4)]
    slug = "-".join(parts)
    if len(slug) > SLUG_MAX_LENGTH:
        slug = slug[: SLUG_MAX_LENGTH - 5].rstrip("._-") + "-" + _stable_hex(slug, 4)
    return validate_slug(slug)


def slug_for_record(record: WorkRecord, *, keyword: str | None = None) -> str:
    """`slug_for_paper` for a work record; the first author's token as `author_token` gives it."""
    # An author token is already folded ASCII (or `u` + hex), which `surname_token` leaves as it is.
    return slug_for_paper(
        doi=record.doi,
        arxiv_id=record.arxiv_id,
        first_author_surname=author_token(record.first_author),
        title=record.title,
        keyword=keyword,
    )


def validate_slug(slug: str) -> str:
    """Return `slug` if it is a safe artifact file stem, else raise `ArtifactPathError`.

    Safe means: 1 to `SLUG_MAX_LENGTH` characters of `[a-z0-9._-]`, starting with a letter or digit,
    with no `..` and no trailing dot, and not a Windows device name. That excludes every path
    separator, absolute path, parent reference, NUL, whitespace and non-ASCII look-alike.
    """
    if not isinstance(slug, str):
        raise ArtifactPathError(f"slug must be a string, not {type(slug).__name__}")
    if not slug:
        raise ArtifactPathError("slug is empty")
    if len(slug) > SLUG_MAX_LENGTH:
        raise ArtifactPathError(f"slug is {len(slug)} characters long; the limit is {SLUG_MAX_LENGTH}")
    if "/" in slug or "\\" in slug:
        raise ArtifactPathError(f"slug {slug!r} contains a path separator")
    if "\x00" in slug:
        raise ArtifactPathError(f"slug {slug!r} contains a NUL character")
    if ".." in slug:
        raise ArtifactPathError(f"slug {slug!r} contains '..'")
    if not _SLUG.fullmatch(slug):
        raise ArtifactPathError(
            f"slug {slug!r} must consist of a-z, 0-9, '.', '_' and '-' and start with a letter or digit"
        )
    if slug.endswith("."):
        raise ArtifactPathError(f"slug {slug!r} ends with a dot")
    if _WINDOWS_DEVICE.fullmatch(slug):
        raise ArtifactPathError(f"slug {slug!r} is a reserved device name on Windows")
    return slug


def artifact_path(slug: str, citations_dir: str = "docs/citations") -> str:
    """The repository-relative POSIX path of an artifact: `docs/citations/{slug}.md`.

    Pure string work; `slug` is validated, and `citations_dir` must itself be a relative path of
    safe components, so the result can only name a file inside it.
    """
    components = citations_dir.split("/")
    for component in components:
        if component in ("", ".", "..") or not re.fullmatch(r"[A-Za-z0-9._-]+", component):
            raise ArtifactPathError(f"citations directory {citations_dir!r} is not a safe relative path")
    return f"{citations_dir}/{validate_slug(slug)}.md"


# --- the verbatim-excerpt rule (seed §6.4) --------------------------------------------------------


def excerpt_verifies(claim_quote: str, paper_text: str) -> bool:
    """Whether a quote is a verbatim substring of the paper, after whitespace normalisation (§6.4).

    Both sides have every run of whitespace collapsed to one space (`text.normalize_whitespace`,
    the seed's `re.sub(r"\\s+", " ", s).strip()`), so column breaks and line wraps do not matter.
    One addition to the seed's rule: a quote with no text verifies nothing (the seed's code would
    find the empty string in every paper).
    """
    quote = normalize_whitespace(claim_quote)
    return bool(quote) and quote in normalize_whitespace(paper_text)
