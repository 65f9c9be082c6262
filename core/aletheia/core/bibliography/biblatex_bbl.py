"""biblatex's compiled records: the `\\entry{key}{type}{}` ... `\\endentry` of a `.bbl` file, read
field by field (`\\field`, `\\name`, `\\list`, `\\verb`) into BibTeX's fields (pure; read by
`bbl.iter_bbl`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from aletheia.core.bibliography.bibtex import reference_from_fields
from aletheia.core.bibliography.latex_groups import LineCounter, brace_group, skip_space
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.records import CitedReference

__all__ = ["has_biblatex_entries", "iter_biblatex_entries"]


_ENTRY = re.compile(r"\\entry\s*\{")
_ENDENTRY = re.compile(r"\\endentry\b")


_FIELD = re.compile(r"\\(field|strng|list|name|range|verb|true|false)\s*\{([\w-]+)\}")
_NAME_PART = re.compile(r"(?<![\w])(family|given|prefix|suffix)\s*=\s*\{")


def _bbl_name(text: str) -> str | None:
    """One biblatex name record (`family={...}, given={...}, prefix={...}`) as BibTeX's
    `{prefix family}, {suffix}, {given}`."""
    parts: dict[str, str] = {}
    for match in _NAME_PART.finditer(text):
        group = brace_group(text, match.end() - 1)
        if group is not None and match.group(1) not in parts:
            parts[match.group(1)] = group[0]
    family = " ".join(p for p in (parts.get("prefix"), parts.get("family")) if p)
    if not family:
        return None
    pieces = [f"{{{family}}}"]
    if parts.get("suffix"):
        pieces.append(f"{{{parts['suffix']}}}")
    if parts.get("given"):
        pieces.append(f"{{{parts['given']}}}")
    return ", ".join(pieces)


def _top_level_groups(text: str) -> list[str]:
    groups: list[str] = []
    index = 0
    while index < len(text):
        if text[index] == "{":
            group = brace_group(text, index)
            if group is None:
                break
            groups.append(group[0])
            index = group[1]
        else:
            index += 1
    return groups


def _bbl_entry_fields(body: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    index = 0
    while True:
        match = _FIELD.search(body, index)
        if match is None:
            return fields
        kind, name = match.group(1), match.group(2).lower()
        index = match.end()
        if kind == "verb":
            end = body.find("\\endverb", index)
            if end < 0:
                return fields
            value = re.sub(r"^\s*\\verb\s?", "", body[index:end].strip())
            fields.setdefault(name, value.strip())
            index = end + len("\\endverb")
            continue
        if kind in ("true", "false", "strng"):
            group = brace_group(body, skip_space(body, index)) if kind == "strng" else None
            index = group[1] if group else index
            continue
        if kind in ("list", "name"):
            # \list{publisher}{1}{{A}{B}}; \name{author}{2}{options}{{...}{...}}
            skips = 1 if kind == "list" else 2
            cursor = index
            for _ in range(skips):
                group = brace_group(body, skip_space(body, cursor))
                if group is None:
                    break
                cursor = group[1]
            content = brace_group(body, skip_space(body, cursor))
            if content is None:
                continue
            index = content[1]
            items = _top_level_groups(content[0])
            if kind == "list":
                fields.setdefault(name, " and ".join(items))
            else:
                names = [_bbl_name(item) for item in items]
                fields.setdefault(name, " and ".join(n for n in names if n))
            continue
        group = brace_group(body, skip_space(body, index))
        if group is None:
            continue
        index = group[1]
        if kind == "range":
            continue
        fields.setdefault(name, group[0])


# biblatex's name and range punctuation macros, as the characters they print.
_BBL_MACRO_TEXT: Final = {
    "bibinitperiod": ".",
    "bibinitdelim": " ",
    "bibinithyphendelim": ".-",
    "bibnamedelima": " ",
    "bibnamedelimb": " ",
    "bibnamedelimc": " ",
    "bibnamedelimd": " ",
    "bibnamedelimi": " ",
    "bibrangedash": "–",
    "bibdatedash": "–",
}
_BBL_MACROS = re.compile(r"\\(" + "|".join(_BBL_MACRO_TEXT) + r")\b\s?")


def _bbl_macro(match: re.Match[str]) -> str:
    return _BBL_MACRO_TEXT[match.group(1)]


def has_biblatex_entries(text: str) -> bool:
    """Whether `text` holds biblatex's records (an `\\entry` and an `\\endentry`)."""
    return bool(_ENTRY.search(text) and _ENDENTRY.search(text))


def iter_biblatex_entries(text: str, *, origin: str) -> Iterator[CitedReference | InputProblem]:
    """One `CitedReference` per `\\entry` record (an `InputProblem` for a malformed one)."""
    lines = LineCounter(text)
    index = 0
    while True:
        match = _ENTRY.search(text, index)
        if match is None:
            return
        line = lines.line_at(match.start())
        key_group = brace_group(text, match.end() - 1)
        type_group = brace_group(text, skip_space(text, key_group[1])) if key_group else None
        end = _ENDENTRY.search(text, match.end())
        if key_group is None or type_group is None or end is None:
            yield InputProblem(origin=origin, line=line, message="malformed biblatex \\entry record")
            index = match.end()
            continue
        key, entry_type = key_group[0].strip(), type_group[0].strip().lower()
        fields = _bbl_entry_fields(_BBL_MACROS.sub(_bbl_macro, text[type_group[1] : end.start()]))
        index = end.end()
        # biblatex records the name list as `author`, and dates split into year/month/day.
        yield reference_from_fields(key, entry_type, fields, origin=f"{origin}:{line}")
