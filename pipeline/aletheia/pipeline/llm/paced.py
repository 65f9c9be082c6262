"""Model calls under the global limiter, like any source's requests (`ALETHEIA_LLM_LIMITS`).

`PacedLLM` wraps any `LLM`: each `complete()` holds a slot of the `llm` concurrency cap and takes a
token of the `llm:single` bucket first, so a burst of references that all fall through to Tier 5
is spread at the configured rate across every process that shares the limiter (Redis in the
service). A token that does not come within `max_wait` seconds is a `RateLimitedError` (transient):
the answer is recorded as failed, never waited for without bound.

Both users of the model are paced: Tier 5's suggestions (`llm_fallback.suggester_from_settings`)
and the claim pipeline's `ModelReasoner` (`claims.reasoner.paced_reasoner`, over the gateway's
limiter).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from aletheia.core.records import SourceName
from aletheia.pipeline.llm.client import LLMError

if TYPE_CHECKING:
    from aletheia.config.settings import SourceLimits
    from aletheia.pipeline.llm.client import LLM, LLMReply
    from aletheia.sources.transport.limiter import RateLimiter

BUCKET: Final = f"{SourceName.LLM.value}:single"
MAX_WAIT_SECONDS: Final = 120.0
# A 429 without Retry-After holds the bucket this long (Anthropic's limits are per minute).
RATE_LIMITED_WAIT_SECONDS: Final = 60.0


class PacedLLM:
    """An `LLM` whose every call goes through the limiter's `llm` bucket and concurrency cap."""

    def __init__(
        self, llm: LLM, limiter: RateLimiter, limits: SourceLimits, *, max_wait: float = MAX_WAIT_SECONDS
    ) -> None:
        self.llm = llm
        self.model = llm.model
        self.limiter = limiter
        self.limits = limits
        self.max_wait = max_wait

    async def complete(
        self,
        *,
        system: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        tool_choice: dict[str, Any] | None = None,
        max_tokens: int = 1024,
    ) -> LLMReply:
        async with self.limiter.slot(SourceName.LLM.value, max(1, self.limits.concurrency)):
            await self.limiter.acquire(BUCKET, self.limits.rate, self.limits.burst, max_wait=self.max_wait)
            try:
                return await self.llm.complete(
                    system=system,
                    messages=messages,
                    tools=tools,
                    tool_choice=tool_choice,
                    max_tokens=max_tokens,
                )
            except LLMError as exc:
                if exc.status_code == 429:
                    # As for a source's 429: every caller waits, and the shared rate is halved.
                    await self.limiter.penalize(BUCKET, exc.retry_after or RATE_LIMITED_WAIT_SECONDS)
                raise


def paced_model(llm: LLM, gateway: Any) -> LLM:
    """`llm` paced by the gateway's limiter; as it is when already paced or when the gateway has no
    limiter (a test's stand-in paces nothing)."""
    limiter = getattr(gateway, "limiter", None)
    settings = getattr(gateway, "settings", None)
    if isinstance(llm, PacedLLM) or limiter is None or settings is None:
        return llm
    return PacedLLM(llm, limiter, settings.limits_for(SourceName.LLM.value))
