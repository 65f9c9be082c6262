"""What the per-source renderers share: the request context and small helpers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from aletheia.sources.simulator.ids import stable_int
from aletheia.sources.simulator.universe import Universe
from aletheia.sources.simulator.work import SimWork

# Characters XML 1.0 forbids even escaped (control characters other than tab/newline/CR).
_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_text(text: str) -> str:
    return escape(_XML_FORBIDDEN.sub("", text))


def xml_attr(text: str) -> str:
    return quoteattr(_XML_FORBIDDEN.sub("", text))


@dataclass(frozen=True)
class SimContext:
    """What a handler may read: the universe (every source's catalog) and the server's clock."""

    universe: Universe
    # Papers Semantic Scholar holds beyond the universe (`SimulatorConfig.semantic_scholar_corpus`).
    semantic_scholar_corpus: int = 0
    seed: int = 0

    @staticmethod
    def now() -> datetime:
        return datetime.now(UTC).replace(microsecond=0)


def month_day(work: SimWork, salt: str) -> tuple[int, int]:
    """A stable month and day for a work that only has a year (dates must look like dates)."""
    number = stable_int(salt, work.key, digits=6)
    return 1 + number % 12, 1 + (number // 12) % 28


def parse_int(value: str | None, default: int, *, low: int = 0, high: int | None = None) -> int | None:
    """An integer parameter; None when it is not one or out of bounds (the caller answers 400)."""
    if value is None or value == "":
        return default
    text = value.strip()
    if not text.lstrip("-").isdigit():
        return None
    number = int(text)
    if number < low or (high is not None and number > high):
        return None
    return number


def filter_pairs(text: str) -> list[tuple[str, str]]:
    """A `filter` parameter as Crossref and OpenAlex write it (`name:value,name:value`), in order."""
    pairs = []
    for part in text.split(","):
        if not part.strip():
            continue
        name, _, value = part.partition(":")
        pairs.append((name.strip(), value.strip()))
    return pairs


def works_by_year(works: Sequence[SimWork], year: int, *, since: bool) -> set[int]:
    """The indexes of the works of `year` or later (`since`), else of `year` or earlier: a
    `from-`/`until-` date filter read by its year (works without a year match neither)."""
    if since:
        return {i for i, w in enumerate(works) if w.year is not None and w.year >= year}
    return {i for i, w in enumerate(works) if w.year is not None and w.year <= year}


def timestamp_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def page_start(cursor: str | None, page: int, size: int) -> int:
    """Where a list page starts: by `page` number, or by cursor (`*` the first; `sim:N`, the cursor
    the simulator gives as `next-cursor` / `meta.next_cursor`, at result N)."""
    if cursor is None:
        return (page - 1) * size
    number = cursor.removeprefix("sim:")
    return int(number) if cursor.startswith("sim:") and number.isdigit() else 0


def openalex_meta(
    total: int, sent: int, page: int, size: int, start: int, cursor: str | None
) -> dict[str, Any]:
    """OpenAlex's list `meta`; asked by cursor, with `next_cursor` (null after the last page)."""
    meta: dict[str, Any] = {
        "count": total,
        "db_response_time_ms": 3 + sent,
        "page": page,
        "per_page": size,
        "groups_count": None,
    }
    if cursor is not None:
        meta["next_cursor"] = f"sim:{start + size}" if start + size < total else None
    return meta


def updated_since(works: Sequence[SimWork], value: str) -> set[int]:
    """The works whose record changed on or after the day `value` starts with (the update filters
    mirror increments use, issue 32): `meta.updated`, an ISO date; without one, never."""
    day = value[:10]
    return {i for i, w in enumerate(works) if w.meta.get("updated") and str(w.meta["updated"]) >= day}
