"""One work of the simulator's universe (`SimWork`: one line of the universe file, schema in
docs/simulator.md) and its parts: authors, arXiv versions, PMC sections, other versions.

Which sources know a work is explicit (`sources`) or follows from its identifiers (Crossref and
OpenAlex when it has a DOI, arXiv when it has an arXiv id, PubMed when it has a PMID, Semantic
Scholar always). `overrides` gives one source a different view of the work (a wrong year at
Semantic Scholar, a shorter title at PubMed), which is how tests build the conflicts that
triangulation has to resolve.

Everything a source serves is derived from the work, deterministically: the OpenAlex W-id, the
Semantic Scholar paperId and CorpusId are hashes of the work's key, so the same universe file always
produces byte-identical responses.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from aletheia.sources.simulator.ids import (
    normalize_doi,
    normalize_pmcid,
    split_arxiv_id,
    stable_hex,
    stable_int,
)

WorkSource = Literal["crossref", "openalex", "semantic_scholar", "arxiv", "pubmed", "dblp", "acl_anthology"]
WORK_SOURCES: Final[tuple[WorkSource, ...]] = get_args(WorkSource)
# The sources whose recorded JSON records a work may carry under `native`, served verbatim.
NativeSource = Literal["crossref", "openalex", "semantic_scholar"]

# arXiv's DataCite prefix: a DOI under it is arXiv's own, never registered with Crossref.
ARXIV_DOI_PREFIX: Final = "10.48550/"


class SimAuthor(BaseModel):
    """`{"given", "family"}` for a person, `{"literal"}` for an organisation or an unsplit name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    given: str | None = None
    family: str | None = None
    literal: str | None = None
    orcid: str | None = None

    @model_validator(mode="after")
    def _named(self) -> SimAuthor:
        if not (self.family or self.literal):
            raise ValueError("an author needs `family` or `literal`")
        return self

    @property
    def display(self) -> str:
        """ "Jan-Emmanuel De Neve", or the literal name."""
        if self.literal:
            return self.literal
        return " ".join(part for part in (self.given, self.family) if part)

    @property
    def initials(self) -> str:
        """MEDLINE initials of the given names: "Jan-Emmanuel" -> "JE", "Brooks B." -> "BB"."""
        if not self.given:
            return ""
        return "".join(part[0].upper() for part in re.split(r"[\s.\-]+", self.given) if part)


