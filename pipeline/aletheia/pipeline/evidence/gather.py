"""Gather what the sources say about one reference (the I/O half of verification).

Order, as the design asks: identifiers first (DOI -> Crossref + OpenAlex; arXiv -> arXiv +
Semantic Scholar; PMID -> PubMed + OpenAlex; an ACL Anthology URL -> the anthology), each
checked against the title and first author it is cited with; searches, in stages from the
cheapest, of every source that could hold the work (`core.coverage.search_coverage`) only when
no identifier settles the identity; then, when the
matched work has been seen by one source only, a second source is asked so the decisive fields
can be triangulated. A web page, a code repository, a dataset cited without a scholarly
identifier is asked of no source at all (`needs_no_lookups`). Every answer (and every failure)
is recorded, with the raw payload, so that the decision can be replayed.
"""

from __future__ import annotations

import asyncio
import bisect
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aletheia.core.acl_ids import cited_acl_id
from aletheia.core.arxiv_ids import arxiv_id_from_doi
from aletheia.core.dblp_venue import dblp_key_to_confirm
from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.field_rules import NEAR_MISS_THRESHOLD
from aletheia.core.matched_work import same_work
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.core.titles import title_similarity
from aletheia.core.verdicts import Verdict, VerdictStatus
from aletheia.core.work_kinds import classify_kind
from aletheia.pipeline.evidence.authorship import with_authorship
from aletheia.pipeline.evidence.book_quotes import ask_book_quote
from aletheia.pipeline.evidence.books import gather_book_evidence
from aletheia.pipeline.evidence.classical import verify_canonical
from aletheia.pipeline.evidence.gateway import SourceGateway, search_text
from aletheia.pipeline.evidence.mirror_tier import MirrorAnswer
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.evidence.settling import look_for_settling_evidence
from aletheia.pipeline.evidence.web_tiers import (
    fetch_cited_url,
    llm_suggestion,
    nothing_found,
    web_search_candidates,
)
from aletheia.sources.base import SourceError, SourceRecord
from aletheia.sources.transport import precedence

# Rounds of settling evidence: arXiv's latest version says which earlier ones to ask for next.
SETTLING_ROUNDS = 2
# Verdicts that an identifier lookup alone has settled: no search needed.
SETTLED_BY_IDENTIFIER = frozenset(
    {VerdictStatus.VERIFIED, VerdictStatus.METADATA_ERROR, VerdictStatus.RETRACTED, VerdictStatus.FABRICATED}
)


@dataclass
class Gathered:
    """Answers so far, plus the raw payloads they were parsed from (for storage and replay)."""

    answers: list[SourceAnswer] = field(default_factory=list)
    raw: list[SourceRecord] = field(default_factory=list)
    # The order each answer of `_ask` was asked in: answers are kept in it, not in the order the
    # sources happened to reply, so the evidence (and every field's source in the report) is the
    # same whichever source was faster, in one process or across workers.
    _asked: int = 0
    _slots: list[int] = field(default_factory=list)  # each answer's slot, beside `answers`

    def ask_slot(self) -> int:
        self._asked += 1
        return self._asked

    def add_answer(self, answer: SourceAnswer, slot: int | None = None) -> None:
        """Record an answer at its asking position (`slot` from `ask_slot`, taken when it was
        asked); without one, it is asked now: after every answer asked so far."""
        slot = self.ask_slot() if slot is None else slot
        at = bisect.bisect_right(self._slots, slot)
        self._slots.insert(at, slot)
        self.answers.insert(at, answer)

    def evidence(self, gateway: SourceGateway, cited: CitedReference) -> Evidence:
        notices = gateway.retraction_notices(cited, [r.record for r in self.raw])
        return Evidence(
            answers=tuple(self.answers),
            retraction_notices=tuple(notices),
            retraction_checked=gateway.retraction_index_loaded,
        )


async def _ask(
    gathered: Gathered,
    source: SourceName,
    kind: QueryKind,
    query: str,
    call: Callable[[], Awaitable[Any]],
) -> list[SourceRecord]:
    """Run one lookup and record its answer; never raises for source failures."""
    slot = gathered.ask_slot()
    try:
        result = await call()
    except SourceError as exc:  # SourceUnavailableError included
        gathered.add_answer(
            SourceAnswer(source=source, kind=kind, query=query, outcome=Outcome.FAILED, error=str(exc)), slot
        )
        return []
    records: list[SourceRecord]
    mirror_snapshot = None
    if isinstance(result, MirrorAnswer):  # answered at home (`mirror_tier`): no request made
        mirror_snapshot = result.snapshot_date
        records = list(result.records)
    elif result is None:
        records = []
    elif isinstance(result, SourceRecord):
        records = [result]
    else:
        records = [r for r in result if r is not None]
    gathered.raw.extend(records)
    gathered.add_answer(
        SourceAnswer(
            source=source,
            kind=kind,
            query=query,
            outcome=Outcome.FOUND if records else Outcome.NOT_FOUND,
            records=tuple(r.record for r in records),
            mirror_snapshot=mirror_snapshot,
        ),
        slot,
    )
    return records


