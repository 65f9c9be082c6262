"""`verify_stream`: input order out, `concurrency` references in flight, no head-of-line blocking."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from aletheia.core.records import CitedReference
from aletheia.pipeline.evidence import stream as verify


async def test_a_slow_reference_does_not_idle_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 11: the first reference waits (a slow source); the others must keep `concurrency`
    # in flight meanwhile, and the outcomes still come out in input order.
    first_may_finish = asyncio.Event()
    started: list[str] = []
    in_flight = 0
    most_in_flight = 0
    started_while_first_waited = 0

    async def fake_verify(cited: CitedReference, gateway: Any, *, current_year: int) -> str:
        nonlocal in_flight, most_in_flight, started_while_first_waited
        started.append(cited.key)
        in_flight += 1
        most_in_flight = max(most_in_flight, in_flight)
        if cited.key == "r0":
            # (A guard, not a timing: with head-of-line blocking the event never comes.)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(first_may_finish.wait(), timeout=10)
            started_while_first_waited = len(started)
        else:
            await asyncio.sleep(0)
        in_flight -= 1
        if len(started) >= 8:  # seven others started (and most finished) while r0 waited
            first_may_finish.set()
        return cited.key

    monkeypatch.setattr(verify, "verify_reference", fake_verify)
    refs = [CitedReference(key=f"r{i}", title=f"Title {i}") for i in range(12)]
    out = [o async for o in verify.verify_stream(refs, None, concurrency=3, current_year=2026)]  # type: ignore[arg-type]
    assert out == [f"r{i}" for i in range(12)]
    assert most_in_flight <= 3
    assert started_while_first_waited >= 8  # before: r3 waited for r0 to be yielded
