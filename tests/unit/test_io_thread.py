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
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer, universe_from_records
from aletheia.sources.transport.send_delay import SendGate

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


async def _sent_while_busy(client: httpx.AsyncClient, url: str) -> bool:
    """Whether `client` wrote the request's headers while this thread's event loop was still held
    by Python work (ordering, not timing: the trace reads a flag this loop sets when it is free)."""
    loop_free: list[bool] = []
    seen_at_send: list[bool] = []

    async def trace(name: str, info: object) -> None:
        if name.endswith("send_request_headers.complete"):
            seen_at_send.append(bool(loop_free))

    request = asyncio.create_task(client.request("GET", url, extensions={"trace": trace}))
    await asyncio.sleep(0)  # the task starts (and, for the I/O thread client, hands the request over)
    busy(0.5)  # this loop does not come back for half a second
    loop_free.append(True)
    response = await request
    assert response.status_code in (200, 404)
    assert len(seen_at_send) == 1
    return not seen_at_send[0]


async def test_a_request_leaves_while_the_callers_loop_is_busy(sim: SimulatorServer) -> None:
    async with IoThreadClient() as client:
        # The request was written before this loop was free again.
        assert await _sent_while_busy(client, sim.url_for("crossref") + "/works/10.1/a")


async def test_on_the_callers_own_loop_the_same_request_waits(sim: SimulatorServer) -> None:
    """The reason for the I/O thread: with a plain client the write waits for the busy loop."""
    async with httpx.AsyncClient() as client:
        assert not await _sent_while_busy(client, sim.url_for("crossref") + "/works/10.1/a")


async def test_streaming_is_refused_whichever_way_it_is_asked(sim: SimulatorServer) -> None:
    url = sim.url_for("crossref") + "/works/10.1/a"
    async with IoThreadClient() as client:
        with pytest.raises(ValueError, match="stream"):
            async with client.stream("GET", url):
                pass
        with pytest.raises(ValueError, match="stream"):
            await client.send(client.build_request("GET", url), stream=True)
        assert (await client.get(url)).status_code in (200, 404)  # get() goes through send()


async def test_the_io_thread_stops_when_the_client_closes() -> None:
    before = {t.name for t in threading.enumerate()}
    client = IoThreadClient()
    assert "aletheia-http-io" in {t.name for t in threading.enumerate()}
    await client.aclose()
    await client.aclose()  # twice is harmless
    assert {t.name for t in threading.enumerate() if t.name == "aletheia-http-io"} <= before
    streaming = IoThreadClient()
    try:
        with pytest.raises(ValueError, match="stream"):
            await streaming.request("GET", "http://127.0.0.1:9/", stream=True)
    finally:
        await streaming.aclose()  # its I/O thread too


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