async def _identifier_lookups(cited: CitedReference, gw: SourceGateway, g: Gathered) -> None:
    calls: list[Awaitable[list[SourceRecord]]] = []
    doi, arxiv = cited.doi, cited.arxiv_id
    from_doi = arxiv_id_from_doi(doi) if doi else None
    if from_doi is not None:
        # arXiv's DataCite DOIs are not in Crossref: ask arXiv (by the id the DOI carries, when
        # the citation does not give the id itself).
        arxiv, doi = arxiv or from_doi.id, None
    if doi:
        for source, call in gw.doi_lookups(doi):
            calls.append(_ask(g, source, QueryKind.DOI, doi, call))
    if arxiv:
        for source, call in gw.arxiv_lookups(arxiv, cited.arxiv_version):
            calls.append(_ask(g, source, QueryKind.ARXIV, arxiv, call))
    if cited.pmid:
        for source, call in gw.pmid_lookups(cited.pmid):
            calls.append(_ask(g, source, QueryKind.PMID, cited.pmid, call))
    acl_id = cited_acl_id(cited)
    if acl_id:
        # The ACL Anthology by the cited id: an identifier, like a DOI (`case._ID_KINDS`).
        calls.append(_ask(g, SourceName.ACL_ANTHOLOGY, QueryKind.ACL, acl_id, gw.cs.acl_lookup(acl_id)))
    if calls:
        await asyncio.gather(*calls)


def _found_by_search(cited: CitedReference, gw: SourceGateway, g: Gathered, current_year: int) -> bool:
    """The searches so far found the cited work: a match whose title agrees, not ambiguous."""
    verdict = decide(cited, g.evidence(gw, cited), current_year=current_year)
    title = verdict.fields.get("title")
    return (
        verdict.match is not None
        and verdict.status is not VerdictStatus.AMBIGUOUS
        and (title is None or title.agrees is True)
    )


async def _searches(cited: CitedReference, gw: SourceGateway, g: Gathered, *, current_year: int) -> None:
    """Search stage by stage (gateway.search_stages, over every source in `search_coverage`): a
    later, costlier search runs only when the earlier ones did not find the work. A near miss, a
    wrong author or nothing at all still asks every stage, so a better match elsewhere is never
    missed, and "not found" is said only after every source that could hold the work answered."""

    def near_miss_seen() -> bool:
        return _near_miss_seen(cited, g)

    stages = gw.search_stages(cited, near_miss_seen=near_miss_seen)
    later = later_work([[gw.search_interval(s.source) for s in stage] for stage in stages])
    for number, stage in enumerate(stages):
        if number and _found_by_search(cited, gw, g, current_year):
            return
        # A source serves first the waiting references with the most left to ask elsewhere
        # (`precedence`): the slow buckets after this stage are fed sooner.
        with precedence.later_work(later[number]):
            await asyncio.gather(*(_ask(g, s.source, QueryKind.SEARCH, s.query, s.call) for s in stage))


def later_work(stage_intervals: list[list[float]]) -> list[float]:
    """For each stage, the seconds of the sources' intervals its later stages may still take at
    their buckets, summed (each stage runs only when the earlier ones did not find the work: an
    upper bound)."""
    later, after = [0.0] * len(stage_intervals), 0.0
    for number in range(len(stage_intervals) - 1, -1, -1):
        later[number] = after
        after += sum(stage_intervals[number])
    return later


def _near_miss_seen(cited: CitedReference, g: Gathered) -> bool:
    """An answer so far holds a work whose title is a near miss of the cited one (the field
    rules' `NEAR_MISS_THRESHOLD`): a fuzzy title match elsewhere may hold one too, so Semantic
    Scholar's `match` is asked alone rather than read from a shared bulk search (`s2_titles`)."""
    if not cited.title:
        return False
    return any(
        record.title and title_similarity(cited.title, record.title) >= NEAR_MISS_THRESHOLD
        for answer in g.answers
        for record in answer.records
    )


