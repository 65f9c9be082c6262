"""Typed records shared by every layer: what a source says about a work, and what a reference cites.

`WorkRecord` is one source's view of one work, parsed from that source's raw payload by a pure
`parse_*` function; the raw payload itself is kept beside it by the sources layer, never here.
`CitedReference` is one entry of a user's bibliography, as cited (never corrected in place).
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class SourceName(StrEnum):
    """The authoritative sources Aletheia consults, plus the local Tier-0 library."""

    CROSSREF = "crossref"
    OPENALEX = "openalex"
    SEMANTIC_SCHOLAR = "semantic_scholar"
    ARXIV = "arxiv"
    PUBMED = "pubmed"
    RETRACTION_WATCH = "retraction_watch"
    LIBRARY = "library"
    # Computer-science indexes (issue 12): DBLP lists CS proceedings without DOIs (and its key
    # places a work at a venue); the ACL Anthology holds the NLP venues' papers by anthology id.
    DBLP = "dblp"
    ACL_ANTHOLOGY = "acl_anthology"
    # Tier 2 full text: Europe PMC maps a DOI/PMID to a PMCID and serves open-access JATS.
    EUROPE_PMC = "europe_pmc"
    # Tier 1, books (issue 12): catalogues, incomplete by nature; their silence is no evidence.
    OPEN_LIBRARY = "open_library"
    GOOGLE_BOOKS = "google_books"
    # Tier 3, canonical texts: the passage itself, fetched by its canonical reference.
    PERSEUS = "perseus"
    CCEL = "ccel"
    # Tier 4, the web (issue 12): the cited URL fetched (`web`: proves a web resource answers with
    # the cited title, never a scholarly record), and web search engines, which only find
    # candidates for the other tiers to verify.
    WEB = "web"
    TAVILY = "tavily"
    BRAVE_SEARCH = "brave_search"
    # Tier 5: an LLM's suggestion of what a reference might be. Never evidence.
    LLM = "llm"

    @classmethod
    def _missing_(cls, value: object) -> SourceName | None:
        """A source with a record in `source_facts.SOURCE_FACTS` but no member here (one added by
        its records alone, as a test's toy source is): a member made for its name, equal to the
        name as every member is, so that records naming it validate. Not cached: the source is
        known while its record is."""
        from aletheia.core.source_facts import SOURCE_FACTS

        if not isinstance(value, str) or value not in SOURCE_FACTS:
            return None
        member = str.__new__(cls, value)
        member._name_ = value.upper()
        member._value_ = value
        return member


class Author(BaseModel):
    """One author as a source or a citation gives it.

    `literal` holds an organisation ("The ATLAS Collaboration") or a name that could not be split.
    """

    model_config = ConfigDict(frozen=True)

    given: str | None = None
    family: str | None = None
    literal: str | None = None
    suffix: str | None = None
    orcid: str | None = None
    source_id: str | None = None  # the source's own author id (OpenAlex A...), where it has one

    @property
    def display(self) -> str:
        if self.literal:
            return self.literal
        parts = [p for p in (self.given, self.family) if p]
        name = " ".join(parts)
        return f"{name}, {self.suffix}" if self.suffix else name


class RetractionKind(StrEnum):
    NONE = "none"
    RETRACTED = "retracted"
    EXPRESSION_OF_CONCERN = "expression_of_concern"
    CORRECTED = "corrected"
    WITHDRAWN = "withdrawn"
    # A notice that an earlier retraction or expression of concern was lifted (Retraction Watch's
    # "Reinstatement"). Not a severity: `aletheia.core.retraction` weighs it against the dates.
    REINSTATED = "reinstated"


class RetractionNotice(BaseModel):
    """One piece of evidence about a work's standing (a notice, a flag, a database row)."""

    model_config = ConfigDict(frozen=True)

    kind: RetractionKind
    source: SourceName
    notice_doi: str | None = None
    date: str | None = None
    detail: str | None = None


class WorkRecord(BaseModel):
    """One source's metadata for one work, in a shape common to every source."""

    model_config = ConfigDict(frozen=True)

    source: SourceName
    source_id: str | None = None  # the source's own id: OpenAlex W..., S2 paperId, PMID, arXiv id
    title: str | None = None
    subtitle: str | None = None
    authors: tuple[Author, ...] = ()
    authors_truncated: bool = False  # the source itself cut the list (S2 at times, Crossref "et al.")
    year: int | None = None
    # The years of the other dates the source gives the work: Crossref's print, online, posted
    # dates, arXiv's date of the version served. A cited year equal to one of them is the year of a
    # version or an edition of the work (minor), not an invented year (issue 21).
    other_years: tuple[int, ...] = ()
    venue: str | None = None
    work_type: str | None = None  # normalised: journal-article, proceedings-article, preprint, book, ...
    doi: str | None = None
    arxiv_id: str | None = None  # without version
    arxiv_version: int | None = None
    pmid: str | None = None
    pmcid: str | None = None
    isbn: tuple[str, ...] = ()
    abstract: str | None = None
    urls: dict[str, str] = Field(default_factory=dict)
    retraction_notices: tuple[RetractionNotice, ...] = ()
    # Other versions of the same work the source knows of (preprint <-> published).
    related_dois: tuple[str, ...] = ()
    related_arxiv_ids: tuple[str, ...] = ()
    # When this record is itself an editorial notice (retraction, correction...): the DOIs it is
    # a notice about. Such a record must never be taken for the work it retracts.
    notice_for: tuple[str, ...] = ()
    is_preprint: bool = False
    score: float | None = None  # the source's own relevance score, for search hits
    # Other names the source itself publishes for `venue`: Semantic Scholar
    # `publicationVenue.alternate_names`, OpenAlex source `abbreviated_title`/`alternate_titles`,
    # Crossref `short-container-title`. A cited acronym is compared with these, not with a table.
    venue_aliases: tuple[str, ...] = ()
    # Other venues the source places the work in: OpenAlex locations besides the primary one (the
    # primary is often an institutional repository), Crossref container-titles beyond the first
    # (a series such as "Lecture Notes in Computer Science" beside the proceedings title).
    other_venues: tuple[str, ...] = ()
    issn: tuple[str, ...] = ()
    # The DBLP key the source knows (Semantic Scholar `externalIds.DBLP`): "conf/nips/..." places
    # the work at a venue; "journals/corr/..." is only the arXiv copy.
    dblp_key: str | None = None
    # The source says the work appeared at a venue, though this record may be its preprint view
    # (Semantic Scholar `publicationVenue`/`journal` of a paper it also knows by an arXiv id).
    published_venue: str | None = None
    # Books (Open Library, Google Books): the publisher and the edition statement, as given.
    publisher: str | None = None
    edition: str | None = None
    # A web page's other titles (`og:title`, its first `<h1>`) beside `title` (its `<title>`).
    alternate_titles: tuple[str, ...] = ()

    @property
    def first_author(self) -> Author | None:
        return self.authors[0] if self.authors else None


class CitedReference(BaseModel):
    """One reference as the user cited it.

    `fields` keeps every input field verbatim (BibTeX field names, lower-cased); the typed
    attributes are what the parsers could read from them. `key` is the BibTeX key, or the
    1-based position for inputs without keys.
    """

    model_config = ConfigDict(frozen=True)

    key: str
    entry_type: str | None = None  # article, inproceedings, misc, ...
    fields: dict[str, str] = Field(default_factory=dict)
    raw: str | None = None  # the reference string, for plain-text inputs
    title: str | None = None
    authors: tuple[Author, ...] = ()
    authors_truncated: bool = False  # "et al." / "and others" in the cited list
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    arxiv_version: int | None = None
    pmid: str | None = None
    pmcid: str | None = None
    isbn: str | None = None
    url: str | None = None
    origin: str | None = None  # file name and position, for error messages and reports
    # The attributes above that were guessed from `raw` by a heuristic (plain-text, Markdown, PDF
    # inputs) rather than read from a structured field: hints for the search, each to be confirmed
    # against the sources, never evidence on their own.
    heuristic_fields: tuple[str, ...] = ()
    # The author list was read from a reference string in a shape that admits another split
    # ("Zhang, Wei, Li, Na": three people or four?): the parser may have cut it wrongly, so a
    # disagreement with the sources on it is never a major error (`field_rules`).
    authors_uncertain: bool = False
