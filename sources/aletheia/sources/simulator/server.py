"""Run the simulator: in a background thread (`SimulatorServer`, for tests and benchmarks) or in
the foreground (`serve`, what `aletheia simulator serve` calls)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from types import TracebackType
from typing import Any, Final, TypeVar

from aletheia.sources.simulator.app import SimulatorApp
from aletheia.sources.simulator.http import HttpServer
from aletheia.sources.simulator.routes import SIM_ROUTES, SIM_SOURCES, route_named
from aletheia.sources.simulator.run_config import SimulatorConfig
from aletheia.sources.simulator.universe import Universe

T = TypeVar("T")


def env_name(source: str) -> str:
    """The setting a source's base URL is read from (aletheia.config.settings): `ALETHEIA_<NAME>_URL`."""
    return f"ALETHEIA_{source.upper()}_URL"


# The built-in routes' settings (a toy source's route is named by `env_name`).
ENV_NAMES: Final[dict[str, str]] = {source: env_name(source) for source in SIM_SOURCES}


def url_for(base_url: str, source: str) -> str:
    """`http://127.0.0.1:PORT/crossref` for `source` ("crossref", "semantic_scholar", "arxiv_api"...)."""
    route = route_named(str(source))
    if route is None:
        raise ValueError(f"the simulator has no source {source!r}")
    return base_url.rstrip("/") + route.prefix


def env_for(base_url: str) -> dict[str, str]:
    """The `ALETHEIA_*_URL` settings that point every source client at a simulator at `base_url`,
    and the open-access full text turned off: the universe's open-access links name hosts outside
    the simulator (`https://repository.example.org/...`), which a run against it must not reach."""
    urls = {env_name(source): url_for(base_url, source) for source in SIM_ROUTES}
    return {**urls, "ALETHEIA_OA_FULLTEXT": "false"}


class SimulatorServer:
    """The simulator on a loopback port, served from a background thread with its own event loop.

        with SimulatorServer(universe, SimulatorConfig.unlimited()) as sim:
            httpx.get(sim.url_for("crossref") + "/works/10.1234/abc")

    `port=0` picks a free port; `start()` returns the base URL once the socket is listening.
    """

    def __init__(
        self,
        universe: Universe,
        config: SimulatorConfig | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.app = SimulatorApp(universe, config)
        self._host = host
        self._port = port
        self._http = HttpServer(self.app.handle)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._base_url: str | None = None

    @property
    def base_url(self) -> str:
        if self._base_url is None:
            raise RuntimeError("the simulator is not running; call start()")
        return self._base_url

    def start(self) -> str:
        if self._thread is not None:
            return self.base_url
        ready: concurrent.futures.Future[str] = concurrent.futures.Future()
        self._thread = threading.Thread(
            target=self._run, args=(ready,), name="aletheia-simulator", daemon=True
        )
        self._thread.start()
        self._base_url = ready.result(timeout=30)
        return self._base_url

    def _run(self, ready: concurrent.futures.Future[str]) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            host, port = loop.run_until_complete(self._http.start(self._host, self._port))
        except BaseException as exc:
            ready.set_exception(exc)
            loop.close()
            return
        shown = f"[{host}]" if ":" in host else host
        ready.set_result(f"http://{shown}:{port}")
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(self._http.close())
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if loop.is_running():
            asyncio.run_coroutine_threadsafe(self._http.close(), loop).result(timeout=30)
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        self._loop = None
        self._thread = None
        self._base_url = None

    def __enter__(self) -> SimulatorServer:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # --- conveniences ------------------------------------------------------------------------------

    def url_for(self, source: str) -> str:
        return url_for(self.base_url, source)

    def env(self) -> dict[str, str]:
        return env_for(self.base_url)

    def stats(self) -> dict[str, Any]:
        """Every counter (the `GET /_sim/stats` body)."""
        return self.app.stats.snapshot()

    def source_stats(self, source: str) -> dict[str, Any]:
        route = route_named(source)
        if route is None:
            raise KeyError(source)
        return self.app.stats.source(route.name)

    def _in_loop(self, make: Callable[[], Coroutine[Any, Any, T]]) -> T:
        if self._loop is None or not self._loop.is_running():
            return asyncio.run(make())
        return asyncio.run_coroutine_threadsafe(make(), self._loop).result(timeout=30)

    def reset(self) -> None:
        """Counters to zero, buckets full, RNGs reseeded (as `POST /_sim/reset`)."""

        async def _reset() -> None:
            self.app.reset()

        self._in_loop(_reset)

    def configure(self, patch: dict[str, Any] | SimulatorConfig) -> SimulatorConfig:
        """Change limits or faults while running (as `POST /_sim/config`); returns the new config."""

        async def _configure() -> SimulatorConfig:
            config = patch if isinstance(patch, SimulatorConfig) else self.app.config.merged(patch)
            self.app.configure(config)
            return config

        return self._in_loop(_configure)


def serve(
    universe_path: str | Path,
    host: str = "127.0.0.1",
    port: int = 8765,
    config: SimulatorConfig | None = None,
    *,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve the universe in `universe_path` until interrupted (blocking). `ready` is called with
    the base URL once the socket listens (the CLI prints it with the `ALETHEIA_*_URL` lines)."""
    universe = Universe.from_jsonl(universe_path)
    # Ctrl-C is how a foreground server is meant to stop: not an error.
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(universe, host, port, config, ready))


async def _serve(
    universe: Universe,
    host: str,
    port: int,
    config: SimulatorConfig | None,
    ready: Callable[[str], None] | None,
) -> None:
    app = SimulatorApp(universe, config)
    server = HttpServer(app.handle)
    bound_host, bound_port = await server.start(host, port)
    if ready is not None:
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        ready(f"http://{shown}:{bound_port}")
    try:
        await server.serve_forever()
    except asyncio.CancelledError:
        pass
    finally:
        await server.close()
