"""Readers of the value shapes Crossref's JSON uses across fields: text that is a list in the REST
API and a string in CSL-JSON, `{"date-parts": [[y, m, d]]}` dates, and fields that hold one object
or a list of them. Shared by the work parser (`crossref_parse`) and the notice reader
(`crossref_notices`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aletheia.sources.markup_text import markup_to_text

__all__ = ["date_parts", "first_text", "iso_date", "objects", "texts"]


def first_text(value: Any) -> str | None:
    """The first non-empty string of a Crossref list field (or the string itself, CSL-JSON)."""
    candidates = value if isinstance(value, list) else [value]
    for candidate in candidates:
        if isinstance(candidate, str):
            text = markup_to_text(candidate)
            if text:
                return text
    return None


def texts(value: Any) -> list[str]:
    """Every non-empty string of a Crossref list field (or the string itself, CSL-JSON)."""
    candidates = value if isinstance(value, list) else [value]
    return [
        text for candidate in candidates if isinstance(candidate, str) and (text := markup_to_text(candidate))
    ]


def date_parts(value: Any) -> list[int] | None:
    """`{"date-parts": [[2012, 3, 21]]}` -> [2012, 3, 21]; missing or `[[null]]` -> None."""
    if not isinstance(value, Mapping):
        return None
    parts = value.get("date-parts")
    if not isinstance(parts, list) or not parts or not isinstance(parts[0], list):
        return None
    numbers: list[int] = []
    for part in parts[0]:
        if isinstance(part, int) and not isinstance(part, bool):
            numbers.append(part)
        elif isinstance(part, str) and part.strip().isdigit():
            numbers.append(int(part))
        else:
            break
    return numbers or None


def iso_date(value: Any) -> str | None:
    """A `date-parts` date as `YYYY`, `YYYY-MM` or `YYYY-MM-DD`."""
    parts = date_parts(value)
    if parts is None:
        return None
    return "-".join(f"{p:04d}" if i == 0 else f"{p:02d}" for i, p in enumerate(parts[:3]))


def objects(value: Any) -> list[Mapping[str, Any]]:
    """The objects of a field that holds one object or a list of them (non-objects left out)."""
    if isinstance(value, Mapping):
        value = [value]
    if not isinstance(value, list):
        return []
    return [entry for entry in value if isinstance(entry, Mapping)]
