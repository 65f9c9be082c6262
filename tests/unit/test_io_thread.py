"""`IoThreadClient`: source requests leave from an event loop of their own, so a busy pipeline loop
does not hold a granted request back; and `SendGate` keeps long decodes away from sends."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from aletheia.sources.io_thread import IoThreadClient
from aletheia.sources.send_delay import SendGate
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, universe_from_records

WORKS = [{"title": "A Work", "authors": [{"given": "A", "family": "B"}], "year": 2020, "doi": "10.1/a"}]


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(universe_from_records(WORKS), SimulatorConfig.unlimited()) as server:
        yield server


def busy(seconds: float) -> None:
    """Hold this thread's event loop with Python work (as decisions do), not with a sleep."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        sum(range(1000))


async def test_a_request_leaves_while_the_callers_loop_is_busy(sim: SimulatorServer) -> None:
    url = sim.url_for("crossref") + "/works/10.1/a"
    async with IoThreadClient() as client:
        sent_at: list[float] = []

        async def trace(name: str, info: object) -> None:
            if name.endswith("send_request_headers.complete"):
                sent_at.append(time.monotonic())

        request = asyncio.create_task(client.request("GET", url, extensions={"trace": trace}))
        await asyncio.sleep(0)  # the task starts and hands the request to the I/O loop
        started = time.monotonic()
        busy(0.5)  # this loop does not come back for half a second
        response = await request
    assert response.status_code in (200, 404)
    # The request was written long before this loop was free again.
    assert sent_at and sent_at[0] - started < 0.25


async def test_on_the_callers_own_loop_the_same_request_waits(sim: SimulatorServer) -> None:
    """The reason for the I/O thread: with a plain client the write waits for the busy loop."""
    url = sim.url_for("crossref") + "/works/10.1/a"
    async with httpx.AsyncClient() as client:
        sent_at: list[float] = []

        async def trace(name: str, info: object) -> None:
            if name.endswith("send_request_headers.complete"):
                sent_at.append(time.monotonic())

        request = asyncio.create_task(client.request("GET", url, extensions={"trace": trace}))
        await asyncio.sleep(0)
        started = time.monotonic()
        busy(0.5)
        await request
    assert sent_at and sent_at[0] - started >= 0.5


async def test_the_io_thread_stops_when_the_client_closes() -> None:
    before = {t.name for t in threading.enumerate()}
    client = IoThreadClient()
    assert "aletheia-http-io" in {t.name for t in threading.enumerate()}
    await client.aclose()
    await client.aclose()  # twice is harmless
    assert {t.name for t in threading.enumerate() if t.name == "aletheia-http-io"} <= before
    with pytest.raises(ValueError, match="stream"):
        await IoThreadClient().request("GET", "http://127.0.0.1:9/", stream=True)


async def test_a_decode_waits_for_sends_in_flight_and_holds_new_grants_off() -> None:
    gate = SendGate()
    gate.begin_send()
    order: list[str] = []

    async def decode() -> None:
        async with gate.decode():
            order.append("decode")
            await asyncio.sleep(0.01)
        order.append("decoded")

    task = asyncio.create_task(decode())
    await asyncio.sleep(0.01)
    assert order == [] and gate.decoding  # waiting: sends in flight first
    gate.end_send()

    async def next_grant() -> None:
        await gate.no_decode()
        order.append("grant")

    await asyncio.gather(task, next_grant())
    assert order == ["decode", "decoded", "grant"]
