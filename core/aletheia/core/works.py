"""Works as several sources see them, and how well one fits a citation (the facts `decide` reads).

`group_works` clusters the records every source returned into works: records sharing a DOI (or
its unversioned form), an arXiv id or a PMID, a preprint/published relation, or agreeing on title
and first author, are one work seen by several sources. `assess` measures one work against the
citation: the best title similarity over every record, the author comparison against *every*
source's list (sources drop and merge co-authors, so one source's list is not the truth), and
whether any version's year agrees.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from aletheia.core.author_kinds import people_and_groups
from aletheia.core.author_lists import AuthorComparison, compare_author_lists
from aletheia.core.author_match import surname_key
from aletheia.core.author_order import alphabetical_records, same_people_reordered
from aletheia.core.evidence import OUTSIDE_WORKS, Outcome, QueryKind, SourceAnswer
from aletheia.core.identifiers import same_doi
from aletheia.core.orcid import same_person
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.text import normalize_title
from aletheia.core.title_spelling import regional_form
from aletheia.core.titles import TITLE_THRESHOLD, title_similarity

# Crossref and the identifier's own registry are authoritative for identity.
_SOURCE_ORDER = {
    SourceName.CROSSREF: 0,
    SourceName.PUBMED: 1,
    SourceName.ARXIV: 2,
    SourceName.OPENALEX: 3,
    SourceName.SEMANTIC_SCHOLAR: 4,
    SourceName.LIBRARY: 5,
    # The book catalogues, so that which of them a book's fields are credited to does not depend
    # on which answered first (a library hit, whose records come back in stored order, credits the
    # same catalogue as the first run: issue 28).
    SourceName.OPEN_LIBRARY: 6,
    SourceName.GOOGLE_BOOKS: 7,
}


@dataclass
class Work:
    """One work as several sources see it (a cluster of records)."""

    records: list[WorkRecord] = field(default_factory=list)
    via: set[QueryKind] = field(default_factory=set)

    @property
    def primary(self) -> WorkRecord:
        # Prefer a published record over a preprint when the cluster holds both versions.
        return min(self.records, key=lambda r: (r.is_preprint, _SOURCE_ORDER.get(r.source, 9)))

    @property
    def sources(self) -> tuple[SourceName, ...]:
        return tuple(dict.fromkeys(r.source for r in self.records))

    def dois(self) -> set[str]:
        out = {r.doi for r in self.records if r.doi}
        for r in self.records:
            out.update(r.related_dois)
        return out

    def has_doi(self, doi: str) -> bool:
        """One of the work's DOIs is `doi`, or another version of it (bioRxiv `...v1`, figshare `.v2`)."""
        return any(same_doi(doi, known) for known in self.dois())

    def arxiv_ids(self) -> set[str]:
        out = {r.arxiv_id for r in self.records if r.arxiv_id}
        for r in self.records:
            out.update(r.related_arxiv_ids)
        return out


@dataclass
class Assessment:
    """How well one work fits the citation."""

    work: Work
    title_similarity: float
    best_title: str | None
    title_exact: bool
    first_author_agrees: bool | None
    authors: AuthorComparison | None
    author_source: WorkRecord | None
    year_agrees: bool | None
    # Every source's author list compared with the cited one (best first), except the lists
    # sorted by family name against another source's order (`author_order`), set apart here.
    all_authors: list[tuple[AuthorComparison, WorkRecord]] = field(default_factory=list)
    alphabetical: tuple[WorkRecord, ...] = ()

    @property
    def title_matches(self) -> bool:
        return self.title_similarity >= TITLE_THRESHOLD

    def rank(self) -> tuple[float, ...]:
        return (
            float(self.title_matches),
            float(self.first_author_agrees is True),
            float(self.year_agrees is True),
            self.title_similarity,
        )


def same_work(a: WorkRecord, b: WorkRecord) -> bool:
    if same_doi(a.doi, b.doi):
        return True
    if a.arxiv_id and b.arxiv_id and a.arxiv_id == b.arxiv_id:
        return True
    if (a.doi and a.doi in b.related_dois) or (b.doi and b.doi in a.related_dois):
        return True
    if (a.arxiv_id and a.arxiv_id in b.related_arxiv_ids) or (
        b.arxiv_id and b.arxiv_id in a.related_arxiv_ids
    ):
        return True
    if a.pmid and b.pmid and a.pmid == b.pmid:
        return True
    if a.title and b.title and a.authors and b.authors:
        # Records without a shared identifier are one work only when title and first author agree
        # and nothing contradicts it (two different DOIs mean two works, e.g. a paper and its erratum).
        if a.doi and b.doi and a.doi != b.doi and not (a.is_preprint or b.is_preprint):
            return False
        # The same ORCID iD settles that the first authors are one person whatever the name forms.
        first_same = same_person(a.authors[0], b.authors[0]) is True or (
            surname_key(a.authors[0]) == surname_key(b.authors[0])
        )
        # An alphabetised copy of the byline (`author_order`) has another first author, and a
        # source may put the group before the people ("DeepSeek-AI", then Aixin Liu, ...).
        first_same = (
            first_same
            or same_people_reordered(a.authors, b.authors)
            or _same_first_person(a.authors, b.authors)
        )
        return title_similarity(a.title, b.title) >= TITLE_THRESHOLD and first_same
    return False


