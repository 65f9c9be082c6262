"""A small HTTP/1.1 server on asyncio streams, with h11 doing the protocol.

Why not an ASGI app under uvicorn: the simulator must inject transport-level faults (a connection
that accepts a request and never answers, a TCP reset in the middle of an exchange), and ASGI hides
the socket. h11 is a complete, well-tested HTTP/1.1 state machine (keep-alive, chunked bodies,
pipelining rules) that httpx already depends on, so owning the socket costs one small module.

A handler returns a `Response`; `Response.action` asks for the faults: `"hang"` keeps the
connection open and silent for `hang_seconds`, `"reset"` aborts it with SO_LINGER 0 (an RST).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any, Literal
from urllib.parse import parse_qs, unquote, urlsplit

import h11

MAX_BODY_BYTES = 8 * 1024 * 1024
READ_CHUNK = 64 * 1024
# A keep-alive connection with no request for this long is closed, as real servers do, so clients
# that vanish without closing do not pile up.
IDLE_TIMEOUT_SECONDS = 300.0


@dataclass
class Request:
    method: str
    target: str  # as sent: path and query, percent-encoded
    path: str  # percent-decoded
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: bytes = b""

    @classmethod
    def build(cls, method: str, target: str, headers: dict[str, str], body: bytes = b"") -> Request:
        parts = urlsplit(target)
        return cls(
            method=method.upper(),
            target=target,
            path=unquote(parts.path),
            query=parse_qs(parts.query, keep_blank_values=True),
            headers=headers,
            body=body,
        )

    def param(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[0] if values else default

    def params(self) -> dict[str, str]:
        """Query parameters and, for a form POST, the form fields (first value of each)."""
        merged = {name: values[0] for name, values in self.query.items() if values}
        content_type = self.headers.get("content-type", "")
        if self.method == "POST" and content_type.startswith("application/x-www-form-urlencoded"):
            form = parse_qs(self.body.decode("utf-8", "replace"), keep_blank_values=True)
            merged.update({name: values[0] for name, values in form.items() if values})
        return merged

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8")) if self.body else None


Action = Literal["respond", "hang", "reset"]


@dataclass
class Response:
    status: int
    body: bytes = b""
    content_type: str = "text/plain; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)
    action: Action = "respond"
    hang_seconds: float = 0.0


def json_response(payload: Any, status: int = 200, headers: list[tuple[str, str]] | None = None) -> Response:
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    return Response(status, body, "application/json; charset=utf-8", list(headers or []))


def text_response(text: str, status: int = 200, content_type: str = "text/plain; charset=utf-8") -> Response:
    return Response(status, text.encode("utf-8"), content_type)


def xml_response(text: str, status: int = 200, content_type: str = "text/xml; charset=UTF-8") -> Response:
    return Response(status, text.encode("utf-8"), content_type)


Handler = Callable[[Request], Awaitable[Response]]


class HttpServer:
    """Serves `handler` on host:port until `close()`; every connection is one task."""

    def __init__(self, handler: Handler, *, server_name: str = "aletheia-simulator") -> None:
        self._handler = handler
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._server_header = server_name.encode("ascii")

    async def start(self, host: str, port: int) -> tuple[str, int]:
        self._server = await asyncio.start_server(self._accept, host, port, backlog=1024)
        sockname = self._server.sockets[0].getsockname()
        return str(sockname[0]), int(sockname[1])

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.gather(*self._connections, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    async def serve_forever(self) -> None:
        if self._server is None:
            raise RuntimeError("start() first")
        await self._server.serve_forever()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        try:
            await self._serve(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            pass  # the client went away; nothing to answer
        except asyncio.CancelledError:
            # Shutdown: end quietly (asyncio's stream callback logs a cancelled connection task as
            # an error on Python 3.11).
            pass
        finally:
            if task is not None:
                self._connections.discard(task)
            if not writer.is_closing():
                writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=64 * 1024)
        while True:
            try:
                request = await self._read_request(conn, reader)
            except h11.RemoteProtocolError as exc:
                await self._send_error(conn, writer, exc.error_status_hint, str(exc))
                return
            if request is None:
                return
            response = await self._handler(request)
            if response.action == "hang":
                # Hold the connection, answer nothing; the client's read timeout is what fires.
                await asyncio.sleep(response.hang_seconds)
                writer.transport.abort()
                return
            if response.action == "reset":
                _reset(writer)
                return
            await self._send(conn, writer, request, response)
            if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                return
            try:
                conn.start_next_cycle()
            except h11.LocalProtocolError:
                return

    async def _read_request(self, conn: h11.Connection, reader: asyncio.StreamReader) -> Request | None:
        head: h11.Request | None = None
        body = bytearray()
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                if head is None and conn.their_state is h11.IDLE:
                    data = await asyncio.wait_for(reader.read(READ_CHUNK), IDLE_TIMEOUT_SECONDS)
                else:
                    data = await reader.read(READ_CHUNK)
                conn.receive_data(data)
                if not data and head is None and conn.their_state is h11.IDLE:
                    return None
                continue
            if isinstance(event, h11.Request):
                head = event
            elif isinstance(event, h11.Data):
                body.extend(event.data)
                if len(body) > MAX_BODY_BYTES:
                    raise h11.RemoteProtocolError("request body too large", error_status_hint=413)
            elif isinstance(event, h11.EndOfMessage):
                if head is None:
                    return None
                headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in head.headers}
                return Request.build(
                    head.method.decode("ascii"), head.target.decode("latin-1"), headers, bytes(body)
                )
            elif isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
                return None

    async def _send(
        self, conn: h11.Connection, writer: asyncio.StreamWriter, request: Request, response: Response
    ) -> None:
        headers = [
            ("content-type", response.content_type),
            ("content-length", str(len(response.body))),
            ("date", formatdate(usegmt=True)),
            ("server", self._server_header.decode("ascii")),
            *response.headers,
        ]
        encoded = [(name.encode("latin-1"), value.encode("latin-1", "replace")) for name, value in headers]
        writer.write(conn.send(h11.Response(status_code=response.status, headers=encoded)))
        if request.method != "HEAD" and response.body:
            writer.write(conn.send(h11.Data(data=response.body)))
        writer.write(conn.send(h11.EndOfMessage()))
        await writer.drain()

    async def _send_error(
        self, conn: h11.Connection, writer: asyncio.StreamWriter, status: int, detail: str
    ) -> None:
        if conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            return
        body = detail.encode("utf-8")
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(body)).encode("ascii")),
            (b"connection", b"close"),
        ]
        with contextlib.suppress(h11.LocalProtocolError):
            writer.write(conn.send(h11.Response(status_code=status, headers=headers)))
            writer.write(conn.send(h11.Data(data=body)))
            writer.write(conn.send(h11.EndOfMessage()))
            await writer.drain()


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with SO_LINGER 0, so the kernel sends RST: the client sees "connection reset by peer"."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()
