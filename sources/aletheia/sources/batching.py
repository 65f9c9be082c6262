"""Coalescing of single lookups into batch calls (Semantic Scholar, OpenAlex and PubMed take many
identifiers per request: one request for fifty DOIs is both faster and kinder than fifty).

Pending lookups go out as one `fetch_batch` call once no new key has arrived for `window` seconds
(a quiet gap), or `max_window` seconds after the first of them (by default `MAX_WINDOW_FACTOR` x
`window`), or as soon as `max_batch` distinct keys are pending. A key already pending or in flight is
not asked for again: its callers share one answer. The quiet gap is what keeps a lone lookup quick
while letting a stream of them (many references resolved at once, each arriving a few milliseconds
after the last) fill a batch: with a fixed window, the lookups of 64 references in flight against
a fast source went out a few at a time (issue 11).

While `max_in_flight` batches are out, a partial batch is held back and keeps filling; it goes as
soon as one returns (a full batch always goes at once). Behind a slow rate limit (arXiv: one
request per 3 s) this is what makes batches large: without it every window would queue its own
small batch for a token, and a hundred ids could cost a hundred requests. A lone lookup therefore
waits at most `window` plus the time the batches ahead of it take.

**Nothing else in flight** (`Quiescence`): a caller that runs many tasks whose lookups are worth
sharing (the engine: one task per reference of a job) marks each with `Quiescence.running()`.
When every task so marked waits on a key that is pending (not yet sent) in some coalescer, no
new key can come from them before a batch goes out: waiting longer can only add latency. Every
coalescer holding pending keys of those tasks then sends them at once, without waiting for its
window. A lone reference is asked at once at every batched step, and a run's last references do
not each wait out a window. Keys of unmarked callers are batched by the window alone.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Hashable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from typing import Any, Generic, Protocol, TypeVar

from aletheia.sources.transport import precedence

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

# The longest a pending lookup waits for more to join it, in windows (quiet gaps).
MAX_WINDOW_FACTOR = 10.0


def _retrieve(future: asyncio.Future[Any]) -> None:
    # Mark the outcome as seen: when every waiter of a key was cancelled, asyncio would otherwise
    # log "exception was never retrieved" for an error nobody is left to receive.
    if not future.cancelled():
        future.exception()


class _Flushable(Protocol):
    def has_pending(self) -> bool: ...

    def flush_now(self) -> bool: ...


class _Task:
    """One marked task (a reference being verified), and the pending keys it waits on."""

    __slots__ = ("parked",)

    def __init__(self) -> None:
        self.parked = 0


class Quiescence:
    """The tasks of one run whose lookups coalesce (`running`), and which of them wait on a pending
    key (`park`): once all of them do, every coalescer holding their keys sends at once.

    `running` is entered and left on any thread (the engine's item threads); parking and the
    flush happen on the event loop the coalescers run on."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._running = 0
        self._parked: set[_Task] = set()  # tasks with at least one pending key (loop only)
        self._holding: set[_Flushable] = set()  # coalescers holding a parked key (loop only)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._check_due = False
        self.flushes = 0  # sends this rule made before a window ended (for reports and tests)

    @contextmanager
    def running(self) -> Iterator[None]:
        """Mark the calling task (and the coroutines it starts, through their context) as one of
        the run's: counted as running until the block ends, parked while it waits on a pending key."""
        task = _Task()
        with self._guard:
            self._running += 1
        token = _CURRENT.set((self, task))
        try:
            yield
        finally:
            _CURRENT.reset(token)
            with self._guard:
                self._running -= 1
                loop = self._loop
            if loop is not None and not loop.is_closed():
                # The loop closed meanwhile: nothing is pending any more.
                with suppress(RuntimeError):
                    loop.call_soon_threadsafe(self._check)

    def park(self, task: _Task, coalescer: _Flushable) -> None:
        """`task` waits on a key pending in `coalescer` (on the loop)."""
        if self._loop is None:
            with self._guard:
                self._loop = asyncio.get_running_loop()
        task.parked += 1
        self._parked.add(task)
        self._holding.add(coalescer)
        if not self._check_due:
            # After what is runnable now: tasks started at the same moment park first, together.
            self._check_due = True
            self._loop.call_soon(self._check)

    def unpark(self, task: _Task) -> None:
        """One of `task`'s pending keys was sent (or it stopped waiting)."""
        task.parked -= 1
        if task.parked <= 0:
            task.parked = 0
            self._parked.discard(task)

    def quiet(self) -> bool:
        """Every running task waits on a pending key."""
        with self._guard:
            running = self._running
        return running > 0 and len(self._parked) >= running

    def _check(self) -> None:
        self._check_due = False
        self._holding = {c for c in self._holding if c.has_pending()}
        if not self._holding or not self.quiet():
            return
        for coalescer in list(self._holding):
            self.flushes += coalescer.flush_now()


# The marked task the current coroutine belongs to (`Quiescence.running`), if any.
_CURRENT: ContextVar[tuple[Quiescence, _Task] | None] = ContextVar("aletheia_quiescence", default=None)


class Coalescer(Generic[K, V]):
    """`await coalescer.get(key)` -> the batch's value for `key`, or None when the batch omitted it.

    An exception raised by `fetch_batch` is raised to every waiter of that batch.
    """

    def __init__(
        self,
        fetch_batch: Callable[[list[K]], Awaitable[dict[K, V | None]]],
        *,
        max_batch: int,
        window: float,
        max_in_flight: int | None = 1,
        max_window: float | None = None,
    ) -> None:
        if max_batch < 1:
            raise ValueError(f"max_batch must be at least 1, got {max_batch!r}")
        if window < 0:
            raise ValueError(f"window must not be negative, got {window!r}")
        if max_in_flight is not None and max_in_flight < 1:
            raise ValueError(f"max_in_flight must be at least 1 (or None), got {max_in_flight!r}")
        self._fetch_batch = fetch_batch
        self.max_batch = max_batch
        self.window = window
        self.max_window = max(window, max_window if max_window is not None else MAX_WINDOW_FACTOR * window)
        self._first_pending = 0.0  # loop time the oldest pending key arrived
        self.max_in_flight = max_in_flight
        self._running = 0  # batches sent and not yet answered
        self._pending: dict[K, asyncio.Future[V | None]] = {}
        self._in_flight: dict[K, asyncio.Future[V | None]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()  # strong references: the loop keeps only weak ones
        # The marked tasks waiting on each pending key (`Quiescence`): unparked when it is sent.
        self._parked: dict[K, list[tuple[Quiescence, _Task]]] = {}
        # The most urgent place among each pending key's callers (`precedence.order_key`): a batch
        # waits at its source as the most urgent reference it answers would.
        self._order: dict[K, tuple[float, float]] = {}

    def has_pending(self) -> bool:
        return bool(self._pending)

    def flush_now(self) -> bool:
        """Send what is pending now (`Quiescence`: nothing else can join it); False when nothing
        went (a batch already in flight holds the rest back until it returns)."""
        before = len(self._pending)
        self._flush()
        return len(self._pending) < before

    async def get(self, key: K) -> V | None:
        future = self._pending.get(key)
        if future is not None:
            self._order[key] = min(self._order[key], precedence.order_key())
        if future is None:
            future = self._in_flight.get(key)
        if future is None:
            loop = asyncio.get_running_loop()
            future = loop.create_future()
            future.add_done_callback(_retrieve)
            now = loop.time()
            if not self._pending:
                self._first_pending = now
            self._pending[key] = future
            self._order[key] = precedence.order_key()
            if len(self._pending) >= self.max_batch:
                self._flush(full_only=True)
            if self._pending:
                # A new key restarts the quiet gap, up to `max_window` after the oldest one.
                if self._timer is not None:
                    self._timer.cancel()
                due = min(now + self.window, self._first_pending + self.max_window)
                self._timer = loop.call_at(due, self._flush)
        marked = _CURRENT.get()
        if marked is None or self._pending.get(key) is not future:
            # Shielded: one waiter giving up must not cancel the answer the others wait for.
            return await asyncio.shield(future)
        return await self._parked_wait(key, future, marked)

    async def _parked_wait(
        self, key: K, future: asyncio.Future[V | None], marked: tuple[Quiescence, _Task]
    ) -> V | None:
        """Wait on a pending key as a marked task: parked until the key is sent."""
        quiescence, task = marked
        self._parked.setdefault(key, []).append(marked)
        quiescence.park(task, self)  # may send it at once
        try:
            return await asyncio.shield(future)
        finally:
            waiting = self._parked.get(key)
            if waiting is not None and marked in waiting:  # still pending: given up (cancelled)
                waiting.remove(marked)
                if not waiting:
                    del self._parked[key]
                quiescence.unpark(task)

    def _flush(self, *, full_only: bool = False) -> None:
        """Send what is pending: every full batch, and the partial rest unless `full_only` or
        `max_in_flight` batches are already out (then it waits for one of them to return)."""
        while len(self._pending) >= self.max_batch:
            self._send(list(self._pending)[: self.max_batch])
        if full_only:
            return
        # The window is over either way: the rest goes now, or when a batch in flight returns.
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending:
            return
        if self.max_in_flight is not None and self._running >= self.max_in_flight:
            return
        self._send(list(self._pending))

    def _send(self, keys: list[K]) -> None:
        batch = {key: self._pending.pop(key) for key in keys}
        order = min(self._order.pop(key) for key in keys)
        self._in_flight.update(batch)
        for key in keys:
            for quiescence, marked in self._parked.pop(key, ()):
                quiescence.unpark(marked)
        self._running += 1
        task = asyncio.get_running_loop().create_task(self._run(batch, order))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, batch: dict[K, asyncio.Future[V | None]], order: tuple[float, float]) -> None:
        try:
            with precedence.ordered_as(order):
                found = await self._fetch_batch(list(batch))
        except asyncio.CancelledError:
            for future in batch.values():
                future.cancel()
            raise
        except Exception as exc:
            for future in batch.values():
                if not future.done():
                    future.set_exception(exc)
        else:
            for key, future in batch.items():
                if not future.done():
                    future.set_result(found.get(key))
        finally:
            self._running -= 1
            for key, future in batch.items():
                if self._in_flight.get(key) is future:
                    del self._in_flight[key]
            if self._pending and self._timer is None:
                # A partial batch held back behind this one has waited long enough already.
                self._flush()
