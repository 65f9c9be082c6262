"""One step of a full-text search (`fulltext`, `oa_fulltext`, `pmc_fulltext`): what a source gives,
or None with the reason noted in the search's `attempts` as `label: why`."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from aletheia.sources.base import SourceError

__all__ = ["noted"]

_T = TypeVar("_T")


async def noted(label: str, asked: Awaitable[_T | None], missing: str, attempts: list[str]) -> _T | None:
    """What `asked` gives; None when the source fails (noted as `label: <the error>`) or has
    nothing (noted as `label: <missing>`)."""
    try:
        found = await asked
    except SourceError as exc:
        attempts.append(f"{label}: {exc}")
        return None
    if found is None:
        attempts.append(f"{label}: {missing}")
    return found
