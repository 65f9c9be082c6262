"""What the per-source renderers share: the request context and small helpers."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from xml.sax.saxutils import escape, quoteattr

from aletheia.sources.simulator.universe import SimWork, Universe, stable_int

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


def timestamp_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)
