"""Source trust (seed 003): every piece of evidence names its source and that source's trust
level, and a field supported only by low-trust evidence is never decisive.

The levels are data (`aletheia/core/data/source_trust.json`); each source's level is its record's
(`source_facts.SourceFacts.trust`, keyed by `SourceName` values). This module reads them and
answers two questions: how far is this source trusted (`trust_of`), and may evidence from it
decide a field (`is_decisive`). A source no record names is treated as the least trusted:
default-deny.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from aletheia.core.source_facts import FactView

__all__ = ["DATA_FILE", "TrustTable", "any_decisive", "is_decisive", "trust_of", "trust_rank", "trust_table"]

DATA_FILE: Final = "source_trust.json"


@dataclass(frozen=True, slots=True)
class TrustTable:
    levels: tuple[str, ...]  # most trusted first
    sources: Mapping[str, str]
    decisive_from: str

    def level(self, source: object) -> str:
        """The trust level of a source (a `SourceName` or its value); the lowest when unknown."""
        key = str(getattr(source, "value", source) or "")
        return self.sources.get(key, self.levels[-1])

    def rank(self, source: object) -> int:
        """0 for the most trusted level; larger is less trusted."""
        return self.levels.index(self.level(source))

    def decisive(self, source: object) -> bool:
        return self.rank(source) <= self.levels.index(self.decisive_from)


def parse_trust(data: dict[str, Any], sources: Mapping[str, str] | None = None) -> TrustTable:
    """The levels of `data`; each source's level from `sources` (default: `data["sources"]`)."""
    levels = tuple(str(entry["level"]) for entry in data["levels"])
    if sources is None:
        sources = {str(k): str(v) for k, v in data["sources"].items()}
    unknown = {v for v in sources.values() if v not in levels} | ({data["decisive_from"]} - set(levels))
    if unknown:
        raise ValueError(f"trust levels not in the table's levels: {sorted(unknown)}")
    return TrustTable(levels=levels, sources=sources, decisive_from=str(data["decisive_from"]))


@cache
def trust_table() -> TrustTable:
    """The shipped levels, read once on first use (never at import), over the sources' records."""
    from importlib import resources

    text = (resources.files("aletheia.core") / "data" / DATA_FILE).read_text(encoding="utf-8")
    return parse_trust(json.loads(text), FactView(lambda facts: facts.trust))


def trust_of(source: object) -> str | None:
    """The trust level of `source`, None for no source."""
    return trust_table().level(source) if source else None


def trust_rank(source: object) -> int:
    return trust_table().rank(source)


def is_decisive(source: object) -> bool:
    """Evidence from this source may decide a field (trust at or above `decisive_from`)."""
    return bool(source) and trust_table().decisive(source)


def any_decisive(sources: Iterable[object]) -> bool:
    return any(is_decisive(s) for s in sources)
