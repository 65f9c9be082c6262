"""Request counters per reference, beside the gateway's per source.

A queued job has no one gateway: a worker's gateway serves every job's references at once. So every
counter of a source (`SourceStats`) is counted twice: on the gateway's stats, and on the stats of
the reference being verified, held in a `ContextVar` that `counted` sets around one reference's
verification. Tasks the verification starts (`asyncio.create_task`, `gather`) copy the context and
so share the reference's dict: a batched or coalesced request is counted once, to the reference
whose task sent it, and the references' counters of one job add up to what the gateway counted for
them. Outside `counted` (the in-process run, the claim pipeline) nothing extra is counted.

Only stats that name their source (`SourceStats.source`) are counted per reference.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Mapping
from contextvars import ContextVar
from typing import Any, Literal, TypeVar

from aletheia.sources.base import SourceStats

T = TypeVar("T")

Counter = Literal["requests", "errors", "rate_limited", "cache_hits"]
COUNTERS: tuple[Counter, ...] = ("requests", "errors", "rate_limited", "cache_hits")

_ITEM: ContextVar[dict[str, SourceStats] | None] = ContextVar("aletheia_item_stats", default=None)


def _item_stats(source: str | None) -> SourceStats | None:
    """The current reference's stats of `source`, made on first use; None when none is counted."""
    item = _ITEM.get()
    if item is None or source is None:
        return None
    mine = item.get(source)
    if mine is None:
        mine = item[source] = SourceStats(source=source)
    return mine


def count(stats: SourceStats, counter: Counter, n: int = 1) -> None:
    """Add `n` to one counter of `stats` and of the current reference's stats of its source."""
    setattr(stats, counter, getattr(stats, counter) + n)
    mine = _item_stats(stats.source)
    if mine is not None:
        setattr(mine, counter, getattr(mine, counter) + n)


def count_extra(stats: SourceStats, key: str, n: int = 1) -> None:
    """Add `n` to `stats.extra[key]` and to the current reference's (`requests_<kind>`, memo hits)."""
    stats.extra[key] = stats.extra.get(key, 0) + n
    mine = _item_stats(stats.source)
    if mine is not None:
        mine.extra[key] = mine.extra.get(key, 0) + n


async def counted(awaitable: Awaitable[T]) -> tuple[T, dict[str, SourceStats]]:
    """Await `awaitable` with a fresh per-reference dict; its result and what it counted.

    The dict is set here, inside the coroutine, since it runs on the sources' event loop (another
    thread's context), not the caller's."""
    item: dict[str, SourceStats] = {}
    token = _ITEM.set(item)
    try:
        return await awaitable, item
    finally:
        _ITEM.reset(token)


def as_json(stats: Mapping[str, SourceStats]) -> dict[str, dict[str, Any]]:
    """The counters of one reference, as stored beside its verdict."""
    return {
        name: {
            **{c: getattr(st, c) for c in COUNTERS},
            "extra": dict(sorted(st.extra.items())),
            **({"status": st.status} if st.status in TURNED_OFF else {}),
        }
        for name, st in sorted(stats.items())
    }


# A source's state that is no failure but the verifying process's settings: it was not asked.
TURNED_OFF = ("disabled", "offline")


def note_turned_off(
    item: dict[str, SourceStats], gateway: Mapping[str, SourceStats], asked: Iterable[str]
) -> None:
    """Mark in one reference's counters the sources it `asked` that its process had turned off (the
    gateway's `disabled`/`offline` state), so the job's report says why they did not answer even
    when read by a process with other settings."""
    wanted = set(asked)
    for name, st in gateway.items():
        if st.status in TURNED_OFF and name in wanted:
            item.setdefault(name, SourceStats(source=name)).status = st.status


def summed(stored: Iterable[Mapping[str, Any]]) -> dict[str, SourceStats]:
    """The per-source totals of many references' stored counters (`as_json`)."""
    out: dict[str, SourceStats] = {}
    for counters in stored:
        for name, entry in counters.items():
            st = out.setdefault(name, SourceStats(source=name))
            for c in COUNTERS:
                setattr(st, c, getattr(st, c) + int(entry.get(c, 0)))
            for key, n in (entry.get("extra") or {}).items():
                st.extra[key] = st.extra.get(key, 0) + int(n)
            if entry.get("status") in TURNED_OFF:
                st.status = str(entry["status"])
    return dict(sorted(out.items()))
