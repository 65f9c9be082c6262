"""The cited fields as a person reads them (LaTeX decoded, authors as a list), where each came from
(file and line), and the part of a cited value that disagrees with the source's value."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

# BibTeX field -> the name the report uses
_VENUE_FIELDS = ("booktitle", "journal", "journaltitle", "venue", "howpublished", "publisher", "school")


def shorten(text: str, width: int) -> str:
    """`text` in at most `width` characters, cut after a whole word with "…" (issue 20: titles were
    cut mid-word at 100 characters)."""
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    if " " in cut and not text[width - 1].isspace():
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-") + "…"


def decode_value(value: Any) -> str:
    """A cited field's value as a person reads it: LaTeX decoded, whitespace collapsed."""
    return _decode(value)


def _decode(value: Any) -> str:
    from aletheia.core.latex import latex_to_unicode

    text = str(value)
    if "\\" in text or "{" in text or "~" in text or "$" in text:
        text = latex_to_unicode(text)
    return " ".join(text.split())


def decoded_cited(ref: Mapping[str, Any]) -> dict[str, Any]:
    """The cited fields, decoded: `title`, `authors` (a list), `year`, `venue`, `doi`, `arxiv_id`,
    `pmid`, `url`, and `raw` for a reference given as a string. The per-field evidence already
    holds the decoded cited value where a source was compared; the input is decoded otherwise."""
    from aletheia.core.authors import parse_author_list

    raw_input = ref.get("input") or {}
    fields = ref.get("fields") or {}
    out: dict[str, Any] = {}
    if raw_input.get("raw"):
        out["raw"] = " ".join(str(raw_input["raw"]).split())
    if raw_input.get("title"):
        out["title"] = _decode(raw_input["title"])
    author = raw_input.get("author") or raw_input.get("editor")
    if author:
        authors, et_al = parse_author_list(str(author))
        out["authors"] = [a.display for a in authors] + (["et al."] if et_al else [])
    if raw_input.get("year") or raw_input.get("date"):
        out["year"] = str(raw_input.get("year") or raw_input.get("date"))
    venue = next((raw_input[k] for k in _VENUE_FIELDS if raw_input.get(k)), None)
    if venue:
        out["venue"] = _decode(venue)
    if raw_input.get("doi"):
        out["doi"] = str(raw_input["doi"])
    eprint = raw_input.get("arxiv_id") or (
        raw_input.get("eprint")
        if str(raw_input.get("archiveprefix") or raw_input.get("eprinttype") or "arxiv").lower() == "arxiv"
        else None
    )
    if eprint:
        out["arxiv_id"] = str(eprint)
    for name in ("pmid", "url"):
        if raw_input.get(name):
            out[name] = str(raw_input[name])
    # The core's decoded values win where a source was compared (same decoding, one place).
    for name in ("title", "authors", "year", "venue", "doi", "arxiv_id"):
        cited = (fields.get(name) or {}).get("cited")
        if cited not in (None, "", []) and (name not in out or name in ("title", "authors")):
            out[name] = list(cited) if isinstance(cited, list) else str(cited)
    return out


_ORIGIN_LINE = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?::\d+)?$")


def split_origin(origin: Any) -> tuple[str | None, int | None]:
    """`refs.bib:12` -> ("refs.bib", 12); an origin without a line -> (origin, None)."""
    if not origin:
        return None, None
    m = _ORIGIN_LINE.match(str(origin))
    if m and m.group("file"):
        return m.group("file"), int(m.group("line"))
    return str(origin), None


def _fold(token: str) -> str:
    from aletheia.core.text import strip_accents

    return re.sub(r"[^\w]", "", strip_accents(token).casefold())


def diff_tokens(cited: list[str], found: list[str]) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """Each side's tokens with a flag: True where it differs from the other side (compared
    case- and accent-insensitively, punctuation aside)."""
    matcher = difflib.SequenceMatcher(
        a=[_fold(t) for t in cited], b=[_fold(t) for t in found], autojunk=False
    )
    left: list[tuple[str, bool]] = []
    right: list[tuple[str, bool]] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        same = op == "equal"
        left += [(t, not same) for t in cited[i1:i2]]
        right += [(t, not same) for t in found[j1:j2]]
    return left, right


def _runs(tokens: list[tuple[str, bool]], sep: str) -> list[dict[str, Any]]:
    """Adjacent tokens with the same flag joined: [{"text", "differs"}]; separators stay plain."""
    runs: list[dict[str, Any]] = []
    for i, (text, differs) in enumerate(tokens):
        if runs and runs[-1]["differs"] == differs:
            runs[-1]["text"] += sep + text
            continue
        if i:
            if runs and not runs[-1]["differs"]:
                runs[-1]["text"] += sep
            else:
                runs.append({"text": sep, "differs": False})
        runs.append({"text": text, "differs": differs})
    return runs


def field_diffs(ref: Mapping[str, Any]) -> list[dict[str, Any]]:
    """For every field that disagrees with the sources: the cited and the found value as runs of
    text, the differing runs flagged (`{"field", "cited": [runs], "found": [runs], "source"}`)."""
    out = []
    for name, ev in (ref.get("fields") or {}).items():
        if ev.get("agrees") is not False or name == "first_author":
            continue
        cited, found = ev.get("cited"), ev.get("found")
        if cited in (None, "", []) or found in (None, "", []):
            continue
        if isinstance(cited, list) or isinstance(found, list):
            c = [str(x) for x in (cited if isinstance(cited, list) else [cited])]
            f = [str(x) for x in (found if isinstance(found, list) else [found])]
            sep = ", "
        else:
            c, f, sep = str(cited).split(), str(found).split(), " "
        left, right = diff_tokens(c, f)
        out.append(
            {"field": name, "cited": _runs(left, sep), "found": _runs(right, sep), "source": ev.get("source")}
        )
    return out


def list_difference(cited: list[str], found: list[str]) -> tuple[list[str], list[str]]:
    """(found names the citation leaves out, cited names the source does not list), by surname."""
    from aletheia.core.author_match import surname_key
    from aletheia.core.authors import parse_name

    def key(name: str) -> str:
        try:
            return surname_key(parse_name(name))
        except Exception:  # an unparseable name is compared as written
            return _fold(name)

    cited_keys = {key(n) for n in cited}
    found_keys = {key(n) for n in found}
    missing = [n for n in found if key(n) not in cited_keys]
    extra = [n for n in cited if key(n) not in found_keys and n != "et al."]
    return missing, extra
