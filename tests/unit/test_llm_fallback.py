"""Tier 5, the LLM fallback: a suggestion is recorded, shown, and never evidence (a property), with a
fake model; no key, a recorded skip."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from aletheia.config import Settings
from aletheia.core.coverage import search_coverage
from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import VerdictStatus
from aletheia.pipeline.evidence.llm_fallback import (
    NO_KEY,
    SUGGEST_TOOL,
    ReferenceSuggester,
    parse_suggestion,
    suggester_from_settings,
)
from aletheia.sources.base import SourceUnavailableError, TransientSourceError
from tests.unit.fake_llm import FakeLLM, tool_reply

YEAR = 2026
AUTHORS = (Author(given="Tom", family="Brown"), Author(given="Benjamin", family="Mann"))
CITED = CitedReference(
    key="brown2020",
    entry_type="inproceedings",
    title="Language Models are Few-Shot Learners",
    authors=AUTHORS,
    year=2020,
    venue="NeurIPS",
)
SEARCHED = search_coverage(CITED)  # every source that could hold it, so "not found" can be said


def suggestion(record: WorkRecord | None, outcome: Outcome = Outcome.FOUND) -> SourceAnswer:
    return SourceAnswer(
        source=SourceName.LLM,
        kind=QueryKind.SUGGESTION,
        query="q",
        outcome=outcome,
        records=(record,) if record is not None else (),
        error="skipped" if outcome is Outcome.FAILED else None,
    )


def the_cited_work(**kw: Any) -> WorkRecord:
    """The worst case: the model suggests exactly the cited work, identifiers and all."""
    base: dict[str, Any] = {
        "source": SourceName.LLM,
        "title": CITED.title,
        "authors": AUTHORS,
        "year": 2020,
        "venue": "Advances in Neural Information Processing Systems",
        "doi": "10.5555/few-shot",
        "arxiv_id": "2005.14165",
    }
    base.update(kw)
    return WorkRecord(**base)


async def test_a_suggestion_is_parsed_from_the_tool_call() -> None:
    llm = FakeLLM(
        [
            tool_reply(
                "suggest_reference",
                {
                    "title": "Language Models are Few-Shot Learners",
                    "authors": ["Tom B. Brown", "Benjamin Mann"],
                    "year": 2020,
                    "doi": "https://doi.org/10.48550/arXiv.2005.14165",
                    "arxiv_id": "arXiv:2005.14165v4",
                },
            )
        ]
    )
    found = await ReferenceSuggester(llm).suggest(CITED)
    assert found is not None and found.record.source is SourceName.LLM
    assert found.record.work_type == "suggestion" and found.record.arxiv_id == "2005.14165"
    assert found.record.doi == "10.48550/arxiv.2005.14165"
    assert [a.literal for a in found.record.authors] == ["Tom B. Brown", "Benjamin Mann"]
    request = llm.requests[0]
    assert request["tools"] == [SUGGEST_TOOL["name"]]
    assert request["tool_choice"] == {"type": "tool", "name": "suggest_reference"}
    assert "Language Models are Few-Shot Learners" in request["messages"][0]["content"]


async def test_an_empty_suggestion_or_a_failure() -> None:
    assert (
        await ReferenceSuggester(FakeLLM([tool_reply("suggest_reference", {"title": None})])).suggest(CITED)
        is None
    )
    with pytest.raises(TransientSourceError, match="could not be asked"):
        await ReferenceSuggester(FakeLLM([])).suggest(CITED)  # the fake raises LLMError
    assert parse_suggestion({"title": "  ", "doi": "not a doi", "year": "2020"}) is None


async def test_without_a_key_the_fallback_is_a_recorded_skip() -> None:
    suggester = suggester_from_settings(Settings())
    assert not suggester.enabled
    with pytest.raises(SourceUnavailableError, match="ANTHROPIC_API_KEY"):
        await suggester.suggest(CITED)
    assert "ANTHROPIC_API_KEY" in NO_KEY
    assert suggester_from_settings(Settings(anthropic_api_key="sk-test")).enabled
    assert not suggester_from_settings(Settings(anthropic_api_key="sk-test", offline=True)).enabled


def test_a_suggestion_is_shown_but_never_weighed() -> None:
    nothing = Evidence(
        answers=tuple(
            SourceAnswer(source=s, kind=QueryKind.SEARCH, query="q", outcome=Outcome.NOT_FOUND)
            for s in SEARCHED
        )
    )
    base = decide(CITED, nothing, current_year=YEAR)
    with_it = decide(
        CITED, Evidence(answers=(*nothing.answers, suggestion(the_cited_work()))), current_year=YEAR
    )
    assert base.status is VerdictStatus.NOT_FOUND and with_it.status is VerdictStatus.NOT_FOUND
    assert with_it.match is None and SourceName.LLM not in with_it.sources_consulted
    assert any(n.startswith("LLM suggestion (not evidence") and "Few-Shot" in n for n in with_it.notes)
    skipped = decide(
        CITED, Evidence(answers=(*nothing.answers, suggestion(None, Outcome.FAILED))), current_year=YEAR
    )
    assert skipped.status is VerdictStatus.NOT_FOUND and SourceName.LLM not in skipped.sources_unavailable


# A few base cases the suggestion is added to: nothing asked, nothing found, a failed search, and a
# real match (whose verdict a suggestion must not change either).
_BASES: list[tuple[SourceAnswer, ...]] = [
    (),
    tuple(
        SourceAnswer(source=s, kind=QueryKind.SEARCH, query="q", outcome=Outcome.NOT_FOUND) for s in SEARCHED
    ),
    (
        SourceAnswer(
            source=SourceName.OPENALEX, kind=QueryKind.SEARCH, query="q", outcome=Outcome.FAILED, error="503"
        ),
    ),
    (
        SourceAnswer(
            source=SourceName.OPENALEX,
            kind=QueryKind.SEARCH,
            query="q",
            outcome=Outcome.FOUND,
            records=(
                the_cited_work(
                    source=SourceName.OPENALEX, doi=None, arxiv_id=None, title="Another Paper Entirely"
                ),
            ),
        ),
    ),
    # the cited work, found: its verified verdict must stay as it is
    (
        SourceAnswer(
            source=SourceName.OPENALEX,
            kind=QueryKind.SEARCH,
            query="q",
            outcome=Outcome.FOUND,
            records=(the_cited_work(source=SourceName.OPENALEX),),
        ),
    ),
]
titles = st.one_of(st.just(CITED.title), st.text(max_size=60))
suggested = st.builds(
    the_cited_work,
    title=titles,
    doi=st.one_of(
        st.none(), st.just("10.5555/few-shot"), st.from_regex(r"10\.\d{4}/[a-z]{1,8}", fullmatch=True)
    ),
    arxiv_id=st.one_of(st.none(), st.just("2005.14165")),
    year=st.one_of(st.none(), st.integers(1900, 2030)),
)
cited_refs = st.builds(
    CitedReference,
    key=st.just("k"),
    title=titles,
    authors=st.just(AUTHORS),
    year=st.one_of(st.none(), st.integers(1950, 2026)),
    doi=st.one_of(st.none(), st.just("10.5555/few-shot")),
    arxiv_id=st.one_of(st.none(), st.just("2005.14165")),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cited=cited_refs, base=st.sampled_from(_BASES), records=st.lists(suggested, max_size=3))
@example(cited=CITED, base=(), records=[the_cited_work()])
def test_an_llm_suggestion_alone_never_yields_verified(
    cited: CitedReference, base: tuple[SourceAnswer, ...], records: list[WorkRecord]
) -> None:
    """A suggestion never makes a reference verified, and never changes its status or reasons."""
    answers = tuple(suggestion(r) for r in records)
    alone = decide(cited, Evidence(answers=answers), current_year=YEAR)
    assert alone.status is not VerdictStatus.VERIFIED
    before = decide(cited, Evidence(answers=base), current_year=YEAR)
    after = decide(cited, Evidence(answers=(*base, *answers)), current_year=YEAR)
    assert (after.status, after.reasons, after.match) == (before.status, before.reasons, before.match)
