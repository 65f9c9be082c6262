"""The simulator's request pipeline: route by path prefix, count, limit, delay, inject faults, answer.

Per request, in this order: the configured arrival jitter (the network); count it (source, kind,
ids asked for); refuse with 429 if the source's in-flight cap is exceeded or its token bucket is
empty, or its sliding window full (with `Retry-After`); wait the
configured latency; draw a fault; answer from the universe. Control endpoints under `/_sim/` are
never limited, delayed or faulted.

Routes: `/crossref`, `/openalex`, `/s2`, `/arxiv-api`, `/arxiv`, `/pubmed`, `/europepmc`, each followed by the
real service's own paths, so `ALETHEIA_CROSSREF_URL=http://127.0.0.1:PORT/crossref` points a
client at the simulator without any other change. DBLP is served under `/dblp`, the ACL Anthology
under `/acl`. Books: `/openlibrary`, `/googlebooks`; canonical texts: `/perseus`, `/ccel`
(`simulator/books.py`, `simulator/classical.py`). Web search: `/tavily`, `/brave`
(`simulator/web_search.py`). The venue registries (`/openalex/sources`, `/dblp/search/venue/api`,
`/crossref/journals`) are `simulator/venue_registry.py`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import traceback
from collections.abc import Callable
from typing import Any, Final

from pydantic import ValidationError

from aletheia.sources.simulator import (
    acl_anthology,
    arxiv,
    books,
    classical,
    crossref,
    dblp,
    europe_pmc,
    openalex,
    pubmed,
    semantic_scholar,
    venue_registry,
    web_search,
)
from aletheia.sources.simulator.common import SimContext
from aletheia.sources.simulator.config import (
    FAULT_NAMES,
    SIM_SOURCES,
    FaultName,
    RequestKind,
    SimSource,
    SimulatorConfig,
)
from aletheia.sources.simulator.drift import renamed
from aletheia.sources.simulator.http import Request, Response, json_response, text_response
from aletheia.sources.simulator.limits import SlidingWindow, TokenBucket, make_limit, retry_after_header
from aletheia.sources.simulator.pages import serve_page
from aletheia.sources.simulator.stats import SimulatorStats
from aletheia.sources.simulator.universe import Universe

logger = logging.getLogger(__name__)

# URL path prefix of each source.
PREFIXES: Final[dict[SimSource, str]] = {
    "crossref": "/crossref",
    "openalex": "/openalex",
    "semantic_scholar": "/s2",
    "arxiv_api": "/arxiv-api",
    "arxiv": "/arxiv",
    "pubmed": "/pubmed",
    "dblp": "/dblp",
    "acl_anthology": "/acl",
    "europe_pmc": "/europepmc",
    "open_library": books.OPEN_LIBRARY_PREFIX,
    "google_books": books.GOOGLE_BOOKS_PREFIX,
    "perseus": "/perseus",
    "ccel": "/ccel",
    "tavily": web_search.TAVILY_PREFIX,
    "brave_search": web_search.BRAVE_PREFIX,
}
# Sources whose simulator module has the uniform shape: (classify, answer, 429) per source.
# Books and canonical texts answer from fixed data, without the universe.
_Route = tuple[
    Callable[[Request, str], tuple[RequestKind, list[str]]],
    Callable[[Request, str, SimContext], Response],
    Callable[[str], Response],
]
_ROUTES: Final[dict[str, _Route]] = {
    "open_library": (books.classify, lambda r, p, _: books.handle_open_library(r, p), books.rate_limited),
    "google_books": (books.classify, lambda r, p, _: books.handle_google_books(r, p), books.rate_limited),
    "perseus": (classical.classify, lambda r, p, _: classical.handle_perseus(r, p), classical.rate_limited),
    "ccel": (classical.classify, lambda r, p, _: classical.handle_ccel(r, p), classical.rate_limited),
    "tavily": (web_search.classify, web_search.handle_tavily, web_search.rate_limited),
    "brave_search": (web_search.classify, web_search.handle_brave, web_search.rate_limited),
    "dblp": (dblp.classify, dblp.handle, dblp.rate_limited),
    "acl_anthology": (acl_anthology.classify, acl_anthology.handle, acl_anthology.rate_limited),
    "europe_pmc": (europe_pmc.classify, europe_pmc.handle, europe_pmc.rate_limited),
}
_BY_SEGMENT: Final[dict[str, SimSource]] = {prefix.strip("/"): source for source, prefix in PREFIXES.items()}


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
        self._fault_rng = {s: random.Random(f"{seed}:{s}:faults") for s in SIM_SOURCES}
        self._latency_rng = {s: random.Random(f"{seed}:{s}:latency") for s in SIM_SOURCES}
        self._arrival_rng = {s: random.Random(f"{seed}:{s}:arrival") for s in SIM_SOURCES}

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
        source = _BY_SEGMENT.get(segment)
        if source is None:
            self.stats.begin("_other", "single", [])
            self.stats.status("_other", 404)
            return text_response("Not Found", status=404)
        return await self._source_request(source, request, subpath)

    async def _source_request(self, source: SimSource, request: Request, path: str) -> Response:
        kind, ids = _classify(source, request, path)
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
                return self._finish(source, self._too_many(source, request, 1.0))
            wait = self._take_token(source, kind, request, arrival)
            if wait > 0:
                self.stats.limited(source, concurrency=False)
                return self._finish(source, self._too_many(source, request, wait))
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
                response = await asyncio.to_thread(self._answer, source, request, path)
            else:
                response = self._answer(source, request, path)
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

    def _answer(self, source: SimSource, request: Request, path: str) -> Response:
        ctx = self.context
        # The venue registries (OpenAlex sources, DBLP venues, Crossref journals: issue 21).
        registry = venue_registry.route(source, request, path, ctx)
        if registry is not None:
            return registry
        if source in _ROUTES:
            return _ROUTES[source][1](request, path, ctx)
        if source == "crossref":
            return crossref.handle(request, path, ctx, self._config.sources[source].rate)
        if source == "openalex":
            return openalex.handle(request, path, ctx)
        if source == "semantic_scholar":
            return semantic_scholar.handle(request, path, ctx)
        if source == "arxiv_api":
            return arxiv.handle_api(request, path, ctx)
        if source == "arxiv":
            return arxiv.handle_site(request, path, ctx)
        return pubmed.handle(request, path, ctx)

    def _take_token(self, source: SimSource, kind: RequestKind, request: Request, arrival: float) -> float:
        settings = self._config.sources[source]
        if kind == "search" and settings.search_rate is not None:
            key, rate, burst = "search", settings.search_rate, settings.search_burst
        elif source == "pubmed" and settings.rate_with_key is not None and pubmed.has_api_key(request):
            key, rate, burst = "key", settings.rate_with_key, settings.burst_with_key
        elif settings.rate is not None:
            key, rate, burst = "main", settings.rate, settings.burst
        else:
            return 0.0
        bucket = self._buckets.get((source, key))
        if bucket is None:
            bucket = self._buckets[(source, key)] = make_limit(settings.limit_mode, rate, burst, self._clock)
        return bucket.try_take(arrival) if isinstance(bucket, SlidingWindow) else bucket.try_take()

    def _too_many(self, source: SimSource, request: Request, wait: float) -> Response:
        settings = self._config.sources[source]
        header = retry_after_header(settings.retry_after if settings.retry_after is not None else wait)
        if source in _ROUTES:
            return _ROUTES[source][2](header)
        if source == "crossref":
            return crossref.rate_limited(header, settings.rate)
        if source == "openalex":
            return openalex.rate_limited(header)
        if source == "semantic_scholar":
            return semantic_scholar.rate_limited(header)
        if source == "pubmed":
            return pubmed.rate_limited(header, settings.rate, request)
        return arxiv.rate_limited(header)

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
            "sources": dict(PREFIXES),
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


def _classify(source: SimSource, request: Request, path: str) -> tuple[RequestKind, list[str]]:
    if source in _ROUTES:
        return _ROUTES[source][0](request, path)
    if source == "crossref":
        return crossref.classify(request, path)
    if source == "openalex":
        return openalex.classify(request, path)
    if source == "semantic_scholar":
        return semantic_scholar.classify(request, path)
    if source == "arxiv_api":
        return arxiv.classify_api(request, path)
    if source == "arxiv":
        return arxiv.classify_site(request, path)
    return pubmed.classify(request, path)
