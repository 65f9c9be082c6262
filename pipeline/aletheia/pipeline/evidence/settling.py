"""Going looking for the evidence that settles venue, publication, version and author-list
questions (issue 21).

The field rules accuse only on positive evidence; this step fetches it when a verdict is left at
a minor note that more answers could settle:

- `venue_unresolved`, `venue_form` or `published_version_unconfirmed`: the venue registries
  (OpenAlex sources, DBLP venues, Crossref journals) are asked for the cited venue name, once per
  distinct name (their answers are cached for long by the source clients);
- `published_version_unconfirmed`: the witnesses that would show a published version are asked
  (Semantic Scholar by the arXiv id, DBLP's title search for a computing venue, OpenAlex's
  otherwise), so that "preprint only" is their answer, not our silence;
- `title_changed_between_versions`: arXiv is asked for the paper's latest version when its record
  is not among the answers, then for the earlier versions, whose titles say whether the cited title
  was ever the paper's (the caller asks again while answers come: `SETTLING_ROUNDS`);
- one co-author left out, seen at one source only (the `one_coauthor_omitted` row, `single_source`):
  Semantic Scholar's title match is asked for a second author list, since one source's list may
  hold a wrong extra name and two agreeing lists confirm the omission.

Nothing here decides: `decide()` reads the answers (`core.venue_registry`, `core.publication`,
`core.arxiv_versions`, the author rows of `core.field_rules`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from aletheia.core.arxiv_versions import version_titles, versions_to_fetch
from aletheia.core.cs_scope import is_computing_venue
from aletheia.core.evidence import Outcome, QueryKind, SourceAnswer, VenueRecord
from aletheia.core.matched_work import records_of_match
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.core.venue_registry import registry_query, venue_answers
from aletheia.core.verdicts import Reason, Severity, Verdict
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.pipeline.evidence.title_searches import first_author
from aletheia.sources.base import SourceError

# The verdict notes that more answers could settle.
_VENUE_QUESTIONS = frozenset(
    {Reason.VENUE_UNRESOLVED, Reason.VENUE_FORM, Reason.PUBLISHED_VERSION_UNCONFIRMED}
)


class _Gathered(Protocol):
    answers: list[SourceAnswer]

    def ask_slot(self) -> int: ...

    def add_answer(self, answer: SourceAnswer, slot: int | None = None) -> None: ...


Ask = Callable[[SourceName, QueryKind, str, Callable[[], Awaitable[Any]]], Awaitable[Any]]


async def ask_registry(
    gathered: _Gathered, source: SourceName, name: str, call: Callable[[], Awaitable[list[VenueRecord]]]
) -> None:
    """One registry asked for one venue name; its answer (or failure) recorded, never raised."""
    slot = gathered.ask_slot()  # answers kept in the order asked, whichever registry is faster
    try:
        venues = await call()
    except SourceError as exc:
        gathered.add_answer(
            SourceAnswer(
                source=source, kind=QueryKind.VENUE, query=name, outcome=Outcome.FAILED, error=str(exc)
            ),
            slot,
        )
        return
    gathered.add_answer(
        SourceAnswer(
            source=source,
            kind=QueryKind.VENUE,
            query=name,
            outcome=Outcome.FOUND if venues else Outcome.NOT_FOUND,
            venues=tuple(venues),
        ),
        slot,
    )


def rules_fired(verdict: Verdict) -> set[str]:
    """The names of the rule rows that fired (`decide` writes them as the "rules: ..." note)."""
    for note in verdict.notes:
        if note.startswith("rules: "):
            return set(note.removeprefix("rules: ").split(", "))
    return set()


def _preprint_witness_calls(
    cited: CitedReference,
    arxiv_id: str | None,
    records: Sequence[WorkRecord],
    gw: SourceGateway,
    gathered: _Gathered,
    ask: Ask,
) -> list[Awaitable[Any]]:
    """The witnesses that would show a published version (`core.publication`): Semantic Scholar's
    merged record (by the arXiv id), and a title search of DBLP for a computing venue, OpenAlex's
    otherwise, each asked only when not asked already. Their mirrored searches are given no year:
    a published version comes after the cited preprint, so only a fresh mirror can say there is none."""
    calls: list[Awaitable[Any]] = []
    asked = {(a.source, a.kind) for a in gathered.answers}
    holding = {r.source for r in records}
    if arxiv_id and SourceName.SEMANTIC_SCHOLAR not in holding:
        for source, call in gw.arxiv_lookups(arxiv_id, None):
            if source is SourceName.SEMANTIC_SCHOLAR and (source, QueryKind.ARXIV) not in asked:
                calls.append(ask(source, QueryKind.ARXIV, arxiv_id, call))
    title = cited.title
    if not title:
        return calls
    if is_computing_venue(cited.venue or ""):
        if (SourceName.DBLP, QueryKind.SEARCH) not in asked:
            calls.append(
                ask(
                    SourceName.DBLP,
                    QueryKind.SEARCH,
                    title,
                    gw.mirrored_search(SourceName.DBLP, title, gw.cs.dblp_search(title)),
                )
            )
    elif (SourceName.OPENALEX, QueryKind.SEARCH) not in asked:
        author = first_author(cited)
        query = f"{title} | author: {author}" if author else title
        calls.append(
            ask(
                SourceName.OPENALEX,
                QueryKind.SEARCH,
                query,
                gw.mirrored_search(
                    SourceName.OPENALEX,
                    title,
                    lambda: gw.openalex.search(title=title, author=author, per_page=5),
                ),
            )
        )
    return calls


async def look_for_settling_evidence(
    cited: CitedReference, verdict: Verdict, gw: SourceGateway, gathered: _Gathered, ask: Ask
) -> bool:
    """Ask what would settle the verdict's open venue, publication and version questions. True
    when anything was asked (the caller decides again)."""
    reasons = set(verdict.reasons)
    calls: list[Awaitable[Any]] = []
    if reasons & _VENUE_QUESTIONS:
        name = registry_query(cited.venue)
        if name is not None and not venue_answers(gathered.answers, name):
            calls += [ask_registry(gathered, source, name, call) for source, call in gw.venue_lookups(name)]
    records = records_of_match(verdict.match, gathered.answers)
    arxiv_id = verdict.match.arxiv_id if verdict.match is not None else None
    if Reason.PUBLISHED_VERSION_UNCONFIRMED in reasons:
        calls += _preprint_witness_calls(cited, arxiv_id, records, gw, gathered, ask)
    version_id = cited.arxiv_id or arxiv_id
    if Reason.TITLE_CHANGED_BETWEEN_VERSIONS in reasons and version_id:
        # The latest version first when arXiv's record is not among the answers (a work found by
        # title search): its number says which earlier versions to ask for next.
        known = version_titles(version_id, records)
        wanted: list[int | None] = list(versions_to_fetch(version_id, records)) if known else [None]
        asked = {a.query for a in gathered.answers if a.source is SourceName.ARXIV}
        for version in wanted:
            query = f"{version_id}v{version}" if version else version_id
            for source, call in gw.arxiv_lookups(version_id, version):
                if source is SourceName.ARXIV and query not in asked:
                    calls.append(ask(source, QueryKind.ARXIV, query, call))
    if (
        "one_coauthor_omitted" in rules_fired(verdict)
        and Reason.SINGLE_SOURCE in reasons
        and verdict.severity is Severity.MINOR
        and cited.title
        and verdict.match is not None
        and verdict.match.source is not SourceName.SEMANTIC_SCHOLAR
        and not any(
            a.source is SourceName.SEMANTIC_SCHOLAR and a.kind is QueryKind.SEARCH for a in gathered.answers
        )
    ):
        title = cited.title
        calls.append(
            ask(
                SourceName.SEMANTIC_SCHOLAR,
                QueryKind.SEARCH,
                title,
                lambda: gw.semantic_scholar.match_title(title, alone=True),
            )
        )
    if not calls:
        return False
    await asyncio.gather(*calls)
    return True