def needs_no_lookups(cited: CitedReference) -> bool:
    """A kind the indexes do not hold at all (a web page, a code repository, a dataset, news:
    `classify_kind(...).out_of_scope`) is reported, not judged: no source is asked about it. A
    DOI, arXiv id or PMID it carries is still looked up, as for any reference."""
    if cited.doi or cited.arxiv_id or cited.pmid:
        return False
    kind = classify_kind(cited)
    return kind is not None and kind.out_of_scope


async def _second_source(verdict: Verdict, gw: SourceGateway, g: Gathered) -> bool:
    """Ask a second source for the matched work when only one has been seen. True if asked.

    Not asked: when two sources already have the work (by its identifier at both, or with an
    identifier in common), nor a source that has already answered a lookup of that identifier
    (its "not found" would only be said again)."""
    match = verdict.match
    if match is None:
        return False
    seen = {r.source for r in (verdict.match, verdict.secondary) if r is not None}
    seen |= {
        a.source
        for a in g.answers
        if a.outcome is Outcome.FOUND and any(same_work(r, match) for r in a.records)
    }
    if len(seen - {SourceName.LIBRARY}) >= 2:
        return False
    answered = {(a.source, a.kind, a.query.casefold()) for a in g.answers if a.outcome is not Outcome.FAILED}
    seen |= {source for source, kind, query in answered if _names(match, kind, query)}
    # Lookups, not coroutines: only the first is run, and a coroutine never awaited is a warning.
    lookups: list[tuple[SourceName, QueryKind, str, Callable[[], Awaitable[Any]]]] = []
    if match.doi and arxiv_id_from_doi(match.doi) is None:
        for source, call in gw.doi_lookups(match.doi):
            if source not in seen:
                lookups.append((source, QueryKind.DOI, match.doi, call))
    if not lookups and match.arxiv_id:
        for source, call in gw.arxiv_lookups(match.arxiv_id, None):
            if source not in seen:
                lookups.append((source, QueryKind.ARXIV, match.arxiv_id, call))
    if not lookups and match.pmid:
        for source, call in gw.pmid_lookups(match.pmid):
            if source not in seen:
                lookups.append((source, QueryKind.PMID, match.pmid, call))
    if not lookups:
        return False
    # Only the first missing source is needed for triangulation.
    source, kind, query, call = lookups[0]
    await _ask(g, source, kind, query, call)
    return True


def _names(work: WorkRecord, kind: QueryKind, query: str) -> bool:
    """The lookup (kind, casefolded query) asked for this work's own identifier."""
    value = {QueryKind.DOI: work.doi, QueryKind.ARXIV: work.arxiv_id, QueryKind.PMID: work.pmid}.get(kind)
    return bool(value) and str(value).casefold() == query


async def verify_reference(
    cited: CitedReference, gw: SourceGateway, *, current_year: int
) -> ReferenceOutcome:
    """Verify one reference: ask the sources in stages and decide after each stage."""
    with precedence.reference_started():  # an older reference's requests go first (`precedence`)
        return await _verify_reference(cited, gw, current_year=current_year)


async def _verify_reference(
    cited: CitedReference, gw: SourceGateway, *, current_year: int
) -> ReferenceOutcome:
    g = Gathered()
    ask = functools.partial(_ask, g)
    # Tier 3: a canonical reference ("Homer, Iliad 1.1") is checked against its passage only.
    canonical = await verify_canonical(cited, gw, g, ask, current_year=current_year)
    if canonical is not None:
        return ReferenceOutcome(cited=cited, verdict=canonical[1], evidence=canonical[0], raw=g.raw)
    if needs_no_lookups(cited):
        await fetch_cited_url(cited, gw, ask)  # Tier 4: only when the web tier is on
        evidence = g.evidence(gw, cited)
        verdict = decide(cited, evidence, current_year=current_year)
        return ReferenceOutcome(cited=cited, verdict=verdict, evidence=evidence, raw=g.raw)
    library_hit = await _library_hit(cited, gw, g, current_year=current_year)
    # Offline, a library hit is all there is: nothing more is asked of it.
    live = not (library_hit and gw.offline)
    verdict = await _find_the_work(
        cited, gw, g, library_hit=library_hit, live=live, current_year=current_year
    )
    # From here on a library hit is treated as a first run: the questions below are asked only
    # when the verdict leaves them open, as they were when the work was first verified.
    if live:
        verdict = await _settle_the_match(cited, verdict, gw, g, current_year=current_year)
    if nothing_found(verdict):
        verdict = await _last_resort_tiers(cited, verdict, gw, g, current_year=current_year)
    # Paper-mill signals: the authors' other works, asked only when another indicator fired.
    evidence = await with_authorship(verdict, g.evidence(gw, cited), gw)
    return ReferenceOutcome(cited=cited, verdict=verdict, evidence=evidence, raw=g.raw)


