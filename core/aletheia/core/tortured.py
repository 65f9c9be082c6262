"""Tortured phrases: established technical terms paraphrased by synonym-substitution tools
("counterfeit consciousness" for artificial intelligence, "irregular woodland" for random forest),
the fingerprint of paper-mill and machine-spun articles (Cabanac, Labbé & Magazinov 2021).

The table is data (`aletheia/core/data/tortured_phrases.json`, with its provenance); this module
only folds text and finds the phrases in it, whole words only, on the same folded form
(`aletheia.core.text.fold`: case, accents, punctuation and hyphens as spaces).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from aletheia.core.text import fold

__all__ = ["DATA_FILE", "TorturedMatch", "TorturedTable", "find_tortured", "tortured_table"]

DATA_FILE: Final = "tortured_phrases.json"


@dataclass(frozen=True, slots=True)
class TorturedMatch:
    """One tortured phrase found: the phrase (as listed), the term it stands for, how many times."""

    phrase: str
    expected: str
    count: int

    def as_json(self) -> dict[str, Any]:
        return {"phrase": self.phrase, "expected": self.expected, "count": self.count}


class TorturedTable:
    """The phrases, folded, and one regular expression that finds any of them as whole words."""

    def __init__(self, entries: Mapping[str, str], provenance: Mapping[str, Any] | None = None) -> None:
        self.expected: dict[str, str] = {}
        self.listed: dict[str, str] = {}
        for phrase, expected in entries.items():
            key = fold(phrase)
            if key and key not in self.expected:
                self.expected[key] = expected
                self.listed[key] = phrase
        self.provenance = dict(provenance or {})
        # Longest first, so that "profound neural organization" wins over a shorter listed prefix.
        alternatives = sorted(self.expected, key=len, reverse=True)
        body = "|".join(re.escape(a) for a in alternatives) or r"(?!x)x"
        self.pattern = re.compile(rf"(?<!\S)(?:{body})(?!\S)")

    def __len__(self) -> int:
        return len(self.expected)

    def find(self, text: str | None) -> list[TorturedMatch]:
        """Every listed phrase in `text`, in order of first occurrence, with its count."""
        if not text:
            return []
        counts: dict[str, int] = {}
        for m in self.pattern.finditer(fold(text)):
            counts[m.group(0)] = counts.get(m.group(0), 0) + 1
        return [TorturedMatch(self.listed[k], self.expected[k], n) for k, n in counts.items()]


def parse_table(data: Mapping[str, Any]) -> TorturedTable:
    """The JSON form: `{"provenance": {...}, "entries": [{"phrase": ..., "expected": ...}, ...]}`."""
    entries = {str(e["phrase"]): str(e["expected"]) for e in data.get("entries", ()) if e.get("phrase")}
    return TorturedTable(entries, data.get("provenance"))


@cache
def tortured_table() -> TorturedTable:
    """The shipped table, read once on first use (never at import)."""
    from importlib import resources

    text = (resources.files("aletheia.core") / "data" / DATA_FILE).read_text(encoding="utf-8")
    return parse_table(json.loads(text))


def find_tortured(text: str | None, table: TorturedTable | None = None) -> list[TorturedMatch]:
    return (table or tortured_table()).find(text)
