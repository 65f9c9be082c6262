"""Helpers the gateway's tier modules share (`TierSources`, `CsSources`, the gateway itself)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from aletheia.sources.base import PermanentSourceError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from aletheia.core.records import SourceName

C = TypeVar("C")


def searchable(source: SourceName, call: Callable[[], Awaitable[C]]) -> Callable[[], Awaitable[C]]:
    """A client refuses (ValueError) a title with no searchable word for it: that source could not
    be asked, which is a failed answer (the verdict stays unverifiable), never a "no such work"."""

    async def run() -> C:
        try:
            return await call()
        except ValueError as exc:
            raise PermanentSourceError(source.value, f"no searchable query: {exc}") from None

    return run
