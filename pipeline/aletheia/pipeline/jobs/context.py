"""What every step of every job kind shares (the kinds and task names are the registry's,
`jobs/kinds.py`): the `Dispatcher` a step asks for the next one through, the
`ServiceContext` it runs in, the shared event loop and the deferring rate limiter.
"""

from __future__ import annotations

import asyncio
import random
import re
import threading
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from aletheia.config import Settings
from aletheia.core.errors import AletheiaError
from aletheia.core.evidence import Evidence, Outcome
from aletheia.core.records import CitedReference
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.joblog import job_context
from aletheia.pipeline.jobs.leases import BrokerProbe, Held, LeaseKeeper
from aletheia.pipeline.runtime import Runtime
from aletheia.sources.base import RateLimitedError
from aletheia.sources.batching import Quiescence
from aletheia.sources.transport.limiter import RateLimiter
from aletheia.sources.transport.ratelimit import build_rate_limiter

T = TypeVar("T")


class Dispatcher(Protocol):
    def send(self, task: str, *args: Any) -> None:
        """Ask for `task(*args)` to run; called only after the rows it reads are committed."""
        ...


class AsyncRunner(Protocol):
    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T: ...


Verifier = Callable[[CitedReference], Awaitable[ReferenceOutcome]]


class TokenDeferred(AletheiaError):
    """A source had no rate-limit token soon enough: run the step again after `wait` seconds."""

    def __init__(self, wait: float) -> None:
        super().__init__(wait)
        self.wait = wait

    def countdown(self) -> float:
        # Jitter: every item denied at the same moment must not come back at the same moment.
        return round(self.wait * (1.0 + random.random()) + 0.05, 3)


# --- the event loop every synchronous step runs its coroutines on ---------------------------------


class LoopThread:
    """One asyncio loop in a daemon thread, shared by every task of a worker process.

    Why not `asyncio.run` per task: the gateway holds one `httpx.AsyncClient` (connection reuse),
    a `redis.asyncio` limiter bound to the loop it first connected in, and the clients' request
    coalescing windows, which batch lookups only when concurrent tasks share them. Task threads
    hand their coroutines over and wait for the result (`run`).
    """

    def __init__(self, name: str = "aletheia-loop") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()


# --- polite limits without sleeping in a worker slot ----------------------------------------------

DEFERRED_MARK = "deferred to the queue"
_DEFERRED_WAIT = re.compile(re.escape(DEFERRED_MARK) + r" for ([0-9.]+)s")
# The waits deferred while a step runs (`collect_deferrals`), however the pipeline took the error.
_DEFERRALS: ContextVar[list[float] | None] = ContextVar("aletheia_deferrals", default=None)


def collect_deferrals() -> list[float]:
    """From now on in this task (and the tasks it starts), every wait a `DeferringLimiter` turns
    into an error is added to the returned list: a step whose pipeline records source failures as
    answers (the claim stages) still learns that it should go back to the queue."""
    seen: list[float] = []
    _DEFERRALS.set(seen)
    return seen


class DeferringLimiter:
    """A `RateLimiter` whose waits for a token are bounded by `max_wait`: a longer wait raises a
    `RateLimitedError` (no HTTP status, so the transport does not retry it) whose message says how
    long to wait. `deferral_wait` finds it in the evidence and the step becomes a queue retry."""

    def __init__(self, inner: RateLimiter, max_wait: float) -> None:
        self.inner = inner
        self.max_wait = max_wait
        self.send_delays = inner.send_delays

    async def try_acquire(self, bucket: str, rate: float, burst: float) -> float:
        return await self.inner.try_acquire(bucket, rate, burst)

    async def acquire(
        self, bucket: str, rate: float, burst: float, *, max_wait: float | None = None
    ) -> float | None:
        bound = self.max_wait if max_wait is None else min(max_wait, self.max_wait)
        try:
            return await self.inner.acquire(bucket, rate, burst, max_wait=bound)
        except RateLimitedError as exc:
            if exc.status_code is not None:
                raise
            wait = exc.retry_after if exc.retry_after is not None else 1.0 / rate
            seen = _DEFERRALS.get()
            if seen is not None:
                seen.append(wait)
            raise RateLimitedError(
                exc.source,
                f"no token in {bucket!r}: {DEFERRED_MARK} for {wait:.3f}s",
                status_code=None,
                retry_after=wait,
            ) from None

    async def hold_back(self, bucket: str, seconds: float) -> None:
        await self.inner.hold_back(bucket, seconds)

    async def penalize(self, bucket: str, seconds: float) -> None:
        await self.inner.penalize(bucket, seconds)

    def slot(self, source: str, limit: int) -> AbstractAsyncContextManager[None]:
        return self.inner.slot(source, limit)

    async def aclose(self) -> None:
        await self.inner.aclose()


