"""Citation artifacts: the frontmatter and body model (pydantic, closed, validated on construction)
and the conversions between a source's `WorkRecord` and an artifact's frontmatter. Re-exported by
`aletheia.core.artifacts`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any, Final, Literal, Self, get_args
from urllib.parse import quote

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    field_serializer,
    field_validator,
    model_validator,
)

from aletheia.core.arxiv_ids import clean_arxiv_id
from aletheia.core.excerpts import match_key
from aletheia.core.identifiers import clean_doi, clean_pmid
from aletheia.core.records import RetractionKind, SourceName, WorkRecord

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


class OverriddenConflict(BaseModel):
    """A decisive field on which a second source disagreed when a human accepted the artifact
    (seed 000 §5.4): the artifact records `recorded`, `source` said `accepted`. It is part of the
    artifact so that the drift audit knows the disagreement was decided: while the sources still
    say `accepted` and the artifact still says `recorded`, it is not drift (any other change is)."""

    model_config = _CLOSED

    field: DecisiveField
    source: SourceName
    recorded: Text | None = None
    accepted: Text | None = None


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
      `human_overridden` is true, and must be null otherwise; `overridden_conflicts` (the
      disagreements the human accepted, field by field) may be given only with `human_overridden`.
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
    overridden_conflicts: list[OverriddenConflict] = Field(default_factory=list)
    # Claim linkage
    claim_supported: NonBlankText | None = None
    # No full text could be read: the excerpts are the abstract's own sentences (location Abstract).
    text_excerpts_unavailable: StrictBool = False

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
        if not self.human_overridden and self.overridden_conflicts:
            problems.append("overridden_conflicts: must be empty unless human_overridden is true")
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
    """A whole artifact. A supported claim needs at least one verbatim excerpt, always (issue 19).
    When no full text could be read (`text_excerpts_unavailable`), the excerpts are sentences of the
    abstract: each must be located in the body's abstract and say so (`location: Abstract`)."""

    model_config = _CLOSED

    frontmatter: ArtifactFrontmatter
    body: ArtifactBody

    @model_validator(mode="after")
    def _excerpts_match_claim(self) -> Self:
        front, excerpts = self.frontmatter, self.body.excerpts
        if front.claim_supported is not None and not excerpts:
            raise ValueError(
                "claim_supported needs at least one verbatim excerpt that supports it (from the full"
                " text, or from the abstract when text_excerpts_unavailable is true)"
            )
        if front.text_excerpts_unavailable and excerpts:
            abstract = match_key(self.body.abstract or "")
            for number, excerpt in enumerate(excerpts, 1):
                if not excerpt.location.lower().startswith("abstract"):
                    raise ValueError(
                        f"excerpt {number}: text_excerpts_unavailable is true, so every excerpt is from the"
                        f" abstract (location 'Abstract'), not {excerpt.location!r}"
                    )
                if match_key(excerpt.text) not in abstract:
                    raise ValueError(f"excerpt {number}: not found verbatim in the artifact's abstract")
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
    overridden_conflicts: list[OverriddenConflict] | None = None,
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
        overridden_conflicts=overridden_conflicts or [],
        claim_supported=claim_supported,
        text_excerpts_unavailable=text_excerpts_unavailable,
    )


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
