"""From what the sources said to a verdict: the rules of docs/verdicts.md, as one pure function.

`decide(cited, evidence, current_year=...)` never performs I/O. It

1. looks for positive evidence of invention (future year, placeholder authors or title);
2. groups every record the sources returned into works (records sharing a DOI or an arXiv id, or
   agreeing on title and first author, are one work seen by several sources);
3. settles the work's identity: identifiers first (each checked against the title and first author
   it is cited with), a search hit only when no identifier decides, and never a loose search hit
   over an identifier that points elsewhere;
4. compares every cited field with what the work's sources say (decisive: title, first author,
   year, identifiers; evidence only: venue, author count and order);
5. triangulates the decisive fields across two sources, and applies the retraction status.

Default-deny: `verified` needs a source that answered and matched; an answer that could not be
obtained is `unverifiable`, never `not_found`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aletheia.core.authors import (
    AuthorComparison,
    compare_author_lists,
    has_placeholder_authors,
    surname_key,
)
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.identifiers import arxiv_id_from_doi, clean_arxiv_id, clean_doi, clean_pmid
from aletheia.core.records import CitedReference, RetractionKind, SourceName, WorkRecord
from aletheia.core.retraction import combine_retraction_status
from aletheia.core.text import normalize_title
from aletheia.core.titles import TITLE_THRESHOLD, is_placeholder_title, title_similarity
from aletheia.core.triangulate import triangulate
from aletheia.core.venues import canonical_venue, is_no_venue_claim, venue_similarity, venues_agree
from aletheia.core.verdicts import FieldEvidence, Reason, Severity, Verdict, VerdictStatus

# Below the decisive threshold but this close, with the same first author: the same work cited
# with a wrong title (a near miss), not another work.
NEAR_MISS_THRESHOLD = 0.80
# An identifier's record whose title is at least this close, with the same first author, is the
# cited work with title errors; below it the identifier belongs to a different work.
SAME_WORK_UNDER_IDENTIFIER = 0.60
# A venue string this close to the source's, though not an alias of it, is a different form of it.
VENUE_FORM_THRESHOLD = 0.60
# Years beyond this many years from now are invented (accepted papers are cited "to appear").
FUTURE_YEAR_MARGIN = 1

OUT_OF_SCOPE_TYPES = frozenset(
    {
        "software",
        "online",
        "www",
        "webpage",
        "electronic",
        "standard",
        "patent",
        "legislation",
        "legal",
        "jurisdiction",
        "dataset",
        "video",
        "audio",
        "artwork",
        "image",
    }
)


@dataclass
class Work:
    """One work as several sources see it (a cluster of records)."""

    records: list[WorkRecord] = field(default_factory=list)
    via: set[QueryKind] = field(default_factory=set)

    @property
    def primary(self) -> WorkRecord:
        # Crossref and the identifier's own registry are authoritative for identity; prefer a
        # published record over a preprint when the cluster holds both versions.
        order = {
            SourceName.CROSSREF: 0,
            SourceName.PUBMED: 1,
            SourceName.ARXIV: 2,
            SourceName.OPENALEX: 3,
            SourceName.SEMANTIC_SCHOLAR: 4,
            SourceName.LIBRARY: 5,
        }
        return min(self.records, key=lambda r: (r.is_preprint, order.get(r.source, 9)))

    @property
    def sources(self) -> tuple[SourceName, ...]:
        return tuple(dict.fromkeys(r.source for r in self.records))

    def dois(self) -> set[str]:
        out = {r.doi for r in self.records if r.doi}
        for r in self.records:
            out.update(r.related_dois)
        return out

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


# ----------------------------------------------------------------------------------------------
# grouping records into works


def _same_work(a: WorkRecord, b: WorkRecord) -> bool:
    if a.doi and b.doi and a.doi == b.doi:
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
        return title_similarity(a.title, b.title) >= TITLE_THRESHOLD and surname_key(
            a.authors[0]
        ) == surname_key(b.authors[0])
    return False


def group_works(answers: Iterable[SourceAnswer]) -> list[Work]:
    works: list[Work] = []
    for answer in answers:
        if answer.outcome is not Outcome.FOUND:
            continue
        for record in answer.records:
            home = [w for w in works if any(_same_work(record, r) for r in w.records)]
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


# ----------------------------------------------------------------------------------------------
# comparing a citation with a work


def _years(work: Work) -> set[int]:
    return {r.year for r in work.records if r.year is not None}


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
    comparison: AuthorComparison | None = None
    author_source: WorkRecord | None = None
    if cited.authors:
        # Compare with the fullest author list any source gives (S2 and Crossref sometimes cut it).
        with_authors = [r for r in work.records if r.authors]
        if with_authors:
            candidates = [
                (
                    compare_author_lists(
                        cited.authors,
                        r.authors,
                        cited_truncated=cited.authors_truncated,
                        found_truncated=r.authors_truncated,
                    ),
                    r,
                )
                for r in with_authors
            ]
            comparison, author_source = max(
                candidates,
                key=lambda c: (c[0].first_author_agrees is True, c[0].similarity, len(c[1].authors)),
            )
    years = _years(work)
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
    )


def _content_words(title: str) -> list[str]:
    return normalize_title(title).split()


def _word_level_change(cited: str, found: str) -> bool:
    """True when the titles differ by whole words (a substitution, insertion or deletion), not
    by spelling, hyphenation or LaTeX noise: the signature of a near-miss title."""
    a, b = _content_words(cited), _content_words(found)
    if a == b:
        return False
    joined_a, joined_b = "".join(a), "".join(b)
    if joined_a == joined_b:  # "pre training" vs "pretraining"
        return False
    from rapidfuzz.distance import Levenshtein

    # Spelling variants (optimise/optimize, modelling/modeling) change a letter or two of one word.
    return not (len(a) == len(b) and Levenshtein.distance(joined_a, joined_b) <= 2)


# ----------------------------------------------------------------------------------------------
# the verdict


@dataclass
class _Findings:
    reasons: list[Reason] = field(default_factory=list)
    major: bool = False
    minor: bool = False
    fields: dict[str, FieldEvidence] = field(default_factory=dict)
    corrected: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(self, reason: Reason, *, major: bool | None = None) -> None:
        if reason not in self.reasons:
            self.reasons.append(reason)
        if major is True:
            self.major = True
        elif major is False:
            self.minor = True


def _fabrication_signals(cited: CitedReference, current_year: int) -> list[Reason]:
    signals: list[Reason] = []
    if cited.year is not None and cited.year > current_year + FUTURE_YEAR_MARGIN:
        signals.append(Reason.FUTURE_YEAR)
    if cited.authors and has_placeholder_authors(cited.authors):
        signals.append(Reason.PLACEHOLDER_AUTHORS)
    if cited.title and is_placeholder_title(cited.title):
        signals.append(Reason.PLACEHOLDER_TITLE)
    return signals


def _cited_identifier(cited: CitedReference, kind: QueryKind) -> str | None:
    if kind is QueryKind.DOI:
        return cited.doi
    if kind is QueryKind.ARXIV:
        if cited.arxiv_id:
            return cited.arxiv_id
        from_doi = arxiv_id_from_doi(cited.doi) if cited.doi else None
        return from_doi.id if from_doi else None
    if kind is QueryKind.PMID:
        return cited.pmid
    return None


def _asks_another_identifier(kind: QueryKind, query: str, wanted: str | None) -> bool:
    """The query names an identifier of this kind that is not the cited one (a query that is not
    an identifier at all is taken to be about the citation)."""
    if kind is QueryKind.DOI:
        asked = clean_doi(query)
        return asked is not None and asked != (clean_doi(wanted) if wanted else None)
    if kind is QueryKind.ARXIV:
        asked_id = clean_arxiv_id(query)
        cited_id = clean_arxiv_id(wanted) if wanted else None
        return asked_id is not None and (cited_id is None or asked_id.id != cited_id.id)
    if kind is QueryKind.PMID:
        asked_pmid = clean_pmid(query)
        return asked_pmid is not None and asked_pmid != (clean_pmid(wanted) if wanted else None)
    return False


def _identifier_answers(
    evidence: Evidence, kind: QueryKind, cited: CitedReference
) -> tuple[SourceAnswer, ...]:
    """The answers about the *cited* identifier. A lookup of another identifier (the matched
    work's DOI, asked of a second source for triangulation) says nothing about whether the cited
    one resolves: a reference cited without a DOI must not get `doi_not_found` because Crossref
    lacks a work only OpenAlex indexes, nor an invented DOI `doi_resolved` because the real one did."""
    wanted = _cited_identifier(cited, kind)
    return tuple(a for a in evidence.for_kind(kind) if not _asks_another_identifier(kind, a.query, wanted))


def _resolution(answers: Sequence[SourceAnswer]) -> Outcome | None:
    """FOUND if any source has it, NOT_FOUND only if every asked source answered no."""
    if not answers:
        return None
    if any(a.outcome is Outcome.FOUND for a in answers):
        return Outcome.FOUND
    if all(a.outcome is Outcome.NOT_FOUND for a in answers):
        return Outcome.NOT_FOUND
    return Outcome.FAILED


def _works_for_identifier(works: list[Work], cited: CitedReference, kind: QueryKind) -> list[Work]:
    if kind is QueryKind.DOI and cited.doi:
        return [w for w in works if cited.doi in w.dois()]
    if kind is QueryKind.ARXIV and cited.arxiv_id:
        return [w for w in works if cited.arxiv_id in w.arxiv_ids()]
    if kind is QueryKind.PMID and cited.pmid:
        return [w for w in works if any(r.pmid == cited.pmid for r in w.records)]
    return []


def _plausibly_same(a: Assessment, cited: CitedReference) -> bool:
    """The identifier's work is the cited work, possibly with metadata errors."""
    if a.title_matches:
        return a.first_author_agrees is not False or _authors_overlap(a)
    if not cited.title:
        return a.first_author_agrees is True
    return a.title_similarity >= SAME_WORK_UNDER_IDENTIFIER and a.first_author_agrees is True


def _authors_overlap(a: Assessment) -> bool:
    return a.authors is not None and a.authors.matched_count >= max(1, a.authors.cited_count // 2)


def _omits_coauthors(c: AuthorComparison) -> bool:
    """Every cited author is in the source's list, in order, but some of the source's are not
    cited (and the citation does not say "et al."): an incomplete list that is not a cut tail."""
    return (
        bool(c.missing)
        and not c.truncated
        and not c.extra
        and not c.swapped
        and c.first_author_agrees is True
    )


def _compare_fields(cited: CitedReference, a: Assessment, f: _Findings, via_search: bool) -> None:
    work = a.work
    primary = work.primary
    src = primary.source
    # --- title (decisive)
    if cited.title:
        agrees = a.title_matches and not (
            not a.title_exact and a.best_title and _word_level_change(cited.title, a.best_title)
        )
        f.fields["title"] = FieldEvidence(
            cited=cited.title,
            found=a.best_title or primary.title,
            source=src,
            similarity=round(a.title_similarity, 4),
            threshold=TITLE_THRESHOLD,
            decisive=True,
            agrees=agrees,
        )
        if not agrees:
            f.add(
                Reason.TITLE_NEAR_MISS
                if a.title_similarity >= NEAR_MISS_THRESHOLD
                else Reason.TITLE_MISMATCH,
                major=True,
            )
            f.corrected["title"] = a.best_title or primary.title
    # --- authors (first author decisive; the rest is evidence)
    if a.authors is not None and a.author_source is not None:
        c = a.authors
        found_authors = [x.display for x in a.author_source.authors]
        f.fields["first_author"] = FieldEvidence(
            cited=cited.authors[0].display,
            found=found_authors[0] if found_authors else None,
            source=a.author_source.source,
            decisive=True,
            agrees=c.first_author_agrees,
        )
        f.fields["authors"] = FieldEvidence(
            cited=[x.display for x in cited.authors],
            found=found_authors,
            source=a.author_source.source,
            similarity=round(c.similarity, 4),
            decisive=False,
            agrees=not (c.swapped or c.extra or c.truncated or c.missing_trailing or _omits_coauthors(c)),
        )
        if c.swapped:
            f.add(Reason.AUTHORS_SWAPPED, major=True)
        elif c.first_author_agrees is False:
            f.add(Reason.FIRST_AUTHOR_MISMATCH, major=True)
        if c.extra:
            f.add(Reason.AUTHOR_LIST_DIFFERS, major=True)
        if c.truncated:
            # One trailing co-author left out of a long list is a slip; more is a truncated list.
            if c.missing_trailing == 1 and c.found_count >= 4:
                f.add(Reason.AUTHORS_MISSING_TRAILING, major=False)
            else:
                f.add(Reason.AUTHORS_TRUNCATED, major=True)
        elif _omits_coauthors(c):
            # Co-authors left out of the middle of the list, with no "et al.": the same tolerance
            # as for a trailing one (one of four or more is a slip), otherwise a wrong list.
            f.add(Reason.AUTHOR_LIST_DIFFERS, major=not (len(c.missing) == 1 and c.found_count >= 4))
        if f.fields["authors"].agrees is False:
            f.corrected["authors"] = found_authors
    # --- year (decisive; a preprint/published pair may differ by one)
    years = sorted(_years(work))
    if cited.year is not None and years:
        closest = min(years, key=lambda y: abs(y - (cited.year or 0)))
        agrees = cited.year in years
        f.fields["year"] = FieldEvidence(
            cited=cited.year,
            found=closest if not agrees else cited.year,
            source=src,
            decisive=True,
            agrees=agrees,
        )
        if not agrees:
            versions = any(r.is_preprint for r in work.records) or any(
                r.related_arxiv_ids or r.related_dois for r in work.records
            )
            if abs(closest - cited.year) == 1 and versions:
                f.add(Reason.YEAR_OFF_BY_ONE_VERSIONS, major=False)
            else:
                f.add(Reason.YEAR_MISMATCH, major=True)
            f.corrected["year"] = primary.year if primary.year is not None else closest
    # --- identifiers (decisive when cited)
    if cited.doi:
        dois = work.dois()
        agrees_doi = cited.doi in dois if dois else None
        f.fields["doi"] = FieldEvidence(
            cited=cited.doi,
            found=primary.doi or (sorted(dois)[0] if dois else None),
            source=src,
            decisive=True,
            agrees=agrees_doi,
        )
        if agrees_doi is False:
            f.corrected["doi"] = primary.doi
    if cited.arxiv_id:
        ids = work.arxiv_ids()
        agrees_ax = cited.arxiv_id in ids if ids else None
        f.fields["arxiv_id"] = FieldEvidence(
            cited=cited.arxiv_id,
            found=next(iter(sorted(ids)), None),
            source=src,
            decisive=True,
            agrees=agrees_ax,
        )
        if cited.arxiv_version is not None:
            latest = max(
                (r.arxiv_version or 0 for r in work.records if r.arxiv_id == cited.arxiv_id), default=0
            )
            if latest and cited.arxiv_version > latest:
                f.add(Reason.ARXIV_VERSION_MISMATCH, major=True)
    # --- venue (evidence, judged through the alias table)
    _compare_venue(cited, work, f)
    if via_search:
        f.add(Reason.MATCHED_BY_SEARCH)


def _preprint_record(r: WorkRecord) -> bool:
    """A preprint, or a record whose only venue is a preprint server (Semantic Scholar lists an
    arXiv-only paper with venue "arXiv.org" and no preprint type): no evidence of publication."""
    if r.is_preprint:
        return True
    registered_doi = bool(r.doi) and arxiv_id_from_doi(r.doi or "") is None
    return bool(r.venue) and is_no_venue_claim(r.venue) and not registered_doi and not r.related_dois


def _compare_venue(cited: CitedReference, work: Work, f: _Findings) -> None:
    if is_no_venue_claim(cited.venue):
        return
    found_venues = [r.venue for r in work.records if r.venue and not is_no_venue_claim(r.venue)]
    published = [r for r in work.records if not _preprint_record(r)]
    src = work.primary.source
    if not found_venues:
        if not published and not any(r.related_dois for r in work.records):
            # Only a preprint exists and the citation claims a venue it never appeared in.
            f.fields["venue"] = FieldEvidence(
                cited=cited.venue, found="arXiv (preprint only)", source=src, decisive=False, agrees=False
            )
            f.add(Reason.PREPRINT_CITED_AS_PUBLISHED, major=True)
            f.corrected["venue"] = "arXiv preprint"
        return
    verdicts = [venues_agree(cited.venue, v) for v in found_venues]
    best = max(found_venues, key=lambda v: venue_similarity(cited.venue or "", v))
    sim = venue_similarity(cited.venue or "", best)
    if any(v is True for v in verdicts):
        f.fields["venue"] = FieldEvidence(
            cited=cited.venue, found=best, source=src, similarity=round(sim, 4), decisive=False, agrees=True
        )
        return
    if all(v is None for v in verdicts):
        return
    f.fields["venue"] = FieldEvidence(
        cited=cited.venue, found=best, source=src, similarity=round(sim, 4), decisive=False, agrees=False
    )
    cited_canon, found_canon = canonical_venue(cited.venue), {canonical_venue(v) for v in found_venues}
    if cited_canon is None and sim >= VENUE_FORM_THRESHOLD:
        f.add(Reason.VENUE_FORM, major=False)
    elif (
        any(r.is_preprint for r in work.records)
        and cited_canon is not None
        and cited_canon not in found_canon
        and not published
    ):
        f.add(Reason.PREPRINT_CITED_AS_PUBLISHED, major=True)
    else:
        f.add(Reason.VENUE_MISMATCH, major=True)
    f.corrected["venue"] = best


def _triangulation(work: Work, f: _Findings) -> tuple[WorkRecord | None, bool]:
    """Check the decisive fields across two independent sources of the same work."""
    by_source: dict[SourceName, WorkRecord] = {}
    for r in work.records:
        by_source.setdefault(r.source, r)
    if len(by_source) < 2:
        f.add(Reason.SINGLE_SOURCE)
        f.notes.append("no_secondary_source_available")
        return None, True
    primary = work.primary
    secondary = next(r for s, r in by_source.items() if s is not primary.source)
    result = triangulate(primary, secondary)
    f.notes.extend(result.notes)
    hard = [c for c in result.conflicts if c.field != "year"]
    year_conflicts = [c for c in result.conflicts if c.field == "year"]
    for c in year_conflicts:
        # Print and online dates often straddle a year boundary: a one-year spread is a note.
        try:
            spread = abs(int(str(c.primary_value)) - int(str(c.secondary_value)))
        except (TypeError, ValueError):
            spread = 99
        if spread > 1:
            hard.append(c)
        else:
            f.notes.append(
                f"year_sources_differ: {primary.source}={c.primary_value} "
                f"{secondary.source}={c.secondary_value}"
            )
    if hard:
        f.add(Reason.TRIANGULATION_CONFLICT)
        for c in hard:
            f.notes.append(
                f"triangulation_conflict:{c.field}: {primary.source}={c.primary_value!r} "
                f"{secondary.source}={c.secondary_value!r}"
            )
        return secondary, False
    f.add(Reason.TRIANGULATED)
    return secondary, True


def _p_valid(status: VerdictStatus, severity: Severity | None, triangulated: bool) -> float | None:
    if status is VerdictStatus.VERIFIED:
        return 0.99 if triangulated else 0.95
    if status is VerdictStatus.METADATA_ERROR:
        return 0.75 if severity is Severity.MINOR else 0.30
    return {
        VerdictStatus.IDENTIFIER_CONFLICT: 0.15,
        VerdictStatus.RETRACTED: 0.05,
        VerdictStatus.AMBIGUOUS: 0.5,
        VerdictStatus.NOT_FOUND: 0.05,
        VerdictStatus.FABRICATED: 0.01,
    }.get(status)


def _retraction(evidence: Evidence, work: Work | None) -> tuple[RetractionKind, dict[str, Any]]:
    notices = list(evidence.retraction_notices)
    if work is not None:
        for r in work.records:
            notices.extend(r.retraction_notices)
    status = combine_retraction_status(notices)
    return status.kind, status.model_dump(mode="json")


def _is_web_resource(cited: CitedReference) -> bool:
    """An `@misc` (or untyped entry) with a URL and neither authors nor a scholarly identifier is a
    web page or a piece of software ("FFmpeg", "How much data does Netflix use?"): no source
    indexes it, so calling it `not_found` would be a false alarm. It is reported, not judged."""
    if cited.entry_type not in ("misc", None) or cited.raw is not None:
        return False
    has_url = bool(cited.url) or any(
        "http" in cited.fields.get(k, "") for k in ("howpublished", "note", "url")
    )
    return has_url and not cited.authors and not (cited.doi or cited.arxiv_id or cited.pmid or cited.isbn)


def decide(cited: CitedReference, evidence: Evidence, *, current_year: int) -> Verdict:
    consulted = evidence.sources_consulted
    # Every source that failed a question, even one it answered another: its failed search can be
    # what leaves the reference unverifiable, and the report must name it.
    failed = tuple(dict.fromkeys(a.source for a in evidence.answers if a.outcome is Outcome.FAILED))

    def verdict(
        status: VerdictStatus,
        f: _Findings,
        *,
        match: Work | None = None,
        secondary: WorkRecord | None = None,
        triangulated: bool = False,
        retraction: dict[str, Any] | None = None,
    ) -> Verdict:
        severity = None
        if status is VerdictStatus.METADATA_ERROR:
            severity = Severity.MAJOR if f.major else Severity.MINOR
        if failed:
            f.add(Reason.SOURCE_UNAVAILABLE)
        return Verdict(
            status=status,
            severity=severity,
            reasons=tuple(f.reasons),
            fields=f.fields,
            match=match.primary if match else None,
            secondary=secondary,
            retraction=retraction or {},
            corrected=f.corrected,
            p_valid=_p_valid(status, severity, triangulated),
            sources_consulted=consulted,
            sources_unavailable=failed,
            notes=tuple(f.notes),
        )

    f = _Findings()
    if cited.entry_type in OUT_OF_SCOPE_TYPES or _is_web_resource(cited):
        f.add(Reason.OUT_OF_SCOPE_TYPE)
        return verdict(VerdictStatus.OUT_OF_SCOPE, f)

    signals = _fabrication_signals(cited, current_year)
    for s in signals:
        f.add(s, major=True)

    has_identifier = bool(cited.doi or cited.arxiv_id or cited.pmid)
    if not cited.title and not has_identifier and not cited.raw:
        f.add(Reason.INSUFFICIENT_METADATA)
        return verdict(VerdictStatus.FABRICATED if signals else VerdictStatus.UNVERIFIABLE, f)

    works = group_works(evidence.answers)
    assessments = {id(w): assess(cited, w) for w in works}

    # --- 1. identifiers first
    identity: Work | None = None
    conflict_work: Work | None = None
    nowhere: list[QueryKind] = []
    id_failed = False
    for kind, resolved_reason, nf_reason, elsewhere_reason in (
        (QueryKind.DOI, Reason.DOI_RESOLVED, Reason.DOI_NOT_FOUND, Reason.DOI_POINTS_ELSEWHERE),
        (QueryKind.ARXIV, Reason.ARXIV_RESOLVED, Reason.ARXIV_NOT_FOUND, Reason.ARXIV_POINTS_ELSEWHERE),
        (QueryKind.PMID, Reason.PMID_RESOLVED, Reason.PMID_NOT_FOUND, Reason.PMID_POINTS_ELSEWHERE),
    ):
        answers = _identifier_answers(evidence, kind, cited)
        outcome = _resolution(answers)
        if outcome is None:
            continue
        if outcome is Outcome.NOT_FOUND:
            nowhere.append(kind)
            f.add(nf_reason)
            continue
        if outcome is Outcome.FAILED:
            id_failed = True
            continue
        candidates = _works_for_identifier(works, cited, kind) or [w for w in works if kind in w.via]
        if not candidates:
            continue
        best = max(candidates, key=lambda w: assessments[id(w)].rank())
        if _plausibly_same(assessments[id(best)], cited):
            if identity is None:
                identity = best
            f.add(resolved_reason)
        else:
            conflict_work = conflict_work or best
            f.add(elsewhere_reason)

    # --- 2. search when no identifier settles it
    search_answers = evidence.for_kind(QueryKind.SEARCH) + evidence.for_kind(QueryKind.LIBRARY)
    search_outcome = _resolution(search_answers)
    # One search that failed is enough for doubt: the source that could not be asked may be the
    # only one that has the work, whatever the others returned (docs/reliability.md).
    search_failed = any(a.outcome is Outcome.FAILED for a in search_answers)
    via_search = False
    search_pool = [w for w in works if QueryKind.SEARCH in w.via or QueryKind.LIBRARY in w.via]
    if identity is None:
        ranked = sorted(search_pool, key=lambda w: assessments[id(w)].rank(), reverse=True)
        strong = [
            w
            for w in ranked
            if assessments[id(w)].title_matches and assessments[id(w)].first_author_agrees is not False
        ]
        if len(strong) >= 2 and cited.year is not None:
            dated = [w for w in strong if assessments[id(w)].year_agrees]
            if dated:
                strong = dated
        if len(strong) >= 2 and not any(
            _same_work(a, b) for a in strong[0].records for b in strong[1].records
        ):
            f.add(Reason.SEVERAL_CANDIDATES)
            return verdict(VerdictStatus.AMBIGUOUS, f)
        if strong:
            identity, via_search = strong[0], True
        elif cited.title:
            # No title match: a near miss by the same authors, a title pinned on real authors, or nothing.
            near = [
                w
                for w in ranked
                if assessments[id(w)].title_similarity >= NEAR_MISS_THRESHOLD
                and assessments[id(w)].first_author_agrees is True
            ]
            if near:
                identity, via_search = near[0], True
            elif conflict_work is None:
                chimera = [
                    w
                    for w in ranked
                    if assessments[id(w)].first_author_agrees is True
                    and (assessments[id(w)].authors is not None)
                    and assessments[id(w)].authors.matched_count >= 2  # type: ignore[union-attr]
                ]
                if chimera and not has_identifier:
                    f.add(Reason.TITLE_CHIMERA, major=True)

    # --- 3. an identifier that points elsewhere
    if conflict_work is not None and identity is None:
        a = assessments[id(conflict_work)]
        f.fields["title"] = FieldEvidence(
            cited=cited.title,
            found=conflict_work.primary.title,
            source=conflict_work.primary.source,
            similarity=round(a.title_similarity, 4),
            threshold=TITLE_THRESHOLD,
            decisive=True,
            agrees=False,
        )
        if a.authors is not None and a.author_source is not None:
            f.fields["first_author"] = FieldEvidence(
                cited=cited.authors[0].display if cited.authors else None,
                found=a.author_source.authors[0].display if a.author_source.authors else None,
                source=a.author_source.source,
                decisive=True,
                agrees=a.first_author_agrees,
            )
        if signals:
            return verdict(VerdictStatus.FABRICATED, f, match=conflict_work)
        return verdict(VerdictStatus.IDENTIFIER_CONFLICT, f, match=conflict_work)
    if conflict_work is not None and identity is not None and via_search:
        # The cited identifier names another work while the title finds this one.
        f.add(Reason.DOI_POINTS_ELSEWHERE if cited.doi else Reason.ARXIV_POINTS_ELSEWHERE)
        _compare_fields(cited, assessments[id(identity)], f, via_search)
        for key, value in (("doi", identity.primary.doi), ("arxiv_id", identity.primary.arxiv_id)):
            if value:
                f.corrected[key] = value
        return verdict(VerdictStatus.IDENTIFIER_CONFLICT, f, match=identity)

    # --- 4. nothing matched
    if identity is None:
        if signals or Reason.TITLE_CHIMERA in f.reasons:
            return verdict(VerdictStatus.FABRICATED, f)
        if nowhere and not id_failed and not search_failed:
            f.add(Reason.IDENTIFIER_RESOLVES_NOWHERE, major=True)
            return verdict(VerdictStatus.FABRICATED, f)
        if id_failed or search_failed or (search_outcome is None and not nowhere):
            return verdict(VerdictStatus.UNVERIFIABLE, f)
        f.add(Reason.NO_MATCH_FOUND)
        return verdict(VerdictStatus.NOT_FOUND, f)

    # --- 5. the work exists: compare fields, triangulate, check standing
    a = assessments[id(identity)]
    _compare_fields(cited, a, f, via_search)
    if nowhere:
        # A real work cited with an identifier that resolves nowhere: the identifier is invented.
        f.add(Reason.IDENTIFIER_RESOLVES_NOWHERE, major=True)
        if identity.primary.doi:
            f.corrected["doi"] = identity.primary.doi
    secondary, triangulated_ok = _triangulation(identity, f)
    standing, retraction = _retraction(evidence, identity)

    if signals:
        status = VerdictStatus.FABRICATED
    elif standing is RetractionKind.RETRACTED or standing is RetractionKind.WITHDRAWN:
        f.add(Reason.RETRACTED if standing is RetractionKind.RETRACTED else Reason.WITHDRAWN)
        status = VerdictStatus.RETRACTED
    elif f.major or f.minor:
        status = VerdictStatus.METADATA_ERROR
    elif not triangulated_ok:
        # Two sources disagree on a decisive field: default-deny, name the disagreement.
        status = VerdictStatus.AMBIGUOUS
    else:
        status = VerdictStatus.VERIFIED
    if standing is RetractionKind.EXPRESSION_OF_CONCERN:
        f.add(Reason.EXPRESSION_OF_CONCERN)
    elif standing is RetractionKind.CORRECTED:
        f.add(Reason.CORRECTED)
    if QueryKind.LIBRARY in identity.via and identity.sources == (SourceName.LIBRARY,):
        f.add(Reason.LIBRARY_HIT)
    doi = clean_doi(identity.primary.doi) if identity.primary.doi else None
    if doi and status is not VerdictStatus.VERIFIED and "doi" not in f.corrected and not cited.doi:
        f.corrected.setdefault("doi", doi)
    return verdict(
        status,
        f,
        match=identity,
        secondary=secondary,
        triangulated=triangulated_ok and Reason.TRIANGULATED in f.reasons,
        retraction=retraction,
    )
