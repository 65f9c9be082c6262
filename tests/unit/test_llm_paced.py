"""Model calls under the global limiter (`llm/paced.py`): a burst of Tier-5 suggestions, or of the
claim pipeline's model calls, is spread at the `llm` bucket's rate (`ALETHEIA_LLM_LIMITS`), on a
fake clock, with a fake model."""

from __future__ import annotations

import asyncio
import itertools
from types import SimpleNamespace
from typing import Any

import pytest

from aletheia.config import Settings
from aletheia.config.settings import SourceLimits
from aletheia.core.records import CitedReference
from aletheia.pipeline.claims.reasoner import LexicalReasoner, ModelReasoner, paced_reasoner
from aletheia.pipeline.claims.verify_and_cite import ClaimTools
from aletheia.pipeline.evidence.llm_fallback import ReferenceSuggester, suggester_from_settings
from aletheia.pipeline.llm.client import AnthropicLLM, LLMError, LLMReply
from aletheia.pipeline.llm.paced import BUCKET, PacedLLM
from aletheia.sources.base import RateLimitedError
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from tests.unit.fake_clock import FakeClock
from tests.unit.fake_llm import FakeLLM, tool_reply

CITED = CitedReference(key="x", entry_type="article", title="Some work nobody indexed", year=2020)


def paced_suggester(limits: SourceLimits, calls: int) -> tuple[ReferenceSuggester, list[float]]:
    """A suggester over a fake model that notes, on a fake clock, when each of `calls` calls
    arrived; paced by a limiter on that clock with `limits` as `ALETHEIA_LLM_LIMITS`."""
    clock = FakeClock()
    stamps: list[float] = []

    def answer(request: dict[str, Any]) -> LLMReply:
        stamps.append(clock())
        return tool_reply("suggest_reference", {"title": None})

    limiter = LocalRateLimiter(clock=clock, sleep=clock.sleep)
    settings = Settings(_env_file=None, llm_limits=limits)
    return suggester_from_settings(settings, FakeLLM([answer] * calls), limiter), stamps


async def test_a_burst_of_suggestions_is_paced_by_the_llm_bucket() -> None:
    suggester, stamps = paced_suggester(SourceLimits(rate=0.5, burst=1, concurrency=4), 6)
    assert isinstance(suggester.llm, PacedLLM) and suggester.llm.model == "fake-claude"
    await asyncio.gather(*(suggester.suggest(CITED) for _ in range(6)))
    assert len(stamps) == 6
    assert all(later - earlier >= 2.0 - 1e-9 for earlier, later in itertools.pairwise(sorted(stamps)))
    assert sorted(stamps)[-1] - sorted(stamps)[0] >= 10.0 - 1e-9  # 6 calls at 0.5/s: 10 s at least


async def test_the_burst_allowance_is_the_configured_one() -> None:
    suggester, stamps = paced_suggester(SourceLimits(rate=1, burst=3, concurrency=8), 5)
    await asyncio.gather(*(suggester.suggest(CITED) for _ in range(5)))
    assert sorted(stamps)[:3] == [stamps[0]] * 3  # the first three at once (burst 3)
    assert sorted(stamps)[3] > stamps[0]  # then paced


async def test_the_limits_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALETHEIA_LLM_LIMITS", '{"rate": 0.25, "burst": 2, "concurrency": 1}')
    limits = Settings(_env_file=None).limits_for("llm")
    assert (limits.rate, limits.burst, limits.concurrency) == (0.25, 2, 1)


async def test_a_token_that_does_not_come_in_time_is_a_transient_failure() -> None:
    clock = FakeClock()
    limiter = LocalRateLimiter(clock=clock, sleep=clock.sleep)
    paced = PacedLLM(
        FakeLLM([tool_reply("x", {})] * 2), limiter, SourceLimits(rate=0.01, burst=1), max_wait=5.0
    )
    await paced.complete(system="s", messages=[], tools=[])
    with pytest.raises(RateLimitedError, match=BUCKET):
        await paced.complete(system="s", messages=[], tools=[])


async def test_without_a_limiter_calls_are_not_wrapped() -> None:
    llm = FakeLLM([])
    assert suggester_from_settings(Settings(_env_file=None), llm).llm is llm


async def test_the_claim_pipelines_model_is_paced_by_the_gateways_limiter() -> None:
    clock = FakeClock()
    stamps: list[float] = []

    def answer(request: dict[str, Any]) -> LLMReply:
        stamps.append(clock())
        return tool_reply("x", {})

    gateway = SimpleNamespace(
        limiter=LocalRateLimiter(clock=clock, sleep=clock.sleep),
        settings=Settings(_env_file=None, llm_limits=SourceLimits(rate=0.25, burst=1, concurrency=2)),
    )
    mine = ModelReasoner(FakeLLM([answer] * 4))
    paced = paced_reasoner(mine, gateway)
    assert isinstance(paced, ModelReasoner) and isinstance(paced.llm, PacedLLM)
    assert not isinstance(mine.llm, PacedLLM)  # the caller's reasoner is left as it was
    assert paced_reasoner(paced, gateway) is paced  # never paced twice
    assert isinstance(ClaimTools(gateway, mine).reasoner.llm, PacedLLM)  # type: ignore[attr-defined]
    await asyncio.gather(*(paced.llm.complete(system="s", messages=[], tools=[]) for _ in range(4)))
    assert all(later - earlier >= 4.0 - 1e-9 for earlier, later in itertools.pairwise(sorted(stamps)))
    # nothing to pace: the lexical reasoner, or a gateway without a limiter
    lexical = LexicalReasoner()
    assert paced_reasoner(lexical, gateway) is lexical
    assert paced_reasoner(mine, SimpleNamespace()) is mine


async def test_a_429_from_the_api_carries_its_status_and_retry_after() -> None:
    anthropic = pytest.importorskip("anthropic")
    httpx2 = pytest.importorskip("httpx2")
    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages")
    response = httpx2.Response(429, headers={"retry-after": "7"}, request=request)

    class Refusing:
        async def create(self, **arguments: Any) -> Any:
            raise anthropic.RateLimitError("rate limited", response=response, body=None)

    llm = AnthropicLLM("k", model="m", client=SimpleNamespace(messages=Refusing()))
    with pytest.raises(LLMError) as caught:
        await llm.complete(system="s", messages=[], tools=[])
    assert (caught.value.status_code, caught.value.retry_after) == (429, 7.0)


async def test_a_429_holds_every_caller_of_the_llm_bucket_off() -> None:
    clock = FakeClock()
    limiter = LocalRateLimiter(clock=clock, sleep=clock.sleep)

    def refuse(request: dict[str, Any]) -> LLMReply:
        raise LLMError("RateLimitError: rate limited", status_code=429, retry_after=30.0)

    paced = PacedLLM(FakeLLM([refuse, tool_reply("x", {})]), limiter, SourceLimits(rate=10, burst=1))
    with pytest.raises(LLMError):
        await paced.complete(system="s", messages=[], tools=[])
    assert await limiter.try_acquire(BUCKET, 10, 1) >= 29.0  # the Retry-After, for everyone
    started = clock()
    await paced.complete(system="s", messages=[], tools=[])
    assert clock() - started >= 30.0 - 1e-6
    # Another failure (no status) is not a rate limit: nothing is held off.
    other = PacedLLM(FakeLLM([]), LocalRateLimiter(clock=clock, sleep=clock.sleep), SourceLimits(rate=10))
    with pytest.raises(LLMError):
        await other.complete(system="s", messages=[], tools=[])