class ArxivVersion(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = Field(ge=1)
    year: int
    month: int | None = Field(default=None, ge=1, le=12)


class SimSection(BaseModel):
    """One section of an open-access PMC article's body; Europe PMC's route renders it as JATS."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str
    paragraphs: tuple[str, ...] = ()


class Related(BaseModel):
    """Other versions of the same work: the arXiv preprint (or preprint DOI) of a published work,
    and the DOI of the published version of a preprint."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    preprint_arxiv_id: str | None = None
    preprint_doi: str | None = None
    published_doi: str | None = None

    @field_validator("preprint_doi", "published_doi")
    @classmethod
    def _doi(cls, value: str | None) -> str | None:
        return normalize_doi(value) if value else None

    @field_validator("preprint_arxiv_id")
    @classmethod
    def _arxiv(cls, value: str | None) -> str | None:
        if not value:
            return None
        parsed = split_arxiv_id(value)
        if parsed is None:
            raise ValueError(f"not an arXiv id: {value!r}")
        return parsed[0]


# Fields an override may change: everything but the bookkeeping fields.
_NOT_OVERRIDABLE: Final = frozenset({"sources", "overrides", "native", "meta"})


class SimWork(BaseModel):
    """One work of the universe. Only `title` is required."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str
    subtitle: str | None = None
    authors: tuple[SimAuthor, ...] = ()
    year: int | None = None
    venue: str | None = None
    # Crossref's vocabulary: journal-article, proceedings-article, posted-content, book,
    # book-chapter, monograph, dataset, dissertation, report, other.
    type: str = "journal-article"
    doi: str | None = None
    arxiv_id: str | None = None
    arxiv_versions: tuple[ArxivVersion, ...] = ()
    arxiv_categories: tuple[str, ...] = ()
    pmid: str | None = None
    pmcid: str | None = None
    abstract: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    publisher: str | None = None
    retracted: bool = False
    retraction_notice_doi: str | None = None
    retraction_year: int | None = None
    sources: tuple[WorkSource, ...] | None = None
    related: Related | None = None
    fulltext_html: str | None = None
    fulltext_pdf_path: str | None = None
    # An open-access PMC full text (with `pmcid`): Europe PMC says `isOpenAccess: Y` and serves
    # these sections as JATS from `{PMCID}/fullTextXML`; without them it answers 404 there.
    pmc_body: tuple[SimSection, ...] = ()
    # Real source noise (docs/simulator.md): other names of the venue, a series beside it, a
    # repository copy OpenAlex takes for the primary location, DBLP key, ISSNs, and a venue only
    # Semantic Scholar knows (the others see a preprint).
    venue_aliases: tuple[str, ...] = ()
    series: str | None = None
    repository_primary: str | None = None
    dblp_key: str | None = None
    # The ACL Anthology id ("2023.acl-long.123", "P19-1001"): the anthology serves the work.
    acl_anthology_id: str | None = None
    issn: tuple[str, ...] = ()
    s2_publication_venue: str | None = None
    # Source-specific ids; derived from the work's key when absent.
    openalex_id: str | None = None
    s2_paper_id: str | None = None
    corpus_id: int | None = None
    overrides: dict[WorkSource, dict[str, Any]] = Field(default_factory=dict)
    # A source's own record of the work, recorded from the real service: served verbatim (issue 28)
    # instead of the record the simulator would render from the fields above. The fields above
    # still index the work for lookups and searches; they should be the record's own values.
    native: dict[NativeSource, dict[str, Any]] = Field(default_factory=dict)
    meta: dict[str, Any] = Field(default_factory=dict)  # free-form, ignored by the simulator

    @field_validator("doi", "retraction_notice_doi")
    @classmethod
    def _doi(cls, value: str | None) -> str | None:
        return normalize_doi(value) if value else None

    @field_validator("pmid", mode="before")
    @classmethod
    def _pmid(cls, value: str | int | None) -> str | None:
        if value is None or value == "":
            return None
        text = str(value).strip()
        if not text.isdigit():
            raise ValueError(f"a PMID is digits only: {value!r}")
        return str(int(text))

    @field_validator("pmcid")
    @classmethod
    def _pmcid(cls, value: str | None) -> str | None:
        return normalize_pmcid(value) if value else None

    @field_validator("issn")
    @classmethod
    def _issn(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for issn in value:
            if not re.fullmatch(r"\d{4}-\d{3}[\dX]", issn):
                raise ValueError(f"an ISSN is written NNNN-NNNC: {issn!r}")
        return value

    @field_validator("openalex_id")
    @classmethod
    def _openalex(cls, value: str | None) -> str | None:
        if not value:
            return None
        short = value.rsplit("/", 1)[-1].upper()
        if not re.fullmatch(r"W\d+", short):
            raise ValueError(f"not an OpenAlex work id: {value!r}")
        return short

    @model_validator(mode="before")
    @classmethod
    def _recorded_work(cls, data: Any) -> Any:
        """A work written from real recordings (`iclr2026-real-records`' universe) names its own
        `id` and `venue_type`, kept under `meta`; the ids a native record carries become the work's
        own, so a lookup by the OpenAlex W-id or the Semantic Scholar paperId it gives finds it."""
        if not isinstance(data, Mapping) or not ({"id", "venue_type"} & set(data) or data.get("native")):
            return data
        updated = dict(data)
        meta = dict(updated.get("meta") or {})
        for name in ("id", "venue_type"):
            if name in updated:
                meta[name] = updated.pop(name)
        updated["meta"] = meta
        native = updated.get("native") or {}
        openalex = native.get("openalex") if isinstance(native, Mapping) else None
        if isinstance(openalex, Mapping) and openalex.get("id") and not updated.get("openalex_id"):
            updated["openalex_id"] = openalex["id"]
        paper = native.get("semantic_scholar") if isinstance(native, Mapping) else None
        if isinstance(paper, Mapping):
            if paper.get("paperId") and not updated.get("s2_paper_id"):
                updated["s2_paper_id"] = paper["paperId"]
            corpus = (paper.get("externalIds") or {}).get("CorpusId") or paper.get("corpusId")
            if corpus is not None and updated.get("corpus_id") is None:
                updated["corpus_id"] = int(corpus)
        return updated

    @model_validator(mode="before")
    @classmethod
    def _arxiv_id_with_version(cls, data: Any) -> Any:
        # "2104.12255v2" names version 2: keep the bare id and, if no versions were listed, give
        # the work versions 1..2 (all in its year).
        if not isinstance(data, Mapping) or not data.get("arxiv_id"):
            return data
        parsed = split_arxiv_id(str(data["arxiv_id"]))
        if parsed is None:
            raise ValueError(f"not an arXiv id: {data['arxiv_id']!r}")
        arxiv_id, version = parsed
        updated = dict(data)
        updated["arxiv_id"] = arxiv_id
        if version and not data.get("arxiv_versions") and data.get("year"):
            updated["arxiv_versions"] = [{"version": n, "year": data["year"]} for n in range(1, version + 1)]
        return updated

    @model_validator(mode="after")
    def _check(self) -> SimWork:
        for source, changes in self.overrides.items():
            bad = set(changes) & _NOT_OVERRIDABLE
            if bad:
                raise ValueError(f"override for {source} may not change {sorted(bad)}")
            unknown = set(changes) - set(type(self).model_fields)
            if unknown:
                raise ValueError(f"override for {source} names unknown fields {sorted(unknown)}")
        unknown_native = set(self.native) - self.known_by
        if unknown_native:
            raise ValueError(
                f"native records of {sorted(unknown_native)}, which the work's sources do not list"
            )
        versions = [v.version for v in self.arxiv_versions]
        if versions and sorted(versions) != list(range(1, len(versions) + 1)):
            raise ValueError("arxiv_versions must number 1..n")
        return self

    # --- derived facts --------------------------------------------------------------------------

    @property
    def first_id(self) -> tuple[Literal["doi", "arxiv", "pmid"], str] | None:
        """The first identifier the work has, DOI, arXiv id or PMID, with its scheme; or None."""
        if self.doi:
            return "doi", self.doi
        if self.arxiv_id:
            return "arxiv", self.arxiv_id
        if self.pmid:
            return "pmid", self.pmid
        return None

    @property
    def key(self) -> str:
        """What the derived ids hash: the first identifier the work has, else title and year."""
        first = self.first_id
        return f"{first[0]}:{first[1]}" if first else f"title:{self.title.casefold()}:{self.year}"

    @property
    def known_by(self) -> frozenset[WorkSource]:
        if self.sources is not None:
            return frozenset(self.sources)
        known: set[WorkSource] = {"semantic_scholar"}
        if self.doi and not self.doi.startswith(ARXIV_DOI_PREFIX):
            known |= {"crossref", "openalex"}
        if self.arxiv_id:
            known.add("arxiv")
        if self.pmid:
            known.add("pubmed")
        if self.dblp_key:
            known.add("dblp")
        if self.acl_anthology_id:
            known.add("acl_anthology")
        return frozenset(known)

    @property
    def versions(self) -> tuple[ArxivVersion, ...]:
        """arXiv versions, oldest first; one version in the work's year when none are listed."""
        if self.arxiv_versions:
            return tuple(sorted(self.arxiv_versions, key=lambda v: v.version))
        return (ArxivVersion(version=1, year=self.year or 2000),)

    @property
    def display_title(self) -> str:
        return f"{self.title}: {self.subtitle}" if self.subtitle else self.title

    @property
    def derived_openalex_id(self) -> str:
        return self.openalex_id or f"W{4_000_000_000 + stable_int('openalex', self.key)}"

    @property
    def derived_s2_id(self) -> str:
        return self.s2_paper_id or stable_hex("s2", self.key)

    @property
    def derived_corpus_id(self) -> int:
        return self.corpus_id if self.corpus_id is not None else 100_000_000 + stable_int("corpus", self.key)

    def view(self, source: WorkSource) -> SimWork:
        """The work as `source` has it: the base record with that source's overrides applied."""
        changes = self.overrides.get(source)
        if not changes:
            return self
        data = self.model_dump(exclude={"overrides"}, exclude_none=False)
        data.update(changes)
        # Derived ids follow the base record, so every source's view keeps the same OpenAlex/S2 ids.
        data["openalex_id"] = self.derived_openalex_id
        data["s2_paper_id"] = self.derived_s2_id
        data["corpus_id"] = self.derived_corpus_id
        return SimWork.model_validate(data)
