"""Which waiting request goes first at a source: the one whose reference has the most work left at
the slow sources after it, then the one whose reference started first.

Why. Under the documented limits a run lasts as long as its busiest bucket needs, if that bucket
never idles. A reference reaches the sources in stages (`pipeline.evidence.gather`): OpenAlex,
then Semantic Scholar (one request a second), then arXiv and DBLP (one every 3 and 2 s), then
Crossref. Semantic Scholar and DBLP are both nearly busy for a whole HALLMARK run, one behind the
other; served in arrival order, Semantic Scholar hands DBLP a stretch of references that need
nothing more of it (found, or not computer science) and DBLP idles (measured: 22-31 s of a 300 s
run, docs/benchmarks.md section 8). Johnson's rule for a two-stage flow shop: with the first
stage's times equal (one request each), the jobs with the longest second stage go first, which
keeps the second machine fed. So a request whose reference still has DBLP's and arXiv's searches
ahead goes before one with only Crossref's left (`later_work`, in seconds of the sources'
documented intervals, set by the stage that asks). Between equals, the older reference goes first
(`reference_started`): a reference back at a source for its second request (a `match` after a bulk
search) is finished, and leaves its place to a new one, sooner than in arrival order.

Only the order of requests already waiting changes: what is asked, and how often, does not, and
every request still waits for its bucket's token (`ratelimit`). Context variables carry both
values from the reference's task into the tasks it starts (`asyncio.gather`), as `batching`'s
marks do; a batch request shared by many references (`batching.Coalescer`) takes the place of
the most urgent of them (`ordered_as`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# When the current reference started (time.monotonic()); unset outside a reference.
_STARTED: ContextVar[float | None] = ContextVar("aletheia_reference_started", default=None)
# Seconds of the sources' documented intervals the current reference may still need after the
# request it is making now (the later search stages).
_LATER_WORK: ContextVar[float] = ContextVar("aletheia_later_work", default=0.0)


@contextmanager
def reference_started(at: float | None = None) -> Iterator[None]:
    """The requests made inside are the reference's that started at `at` (default: now). An
    enclosing mark is kept: a reference's own steps never make it younger."""
    if _STARTED.get() is not None:
        yield
        return
    token = _STARTED.set(time.monotonic() if at is None else at)
    try:
        yield
    finally:
        _STARTED.reset(token)


@contextmanager
def later_work(seconds: float) -> Iterator[None]:
    """The requests made inside leave `seconds` of slow-source work for their reference after them."""
    if not seconds >= 0:
        raise ValueError(f"later work must be a non-negative number of seconds, got {seconds!r}")
    token = _LATER_WORK.set(seconds)
    try:
        yield
    finally:
        _LATER_WORK.reset(token)


@contextmanager
def ordered_as(key: tuple[float, float]) -> Iterator[None]:
    """The requests made inside take the place `key` (an `order_key`) gives: a batch shared by
    many references is as urgent as the most urgent of them (`batching.Coalescer`)."""
    later, started = key
    tokens = (_LATER_WORK.set(-later), _STARTED.set(None if math.isinf(started) else started))
    try:
        yield
    finally:
        _STARTED.reset(tokens[1])
        _LATER_WORK.reset(tokens[0])


def order_key() -> tuple[float, float]:
    """The current request's place among those of the same kind waiting for a source: smaller
    goes first (more later work first, then the older reference; a request of no reference
    last)."""
    started = _STARTED.get()
    return (-_LATER_WORK.get(), math.inf if started is None else started)