def _same_first_person(a: Sequence[Author], b: Sequence[Author]) -> bool:
    first_a, first_b = people_and_groups(a)[0][:1], people_and_groups(b)[0][:1]
    return bool(first_a and first_b) and surname_key(first_a[0]) == surname_key(first_b[0])


def group_works(answers: Iterable[SourceAnswer]) -> list[Work]:
    works: list[Work] = []
    for answer in answers:
        if answer.outcome is not Outcome.FOUND:
            continue
        for record in answer.records:
            home = [w for w in works if any(same_work(record, r) for r in w.records)]
            if not home:
                works.append(Work(records=[record], via={answer.kind}))
                continue
            target = home[0]
            for other in home[1:]:  # the record bridges works: merge them
                target.records.extend(other.records)
                target.via |= other.via
                works.remove(other)
            if record not in target.records:
                target.records.append(record)
            target.via.add(answer.kind)
    return works


def matched_work_sources(
    match: WorkRecord | None, secondary: WorkRecord | None, answers: Iterable[SourceAnswer]
) -> tuple[SourceName, ...]:
    """The sources of the work a verdict matched, as `decide` grouped the answers: never a source
    that returned only another work (a search's namesake), which the report would otherwise name
    as agreeing on it. Without the match among the works (a fetched web page): its own source."""
    if match is None:
        return ()
    for work in group_works(a for a in answers if a.kind not in OUTSIDE_WORKS):
        if any(r == match for r in work.records):
            return work.sources
    return tuple(dict.fromkeys(r.source for r in (match, secondary) if r is not None))


def work_years(work: Work) -> set[int]:
    return {r.year for r in work.records if r.year is not None}


def _author_key(c: AuthorComparison, r: WorkRecord) -> tuple[bool, float, int, int]:
    # Ties go to a fixed order of sources, never to the order the answers came in.
    return (c.first_author_agrees is True, c.similarity, len(r.authors), -_SOURCE_ORDER.get(r.source, 9))


def assess(cited: CitedReference, work: Work) -> Assessment:
    best_sim, best_title = 0.0, None
    exact = False
    if cited.title:
        cited_norm = normalize_title(cited.title)
        for r in work.records:
            for candidate in (r.title, f"{r.title}: {r.subtitle}" if r.title and r.subtitle else None):
                if not candidate:
                    continue
                sim = title_similarity(cited.title, candidate)
                if sim > best_sim:
                    best_sim, best_title = sim, candidate
                if normalize_title(candidate) == cited_norm:
                    exact = True
    comparisons: list[tuple[AuthorComparison, WorkRecord]] = []
    # Order and membership are judged only against lists in publication order.
    alphabetical = alphabetical_records(work.records, cited.authors)
    if cited.authors:
        for r in work.records:
            if not r.authors or any(r is x for x in alphabetical):
                continue
            comparisons.append(
                (
                    compare_author_lists(
                        cited.authors,
                        r.authors,
                        cited_truncated=cited.authors_truncated,
                        found_truncated=r.authors_truncated,
                    ),
                    r,
                )
            )
        comparisons.sort(key=lambda c: _author_key(*c), reverse=True)
    comparison, author_source = comparisons[0] if comparisons else (None, None)
    years = work_years(work)
    year_agrees = None if cited.year is None or not years else cited.year in years
    return Assessment(
        work=work,
        title_similarity=best_sim,
        best_title=best_title,
        title_exact=exact,
        first_author_agrees=comparison.first_author_agrees if comparison else None,
        authors=comparison,
        author_source=author_source,
        year_agrees=year_agrees,
        all_authors=comparisons,
        alphabetical=alphabetical,
    )


def word_level_change(cited: str, found: str) -> bool:
    """True when the titles differ by whole words (a substitution, insertion or deletion), not
    by spelling, hyphenation or LaTeX noise: the signature of a near-miss title."""
    raw_a, raw_b = normalize_title(cited).split(), normalize_title(found).split()
    if "".join(raw_a) == "".join(raw_b):  # "co-expression" vs "coexpression", before any folding
        return False
    # Regional spellings first (optimise/optimize, behaviour/behavior): never a change of words.
    a = [regional_form(w) for w in raw_a]
    b = [regional_form(w) for w in raw_b]
    if a == b:
        return False
    joined_a, joined_b = "".join(a), "".join(b)
    if joined_a == joined_b:  # "pre training" vs "pretraining"
        return False
    from rapidfuzz.distance import Levenshtein

    # Spelling variants (optimise/optimize, modelling/modeling) change a letter or two of one word.
    return not (len(a) == len(b) and Levenshtein.distance(joined_a, joined_b) <= 2)
