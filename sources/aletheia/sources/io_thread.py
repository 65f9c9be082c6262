"""An `httpx.AsyncClient` whose requests run on an event loop of their own, in their own thread.

The pipeline's event loop is busy: an answer of one batch wakes dozens of references at once and
each runs its decision there. A request the rate limiter has just granted then waits in that loop's
queue behind them before its bytes leave (measured: 80-93 ms after the grant, with 2,000
references in flight), and two requests granted an interval apart reach the source together: a
429 from a service that counts "N per second" over a sliding window (issue 11). On a loop of its
own, which does nothing but network I/O, a granted request leaves at once: the other thread's
Python code gives up the GIL every switch interval (5 ms by default), and long GIL-holding C calls
(decoding a large body) are kept apart from sends by `send_delay.SendGate`.

`IoThreadClient` is a drop-in `httpx.AsyncClient` (the source clients take one): `request` (and so
`get`, `post`...) is run on the I/O loop and awaited from the caller's loop; the connection pool
lives on the I/O loop only. Streaming responses are not supported across the two loops (no source
client streams; the web tier has its own client).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Coroutine
from typing import Any, Self, TypeVar

import httpx

T = TypeVar("T")


class IoThreadClient(httpx.AsyncClient):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._io_loop = asyncio.new_event_loop()
        self._io_thread = threading.Thread(
            target=self._io_loop.run_forever, name="aletheia-http-io", daemon=True
        )
        self._io_thread.start()

    def _on_io_loop(self, call: Coroutine[Any, Any, T]) -> Awaitable[T]:
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(call, self._io_loop))

    async def __aenter__(self) -> Self:
        await self._on_io_loop(super().__aenter__())
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def send(self, request: httpx.Request, *, stream: bool = False, **kwargs: Any) -> httpx.Response:
        """Every request (`request`, `get`, ... all end here) is sent from the I/O loop. A streamed
        response would be read from the caller's loop while its connection lives on the I/O loop:
        refused (`client.stream(...)`, `send(..., stream=True)`)."""
        if stream:
            raise ValueError("IoThreadClient does not stream across event loops")
        if asyncio.get_running_loop() is self._io_loop:
            return await super().send(request, **kwargs)
        return await self._on_io_loop(super().send(request, **kwargs))

    async def request(self, *args: Any, **kwargs: Any) -> httpx.Response:
        if kwargs.pop("stream", False):
            raise ValueError("IoThreadClient does not stream across event loops")
        return await super().request(*args, **kwargs)

    async def aclose(self) -> None:
        if self._io_loop.is_closed():
            return
        try:
            await self._on_io_loop(super().aclose())
        finally:
            self._io_loop.call_soon_threadsafe(self._io_loop.stop)
            await asyncio.to_thread(self._io_thread.join, 5.0)
            self._io_loop.close()
