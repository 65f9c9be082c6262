"""Compiled bibliographies: `.bbl` files and the thebibliography environment of a `.tex` document.

Two shapes exist:

- BibTeX's output (and hand-written `thebibliography`): `\\bibitem[label]{key}` followed by the
  formatted reference. Each item is cut out, `\\newblock` and the layout macros are removed, the
  LaTeX is decoded, and the text is read as a plain reference string (`plain.reference_from_string`).
  Identifiers are taken from the LaTeX source too, before decoding can mangle a URL's `%` or `~`.
  Styles that tag their fields (`\\bibinfo{title}{...}`, ACM and natbib's `*-doi` styles) give
  their title, year and DOI exactly.
- biblatex's output: structured `\\entry{key}{type}{}` records with `\\field`, `\\name`,
  `\\list` and `\\verb` parts. They are read field by field, like BibTeX (`biblatex_bbl`).

A LaTeX document whose references live in a `.bib` file (`\\bibliography{refs}`,
`\\addbibresource{refs.bib}`) yields one problem naming those files.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from aletheia.core.bibliography.biblatex_bbl import has_biblatex_entries, iter_biblatex_entries
from aletheia.core.bibliography.latex_groups import LineCounter, brace_group, skip_space
from aletheia.core.bibliography.plain import identifier_fields, reference_from_string
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.latex import latex_to_unicode
from aletheia.core.records import CitedReference
from aletheia.core.text import normalize_whitespace

__all__ = ["iter_bbl", "latex_reference_text"]

_BIBITEM = re.compile(r"\\bibitem\b")
_END_BIBLIOGRAPHY = re.compile(r"\\end\s*\{thebibliography\}")
_COMMENT = re.compile(r"(?<!\\)%[^\n]*\n?")
_BIBLIOGRAPHY_FILES = re.compile(
    r"\\(?:bibliography|addbibresource|addglobalbib)\s*(?:\[[^\]]*\])?\s*\{([^{}]*)\}"
)
_LAYOUT_MACROS = re.compile(
    r"\\(?:newblock|BibitemOpen|bibitemStart|penalty\d*|relax|protect|allowbreak|nobreak|hskip[^\\]*?"
    r"(?=\\|\s)|hfill|par|newline|linebreak)\b\s*"
)
_BIBITEM_SHUT = re.compile(r"\\BibitemShut\s*\{[^{}]*\}")
_MAX_ITEM_CHARS: Final = 20_000


# --- \bibitem lists ---------------------------------------------------------------------------------

_MACRO_WITH_URL = re.compile(r"\\(?:url|path|nolinkurl)\s*\{([^{}]*)\}")
_HREF = re.compile(r"\\href\s*\{([^{}]*)\}\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
# What the LaTeX source adds to the decoded string's own reading (`_source_identifiers`).
_SOURCE_FIELDS: Final = frozenset({"doi", "arxiv_id", "arxiv_version", "url"})
_DOI_MACRO = re.compile(r"\\doi\s*\{([^{}]*)\}")
_EPRINT_MACRO = re.compile(r"\\eprint\s*(?:\[[^\]]*\])?\s*\{([^{}]*)\}")
_BIBINFO = re.compile(r"\\bib(?:info|field)\s*\{(\w+)\}\s*\{")
_NATEXLAB = re.compile(r"\\natexlab\s*\{([^{}]*)\}")


def _bibinfo_fields(body: str) -> dict[str, str]:
    """`\\bibinfo{title}{...}` and friends: fields some .bst styles tag explicitly."""
    found: dict[str, str] = {}
    for match in _BIBINFO.finditer(body):
        group = brace_group(body, match.end() - 1)
        if group is not None and match.group(1) not in found:
            found[match.group(1)] = group[0]
    return found


_STASHED = re.compile("\ue010(\\d+)\ue011")


def latex_reference_text(body: str) -> str:
    """A formatted LaTeX reference as plain text: layout macros dropped, links reduced to their
    target, LaTeX decoded, whitespace collapsed.

    URLs and DOIs are set aside before anything else: inside `\\url{...}` a `%` or `~` is literal,
    not a comment or a space.
    """
    stash: list[str] = []

    def keep(value: str) -> str:
        stash.append(value)
        return f" \ue010{len(stash) - 1}\ue011 "

    text = _HREF.sub(lambda m: m.group(2) if m.group(2).strip() else keep(m.group(1)), body)
    text = _MACRO_WITH_URL.sub(lambda m: keep(m.group(1)), text)
    text = _DOI_MACRO.sub(lambda m: " doi:" + keep(m.group(1)).strip() + " ", text)
    text = _COMMENT.sub("", text)
    text = _BIBITEM_SHUT.sub("", text)
    text = _LAYOUT_MACROS.sub(" ", text)
    text = _NATEXLAB.sub(r"\1", text)
    text = _EPRINT_MACRO.sub(r" \1 ", text)
    # Tagged fields: keep the content, drop the tag.
    text = re.sub(r"\\bib(?:info|field)\s*\{\w+\}\s*", "", text)
    text = latex_to_unicode(text)
    text = _STASHED.sub(lambda m: stash[int(m.group(1))], text)
    return normalize_whitespace(text)


def _source_identifiers(body: str) -> dict[str, object]:
    """DOI, arXiv id and URL as written in the LaTeX source (before decoding)."""
    exposed = _MACRO_WITH_URL.sub(r" \1 ", _HREF.sub(r" \1 \2 ", body))
    exposed = _DOI_MACRO.sub(r" doi:\1 ", exposed)
    exposed = _EPRINT_MACRO.sub(r" arXiv:\1 ", exposed)
    exposed = exposed.replace("\\_", "_").replace("\\%", "%").replace("\\&", "&").replace("\\#", "#")
    return {name: value for name, value in identifier_fields(exposed).items() if name in _SOURCE_FIELDS}


_NEWBLOCK = re.compile(r"\\newblock\b")
_EMPHASIS = re.compile(r"\{\\(?:em|it|itshape)\s+|\\(?:emph|textit)\s*\{")
_HAS_WORDS = re.compile(r"[^\W\d_]{2}")
# A lower-case word that no author list holds: a block with one is a title (an entry without
# authors starts with its title), not names.
_NOT_NAME_WORD = re.compile(
    r"(?<![\w'’\-\u0300-\u036f])(?!(?:and|et|al|others|von|van|der|den|de|del|da|di|du|le|la|dos)\b)[a-z]{2,}"
)
_YEAR_AT_END = re.compile(r"^(?P<title>.*?\S),\s+(?P<year>(?:1[5-9]|20)\d\d)[a-z]?\.?\s*$", re.DOTALL)
_THESIS = re.compile(r"^\s*(?:PhD|Ph\.\s*D\.|Doctoral|Master'?s|MSc|M\.Sc\.)\s+thesis", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Layout:
    """What a `.bst` style's layout says about an item, beyond its text: the text with the title
    in quotes (where the layout shows which part the title is), the venue as the style emphasised
    it, and an entry type when the layout gives it (an emphasised title is a book's)."""

    text: str | None = None
    venue: str | None = None
    entry_type: str | None = None


def _emphasised(latex: str, start: int = 0) -> tuple[str, int, int] | None:
    """The first emphasised group of `latex` from `start`: its text, where it opens and where it ends."""
    emphasis = _EMPHASIS.search(latex, start)
    if emphasis is None:
        return None
    # "{\\em Title}" opens its group where the match starts, "\\emph{Title}" where it ends.
    opening = emphasis.start() if latex[emphasis.start()] == "{" else emphasis.end() - 1
    group = brace_group(latex, opening)
    if group is None:
        return None
    text = latex_reference_text(re.sub(r"^\\(?:em|it|itshape)\s+", "", group[0])).strip(" ,")
    return text, emphasis.start(), group[1]


def _wholly_emphasised(latex: str) -> str | None:
    """The text of a block that is one emphasised group ("{\\em The Structure of ...}.")."""
    found = _emphasised(latex)
    if found is None or latex[: found[1]].strip() or latex[found[2] :].strip(" .,\n\t"):
        return None
    return found[0].rstrip(" .") or None


def _venue(latex: str) -> str | None:
    """The venue as `plain`, `abbrv`, `unsrt` and `ieeetr` write it: the first emphasised group
    of the blocks after the title ("{\\em J. Mach. Learn. Res.}, 12:2825--2830", "In {\\em
    Advances in ...}, pages 1--9"), exactly, abbreviations and all."""
    found = _emphasised(latex)
    if found is None or not _HAS_WORDS.search(found[0]):
        return None
    return found[0].rstrip(" .") + ("." if found[0].endswith(".") else "")


def _layout(body: str) -> _Layout:
    """Read the item's layout (see `_Layout`); an empty `_Layout` where it says nothing.

    `\\newblock` separates the blocks of the `plain`, `abbrv`, `unsrt`, `alpha`, natbib and ACL
    styles: authors, title (emphasised for a book), then venue, so the second block is the title
    ("Diederik~P. Kingma and Jimmy Ba. \\newblock Adam: ..."); an entry without authors starts with
    its title, and `@misc` without a venue ends its title with the year ("Title, 2024."). `ieeetr`
    quotes article titles itself (``Title,'' {\\em Venue}) and writes a book as "T.~S. Kuhn, {\\em
    Title}. \\newblock Publisher": an emphasised group right after the author list's comma is the
    title.
    """
    blocks = _NEWBLOCK.split(body)
    if "``" in blocks[0] or "\u201c" in blocks[0]:
        # The style quotes its titles itself: the venue is what it emphasises after the title.
        closing = max(blocks[0].rfind("''"), blocks[0].rfind("\u201d"))
        return _Layout(venue=_venue(" ".join(blocks)[closing:]) if closing >= 0 else None)
    found = _emphasised(blocks[0])
    if found is not None and blocks[0][: found[1]].rstrip().endswith(","):
        title, after = found[0].rstrip(" .,"), found[2]
        authors = latex_reference_text(blocks[0][: found[1]]).rstrip(" ,")
        if not (_HAS_WORDS.search(authors) and _HAS_WORDS.search(title)):
            return _Layout()
        rest = latex_reference_text(blocks[0][after:] + " " + " ".join(blocks[1:])).lstrip(" .,")
        return _Layout(f"{authors}, \u201c{_inner_quotes(title)},\u201d {rest}", None, "book")
    if len(blocks) >= 2:
        first = latex_reference_text(blocks[0])
        has_authors = len(blocks) >= 3 or not _NOT_NAME_WORD.search(first)
        authors = first if has_authors else ""
        title_latex = blocks[1] if has_authors else blocks[0]
        rest_latex = " ".join(blocks[2:] if has_authors else blocks[1:])
        book = _wholly_emphasised(title_latex)
        title = book or latex_reference_text(title_latex)
        rest = latex_reference_text(rest_latex)
        if not rest.strip() and (year := _YEAR_AT_END.match(title)) is not None:
            title, rest = year.group("title"), year.group("year") + "."
        if _HAS_WORDS.search(title) and (_HAS_WORDS.search(authors) or not has_authors):
            entry_type = None
            if book is not None:
                entry_type = "thesis" if _THESIS.match(rest) else "book"
            title = _inner_quotes(title.rstrip(" .,"))
            stop = "" if title.endswith(("?", "!")) else "."
            return _Layout(
                f"{authors} \u201c{title}{stop}\u201d {rest}".strip(),
                None if book is not None else _venue(rest_latex),
                entry_type,
            )
    return _Layout()


def _inner_quotes(title: str) -> str:
    """A title's own quotation marks as single ones, so that quoting the whole title leaves one
    quoted passage to read ("... the “best” candidate?")."""
    return title.translate({0x201C: 0x2018, 0x201D: 0x2019, 0x22: 0x2019})


def _bibitem_reference(key: str, body: str, *, origin: str) -> CitedReference:
    natural = latex_reference_text(body)
    layout = _layout(body)
    reference = reference_from_string(layout.text or natural, key=key, origin=origin)
    update: dict[str, object] = {}
    if layout.text is not None:
        update["raw"] = natural
    if layout.venue:
        update["venue"] = layout.venue
    if layout.entry_type and reference.entry_type is None:
        update["entry_type"] = layout.entry_type
    for name, value in _source_identifiers(body).items():
        if getattr(reference, name) is None:
            update[name] = value
    tagged = _bibinfo_fields(body)
    heuristic = set(reference.heuristic_fields)
    title = tagged.get("title")
    if title:
        update["title"] = latex_to_unicode(title) or reference.title
        heuristic.discard("title")
    year = tagged.get("year")
    if year and re.fullmatch(r"\s*\d{4}\s*", year):
        update["year"] = int(year)
        heuristic.discard("year")
    venue = tagged.get("journal") or tagged.get("booktitle")
    if venue:
        update["venue"] = latex_to_unicode(venue) or reference.venue
        heuristic.discard("venue")
    if tagged:
        update["fields"] = tagged
    if update:
        update["heuristic_fields"] = tuple(name for name in reference.heuristic_fields if name in heuristic)
        reference = reference.model_copy(update=update)
    return reference


def _bibitem_header(text: str, start: int, end: int) -> tuple[str, int] | None:
    """The key of the `\\bibitem[label]{key}` whose `\\bibitem` ends at `start`, and where its body
    starts, looking no further than `end` (the next item: an unclosed brace must not make every
    item scan to the end of the file, which made hostile input quadratic)."""
    index = skip_space(text, start)
    if index < end and text[index] == "[":
        depth = 0
        while index < end:
            char = text[index]
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
            elif char == "]" and depth == 0:
                break
            index += 1
        index = skip_space(text, index + 1)
    group = brace_group(text, index, end)
    if group is None:
        return None
    key, after = group
    return normalize_whitespace(key), after


def _iter_bibitems(text: str, *, origin: str) -> Iterator[CitedReference | InputProblem]:
    lines = LineCounter(text)
    starts = list(_BIBITEM.finditer(text))
    for position, match in enumerate(starts):
        line = lines.line_at(match.start())
        limit = starts[position + 1].start() if position + 1 < len(starts) else len(text)
        end_env = _END_BIBLIOGRAPHY.search(text, match.end(), limit)
        if end_env is not None:
            limit = end_env.start()
        header = _bibitem_header(text, match.end(), limit)
        if header is None or header[1] > limit:
            yield InputProblem(origin=origin, line=line, message="malformed \\bibitem: no {key} after it")
            continue
        key, body_start = header
        body = text[body_start : min(limit, body_start + _MAX_ITEM_CHARS)]
        if not key:
            key = str(position + 1)
        if not body.strip():
            yield InputProblem(origin=origin, line=line, message=f"empty \\bibitem {key!r}", key=key)
            continue
        yield _bibitem_reference(key, body, origin=f"{origin}:{line}")


# --- the entry point ---------------------------------------------------------------------------------


def iter_bbl(text: str, *, origin: str) -> Iterator[CitedReference | InputProblem]:
    """Read a `.bbl` file or a LaTeX document's bibliography (see the module docstring)."""
    if has_biblatex_entries(text):
        yield from iter_biblatex_entries(text, origin=origin)
        return
    if _BIBITEM.search(text):
        yield from _iter_bibitems(text, origin=origin)
        return
    files = [
        name.strip() for match in _BIBLIOGRAPHY_FILES.finditer(text) for name in match.group(1).split(",")
    ]
    files = [name for name in files if name]
    if files:
        named = ", ".join(name if "." in name.rsplit("/", 1)[-1] else f"{name}.bib" for name in files)
        message = (
            f"no thebibliography environment: this document takes its references from {named}; "
            "verify that file (or the compiled .bbl) instead"
        )
    else:
        message = "no bibliography found (no \\bibitem, no biblatex \\entry, no \\bibliography{...})"
    yield InputProblem(origin=origin, line=None, message=message)
