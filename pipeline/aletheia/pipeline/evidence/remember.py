"""A found work's records kept in the Tier-0 library (`remember_found`), after each reference's
decision is recorded (`jobs/bibliography.verify_item`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol

from aletheia.core.library_work import records_to_remember
from aletheia.core.verdicts import Verdict, VerdictStatus
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.evidence.web_tiers import NOT_LIBRARY_SOURCES
from aletheia.sources.base import SourceRecord


class WorkLibrary(Protocol):
    """The Tier-0 library as `remember_found` uses it (`storage.stores.SqlLibrary`)."""

    async def remember(self, records: Sequence[SourceRecord]) -> None: ...


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
