"""The simulator's request pipeline: route by path prefix, count, limit, delay, inject faults, answer.

Per request, in this order: the configured arrival jitter (the network); count it (source, kind,
ids asked for); refuse with 429 if the source's in-flight cap is exceeded or its token bucket is
empty, or its sliding window full (with `Retry-After`); wait the
configured latency; draw a fault; answer from the universe. Control endpoints under `/_sim/` are
never limited, delayed or faulted.

Routes: one record per source in `routes.SIM_ROUTES` (`/crossref`, `/openalex`, `/s2`, `/arxiv-api`,
`/arxiv`, `/pubmed`, `/europepmc`, `/dblp`, `/acl`, `/openlibrary`, `/googlebooks`, `/perseus`,
`/ccel`, `/tavily`, `/brave`), each followed by the real service's own paths, so
`ALETHEIA_CROSSREF_URL=http://127.0.0.1:PORT/crossref` points a client at the simulator without
any other change. The venue registries (`/openalex/sources`, `/dblp/search/venue/api`,
`/crossref/journals`) are `simulator/venue_registry.py`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import traceback
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from aletheia.sources.simulator import semantic_scholar, venue_registry
from aletheia.sources.simulator.common import SimContext
from aletheia.sources.simulator.config import FAULT_NAMES, FaultName, RequestKind, SimSource
from aletheia.sources.simulator.drift import renamed
from aletheia.sources.simulator.http import Request, Response, json_response, text_response
from aletheia.sources.simulator.limits import SlidingWindow, TokenBucket, make_limit, retry_after_header
from aletheia.sources.simulator.pages import serve_page
from aletheia.sources.simulator.routes import SIM_ROUTES, SimRoute
from aletheia.sources.simulator.run_config import SimulatorConfig
from aletheia.sources.simulator.stats import SimulatorStats
from aletheia.sources.simulator.universe import Universe

logger = logging.getLogger(__name__)


def prefixes() -> dict[str, str]:
    """Each route's URL path prefix, by the source's name (the index page lists them)."""
    return {name: route.prefix for name, route in SIM_ROUTES.items()}


def _route_at(segment: str) -> SimRoute | None:
    return next((r for r in SIM_ROUTES.values() if r.prefix.strip("/") == segment), None)


class SimulatorApp:
    """The handler the HTTP server calls; all state lives here (touched from the server's loop)."""

    def __init__(
        self,
        universe: Universe,
        config: SimulatorConfig | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.universe = universe
        self.stats = SimulatorStats()
        self._clock = clock
        self._config = config if config is not None else SimulatorConfig()
        self.context = self._context()
        self._buckets: dict[tuple[SimSource, str], TokenBucket | SlidingWindow] = {}
        self._fault_rng: dict[SimSource, random.Random] = {}
        self._latency_rng: dict[SimSource, random.Random] = {}
        self._arrival_rng: dict[SimSource, random.Random] = {}
        self._seed_rngs()

    def _context(self) -> SimContext:
        config = self._config
        context = SimContext(self.universe, config.semantic_scholar_corpus, config.seed)
        if context.semantic_scholar_corpus:
            semantic_scholar.corpus(context)  # built here, not in the first bulk search's time
        return context

    @property
    def config(self) -> SimulatorConfig:
        return self._config

    def configure(self, config: SimulatorConfig) -> None:
        """Use `config` from now on: buckets restart full; the RNGs restart if the seed changed."""
        reseed = config.seed != self._config.seed
        self._config = config
        self.context = self._context()
        self._buckets.clear()
        if reseed:
            self._seed_rngs()

    def reset(self) -> None:
        """Counters to zero, buckets full, RNGs back to their seed: a fresh run."""
        self.stats.reset()
        self._buckets.clear()
        self._seed_rngs()

    def _seed_rngs(self) -> None:
        # One stream per source (string seeds hash the same on every run), so traffic to one
        # source never shifts the faults another source injects.
        seed = self._config.seed
        self._fault_rng = {s: random.Random(f"{seed}:{s}:faults") for s in SIM_ROUTES}
        self._latency_rng = {s: random.Random(f"{seed}:{s}:latency") for s in SIM_ROUTES}
        self._arrival_rng = {s: random.Random(f"{seed}:{s}:arrival") for s in SIM_ROUTES}

    # --- the pipeline ------------------------------------------------------------------------------

    async def handle(self, request: Request) -> Response:
        try:
            return await self._handle(request)
        except Exception as exc:  # a simulator bug must not look like a hang to the client
            logger.exception("simulator failed on %s %s", request.method, request.target)
            body = f"simulator error: {exc!r}\n{traceback.format_exc()}"
            return text_response(body, status=500)

    async def _handle(self, request: Request) -> Response:
        _, _, rest = request.path.partition("/")
        segment, slash, tail = rest.partition("/")
        subpath = "/" + tail if slash else "/"
        if segment == "_sim":
            return self._control(request, subpath)
        if segment == "pages" and request.method in ("GET", "HEAD"):
            return serve_page(self.universe.base_dir, subpath)
        if segment == "":
            return json_response(self._index())
        route = _route_at(segment)
        if route is None:
            self.stats.begin("_other", "single", [])
            self.stats.status("_other", 404)
            return text_response("Not Found", status=404)
        return await self._source_request(route, request, subpath)

    async def _source_request(self, route: SimRoute, request: Request, path: str) -> Response:
        source = route.name
        kind, ids = route.classify(request, path)
        settings = self._config.sources[source]
        # The service stamps a request when it arrives at its edge: when it was read plus the
        # network's jitter, not when this loop (busy, or waking late from the sleep) gets to it.
        arrival = self._clock()
        if settings.arrival_jitter_ms:  # the network: the request arrives a little later
            network = self._arrival_rng[source].random() * settings.arrival_jitter_ms / 1000.0
            arrival += network
            await asyncio.sleep(network)
        self.stats.begin(source, kind, ids)
        in_flight = self.stats.enter(source)
        try:
            if settings.concurrency is not None and in_flight > settings.concurrency:
                self.stats.limited(source, concurrency=True)
                return self._finish(source, self._too_many(route, request, 1.0))
            wait = self._take_token(route, kind, request, arrival)
            if wait > 0:
                self.stats.limited(source, concurrency=False)
                return self._finish(source, self._too_many(route, request, wait))
            delay = settings.latency_ms
            if settings.jitter_ms:
                delay += self._latency_rng[source].random() * settings.jitter_ms
            if delay > 0:
                await asyncio.sleep(delay / 1000.0)
            fault = self._draw_fault(source, kind)
            if fault is not None:
                self.stats.fault(source, fault)
            if fault == "hang":
                return Response(0, action="hang", hang_seconds=settings.hang_seconds)
            if fault == "reset":
                return Response(0, action="reset")
            if fault == "error_500":
                return self._finish(source, text_response("Internal Server Error", status=500))
            if fault == "error_503":
                return self._finish(source, text_response("Service Temporarily Unavailable", status=503))
            if settings.limit_mode == "sliding":
                # Arrivals are counted on this event loop: an answer rendered on it (a page of
                # 200 works takes tens of milliseconds) would hold the next requests' arrival back
                # and count them closer together than they came (issue 11). In a thread, the loop
                # stays free to count each request when it arrives.
                response = await asyncio.to_thread(self._answer, route, request, path)
            else:
                response = self._answer(route, request, path)
            if settings.renamed_keys and response.status == 200:
                response.body = renamed(response.body, response.content_type, settings.renamed_keys)
            if fault == "malformed" and response.body:
                # Well-formed HTTP, broken payload: the body cut in the middle.
                response.body = response.body[: max(1, len(response.body) // 2)]
            return self._finish(source, response)
        finally:
            self.stats.leave(source)

    def _finish(self, source: SimSource, response: Response) -> Response:
        self.stats.status(source, response.status)
        return response

    def _answer(self, route: SimRoute, request: Request, path: str) -> Response:
        ctx = self.context
        # The venue registries (OpenAlex sources, DBLP venues, Crossref journals: issue 21).
        registry = venue_registry.route(route.name, request, path, ctx)
        if registry is not None:
            return registry
        return route.answer(request, path, ctx, self._config.sources[route.name])

    def _take_token(self, route: SimRoute, kind: RequestKind, request: Request, arrival: float) -> float:
        source = route.name
        settings = self._config.sources[source]
        if kind == "search" and settings.search_rate is not None:
            key, rate, burst = "search", settings.search_rate, settings.search_burst
        elif route.keyed is not None and settings.rate_with_key is not None and route.keyed(request):
            key, rate, burst = "key", settings.rate_with_key, settings.burst_with_key
        elif settings.rate is not None:
            key, rate, burst = "main", settings.rate, settings.burst
        else:
            return 0.0
        bucket = self._buckets.get((source, key))
        if bucket is None:
            bucket = self._buckets[(source, key)] = make_limit(settings.limit_mode, rate, burst, self._clock)
        return bucket.try_take(arrival) if isinstance(bucket, SlidingWindow) else bucket.try_take()

    def _too_many(self, route: SimRoute, request: Request, wait: float) -> Response:
        settings = self._config.sources[route.name]
        header = retry_after_header(settings.retry_after if settings.retry_after is not None else wait)
        return route.rate_limited(header, settings, request)

    def _draw_fault(self, source: SimSource, kind: RequestKind) -> FaultName | None:
        # One draw per request whatever the rates, so changing one fault's rate does not shift
        # which requests the others hit.
        draw = self._fault_rng[source].random()
        rates = self._config.sources[source].faults_for(kind)
        threshold = 0.0
        for name in FAULT_NAMES:
            threshold += getattr(rates, name)
            if draw < threshold:
                return name
        return None

    # --- control endpoints -------------------------------------------------------------------------

    def _index(self) -> dict[str, Any]:
        return {
            "simulator": "aletheia",
            "works": len(self.universe),
            "sources": prefixes(),
            "control": ["/_sim/stats", "/_sim/reset", "/_sim/config", "/_sim/health"],
            "pages": "/pages/<name>.html",
        }

    def _control(self, request: Request, path: str) -> Response:
        name = path.strip("/")
        if name == "stats" and request.method in ("GET", "HEAD"):
            return json_response(self.stats.snapshot())
        if name == "health":
            return json_response({"status": "ok", "works": len(self.universe)})
        if name == "reset" and request.method == "POST":
            self.reset()
            return json_response({"status": "ok"})
        if name == "config" and request.method in ("GET", "HEAD"):
            return json_response(self._config.model_dump(mode="json"))
        if name == "config" and request.method == "POST":
            try:
                patch = request.json()
                if not isinstance(patch, dict):
                    raise TypeError("the body must be a JSON object")
                self.configure(self._config.merged(patch))
            except (ValueError, TypeError, ValidationError) as exc:
                return json_response({"status": "error", "message": str(exc)}, status=400)
            return json_response(self._config.model_dump(mode="json"))
        return json_response(
            {"status": "error", "message": f"no control endpoint {request.method} {path}"}, 404
        )