def deferred_wait_in(text: str) -> float | None:
    """The longest wait a deferred request asked for anywhere in `text` (an error, a trail event as
    JSON), or None when none was deferred."""
    if DEFERRED_MARK not in text:
        return None
    return max((float(found) for found in _DEFERRED_WAIT.findall(text)), default=1.0)


def deferral_wait(evidence: Evidence) -> float | None:
    """The longest wait asked for by a deferred lookup in `evidence`, or None when none was."""
    waits = []
    for answer in evidence.answers:
        if answer.outcome is Outcome.FAILED and answer.error and DEFERRED_MARK in answer.error:
            found = _DEFERRED_WAIT.search(answer.error)
            waits.append(float(found.group(1)) if found else 1.0)
    return max(waits) if waits else None


# --- the context a step runs in -------------------------------------------------------------------


@dataclass
class ServiceContext:
    runtime: Runtime
    dispatcher: Dispatcher
    runner: AsyncRunner
    verifier: Verifier | None = None
    gateway: SourceGateway | None = None
    defer_tokens: bool = True  # workers: a long wait for a token becomes a queue retry
    fresh_gateway: SourceGateway | None = None  # source_gateway(fresh=True)
    _gateway_cms: list[AbstractAsyncContextManager[SourceGateway]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _leases: LeaseKeeper | None = None
    # Told of every verdict recorded in this process, (job id, position, outcome): `aletheia
    # verify` streams them to the terminal in input order (`verify.InputOrder`).
    on_verdict: Callable[[str, int, ReferenceOutcome], None] | None = None
    # Opens what the re-drive asks the broker, for one pass (`jobs/redrive.py`; the workers'
    # `RedisBrokerProbe.from_settings`); None: no broker to ask (the embedded mode).
    broker_probe: Callable[[], BrokerProbe | None] | None = None
    # The item steps running in this process, for the sources' batching: when every one of them
    # waits on a lookup not yet sent, the batches go at once (`sources.batching.Quiescence`).
    quiescence: Quiescence = field(default_factory=Quiescence)

    def hold(self, kind: Held, key: str) -> AbstractContextManager[None]:
        """Hold the lease on `key` while the `with` block runs (jobs/leases.py)."""
        with self._lock:
            if self._leases is None:
                self._leases = LeaseKeeper(self.runtime.leases, self.settings.lease_seconds)
        return self._leases.hold(kind, key)

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    def source_gateway(self, *, fresh: bool = False) -> SourceGateway:
        """The process's gateway; `fresh`: one that asks the sources again, reading neither the raw
        cache nor the Tier-0 library (the weekly audit: a paper retracted since must show)."""
        with self._lock:
            if fresh:
                if self.fresh_gateway is None:
                    self.fresh_gateway = self.runner.run(self._open_gateway(fresh=True))
                return self.fresh_gateway
            if self.gateway is None:
                self.gateway = self.runner.run(self._open_gateway())
            return self.gateway

    async def _open_gateway(self, *, fresh: bool = False) -> SourceGateway:
        limiter: RateLimiter = build_rate_limiter(
            self.settings, max_connections=max(self.settings.redis_max_connections, 8)
        )
        if self.defer_tokens:
            limiter = DeferringLimiter(limiter, self.settings.retrieval_token_wait_seconds)
        opened = self.runtime.gateway(limiter=limiter, fresh=fresh)
        self._gateway_cms.append(opened)
        return await opened.__aenter__()

    def close(self) -> None:
        if self._leases is not None:
            self._leases.close()
            self._leases = None
        if self._gateway_cms:
            while self._gateway_cms:
                self.runner.run(self._gateway_cms.pop().__aexit__(None, None, None))
            self.gateway = self.fresh_gateway = None
        if isinstance(self.runner, LoopThread):
            self.runner.close()


def _run_in_job(ctx: ServiceContext, job_id: str, coro: Coroutine[Any, Any, T]) -> T:
    async def wrapped() -> T:
        with job_context(job_id):
            return await coro

    return ctx.runner.run(wrapped())
