"""Many references through `verify_reference` at once: input order out, `concurrency` in flight.

References stream in from the input parsers and out as outcomes, in input order: memory does not
grow with the input. `aletheia fix`, the cited references of `aletheia claims` and the benchmarks
read outcomes this way; a bibliography job verifies one item per step (`jobs/bibliography.py`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Iterable, Sequence
from datetime import UTC, datetime
from typing import Final, Protocol

from aletheia.core.bibliography import InputProblem
from aletheia.core.library_work import records_to_remember
from aletheia.core.records import CitedReference
from aletheia.core.verdicts import Verdict, VerdictStatus
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.pipeline.evidence.gather import verify_reference
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.evidence.web_tiers import NOT_LIBRARY_SOURCES
from aletheia.sources.base import SourceRecord

DEFAULT_CONCURRENCY = 32
# Outcomes finished ahead of the one to yield next, at most this many times `concurrency`.
LOOKAHEAD = 4


class WorkLibrary(Protocol):
    """The Tier-0 library as `remember_found` uses it (`storage.stores.SqlLibrary`)."""

    async def remember(self, records: Sequence[SourceRecord]) -> None: ...


async def verify_stream(
    refs: Iterable[CitedReference | InputProblem],
    gateway: SourceGateway,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    current_year: int | None = None,
    problems: list[InputProblem] | None = None,
) -> AsyncIterator[ReferenceOutcome]:
    """Yield one outcome per reference, in input order, with `concurrency` references in flight.

    A reference is started whenever one finishes, not when the oldest is yielded: one reference
    waiting for a slow source (arXiv: one request per 3 s) must not idle the others (head-of-line
    blocking), which would also leave the coalescers too few lookups to batch. Finished outcomes
    wait for their turn in a buffer of at most `LOOKAHEAD` x `concurrency` references."""
    year = current_year or datetime.now(UTC).year
    window: deque[asyncio.Task[ReferenceOutcome]] = deque()
    it = iter(refs)
    exhausted = closed = False
    running = 0

    def finished(_: asyncio.Task[ReferenceOutcome]) -> None:
        nonlocal running
        running -= 1
        refill()

    def refill() -> None:
        nonlocal exhausted, running
        while (
            not exhausted and not closed and running < concurrency and len(window) < LOOKAHEAD * concurrency
        ):
            try:
                item = next(it)
            except StopIteration:
                exhausted = True
                return
            if isinstance(item, InputProblem):
                if problems is not None:
                    problems.append(item)
                continue
            task = asyncio.create_task(verify_reference(item, gateway, current_year=year))
            running += 1
            task.add_done_callback(finished)
            window.append(task)

    refill()
    try:
        while window:
            outcome = await window.popleft()
            refill()
            yield outcome
    finally:
        closed = True
        for task in window:
            task.cancel()


# A work found with one of these verdicts has its fresh records kept in the Tier-0 library on any
# run: verified works for reuse, retracted ones so the library never answers `verified` for them.
REMEMBERED: Final = frozenset({VerdictStatus.VERIFIED, VerdictStatus.RETRACTED})


async def remember_found(library: WorkLibrary, outcome: ReferenceOutcome, *, audit: bool = False) -> None:
    """A found work's fresh scholarly records, kept in the Tier-0 library (a row per source and
    work, replaced by the newer record): a verified or retracted reference's on any run, and on
    the weekly audit (`audit`: every source asked afresh) every matched work's, whatever its
    verdict. Whatever the audit learns of a work (a retraction notice, a corrected title) reaches
    the library the later jobs answer from (issue 30: a work the audit found retracted kept coming
    back `verified` from the library, which the audit had not updated)."""
    verdict: Verdict = outcome.verdict
    if verdict.match is None or not (audit or verdict.status in REMEMBERED):
        return
    # Only the matched work's records (never a namesake a search returned, nor a book's page
    # snippets); web pages, web search results and LLM suggestions are no scholarly works.
    work = records_to_remember(verdict, outcome.evidence)
    fresh = [
        r
        for r in outcome.raw
        if not r.from_cache and r.source not in NOT_LIBRARY_SOURCES and any(r.record == w for w in work)
    ]
    if fresh:
        await library.remember(fresh)
