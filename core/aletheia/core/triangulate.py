"""The triangulation gate (seed 000 §5): do two sources agree on a work's decisive fields?

Decisive fields (a mismatch rejects): DOI (exact after `clean_doi`), arXiv id (exact, version
stripped), title (`titles_match`, subtitle-aware), first-author surname (`authors_match`), year
(exact). A field is compared only when both records have it; a field only one side has is a note,
neither agreement nor conflict. Known version effects are notes too, never conflicts: a preprint
and its published version one year apart ("year_versions_differ"), DOIs or arXiv ids that one
record lists as the other's version.

Non-decisive fields are notes only: venue (through the alias table), author count, author order
beyond the first, names only one side has.

`triangulate` is symmetric: swapping the two records gives the same `verified`, the same `agreed`
fields, conflicts on the same fields (values swapped) and the same notes. Notes that name both
sides are written in a canonical order (by source, then value) for that reason.

`verified` needs no conflict and at least one identity field agreed (DOI, arXiv id or title):
agreement on year and first author alone does not establish that two records are one work.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from pydantic import BaseModel, ConfigDict

from aletheia.core.arxiv_ids import arxiv_id_from_doi, clean_arxiv_id
from aletheia.core.author_lists import compare_author_lists
from aletheia.core.author_match import authors_match, surname_key
from aletheia.core.identifiers import clean_doi
from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.core.text import fold, normalize_title
from aletheia.core.titles import TITLE_THRESHOLD, title_similarity, titles_identical
from aletheia.core.venues import is_no_venue_claim, venues_agree

__all__ = [
    "DECISIVE_FIELDS",
    "IDENTITY_FIELDS",
    "FieldConflict",
    "TriangulationResult",
    "full_title",
    "triangulate",
]

DECISIVE_FIELDS: Final = ("doi", "arxiv_id", "title", "first_author_surname", "year")
# Fields that, agreed, say the two records are the same work.
IDENTITY_FIELDS: Final = frozenset({"doi", "arxiv_id", "title"})


class FieldConflict(BaseModel):
    """Two sources disagree on a decisive field."""

    model_config = ConfigDict(frozen=True)

    field: str
    primary_value: str | None
    secondary_value: str | None
    similarity: float | None = None  # for fuzzy-compared fields (title)


class TriangulationResult(BaseModel):
    """The outcome of the gate: which decisive fields agreed, which conflicted, and notes."""

    model_config = ConfigDict(frozen=True)

    verified: bool
    agreed: tuple[str, ...]
    conflicts: tuple[FieldConflict, ...]
    notes: tuple[str, ...]
    decisive_fields_checked: tuple[str, ...]
    primary_source: SourceName
    secondary_source: SourceName

    @property
    def conflict_fields(self) -> tuple[str, ...]:
        return tuple(conflict.field for conflict in self.conflicts)


@dataclass
class _Findings:
    agreed: list[str] = field(default_factory=list)
    conflicts: list[FieldConflict] = field(default_factory=list)
    notes: set[str] = field(default_factory=set)
    checked: list[str] = field(default_factory=list)


def _pair_note(kind: str, first: tuple[str, str], second: tuple[str, str]) -> str:
    """`kind: "crossref says X" vs "openalex says Y"`, the two sides in a canonical order."""
    (source_a, value_a), (source_b, value_b) = sorted((first, second))
    return f'{kind}: "{source_a} says {value_a}" vs "{source_b} says {value_b}"'


def full_title(record: WorkRecord) -> str | None:
    """The record's title with its separately stored subtitle appended ("Title: Subtitle"),
    unless the title already contains it."""
    title = record.title
    if not title or not record.subtitle:
        return title
    if normalize_title(record.subtitle) in normalize_title(title):
        return title
    return f"{title}: {record.subtitle}"


def _arxiv_of(record: WorkRecord) -> str | None:
    parsed = clean_arxiv_id(record.arxiv_id)
    if parsed is None and record.doi:
        parsed = arxiv_id_from_doi(record.doi)
    return parsed.id if parsed else None


def _cleaned_dois(raw: tuple[str, ...]) -> set[str]:
    return {doi for doi in (clean_doi(item) for item in raw) if doi}


def _cleaned_arxiv_ids(raw: tuple[str, ...]) -> set[str]:
    return {parsed.id for parsed in (clean_arxiv_id(item) for item in raw) if parsed}


class _Gate:
    def __init__(self, primary: WorkRecord, secondary: WorkRecord) -> None:
        self.primary = primary
        self.secondary = secondary
        self.found = _Findings()
        self.name_p = primary.source.value
        self.name_s = secondary.source.value

    def _one_sided(self, name: str, value_p: object, value_s: object) -> bool:
        """Record a note when only one side has the field; True when both have it."""
        if value_p is not None and value_s is not None:
            self.found.checked.append(name)
            return True
        if value_p is not None:
            self.found.notes.add(f"{name}_only_in: {self.name_p}")
        elif value_s is not None:
            self.found.notes.add(f"{name}_only_in: {self.name_s}")
        return False

    def _unparseable(self, name: str, raw: str | None, parsed: object, source: str) -> None:
        if raw and raw.strip() and parsed is None:
            self.found.notes.add(f"{name}_unparseable: {source}")

    def _identifier(
        self,
        name: str,
        raw: tuple[str | None, str | None],
        parsed: tuple[str | None, str | None],
        versions_of_one_work: Callable[[str, str], bool],
    ) -> None:
        """An identifier of both records (`raw` as written, `parsed` as read): agreed when the two
        are one, a note when they name two versions of one work, a conflict otherwise."""
        (raw_p, raw_s), (id_p, id_s) = raw, parsed
        self._unparseable(name, raw_p, id_p, self.name_p)
        self._unparseable(name, raw_s, id_s, self.name_s)
        if not self._one_sided(name, id_p, id_s) or id_p is None or id_s is None:
            return
        if id_p == id_s:
            self.found.agreed.append(name)
        elif versions_of_one_work(id_p, id_s):
            self.found.notes.add(
                _pair_note(f"{name}_versions_differ", (self.name_p, id_p), (self.name_s, id_s))
            )
        else:
            self.found.conflicts.append(FieldConflict(field=name, primary_value=id_p, secondary_value=id_s))

    def doi(self) -> None:
        p, s = self.primary, self.secondary
        self._identifier(
            "doi", (p.doi, s.doi), (clean_doi(p.doi), clean_doi(s.doi)), self._versions_of_one_work
        )

    def _versions_of_one_work(self, doi_p: str, doi_s: str) -> bool:
        """One record lists the other's DOI as a version, or one DOI is arXiv's DataCite DOI for
        the other record's arXiv id."""
        p, s = self.primary, self.secondary
        if doi_s in _cleaned_dois(p.related_dois) or doi_p in _cleaned_dois(s.related_dois):
            return True
        arxiv_p, arxiv_s = _arxiv_of(p), _arxiv_of(s)
        from_doi_p, from_doi_s = arxiv_id_from_doi(doi_p), arxiv_id_from_doi(doi_s)
        return (from_doi_p is not None and from_doi_p.id == arxiv_s) or (
            from_doi_s is not None and from_doi_s.id == arxiv_p
        )

    def arxiv_id(self) -> None:
        p, s = self.primary, self.secondary
        self._identifier(
            "arxiv_id", (p.arxiv_id, s.arxiv_id), (_arxiv_of(p), _arxiv_of(s)), self._arxiv_versions
        )

    def _arxiv_versions(self, arxiv_p: str, arxiv_s: str) -> bool:
        """One record lists the other's arXiv id as a version."""
        p, s = self.primary, self.secondary
        return arxiv_s in _cleaned_arxiv_ids(p.related_arxiv_ids) or arxiv_p in _cleaned_arxiv_ids(
            s.related_arxiv_ids
        )

    def title(self) -> None:
        title_p, title_s = full_title(self.primary), full_title(self.secondary)
        title_p = title_p if title_p and normalize_title(title_p) else None
        title_s = title_s if title_s and normalize_title(title_s) else None
        if not self._one_sided("title", title_p, title_s) or title_p is None or title_s is None:
            return
        similarity = title_similarity(title_p, title_s)
        if similarity >= TITLE_THRESHOLD:
            self.found.agreed.append("title")
            if not titles_identical(title_p, title_s):
                self.found.notes.add(f"title_forms_differ: similarity {similarity:.3f}")
        else:
            self.found.conflicts.append(
                FieldConflict(
                    field="title", primary_value=title_p, secondary_value=title_s, similarity=similarity
                )
            )

    def first_author(self) -> None:
        first_p, first_s = _first_named(self.primary), _first_named(self.secondary)
        if (
            not self._one_sided("first_author_surname", first_p, first_s)
            or first_p is None
            or first_s is None
        ):
            return
        if authors_match(first_p, first_s):
            self.found.agreed.append("first_author_surname")
        else:
            self.found.conflicts.append(
                FieldConflict(
                    field="first_author_surname",
                    primary_value=_surname_text(first_p),
                    secondary_value=_surname_text(first_s),
                )
            )

    def year(self) -> None:
        p, s = self.primary, self.secondary
        if not self._one_sided("year", p.year, s.year) or p.year is None or s.year is None:
            return
        if p.year == s.year:
            self.found.agreed.append("year")
        elif abs(p.year - s.year) == 1 and p.is_preprint != s.is_preprint:
            self.found.notes.add(
                _pair_note("year_versions_differ", (self.name_p, str(p.year)), (self.name_s, str(s.year)))
            )
        else:
            self.found.conflicts.append(
                FieldConflict(field="year", primary_value=str(p.year), secondary_value=str(s.year))
            )

    def venue(self) -> None:
        venue_p, venue_s = self.primary.venue, self.secondary.venue
        if not venue_p or not venue_s or not fold(venue_p) or not fold(venue_s):
            return
        sides = (self.name_p, venue_p), (self.name_s, venue_s)
        if is_no_venue_claim(venue_p) and is_no_venue_claim(venue_s):
            return
        agree = venues_agree(venue_p, venue_s)
        if agree is None:
            self.found.notes.add(_pair_note("venue_not_comparable", *sides))
        elif not agree:
            self.found.notes.add(_pair_note("venue_differs", *sides))
        elif fold(venue_p) != fold(venue_s):
            self.found.notes.add(_pair_note("venue_aliases", *sides))

    def author_list(self) -> None:
        p, s = self.primary, self.secondary
        if not p.authors or not s.authors:
            return
        for record in (p, s):
            if record.authors_truncated:
                self.found.notes.add(f"author_list_truncated_by_source: {record.source.value}")
        if len(p.authors) != len(s.authors) and not (p.authors_truncated or s.authors_truncated):
            self.found.notes.add(
                _pair_note(
                    "author_count_differs",
                    (self.name_p, str(len(p.authors))),
                    (self.name_s, str(len(s.authors))),
                )
            )
        forward = compare_author_lists(
            p.authors, s.authors, cited_truncated=p.authors_truncated, found_truncated=s.authors_truncated
        )
        backward = compare_author_lists(
            s.authors, p.authors, cited_truncated=s.authors_truncated, found_truncated=p.authors_truncated
        )
        if not (forward.order_agrees and backward.order_agrees):
            self.found.notes.add("author_order_differs")
        for source, names in ((self.name_p, forward.extra), (self.name_s, backward.extra)):
            if names:
                self.found.notes.add(f"author_names_only_in: {source}: {'; '.join(sorted(names))}")
        given_pairs = {
            tuple(sorted(pair)) for pair in forward.given_name_conflicts + backward.given_name_conflicts
        }
        for first, second in sorted(given_pairs):
            self.found.notes.add(f"author_given_names_differ: {first} / {second}")

    def result(self) -> TriangulationResult:
        found = self.found
        verified = not found.conflicts and bool(IDENTITY_FIELDS & set(found.agreed))
        if not found.conflicts and not verified:
            found.notes.add("no_identity_field_agreed")
        return TriangulationResult(
            verified=verified,
            agreed=tuple(name for name in DECISIVE_FIELDS if name in found.agreed),
            conflicts=tuple(sorted(found.conflicts, key=lambda c: DECISIVE_FIELDS.index(c.field))),
            notes=tuple(sorted(found.notes)),
            decisive_fields_checked=tuple(name for name in DECISIVE_FIELDS if name in found.checked),
            primary_source=self.primary.source,
            secondary_source=self.secondary.source,
        )


def _first_named(record: WorkRecord) -> Author | None:
    first = record.first_author
    return first if first is not None and surname_key(first) else None


def _surname_text(author: Author) -> str:
    return author.family or author.literal or author.given or ""


def triangulate(primary: WorkRecord, secondary: WorkRecord) -> TriangulationResult:
    """Cross-check two sources' records of one work (seed 000 §5); see the module docstring."""
    gate = _Gate(primary, secondary)
    gate.doi()
    gate.arxiv_id()
    gate.title()
    gate.first_author()
    gate.year()
    gate.venue()
    gate.author_list()
    return gate.result()
