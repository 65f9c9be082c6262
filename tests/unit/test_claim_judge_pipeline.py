"""The judgement step of `verify_and_cite` (pipeline.claim_judge): the Claude path with a fake model,
the choice of judge from the settings, and the property that every artifact written quotes at
least one verbatim excerpt judged to support the claim, and cites the paper named or none.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from aletheia.config import Settings
from aletheia.core.artifacts import parse_artifact
from aletheia.core.excerpts import PaperText, TextBlock, locate_excerpt, match_key
from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.pipeline.claims.judge import (
    MAX_JUDGE_ROUNDS,
    ModelJudge,
    RuleJudge,
    judge_evidence,
    judge_from_settings,
)
from aletheia.pipeline.claims.reasoner import LexicalReasoner
from aletheia.pipeline.claims.verify_and_cite import verify_and_cite
from aletheia.pipeline.llm.client import LLMError
from aletheia.sources.base import SourceRecord
from tests.unit.fake_llm import FakeLLM, tool_reply

PAPER = PaperText(
    blocks=(
        TextBlock(
            text="We followed 1,600 healthcare workers. Surgical masks reduced respiratory infection in"
            " healthcare workers by 45%. Adherence was high.",
            section="Abstract",
        ),
    ),
    origin="abstract",
)
CLAIM = "Surgical masks reduce respiratory infection in healthcare workers"
SUPPORTING = "Surgical masks reduced respiratory infection in healthcare workers by 45%."


def _matches(*quotes: str) -> list[Any]:
    found = [locate_excerpt(q, PAPER) for q in quotes]
    assert all(found)
    return found


# --- the Claude path ------------------------------------------------------------------------------------


async def test_the_model_judges_each_excerpt_through_the_tool() -> None:
    llm = FakeLLM(
        [
            tool_reply(
                "submit_judgements",
                {"judgements": [{"excerpt": SUPPORTING, "label": "supports", "rationale": "states it"}]},
            )
        ]
    )
    judgement = await ModelJudge(llm).judge(CLAIM, PAPER, _matches(SUPPORTING))
    assert judgement.supported and judgement.judge == "anthropic:fake-claude"
    assert judgement.supporting[0].location == "Abstract"
    request = llm.requests[0]
    assert request["tools"] == ["submit_judgements"]
    assert request["tool_choice"] == {"type": "tool", "name": "submit_judgements"}
    assert SUPPORTING in request["messages"][0]["content"]


async def test_a_misquoted_excerpt_is_sent_back_and_the_second_answer_counts() -> None:
    llm = FakeLLM(
        [
            tool_reply(
                "submit_judgements",
                {
                    "judgements": [
                        {"excerpt": "Masks cut infection by half.", "label": "supports", "rationale": "x"}
                    ]
                },
            ),
            tool_reply(
                "submit_judgements",
                {"judgements": [{"excerpt": SUPPORTING, "label": "supports", "rationale": "verbatim now"}]},
            ),
        ]
    )
    judgement = await ModelJudge(llm).judge(CLAIM, PAPER, _matches(SUPPORTING))
    assert judgement.supported and len(llm.requests) == 2
    feedback = llm.requests[1]["messages"][-1]["content"][0]
    assert (
        feedback["is_error"]
        and "not verbatim in the paper: Masks cut infection by half." in feedback["content"]
    )


async def test_after_three_rounds_what_is_unjudged_is_not_enough() -> None:
    llm = FakeLLM([tool_reply("submit_judgements", {"judgements": []})] * MAX_JUDGE_ROUNDS)
    judgement = await ModelJudge(llm).judge(CLAIM, PAPER, _matches(SUPPORTING))
    assert len(llm.requests) == MAX_JUDGE_ROUNDS
    assert [j.label for j in judgement.judgements] == ["not_enough"]
    assert judgement.judgements[0].reasons == ("model_did_not_judge",)
    assert not judgement.supported


async def test_a_contradiction_the_model_adds_is_a_candidate_and_blocks_the_citation() -> None:
    against = "Adherence was high."
    llm = FakeLLM(
        [
            tool_reply(
                "submit_judgements",
                {
                    "judgements": [
                        {"excerpt": SUPPORTING, "label": "supports", "rationale": "states it"},
                        {"excerpt": against, "label": "contradicts", "rationale": "(scripted)"},
                    ]
                },
            )
        ]
    )
    judged = await judge_evidence(CLAIM, PAPER, LexicalReasoner(), ModelJudge(llm))
    assert not judged.supported and judged.judgement.contradicting[0].excerpt == against
    assert any(m.text == against for m in judged.candidates)


async def test_a_model_that_does_not_use_the_tool_is_an_error() -> None:
    llm = FakeLLM([tool_reply("something_else", {})])
    with pytest.raises(LLMError, match="submit_judgements"):
        await ModelJudge(llm).judge(CLAIM, PAPER, _matches(SUPPORTING))


def test_the_judge_follows_the_setting(tmp_path: Path) -> None:
    base = Settings(data_dir=tmp_path)
    assert isinstance(judge_from_settings(base), RuleJudge)  # auto, no key
    fake = FakeLLM([])
    assert isinstance(judge_from_settings(base, fake), ModelJudge)  # auto, a model given
    assert isinstance(judge_from_settings(base.model_copy(update={"claim_judge": "rules"}), fake), RuleJudge)
    with pytest.raises(LLMError, match="ANTHROPIC_API_KEY"):
        judge_from_settings(base.model_copy(update={"claim_judge": "anthropic"}))


async def test_judge_evidence_looks_beyond_the_reasoners_quotes() -> None:
    """The lexical reasoner never proposes a sentence that flips the claim; the judge still sees it."""
    claim = "Surgical masks increase respiratory infection in healthcare workers"
    judged = await judge_evidence(claim, PAPER, LexicalReasoner(), RuleJudge())
    assert judged.evidence.rejected == [] and judged.judgement.contradicting
    assert judged.judgement.contradicting[0].excerpt == SUPPORTING


# --- the artifact property --------------------------------------------------------------------------------

DOI = "10.5555/prop.2024.1"


def _record(source: SourceName, abstract: str) -> WorkRecord:
    return WorkRecord(
        source=source,
        source_id="W1" if source is SourceName.OPENALEX else "p1",
        title="Surgical Masks and Respiratory Infection",
        authors=(Author(given="Amara", family="Okonkwo"),),
        year=2022,
        doi=DOI,
        abstract=abstract,
    )


@dataclass
class _Source:
    record: WorkRecord | None
    calls: list[str] = field(default_factory=list)

    def _hit(self) -> SourceRecord | None:
        if self.record is None:
            return None
        return SourceRecord(record=self.record, raw={}, fetched_at=datetime(2026, 1, 1, tzinfo=UTC))

    async def paper(self, paper_id: str) -> SourceRecord | None:
        self.calls.append(paper_id)
        return self._hit()

    async def work_by_doi(self, doi: str) -> SourceRecord | None:
        return self._hit()

    async def search(self, query: str, **_: Any) -> list[SourceRecord]:
        hit = self._hit()
        return [hit] if hit is not None else []


class _Gateway:
    """Semantic Scholar and OpenAlex know the one paper; Crossref knows nothing."""

    def __init__(self, abstract: str) -> None:
        self.semantic_scholar = _Source(_record(SourceName.SEMANTIC_SCHOLAR, abstract))
        self.openalex = _Source(_record(SourceName.OPENALEX, abstract))
        self.crossref = _Source(None)


_WORDS = st.sampled_from(
    [
        "surgical",
        "masks",
        "reduce",
        "reduced",
        "increase",
        "increased",
        "respiratory",
        "infection",
        "healthcare",
        "workers",
        "in",
        "by",
        "not",
        "no",
        "45%",
        "30%",
        "may",
        "all",
        "most",
        "women",
        "men",
        "children",
        "similar",
        "than",
        "the",
        "of",
        "risk",
    ]
)
_SENTENCE = st.lists(_WORDS, min_size=3, max_size=14).map(lambda words: " ".join(words).capitalize() + ".")


@st.composite
def _claim_and_abstract(draw: st.DrawFn) -> tuple[str, str]:
    sentences = draw(st.lists(_SENTENCE, min_size=1, max_size=5))
    # Half the claims restate a sentence of the abstract (so that artifacts are written), half are
    # random words (mostly refused).
    if draw(st.booleans()):
        claim = draw(st.sampled_from(sentences)).rstrip(".")
    else:
        claim = " ".join(draw(st.lists(_WORDS, min_size=3, max_size=12)))
    return claim, " ".join(sentences)


@given(pair=_claim_and_abstract(), named=st.booleans())
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_artifact_quotes_a_verbatim_supporting_excerpt(pair: tuple[str, str], named: bool) -> None:
    claim, abstract = pair
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        citation, outcome = asyncio.run(
            verify_and_cite(
                claim,
                paper=DOI if named else None,
                project_root=root,
                gateway=_Gateway(abstract),
                settings=Settings(data_dir=root / "data", oa_fulltext=False),
                reasoner=LexicalReasoner(),
                judge=RuleJudge(),
            )
        )
        if citation is None:
            event("refused")
            assert not (root / "docs").exists()  # a refusal writes nothing
            return
        event("cited")
        assert citation.record.doi == DOI  # the paper named (or the only one there is)
        artifact = parse_artifact(Path(outcome).read_text(encoding="utf-8"))
        assert artifact.body.excerpts, "an artifact without an excerpt"
        for excerpt in artifact.body.excerpts:
            assert match_key(excerpt.text) in match_key(abstract)
            assert excerpt.location == "Abstract"
        assert citation.excerpts and all(e["text"] in abstract for e in citation.excerpts)
