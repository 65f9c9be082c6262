"""The engine marks each item step for the batching (`ServiceContext.quiescence`): references whose
lookups wait in a coalescer with a window far longer than the test are answered without waiting
for it, since once every item step waits on a pending key nothing else can join the batch."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from aletheia.core.evidence import Evidence
from aletheia.core.records import CitedReference
from aletheia.core.verdicts import Reason, Verdict, VerdictStatus
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.jobs import bibliography
from aletheia.pipeline.jobs.context import LoopThread
from aletheia.pipeline.jobs.in_process import verify_references
from aletheia.pipeline.runtime import Runtime
from aletheia.sources.batching import Coalescer
from tests.unit.engine_fixtures import Gateway, offline_runtime

WINDOW = 60.0  # never waited out in this test


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    return offline_runtime(tmp_path, monkeypatch)


@pytest.mark.parametrize("references", [1, 5])
def test_item_steps_send_their_batches_without_waiting_for_the_window(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch, references: int
) -> None:
    calls: list[list[str]] = []

    async def fetch(keys: list[str]) -> dict[str, str | None]:
        calls.append(list(keys))
        await asyncio.sleep(0)
        return {key: key.upper() for key in keys}

    coalescers: list[Coalescer[str, str]] = []  # built on the engine's loop, at first use

    async def two_batched_steps(
        cited: CitedReference, gateway: Any, *, current_year: int
    ) -> ReferenceOutcome:
        if not coalescers:
            coalescers.append(Coalescer(fetch, max_batch=50, window=WINDOW))
        first = await coalescers[0].get(f"{cited.key}-doi")
        second = await coalescers[0].get(f"{cited.key}-title")
        status = VerdictStatus.VERIFIED if first and second else VerdictStatus.NOT_FOUND
        verdict = Verdict(status=status, reasons=() if first and second else (Reason.NO_MATCH_FOUND,))
        return ReferenceOutcome(cited=cited, verdict=verdict, evidence=Evidence(), raw=[])

    monkeypatch.setattr(bibliography, "verify_reference", two_batched_steps)
    refs = [CitedReference(key=f"r{i}", title=f"paper {i}") for i in range(references)]
    loop = LoopThread()
    started = time.monotonic()
    try:
        run = verify_references(
            runtime,
            list(refs),
            input_description={"test": True},
            gateway=Gateway(),  # type: ignore[arg-type]
            runner=loop,
        )
    finally:
        loop.close()
    assert time.monotonic() - started < WINDOW / 4
    assert [o.verdict.status.value for o in run.outcomes] == ["verified"] * references
    asked = sorted(key for call in calls for key in call)
    assert asked == sorted(f"r{i}-{step}" for i in range(references) for step in ("doi", "title"))
