"""The evidence keeps the sources' answers in the order they were asked, whichever replied first
(issue 22: the same input gives the same report in one process and across workers)."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia.core.evidence import Outcome, QueryKind, SourceAnswer
from aletheia.core.records import SourceName
from aletheia.pipeline.evidence.gather import Gathered, _ask
from aletheia.sources.base import SourceUnavailableError

SOURCES = (SourceName.CROSSREF, SourceName.OPENALEX, SourceName.SEMANTIC_SCHOLAR, SourceName.ARXIV)


@settings(max_examples=60, deadline=None)
@given(delays=st.lists(st.integers(0, 5), min_size=1, max_size=4), failing=st.sets(st.integers(0, 3)))
def test_answers_are_in_asking_order_whatever_the_reply_order(delays: list[int], failing: set[int]) -> None:
    async def run() -> list[SourceName]:
        gathered = Gathered()

        def call(index: int) -> object:
            async def reply() -> None:
                for _ in range(delays[index]):
                    await asyncio.sleep(0)
                if index in failing:
                    raise SourceUnavailableError(SOURCES[index], "down")

            return reply

        await asyncio.gather(
            *(
                _ask(gathered, SOURCES[i], QueryKind.DOI, "10.1/x", call(i))  # type: ignore[arg-type]
                for i in range(len(delays))
            )
        )
        assert [a.outcome is Outcome.FAILED for a in gathered.answers] == [
            i in failing for i in range(len(delays))
        ]
        return [a.source for a in gathered.answers]

    assert asyncio.run(run()) == list(SOURCES[: len(delays)])


def test_an_answer_added_without_a_slot_goes_after_those_recorded() -> None:
    gathered = Gathered()
    first, second = gathered.ask_slot(), gathered.ask_slot()
    answer = {
        s: SourceAnswer(source=s, kind=QueryKind.DOI, query="q", outcome=Outcome.NOT_FOUND) for s in SOURCES
    }
    gathered.add_answer(answer[SourceName.ARXIV])  # no slot, as the library's: asked now
    gathered.add_answer(answer[SourceName.OPENALEX], second)
    gathered.add_answer(answer[SourceName.CROSSREF], first)
    gathered.add_answer(answer[SourceName.SEMANTIC_SCHOLAR])
    assert [a.source for a in gathered.answers][-1] is SourceName.SEMANTIC_SCHOLAR
    order = [a.source for a in gathered.answers]
    assert order.index(SourceName.CROSSREF) < order.index(SourceName.OPENALEX)
