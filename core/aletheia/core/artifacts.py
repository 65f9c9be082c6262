"""Citation artifacts (seed 000 §6): the slug, the frontmatter schema, and the Markdown file format.

An artifact is one Markdown file, `docs/citations/{slug}.md`, whose YAML frontmatter carries the
identity of a work verbatim from the APIs plus the verification trail, and whose body carries the
abstract, the verbatim excerpts that support a claim, a citation snippet and a BibTeX entry. This
module is pure: `render_artifact` turns a `CitationArtifact` into the file's text and
`parse_artifact` turns the text back, exactly (`parse_artifact(render_artifact(a)) == a`); writing
the file is the pipeline's job, which asks `artifact_path` where it may write.

The file format, and the choices that keep it lossless:

- Frontmatter: `---`, the fields in six groups under the seed's `# === ... ===` comment headers,
  `---`. Every string that is not a plain lower-case identifier is emitted double-quoted, so line
  breaks and control characters become YAML escapes and no value can spill onto a line of its own
  (in particular, never onto a `---` line). It is read back with `yaml.safe_load` only.
- Body: the four sections of §6.3 in fixed order, each header on a line of its own. In the prose
  sections (abstract, citation snippet) a line that starts with `#`, a code fence or a run of
  backslashes before those gets one more backslash in front, so no text can forge a section header
  or open a code block that swallows the sections after it; reading strips it again. Excerpts are
  `>` quote blocks (every line of the quote is prefixed, so a quote may hold blank lines, `>`,
  quotes and headers), the last line of each block being `(location)`. The BibTeX block is fenced
  with more backticks than any run of backticks inside it.
- Line endings: body texts are stored with `\\n` line breaks only (`\\r\\n` and `\\r` are converted
  when the model is built), so the file survives text-mode I/O on any platform.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from typing import Annotated, Any, Final, Literal, Self, get_args
from urllib.parse import quote

import yaml
from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    field_serializer,
    field_validator,
    model_validator,
)

from aletheia.core.authors import surname_key
from aletheia.core.identifiers import clean_arxiv_id, clean_doi, clean_pmid
from aletheia.core.records import Author, RetractionKind, SourceName, WorkRecord
from aletheia.core.text import fold, normalize_title, normalize_whitespace

__all__ = [
    "DECISIVE_FIELDS",
    "SLUG_MAX_LENGTH",
    "ArtifactBody",
    "ArtifactFormatError",
    "ArtifactFrontmatter",
    "ArtifactPathError",
    "ArtifactUrls",
    "CitationArtifact",
    "Excerpt",
    "Triangulation",
    "artifact_path",
    "author_token",
    "excerpt_verifies",
    "frontmatter_from_record",
    "is_arxiv_preprint",
    "normalize_whitespace",
    "parse_artifact",
    "render_artifact",
    "slug_for_paper",
    "slug_for_record",
    "surname_token",
    "title_keyword",
    "urls_for",
    "validate_slug",
]


class ArtifactPathError(ValueError):
    """A slug or path that could name a file outside `docs/citations/`, or not a portable one."""


class ArtifactFormatError(ValueError):
    """Text that is not a well-formed artifact; the message names the problem and where it is."""


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

    It is `authors.surname_key` (accents, case, hyphens, apostrophes, spaces and a generational
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


# --- the model ------------------------------------------------------------------------------------

DecisiveField = Literal["doi", "arxiv_id", "pmid", "title", "first_author_surname", "year"]
DECISIVE_FIELDS: Final[tuple[DecisiveField, ...]] = get_args(DecisiveField)
_CLOSED = ConfigDict(extra="forbid", frozen=True)


def _encodable(text: str) -> str:
    # A lone surrogate cannot be written to a UTF-8 file.
    if any("\ud800" <= char <= "\udfff" for char in text):
        raise ValueError("contains a lone surrogate code point, which cannot be stored as UTF-8")
    return text


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be empty or only whitespace")
    return text


def _one_line(text: str) -> str:
    if "\n" in text or "\r" in text:
        raise ValueError("must be a single line")
    return text


def _unix_newlines(value: Any) -> Any:
    return value.replace("\r\n", "\n").replace("\r", "\n") if isinstance(value, str) else value


_URL: Final = re.compile(r"https?://[^\s\x00-\x1f\x7f]+")


def _url(text: str) -> str:
    if not _URL.fullmatch(text):
        raise ValueError("must be an http(s) URL without whitespace or control characters")
    return text


Text = Annotated[str, AfterValidator(_encodable)]
NonBlankText = Annotated[str, AfterValidator(_encodable), AfterValidator(_not_blank)]
BodyText = Annotated[str, BeforeValidator(_unix_newlines), AfterValidator(_encodable)]
NonBlankBodyText = Annotated[
    str, BeforeValidator(_unix_newlines), AfterValidator(_encodable), AfterValidator(_not_blank)
]
Url = Annotated[str, AfterValidator(_url)]


class ArtifactUrls(BaseModel):
    """Resolvable URLs of the work: arXiv's abstract, PDF and HTML pages, and the DOI resolver."""

    model_config = _CLOSED

    abs: Url | None = None
    pdf: Url | None = None
    html: Url | None = None
    doi: Url | None = None


