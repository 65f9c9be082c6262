"""A scripted stand-in for Claude: it answers `complete()` calls from a list, and records them.

Each scripted answer is an `LLMReply`, or a function of the request returning one (to answer with
what the request contains, e.g. a quote from the paper text it was sent).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from aletheia.pipeline.llm.client import LLMError, LLMReply, ToolCall

Script = LLMReply | Callable[[dict[str, Any]], LLMReply]
_ids = itertools.count(1)


def tool_reply(name: str, arguments: dict[str, Any], text: str = "") -> LLMReply:
    """A reply that calls one tool, with the content blocks the API would send back."""
    call = ToolCall(id=f"toolu_{next(_ids):04d}", name=name, input=arguments)
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content.append({"type": "tool_use", "id": call.id, "name": name, "input": arguments})
    return LLMReply(text=text, tool_calls=(call,), stop_reason="tool_use", content=tuple(content))


class FakeLLM:
    model = "fake-claude"

    def __init__(self, script: list[Script]) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []

    async def complete(
        self,
        *,
        system: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        tool_choice: dict[str, Any] | None = None,
        max_tokens: int = 1024,
    ) -> LLMReply:
        request = {
            "system": system,
            "messages": messages,
            "tools": [tool["name"] for tool in tools],
            "tool_choice": tool_choice,
            "max_tokens": max_tokens,
        }
        self.requests.append(request)
        if not self.script:
            raise LLMError("the fake model has no scripted answer left")
        answer = self.script.pop(0)
        return answer(request) if callable(answer) else answer
