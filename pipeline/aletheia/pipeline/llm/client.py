"""The model client every part of the pipeline asks: one chat completion with tools, in
Anthropic's message format.

`LLM` is the interface (a protocol: tests pass a scripted fake, `tests/unit/fake_llm.py`);
`AnthropicLLM` is the real one, importing `anthropic` only when first asked (the `llm` extra), so
nothing that merely imports this module needs the package. `anthropic_from_settings` gives Claude
when `ANTHROPIC_API_KEY` is set and None otherwise: each user then takes its deterministic path
(the claims' lexical reasoner and rules judge; Tier 5 records the answer as skipped). A model's
answer never passes unchecked: its users check it mechanically. Pacing under the global limiter is
`paced.py`.

This package imports nothing of claims/, evidence/ or jobs/ (an import-linter contract): both the
claim pipeline and the evidence's Tier 5 import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from aletheia.config import Settings
from aletheia.sources.transport.politeness import parse_retry_after

__all__ = ["LLM", "AnthropicLLM", "LLMError", "LLMReply", "ToolCall", "anthropic_from_settings"]


class LLMError(Exception):
    """The model could not be asked (network, quota, refusal) or answered out of protocol.
    `status_code` and `retry_after` carry the API's HTTP status and Retry-After when it gave them
    (a 429 slows the shared `llm` bucket down: `paced.PacedLLM`)."""

    def __init__(
        self, message: str, *, status_code: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.retry_after = retry_after


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    return parse_retry_after(headers.get("retry-after")) if headers is not None else None


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class LLMReply:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    stop_reason: str | None = None
    # The assistant turn as the API wants it back in the next request (Anthropic content blocks).
    content: tuple[dict[str, Any], ...] = ()


class LLM(Protocol):
    """One chat completion with tools, in Anthropic's message format."""

    model: str

    async def complete(
        self,
        *,
        system: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        tool_choice: dict[str, Any] | None = None,
        max_tokens: int = 1024,
    ) -> LLMReply: ...


class AnthropicLLM:
    """`LLM` over Anthropic's Messages API (the `anthropic` package, imported on first use)."""

    def __init__(self, api_key: str, *, model: str, temperature: float = 0.0, client: Any = None) -> None:
        self.model = model
        self.temperature = temperature
        self._api_key = api_key
        self._client = client

    def _get_client(self) -> Any:
        if self._client is None:
            try:
                from anthropic import AsyncAnthropic
            except ImportError as exc:  # the `llm` extra is not installed
                raise LLMError("the anthropic package is not installed (pip install '.[llm]')") from exc
            self._client = AsyncAnthropic(api_key=self._api_key)
        return self._client

    async def complete(
        self,
        *,
        system: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        tool_choice: dict[str, Any] | None = None,
        max_tokens: int = 1024,
    ) -> LLMReply:
        client = self._get_client()
        arguments: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens,
            "temperature": self.temperature,
            "system": system,
            "messages": messages,
            "tools": tools,
        }
        if tool_choice is not None:
            arguments["tool_choice"] = tool_choice
        try:
            response = await client.messages.create(**arguments)
        except Exception as exc:  # anthropic.APIError and its transport errors
            status = getattr(exc, "status_code", None)
            raise LLMError(
                f"{type(exc).__name__}: {exc}",
                status_code=status if isinstance(status, int) else None,
                retry_after=_retry_after(exc),
            ) from exc
        texts: list[str] = []
        calls: list[ToolCall] = []
        content: list[dict[str, Any]] = []
        for block in response.content:
            if block.type == "text":
                texts.append(block.text)
                content.append({"type": "text", "text": block.text})
            elif block.type == "tool_use":
                calls.append(ToolCall(id=block.id, name=block.name, input=dict(block.input)))
                content.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.input})
        return LLMReply(
            text="".join(texts),
            tool_calls=tuple(calls),
            stop_reason=getattr(response, "stop_reason", None),
            content=tuple(content),
        )


def anthropic_from_settings(settings: Settings) -> AnthropicLLM | None:
    """Claude as the settings say (model, temperature), or None without `ANTHROPIC_API_KEY`."""
    if settings.anthropic_api_key is None:
        return None
    key = settings.anthropic_api_key.get_secret_value()
    return AnthropicLLM(key, model=settings.llm_model, temperature=settings.llm_temperature)