class Triangulation(BaseModel):
    """The cross-check of seed §5: which sources were compared, on which decisive fields."""

    model_config = _CLOSED

    primary_source: SourceName
    secondary_source: SourceName | None = None  # None iff the artifact is single-source verified
    decisive_fields_agreed: StrictBool
    decisive_fields_checked: list[DecisiveField] = Field(default_factory=list)
    notes: list[NonBlankText] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.secondary_source is not None and self.secondary_source == self.primary_source:
            raise ValueError("secondary_source must differ from primary_source")
        if len(set(self.decisive_fields_checked)) != len(self.decisive_fields_checked):
            raise ValueError("decisive_fields_checked lists a field twice")
        return self


class ArtifactFrontmatter(BaseModel):
    """The YAML frontmatter of seed §6.2, plus the fields the Aletheia pipeline adds.

    Rules beyond the field types (each error names its fields):

    - Identifiers: at least one of `arxiv_id`, `doi` is required, as in the seed, except that
      `pmid` may stand in for them (a PubMed-only article is triangulated by its PMID), and a work
      with none may still be recorded when `single_source_verified` is true: seed §5.1 writes an
      artifact for a preprint with neither a DOI nor an arXiv id, marked single-source.
    - `single_source_verified` is true exactly when `triangulation.secondary_source` is null.
    - Default-deny: `triangulation.decisive_fields_agreed: false` is only allowed with
      `human_overridden: true` (§5.4); `override_reason` is required, non-empty, when
      `human_overridden` is true, and must be null otherwise.
    - `sources_consulted` names each source once, and includes both triangulation sources.
    - Identifiers are canonical: `arxiv_id` without version (`2502.03801`), `doi` bare (`10.x/y`,
      no resolver prefix; letter case is kept as the source gives it), `pmid` digits only.
    - `verified_at` is timezone-aware; it is stored in UTC, to the second.
    """

    model_config = _CLOSED

    # Identity (verbatim from the API)
    title: NonBlankText
    authors: list[NonBlankText] = Field(default_factory=list)
    year: Annotated[StrictInt, Field(ge=1000, le=2999)] | None = None
    venue: Text | None = None
    venue_full: Text | None = None
    # Identifiers
    arxiv_id: str | None = None
    doi: str | None = None
    pmid: str | None = None
    # URLs
    urls: ArtifactUrls = Field(default_factory=ArtifactUrls)
    # Verification trail
    sources_consulted: list[SourceName] = Field(min_length=1)
    triangulation: Triangulation
    single_source_verified: StrictBool = False
    verified_by: NonBlankText = "aletheia"
    verified_at: AwareDatetime
    verification_version: NonBlankText
    retraction_status: RetractionKind | None = None
    # Human override
    human_overridden: StrictBool = False
    override_reason: Text | None = None
    # Claim linkage
    claim_supported: NonBlankText | None = None
    text_excerpts_unavailable: StrictBool = False  # no full text could be read: no excerpts exist

    @field_validator("arxiv_id")
    @classmethod
    def _canonical_arxiv_id(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parsed = clean_arxiv_id(value)
        if parsed is None:
            raise ValueError(f"{value!r} is not an arXiv identifier")
        if parsed.id != value:
            raise ValueError(f"must be the bare id without version or prefix: {parsed.id!r}")
        return value

    @field_validator("doi")
    @classmethod
    def _canonical_doi(cls, value: str | None) -> str | None:
        if value is None:
            return None
        cleaned = clean_doi(value)
        if cleaned is None:
            raise ValueError(f"{value!r} is not a DOI")
        if cleaned != value.lower():
            raise ValueError(f"must be the bare DOI without prefix or trailing punctuation: {cleaned!r}")
        return value

    @field_validator("pmid")
    @classmethod
    def _canonical_pmid(cls, value: str | None) -> str | None:
        if value is not None and clean_pmid(value) != value:
            raise ValueError(f"{value!r} is not a PMID in canonical form (digits, no leading zeros)")
        return value

    @field_validator("verified_at")
    @classmethod
    def _utc_to_the_second(cls, value: datetime) -> datetime:
        try:
            return value.astimezone(UTC).replace(microsecond=0)
        except OverflowError as exc:
            raise ValueError("is out of range once converted to UTC") from exc

    @field_serializer("verified_at")
    def _zulu(self, value: datetime) -> str:
        return value.isoformat().replace("+00:00", "Z")

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        problems: list[str] = []
        if not (self.arxiv_id or self.doi or self.pmid) and not self.single_source_verified:
            problems.append(
                "arxiv_id, doi, pmid: at least one identifier is required unless single_source_verified"
            )
        if self.single_source_verified != (self.triangulation.secondary_source is None):
            problems.append(
                "single_source_verified, triangulation.secondary_source: single_source_verified must be"
                " true exactly when there is no secondary source"
            )
        if not self.triangulation.decisive_fields_agreed and not self.human_overridden:
            problems.append(
                "triangulation.decisive_fields_agreed, human_overridden: decisive fields disagree and"
                " no human override is recorded"
            )
        if self.human_overridden and not (self.override_reason and self.override_reason.strip()):
            problems.append("override_reason: required (non-empty) when human_overridden is true")
        if not self.human_overridden and self.override_reason is not None:
            problems.append("override_reason: must be null unless human_overridden is true")
        if len(set(self.sources_consulted)) != len(self.sources_consulted):
            problems.append("sources_consulted: lists a source twice")
        for name in ("primary_source", "secondary_source"):
            source = getattr(self.triangulation, name)
            if source is not None and source not in self.sources_consulted:
                problems.append(f"sources_consulted: lacks triangulation.{name} {source.value!r}")
        if problems:
            raise ValueError("; ".join(problems))
        return self


class Excerpt(BaseModel):
    """A verbatim quote from the paper and where it is (`Section 3.1, p. 4`)."""

    model_config = _CLOSED

    text: NonBlankBodyText
    location: Annotated[NonBlankText, AfterValidator(_one_line)]


def _absent_if_blank(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


class ArtifactBody(BaseModel):
    """The Markdown body of seed §6.3. An empty or blank abstract is stored as None."""

    model_config = _CLOSED

    abstract: Annotated[BodyText | None, BeforeValidator(_absent_if_blank)] = None
    excerpts: list[Excerpt] = Field(default_factory=list)
    citation_snippet: NonBlankBodyText
    bibtex: NonBlankBodyText


class CitationArtifact(BaseModel):
    """A whole artifact. A supported claim needs at least one excerpt, unless no text of the paper
    could be read (`text_excerpts_unavailable`), in which case there are none."""

    model_config = _CLOSED

    frontmatter: ArtifactFrontmatter
    body: ArtifactBody

    @model_validator(mode="after")
    def _excerpts_match_claim(self) -> Self:
        front, excerpts = self.frontmatter, self.body.excerpts
        if front.text_excerpts_unavailable and excerpts:
            raise ValueError("text_excerpts_unavailable is true but the body has excerpts")
        if front.claim_supported is not None and not front.text_excerpts_unavailable and not excerpts:
            raise ValueError(
                "claim_supported needs at least one excerpt (or text_excerpts_unavailable: true)"
            )
        return self


# --- building the frontmatter from a record --------------------------------------------------------

_ARXIV_VENUES: Final = frozenset({"arxiv", "arxiv.org", "arxiv (cornell university)", "arxiv preprint"})


# Where each artifact URL comes from in a record's `urls`, for a work not on arXiv.
_RECORD_URL_KEYS: Final = {"abs": ("abs", "landing"), "pdf": ("pdf",), "html": ("html",)}


def urls_for(record: WorkRecord) -> ArtifactUrls:
    """arXiv's abs/pdf/html pages for an arXiv work (seed §6.2), and the doi.org URL of a DOI.

    A work not on arXiv gets the record's own URLs (`abs` from its `abs` or publisher `landing`
    page, `pdf`, `html`) when they are plain http(s) URLs.
    """
    found: dict[str, str] = {}
    if record.arxiv_id:
        found = {
            "abs": f"https://arxiv.org/abs/{record.arxiv_id}",
            "pdf": f"https://arxiv.org/pdf/{record.arxiv_id}",
            "html": f"https://arxiv.org/html/{record.arxiv_id}",
        }
    else:
        for field, keys in _RECORD_URL_KEYS.items():
            url = next((u for key in keys if (u := record.urls.get(key)) and _URL.fullmatch(u)), None)
            if url is not None:
                found[field] = url
    if record.doi:
        found["doi"] = "https://doi.org/" + quote(record.doi, safe="/:;()._-")
    return ArtifactUrls(**found)


def is_arxiv_preprint(record: WorkRecord) -> bool:
    """An arXiv work not (yet) known as published elsewhere: no venue but arXiv's own."""
    if not record.arxiv_id:
        return False
    venue = (record.venue or "").strip().lower()
    preprint_type = record.work_type in (None, "preprint", "posted-content")
    return (record.is_preprint or preprint_type) and (not venue or venue in _ARXIV_VENUES)


def frontmatter_from_record(
    record: WorkRecord,
    *,
    sources_consulted: list[SourceName],
    triangulation: Triangulation,
    verified_at: datetime,
    verification_version: str,
    claim_supported: str | None = None,
    human_overridden: bool = False,
    override_reason: str | None = None,
    text_excerpts_unavailable: bool = False,
    retraction_status: RetractionKind | None = None,
    venue_full: str | None = None,
) -> ArtifactFrontmatter:
    """The frontmatter for the work a source returned, with the verification trail given.

    Identity fields are copied from the record as they are; an arXiv preprint's venue is the
    seed's `arXiv preprint`. Raises `pydantic.ValidationError` when the result breaks a rule.
    """
    venue = "arXiv preprint" if is_arxiv_preprint(record) else record.venue
    return ArtifactFrontmatter(
        title=record.title or "",
        authors=[name for author in record.authors if (name := author.display)],
        year=record.year,
        venue=venue,
        venue_full=venue_full,
        arxiv_id=record.arxiv_id,
        doi=record.doi,
        pmid=record.pmid,
        urls=urls_for(record),
        sources_consulted=sources_consulted,
        triangulation=triangulation,
        single_source_verified=triangulation.secondary_source is None,
        verified_at=verified_at,
        verification_version=verification_version,
        retraction_status=retraction_status,
        human_overridden=human_overridden,
        override_reason=override_reason,
        claim_supported=claim_supported,
        text_excerpts_unavailable=text_excerpts_unavailable,
    )


# --- rendering --------------------------------------------------------------------------------------

_FRONTMATTER_GROUPS: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    (
        "Identity (verbatim from API; never LLM-generated)",
        ("title", "authors", "year", "venue", "venue_full"),
    ),
    (
        "Identifiers (at least one of arxiv_id, doi required; pmid counts; none only if single-source)",
        ("arxiv_id", "doi", "pmid"),
    ),
    ("Resolvable URLs", ("urls",)),
    (
        "Verification trail (Aletheia-populated)",
        (
            "sources_consulted",
            "triangulation",
            "single_source_verified",
            "verified_by",
            "verified_at",
            "verification_version",
            "retraction_status",
        ),
    ),
    ("Human override (optional)", ("human_overridden", "override_reason")),
    (
        "Claim linkage (LLM-generated; supported by verbatim excerpts below)",
        ("claim_supported", "text_excerpts_unavailable"),
    ),
)
# Lists of identifiers read best on one line, as in the seed: `[semantic_scholar, openalex]`.
_FLOW_LISTS: Final = frozenset({"sources_consulted", "decisive_fields_checked"})
_IDENTIFIER: Final = re.compile(r"[a-z][a-z0-9_]*")
_NO_WRAP: Final = 1 << 30

H_ABSTRACT: Final = "## Abstract"
H_EXCERPTS: Final = "## Excerpts supporting the claim"
H_SNIPPET: Final = "## Citation snippet"
H_BIBTEX: Final = "## BibTeX"
_SECTIONS: Final = (H_ABSTRACT, H_EXCERPTS, H_SNIPPET, H_BIBTEX)


class _FlowList(list[Any]):
    """A list the frontmatter emitter writes in flow style."""


class _FrontmatterDumper(yaml.SafeDumper):
    """SafeDumper that indents block lists under their key and double-quotes free text."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    # Identifiers (keys, source names, `aletheia`) may stay plain: PyYAML still quotes any that would
    # read back as something else (`null`, `yes`). Everything else is double-quoted, which escapes
    # line breaks and control characters and keeps the value on one line.
    style = None if _IDENTIFIER.fullmatch(data) else '"'
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


def _represent_flow_list(dumper: yaml.SafeDumper, data: _FlowList) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True)


_FrontmatterDumper.add_representer(str, _represent_str)
_FrontmatterDumper.add_representer(_FlowList, _represent_flow_list)


def _yaml_ready(key: str, value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _yaml_ready(k, v) for k, v in value.items() if not (key == "urls" and v is None)}
    if isinstance(value, list):
        items = [_yaml_ready(key, item) for item in value]
        return _FlowList(items) if key in _FLOW_LISTS else items
    return value


def _render_frontmatter(front: ArtifactFrontmatter) -> str:
    data = front.model_dump(mode="json")
    lines: list[str] = []
    for header, keys in _FRONTMATTER_GROUPS:
        lines.append(f"# === {header} ===\n")
        group = {key: _yaml_ready(key, data[key]) for key in keys}
        lines.append(
            yaml.dump(
                group,
                Dumper=_FrontmatterDumper,
                sort_keys=False,
                allow_unicode=True,
                default_flow_style=False,
                width=_NO_WRAP,
            )
        )
    return "".join(lines)


# A line of prose that could be read as Markdown structure: a header, a code fence, or such a line
# already escaped (so that escaping stays reversible).
_NEEDS_ESCAPE: Final = re.compile(r"\\*(?:#|```|~~~)")
_ESCAPED: Final = re.compile(r"\\+(?:#|```|~~~)")


def _escape_prose(text: str) -> str:
    return "\n".join("\\" + line if _NEEDS_ESCAPE.match(line) else line for line in text.split("\n"))


def _unescape_prose(text: str) -> str:
    return "\n".join(line[1:] if _ESCAPED.match(line) else line for line in text.split("\n"))


def _render_excerpt(excerpt: Excerpt) -> str:
    quoted = [*f'"{excerpt.text}"'.split("\n"), f"({excerpt.location})"]
    return "\n".join(f"> {line}" if line else ">" for line in quoted)


def _fence_for(code: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


def _render_body(body: ArtifactBody) -> str:
    def section(header: str, payload: str | None) -> str:
        return f"{header}\n\n" if payload is None else f"{header}\n\n{payload}\n\n"

    excerpts = "\n\n".join(_render_excerpt(excerpt) for excerpt in body.excerpts) or None
    fence = _fence_for(body.bibtex)
    return (
        section(H_ABSTRACT, None if body.abstract is None else _escape_prose(body.abstract))
        + section(H_EXCERPTS, excerpts)
        + section(H_SNIPPET, _escape_prose(body.citation_snippet))
        + f"{H_BIBTEX}\n\n{fence}bibtex\n{body.bibtex}\n{fence}\n"
    )


def render_artifact(artifact: CitationArtifact) -> str:
    """The artifact's file text: YAML frontmatter between `---` lines, then the four body sections."""
    return f"---\n{_render_frontmatter(artifact.frontmatter)}---\n\n{_render_body(artifact.body)}"


# --- parsing ----------------------------------------------------------------------------------------


def _describe(exc: ValidationError, prefix: str) -> str:
    problems = []
    for error in exc.errors():
        location = ".".join(str(part) for part in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        problems.append(f"{prefix}{location}: {message}" if location else f"{prefix.rstrip('.')}: {message}")
    return "; ".join(problems)


def _reject_duplicate_keys(node: yaml.Node | None, visited: set[int] | None = None) -> None:
    """Refuse a key given twice, and any YAML alias: artifacts never use anchors, and nested aliases
    (`&a [x, x]`, `&b [*a, *a]`, ...) expand exponentially ("billion laughs") when walked or built."""
    if node is None:
        return
    visited = set() if visited is None else visited
    if id(node) in visited:
        raise ArtifactFormatError(
            f"frontmatter: YAML aliases are not allowed (line {node.start_mark.line + 2})"
        )
    visited.add(id(node))
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise ArtifactFormatError(
                    f"frontmatter: keys must be plain scalars (line {key_node.start_mark.line + 2})"
                )
            key = key_node.value
            if key in seen:
                raise ArtifactFormatError(
                    f"frontmatter: key {key!r} appears twice (line {key_node.start_mark.line + 2})"
                )
            seen.add(key)
            _reject_duplicate_keys(value_node, visited)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _reject_duplicate_keys(item, visited)


# libyaml's safe loader when it is built in (about 8x faster; `aletheia check` parses every
# artifact of a repository), the pure-Python safe loader otherwise. Safe constructors only.
_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# Frontmatter is a few kilobytes; these bounds keep hostile YAML from exhausting the parser (libyaml
# overflows its C stack on ~100,000 nested brackets and takes the process down with it).
MAX_FRONTMATTER_CHARS: Final = 256 * 1024
MAX_FLOW_NESTING: Final = 64


def _flow_nesting(source: str) -> int:
    """The deepest run of unclosed `[`/`{` (quotes ignored: an over-estimate is only stricter)."""
    depth = deepest = 0
    for char in source:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}" and depth:
            depth -= 1
    return deepest


def _load_frontmatter(source: str) -> dict[str, Any]:
    if len(source) > MAX_FRONTMATTER_CHARS:
        raise ArtifactFormatError(
            f"frontmatter is {len(source)} characters long; the limit is {MAX_FRONTMATTER_CHARS}"
        )
    if _flow_nesting(source) > MAX_FLOW_NESTING:
        raise ArtifactFormatError(f"frontmatter nests brackets more than {MAX_FLOW_NESTING} levels deep")
    try:
        loader = _SAFE_LOADER(source)
        try:
            node = loader.get_single_node()
            _reject_duplicate_keys(node)
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except RecursionError:
        raise ArtifactFormatError("frontmatter is nested too deeply") from None
    except (ValueError, OverflowError) as exc:
        # A scalar the safe constructors cannot build (an integer of more than 4,300 digits, say);
        # ArtifactFormatError is a ValueError too, and passes through unchanged.
        if isinstance(exc, ArtifactFormatError):
            raise
        raise ArtifactFormatError(f"frontmatter holds a value that cannot be read: {exc}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 2}, column {mark.column + 1}" if mark is not None else ""
        raise ArtifactFormatError(f"frontmatter is not valid YAML{where}: {exc.problem}") from exc
    except yaml.YAMLError as exc:
        raise ArtifactFormatError(f"frontmatter is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ArtifactFormatError(f"frontmatter must be a YAML mapping, not {type(data).__name__}")
    return data


def _split_frontmatter(text: str) -> tuple[str, list[str], int]:
    """(frontmatter YAML, body lines, file line number of the first body line)."""
    lines = text.split("\n")
    if lines[0] != "---":
        raise ArtifactFormatError("missing frontmatter: the file must start with a '---' line")
    try:
        closing = lines.index("---", 1)
    except ValueError:
        raise ArtifactFormatError("unterminated frontmatter: no closing '---' line") from None
    return "\n".join(lines[1:closing]) + "\n", lines[closing + 1 :], closing + 2


def _section_payload(lines: list[str]) -> str | None:
    """The text of a section as `_render_body` wrote it: a blank line after the header, the
    payload, a blank line before the next header. A section with no payload is one blank line."""
    content = "\n".join(lines)
    if not content.strip():
        return None
    return content.removeprefix("\n").removesuffix("\n")


def _parse_excerpts(payload: str | None, first_line: int) -> list[dict[str, str]]:
    if payload is None:
        return []
    blocks: list[list[tuple[int, str]]] = [[]]
    for offset, line in enumerate(payload.split("\n")):
        line_number = first_line + offset
        if not line:
            if blocks[-1]:
                blocks.append([])
            continue
        if not line.startswith(">"):
            raise ArtifactFormatError(
                f"line {line_number}: the excerpts section holds only '>' quote blocks, found {line[:40]!r}"
            )
        content = line[1:]
        blocks[-1].append((line_number, content[1:] if content.startswith(" ") else content))
    excerpts = []
    for block in (b for b in blocks if b):
        start, location_line = block[0][0], block[-1][1]
        quote = "\n".join(content for _, content in block[:-1])
        if len(block) < 2 or not (location_line.startswith("(") and location_line.endswith(")")):
            raise ArtifactFormatError(
                f"line {start}: an excerpt needs a quoted text and a final '(location)' line"
            )
        if len(quote) < 2 or not (quote.startswith('"') and quote.endswith('"')):
            raise ArtifactFormatError(f"line {start}: the excerpt text must be enclosed in double quotes")
        excerpts.append({"text": quote[1:-1], "location": location_line[1:-1]})
    return excerpts


def _parse_bibtex(lines: list[str], first_line: int) -> str:
    while lines and not lines[-1]:
        lines = lines[:-1]
    start = next((i for i, line in enumerate(lines) if line), None)
    opening = re.fullmatch(r"(`{3,})bibtex", lines[start]) if start is not None else None
    if start is None or opening is None:
        raise ArtifactFormatError(f"line {first_line}: the BibTeX section must hold a ```bibtex fenced block")
    if any(lines[:start]) or len(lines) < start + 2 or lines[-1] != opening.group(1):
        raise ArtifactFormatError(
            f"line {first_line + start}: the BibTeX block must end the file, closed by {opening.group(1)}"
        )
    return "\n".join(lines[start + 1 : -1])


def _find_sections(body: list[str], first_line: int) -> dict[str, tuple[list[str], int]]:
    """Each section's lines (between its header and the next) and the file line they start on."""
    positions: list[int] = []
    start = 0
    for header in _SECTIONS:
        try:
            index = body.index(header, start)
        except ValueError:
            raise ArtifactFormatError(
                f"missing section {header!r} (sections: {', '.join(_SECTIONS)})"
            ) from None
        positions.append(index)
        start = index + 1
    if any(line.strip() for line in body[: positions[0]]):
        raise ArtifactFormatError(f"line {first_line}: unexpected text before {H_ABSTRACT!r}")
    ends = [*positions[1:], len(body)]
    return {
        header: (body[index + 1 : end], first_line + index + 1)
        for header, index, end in zip(_SECTIONS, positions, ends, strict=True)
    }


def parse_artifact(text: str) -> CitationArtifact:
    """Read an artifact's file text back into a `CitationArtifact` (the inverse of `render_artifact`).

    Strict: raises `ArtifactFormatError` naming the problem and, where there is one, the line:
    missing or unterminated frontmatter, invalid YAML, unknown or invalid fields (by name),
    missing or malformed sections. `\\r\\n` line endings are accepted.
    """
    if not isinstance(text, str):
        raise ArtifactFormatError(f"artifact text must be a string, not {type(text).__name__}")
    source, body_lines, body_line = _split_frontmatter(text.replace("\r\n", "\n"))
    data = _load_frontmatter(source)
    try:
        front = ArtifactFrontmatter.model_validate(data)
    except ValidationError as exc:
        raise ArtifactFormatError(_describe(exc, "frontmatter.")) from exc
    sections = _find_sections(body_lines, body_line)
    abstract_lines, _ = sections[H_ABSTRACT]
    excerpt_lines, excerpt_line = sections[H_EXCERPTS]
    snippet_lines, _ = sections[H_SNIPPET]
    bibtex_lines, bibtex_line = sections[H_BIBTEX]
    abstract = _section_payload(abstract_lines)
    snippet = _section_payload(snippet_lines)
    body_data = {
        "abstract": None if abstract is None else _unescape_prose(abstract),
        "excerpts": _parse_excerpts(_section_payload(excerpt_lines), excerpt_line + 1),
        "citation_snippet": "" if snippet is None else _unescape_prose(snippet),
        "bibtex": _parse_bibtex(bibtex_lines, bibtex_line),
    }
    try:
        body = ArtifactBody.model_validate(body_data)
    except ValidationError as exc:
        raise ArtifactFormatError(_describe(exc, "body.")) from exc
    try:
        return CitationArtifact(frontmatter=front, body=body)
    except ValidationError as exc:
        raise ArtifactFormatError(_describe(exc, "artifact.")) from exc


def record_of_artifact(artifact: CitationArtifact) -> WorkRecord:
    """The identity an artifact records, as a `WorkRecord` of its primary source (for slugs and for
    re-checking the artifact against the sources)."""
    from aletheia.core.authors import parse_name

    front = artifact.frontmatter
    return WorkRecord(
        source=front.triangulation.primary_source,
        title=front.title,
        authors=tuple(parse_name(name) for name in front.authors),
        year=front.year,
        venue=front.venue,
        doi=front.doi,
        arxiv_id=front.arxiv_id,
        pmid=front.pmid,
    )