async def _library_hit(cited: CitedReference, gw: SourceGateway, g: Gathered, *, current_year: int) -> bool:
    """Tier 0: the works verified before. Its answers are recorded; a hit counts only when it
    verifies the reference (offline, any hit counts: nothing more can be asked)."""
    from_library: list[SourceAnswer] = []
    library_hit = await gw.library_lookup(cited, from_library, g.raw)
    for answer in from_library:
        g.add_answer(answer)
    if (
        library_hit
        and not gw.offline
        and decide(cited, g.evidence(gw, cited), current_year=current_year).status
        is not VerdictStatus.VERIFIED
    ):
        # The library is a cache of verified works, not an oracle: a mismatch is asked of the
        # sources as on a first run, every step of it.
        library_hit = False
    return library_hit


async def _find_the_work(
    cited: CitedReference, gw: SourceGateway, g: Gathered, *, library_hit: bool, live: bool, current_year: int
) -> Verdict:
    """The look-ups that find the work: identifiers, the book catalogues, then the searches (unless
    an identifier or a catalogue settled it, or the library already holds it)."""
    ask = functools.partial(_ask, g)
    book_settled = False
    if library_hit and live:
        # A hit stands for the look-ups that find the work (identifiers, catalogues, searches),
        # never for what is checked of it: the library holds no book's pages, so a quote cited
        # from a book is searched inside it as on a first run (docs/sources.md, Tier 0).
        await ask_book_quote(cited, gw, g, ask, current_year=current_year)
    elif not library_hit:
        await _identifier_lookups(cited, gw, g)
        # Tier 1: a book is asked of the catalogues (ISBN, then title/author) before the searches.
        book_settled = await gather_book_evidence(cited, gw, g, ask, current_year=current_year)
    verdict = decide(cited, g.evidence(gw, cited), current_year=current_year)
    identity_from_identifier = verdict.match is not None and verdict.status in SETTLED_BY_IDENTIFIER
    if (
        not identity_from_identifier
        and not book_settled
        and verdict.status is not VerdictStatus.OUT_OF_SCOPE
        and not library_hit
    ):
        await _searches(cited, gw, g, current_year=current_year)
        verdict = decide(cited, g.evidence(gw, cited), current_year=current_year)
    return verdict


async def _settle_the_match(
    cited: CitedReference, verdict: Verdict, gw: SourceGateway, g: Gathered, *, current_year: int
) -> Verdict:
    """The questions a match leaves open: a second source for triangulation, DBLP's record of a
    venue in doubt, and the evidence that settles a venue, publication or version question."""
    ask = functools.partial(_ask, g)
    if verdict.match is not None and verdict.secondary is None and await _second_source(verdict, gw, g):
        verdict = decide(cited, g.evidence(gw, cited), current_year=current_year)
    dblp_key = dblp_key_to_confirm(cited, verdict, g.answers)
    if dblp_key is not None:
        # A venue the sources left in doubt, under a DBLP key of that venue: DBLP's record settles it.
        await _ask(g, SourceName.DBLP, QueryKind.SEARCH, dblp_key, gw.dblp_record(dblp_key))
        verdict = decide(cited, g.evidence(gw, cited), current_year=current_year)
    for _ in range(SETTLING_ROUNDS):
        if verdict.match is None or not await look_for_settling_evidence(cited, verdict, gw, g, ask):
            break
        # Issue 21: the registries, the publication-recording sources and arXiv's versions asked
        # for what would settle a venue, publication or version question left open.
        verdict = decide(cited, g.evidence(gw, cited), current_year=current_year)
    return verdict


async def _last_resort_tiers(
    cited: CitedReference, verdict: Verdict, gw: SourceGateway, g: Gathered, *, current_year: int
) -> Verdict:
    """Tiers 4 and 5 (`web_tiers`) when nothing was found: candidates from a web search, looked up
    by identifier; then an LLM's suggestion, never evidence. Skipped tiers are recorded as such."""
    ask = functools.partial(_ask, g)
    if await web_search_candidates(search_text(cited), gw, ask):
        verdict = decide(cited, g.evidence(gw, cited), current_year=current_year)
    if nothing_found(verdict):
        await llm_suggestion(cited, gw, ask)
        verdict = decide(cited, g.evidence(gw, cited), current_year=current_year)
    return verdict
