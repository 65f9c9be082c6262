"""The reasoners: the lexical path, the model path's tool-use loop (fake LLM), the Anthropic adapter."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from aletheia.config import Settings
from aletheia.core.excerpts import PaperText, TextBlock
from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.pipeline.claims.model import Candidate
from aletheia.pipeline.claims.reasoner import (
    MAX_RANKING_ITERATIONS,
    LexicalReasoner,
    ModelReasoner,
    lexical_claim,
    reasoner_from_settings,
)
from aletheia.pipeline.claims.tool_schemas import TOOL_DEFINITIONS
from aletheia.pipeline.llm.client import AnthropicLLM, LLMError
from tests.unit.fake_llm import FakeLLM, tool_reply


def candidate(title: str, abstract: str, doi: str) -> Candidate:
    record = WorkRecord(
        source=SourceName.SEMANTIC_SCHOLAR,
        title=title,
        abstract=abstract,
        doi=doi,
        authors=(Author(given="Ada", family="Quist"),),
        year=2020,
    )
    return Candidate.of(record)


RELEVANT = candidate(
    "Vitamin K2 and arterial calcification",
    "Vitamin K2 supplementation slows arterial calcification in older adults.",
    "10.5555/a",
)
OFF_TOPIC = candidate("Graph colouring heuristics", "We colour graphs greedily.", "10.5555/b")


def test_lexical_claim_queries_and_hint() -> None:
    claim = lexical_claim("# research: Vitamin K2 supplementation slows arterial calcification", "Quist 2020")
    assert claim.assertion == "Vitamin K2 supplementation slows arterial calcification"
    assert claim.year_hint == 2020
    assert claim.queries[0] == "Vitamin K2 supplementation slows arterial calcification"
    assert any("Quist" in q for q in claim.queries)
    by_id = lexical_claim("it works", "arXiv:1902.06156v2")
    assert by_id.arxiv_id == "1902.06156"  # asked for directly, however vague the text
    assert lexical_claim("Things are good", None).queries == ()


async def test_lexical_ranking_keeps_plausible_candidates_only() -> None:
    reasoner = LexicalReasoner()
    claim = lexical_claim("Vitamin K2 supplementation slows arterial calcification", None)
    searched: list[str] = []

    async def search(query: str, year: int | None) -> list[Candidate]:
        searched.append(query)
        return [OFF_TOPIC, RELEVANT]

    ranking = await reasoner.rank_candidates(claim, [], search)
    assert [c.key for c in ranking.ranked] == ["doi:10.5555/a"]
    assert ranking.ranked[0].relevance == 1.0
    assert ranking.iterations == 1 and searched == [claim.queries[0]]


async def test_lexical_ranking_gives_up_after_the_queries() -> None:
    claim = lexical_claim("Vitamin K2 supplementation slows arterial calcification in older adults", "Quist")
    calls: list[str] = []

    async def search(query: str, year: int | None) -> list[Candidate]:
        calls.append(query)
        return [OFF_TOPIC]

    ranking = await LexicalReasoner().rank_candidates(claim, [], search)
    assert ranking.ranked == ()
    assert 1 <= len(calls) <= MAX_RANKING_ITERATIONS


async def test_lexical_excerpts_skip_negated_sentences() -> None:
    paper = PaperText(
        blocks=(
            TextBlock(
                text="Vitamin K2 supplementation did not slow arterial calcification in the placebo arm. "
                "Vitamin K2 supplementation slows arterial calcification over two years.",
                section="Results",
            ),
        ),
        origin="html",
    )
    proposals = await LexicalReasoner().propose_excerpts(
        "Vitamin K2 supplementation slows arterial calcification", paper
    )
    assert proposals == ["Vitamin K2 supplementation slows arterial calcification over two years."]


async def test_model_ranking_loop_is_capped() -> None:
    llm = FakeLLM(
        [
            tool_reply("search_papers", {"query": "vitamin k2"}),
            tool_reply("search_papers", {"query": "menaquinone calcification"}),
            tool_reply("submit_ranking", {"paper_ids": ["doi:10.5555/a", "doi:10.9999/invented"]}),
        ]
    )
    reasoner = ModelReasoner(llm)
    claim = lexical_claim("Vitamin K2 supplementation slows arterial calcification", None)
    queries: list[str] = []

    async def search(query: str, year: int | None) -> list[Candidate]:
        queries.append(query)
        return [RELEVANT]

    ranking = await reasoner.rank_candidates(claim, [OFF_TOPIC], search)
    assert [c.key for c in ranking.ranked] == ["doi:10.5555/a"]  # an invented id is ignored
    assert ranking.iterations == MAX_RANKING_ITERATIONS
    assert queries == ["vitamin k2", "menaquinone calcification"]
    # The last turn forces the ranking; the tool results went back with the tool_use ids.
    assert llm.requests[-1]["tool_choice"] == {"type": "tool", "name": "submit_ranking"}
    last_user = llm.requests[-1]["messages"][-1]
    assert last_user["role"] == "user" and last_user["content"][0]["type"] == "tool_result"
    assert llm.requests[0]["tools"] == ["search_papers", "submit_ranking"]


async def test_model_that_answers_out_of_protocol_is_an_error() -> None:
    reasoner = ModelReasoner(FakeLLM([tool_reply("something_else", {})]))
    with pytest.raises(LLMError):
        await reasoner.extract_claim("Vitamin K2 slows calcification", None)


def test_tool_definitions_are_the_five_of_the_seed() -> None:
    assert list(TOOL_DEFINITIONS) == [
        "extract_claim",
        "search_papers",
        "fetch_paper_text",
        "match_evidence",
        "triangulate",
    ]
    for name, definition in TOOL_DEFINITIONS.items():
        assert definition["name"] == name
        assert definition["input_schema"]["type"] == "object"


class _FakeMessages:
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[dict[str, Any]] = []
        self.fail = fail

    async def create(self, **arguments: Any) -> Any:
        self.calls.append(arguments)
        if self.fail:
            raise RuntimeError("overloaded")
        return SimpleNamespace(
            stop_reason="tool_use",
            content=[
                SimpleNamespace(type="text", text="Ranking."),
                SimpleNamespace(
                    type="tool_use", id="toolu_1", name="submit_ranking", input={"paper_ids": []}
                ),
            ],
        )


async def test_anthropic_adapter_maps_blocks_and_settings() -> None:
    messages = _FakeMessages()
    llm = AnthropicLLM(
        "sk-test", model="claude-test", temperature=0.1, client=SimpleNamespace(messages=messages)
    )
    reply = await llm.complete(
        system="s", messages=[{"role": "user", "content": "hi"}], tools=[], tool_choice={"type": "any"}
    )
    assert reply.text == "Ranking."
    assert reply.tool_calls[0].name == "submit_ranking"
    assert reply.content[1]["type"] == "tool_use"
    sent = messages.calls[0]
    assert (sent["model"], sent["temperature"], sent["tool_choice"]) == ("claude-test", 0.1, {"type": "any"})
    failing = AnthropicLLM("k", model="m", client=SimpleNamespace(messages=_FakeMessages(fail=True)))
    with pytest.raises(LLMError, match="overloaded"):
        await failing.complete(system="s", messages=[], tools=[])


def test_reasoner_choice_follows_the_key() -> None:
    assert isinstance(reasoner_from_settings(Settings(anthropic_api_key=None)), LexicalReasoner)
    chosen = reasoner_from_settings(Settings(anthropic_api_key="sk-x", llm_model="claude-x"))
    assert isinstance(chosen, ModelReasoner) and chosen.name == "anthropic:claude-x"
