"""Markdown documents: reference lists, footnotes, and DOI/arXiv links.

What is a reference in a Markdown document, in the order it is looked for:

1. Footnote definitions (`[^label]: text`, with indented continuation lines), anywhere; the key
   is the label.
2. The items of a reference section: a heading (ATX `##`, setext, or a line in bold) named
   References, Bibliography, Works Cited, Literature..., up to the next heading of the same or a
   higher level. Numbered and bulleted items are references; a section without list items is read
   as a plain-text list. Without such a section, a document that is mostly a list is read as one.
3. DOI and arXiv links elsewhere (`[text](https://doi.org/...)`, `<https://arxiv.org/abs/...>`)
   that no reference above already cites.

Each reference is rendered to plain text (link text kept, emphasis and code marks dropped) and
read as a reference string; identifiers also come from the link targets. Keys other than
footnote labels are the 1-based position among the document's references.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from aletheia.core.arxiv_ids import clean_arxiv_id
from aletheia.core.bibliography.plain import inherit_repeated_authors, reference_from_string
from aletheia.core.bibliography.plain_split import split_references
from aletheia.core.bibliography.problems import InputProblem
from aletheia.core.identifiers import clean_doi
from aletheia.core.identifiers_in_text import extract_identifiers
from aletheia.core.records import CitedReference
from aletheia.core.text import normalize_whitespace

__all__ = ["iter_markdown", "markdown_to_text"]

_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_ATX_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_SETEXT_UNDERLINE = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_BOLD_LINE = re.compile(r"^\s*(?:\*\*|__)([^*_]{2,60})(?:\*\*|__)\s*:?\s*$")
_SECTION_NAME = re.compile(
    r"^(?:\d+(?:\.\d+)*\.?\s+)?(?:references?|bibliography|works\s+cited|literature(?:\s+cited)?"
    r"|cited\s+(?:works|literature)|sources|citations|further\s+reading|reference\s+list"
    r"|notes\s+and\s+references|publications)\s*:?$",
    re.IGNORECASE,
)
_FOOTNOTE = re.compile(r"^\s{0,3}\[\^([^\]\s]+)\]:\s?(.*)$")
_LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,4}[.)]|\[\d{1,4}\])\s+(.*)$")
_LINK = re.compile(
    r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^()\s>]*(?:\([^()\s]*\)[^()\s>]*)*)>?(?:\s+\"[^\"]*\")?\s*\)"
)
_AUTOLINK = re.compile(r"<((?:https?://|doi:)[^>\s]+)>")
_EMPHASIS = re.compile(
    r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?!\w)|(?<![\w_])_(?!\s)(.+?)(?<!\s)_(?![\w])"
)
_CODE = re.compile(r"`+([^`]*)`+")
_HTML_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]{0,300})?/?>")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
# Escaped ASCII marks are kept as Private Use characters while emphasis is read (U+F000 + code).
_ESCAPED_BASE: Final = 0xF000
_ESCAPED = re.compile("[\uf000-\uf07f]")
_IDENTIFIER_URL = re.compile(r"(?:doi\.org/|arxiv\.org/(?:abs|pdf)/|^doi:)", re.IGNORECASE)
_MAX_LIST_SHARE: Final = 0.6
# One list item or footnote longer than this is not a reference; it is read only this far.
_MAX_ITEM_CHARS: Final = 20_000


def markdown_to_text(markdown: str) -> str:
    """Inline Markdown as plain text: links become their text (or their target when the text is
    empty), emphasis, code marks, HTML tags and backslash escapes are dropped."""

    def link(match: re.Match[str]) -> str:
        if match.group(1):  # an image
            return " "
        text = match.group(2).strip()
        return text if text else match.group(3)

    text = _LINK.sub(link, normalize_whitespace(markdown[:_MAX_ITEM_CHARS]))
    text = _AUTOLINK.sub(r"\1", text)
    text = _CODE.sub(r"\1", text)
    # An escaped mark is a character, not emphasis: "HLA-B\*5701 ... *PLoS Curr*" (pandoc's
    # Markdown) must not pair the escaped `*` with the venue's. Set aside first, put back last.
    text = _ESCAPE.sub(lambda m: chr(_ESCAPED_BASE + ord(m.group(1))), text)
    for _ in range(3):  # nested emphasis: ***x***, **_x_**
        replaced = _EMPHASIS.sub(lambda m: m.group(2) or m.group(3) or m.group(4) or "", text)
        if replaced == text:
            break
        text = replaced
    text = _HTML_TAG.sub("", text)
    text = _ESCAPED.sub(lambda m: chr(ord(m.group()) - _ESCAPED_BASE), text)
    return normalize_whitespace(text)


@dataclass(slots=True)
class _Found:
    line: int  # 1-based
    markdown: str
    label: str | None = None  # a footnote's label


def _blank_code_blocks(lines: list[str]) -> list[str]:
    """Lines with fenced code blocks blanked out (their content is not prose to read)."""
    result: list[str] = []
    fence: str | None = None
    for line in lines:
        match = _FENCE.match(line)
        if fence is None and match is not None:
            fence = match.group(1)
            result.append("")
        elif fence is not None:
            if line.strip().startswith(fence):
                fence = None
            result.append("")
        else:
            result.append(line)
    return result


def _headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, text) of every heading; a bold-only line is a level-7 pseudo-heading."""
    found: list[tuple[int, int, str]] = []
    for index, line in enumerate(lines):
        atx = _ATX_HEADING.match(line)
        if atx is not None:
            found.append((index, len(atx.group(1)), atx.group(2)))
            continue
        if index + 1 < len(lines) and line.strip() and not _LIST_ITEM.match(line):
            underline = _SETEXT_UNDERLINE.match(lines[index + 1])
            if underline is not None and (underline.group(1)[0] == "=" or len(underline.group(1)) >= 2):
                found.append((index, 1 if underline.group(1)[0] == "=" else 2, line.strip()))
                continue
        bold = _BOLD_LINE.match(line)
        if bold is not None:
            found.append((index, 7, bold.group(1)))
    return found


def _reference_sections(lines: list[str]) -> list[tuple[int, int]]:
    """(first, end) line-index ranges of the reference sections' bodies."""
    headings = _headings(lines)
    sections: list[tuple[int, int]] = []
    for position, (index, level, text) in enumerate(headings):
        if not _SECTION_NAME.match(markdown_to_text(text)):
            continue
        end = len(lines)
        for later_index, later_level, _ in headings[position + 1 :]:
            if later_level <= level or level == 7:
                end = later_index
                break
        first = index + (2 if index + 1 < len(lines) and _SETEXT_UNDERLINE.match(lines[index + 1]) else 1)
        sections.append((first, end))
    return sections


def _footnotes(lines: list[str]) -> tuple[list[_Found], set[int]]:
    found: list[_Found] = []
    used: set[int] = set()
    index = 0
    while index < len(lines):
        match = _FOOTNOTE.match(lines[index])
        if match is None:
            index += 1
            continue
        body = [match.group(2)]
        used.add(index)
        start = index
        index += 1
        while index < len(lines):
            line = lines[index]
            if _FOOTNOTE.match(line):
                break
            if line.strip() and (line.startswith(("    ", "\t")) or lines[index - 1].strip()):
                body.append(line)
                used.add(index)
                index += 1
                continue
            if not line.strip() and index + 1 < len(lines) and lines[index + 1].startswith(("    ", "\t")):
                used.add(index)
                index += 1
                continue
            break
        found.append(_Found(start + 1, "\n".join(body), label=match.group(1)))
    return found, used


def _list_items(lines: list[str], first: int, end: int, skip: set[int]) -> list[_Found]:
    """The list items in lines[first:end], each with its continuation lines."""
    items: list[_Found] = []
    current: list[str] = []
    current_line = 0
    indent = 0
    blank_before = False

    def close() -> None:
        if current:
            items.append(_Found(current_line + 1, "\n".join(current)))

    for index in range(first, end):
        if index in skip:
            close()
            current = []
            continue
        line = lines[index]
        match = _LIST_ITEM.match(line)
        if match is not None and (not current or len(match.group(1)) <= indent):
            close()
            current = [match.group(2)]
            current_line = index
            indent = len(match.group(1))
            blank_before = False
            continue
        if not line.strip():
            blank_before = True
            continue
        if current:
            leading = len(line) - len(line.lstrip())
            if leading > indent or not blank_before:
                current.append(line)
                blank_before = False
                continue
            close()
            current = []
        blank_before = False
    close()
    return items


def _non_blank(lines: list[str], first: int, end: int, skip: set[int]) -> int:
    return sum(1 for index in range(first, end) if index not in skip and lines[index].strip())


def _links(lines: list[str], skip: set[int]) -> list[_Found]:
    """DOI and arXiv links in the lines not already read as references."""
    found: list[_Found] = []
    for index, line in enumerate(lines):
        if index in skip:
            continue
        for match in _LINK.finditer(line):
            if not match.group(1) and _IDENTIFIER_URL.search(match.group(3)):
                found.append(_Found(index + 1, match.group(0)))
        for match in _AUTOLINK.finditer(line):
            if _IDENTIFIER_URL.search(match.group(1)):
                found.append(_Found(index + 1, match.group(0)))
    return found


def _identifier_keys(markdown: str) -> set[str]:
    ids = extract_identifiers(markdown)
    return {f"doi:{doi}" for doi in ids.dois} | {f"arxiv:{arxiv.id}" for arxiv in ids.arxiv_ids}


def _link_reference(found: _Found, *, key: str, origin: str) -> CitedReference | None:
    """A reference for a bare DOI/arXiv link: the link text is its title when it reads like one."""
    text = markdown_to_text(found.markdown)
    reference = reference_from_string(text, key=key, origin=origin, source=found.markdown)
    if reference.doi is None and reference.arxiv_id is None:
        return None
    looks_like_title = (
        len(text.split()) >= 2
        and clean_doi(text) is None
        and clean_arxiv_id(text) is None
        and not text.lower().startswith(("http", "doi", "arxiv"))
    )
    return reference.model_copy(
        update={
            "title": text if looks_like_title else None,
            "authors": (),
            "authors_truncated": False,
            "year": None,
            "venue": None,
            "heuristic_fields": ("title",) if looks_like_title else (),
        }
    )


def iter_markdown(text: str, *, origin: str) -> Iterator[CitedReference | InputProblem]:
    """Read the references of a Markdown document (see the module docstring)."""
    lines = _blank_code_blocks(text.splitlines())
    footnotes, footnote_lines = _footnotes(lines)
    entries, consumed = _listed_entries(lines, footnote_lines)
    links = _uncited_links(lines, consumed, [*entries, *footnotes])
    results = _entry_results(entries, links, origin)
    results.extend(_footnote_results(footnotes, origin))
    results.sort(key=lambda pair: pair[0])
    yield from inherit_repeated_authors(result for _, result in results)


def _listed_entries(lines: list[str], footnote_lines: set[int]) -> tuple[list[_Found], set[int]]:
    """The entries of the reference sections (list items, else reference strings), or of the whole
    document when it is mostly a list; and the lines they (and the footnotes) take."""
    entries: list[_Found] = []
    consumed = set(footnote_lines)
    sections = _reference_sections(lines)
    for first, end in sections:
        items = _list_items(lines, first, end, footnote_lines)
        if items:
            entries.extend(items)
        else:
            body = "\n".join("" if index in footnote_lines else lines[index] for index in range(first, end))
            entries.extend(
                _Found(piece.line, piece.text) for piece in split_references(body, first_line=first + 1)
            )
        consumed.update(range(first, end))
    if not sections:
        items = _list_items(lines, 0, len(lines), footnote_lines)
        listed = sum(item.markdown.count("\n") + 1 for item in items)
        total = _non_blank(lines, 0, len(lines), footnote_lines)
        headings = len(_headings(lines))
        if items and listed >= _MAX_LIST_SHARE * max(total - headings, 1):
            entries.extend(items)
            consumed.update(range(len(lines)))
    return entries, consumed


def _uncited_links(lines: list[str], consumed: set[int], read: list[_Found]) -> list[_Found]:
    """DOI and arXiv links elsewhere in the text, each naming a work no entry read names."""
    cited: set[str] = set()
    for entry in read:
        cited |= _identifier_keys(entry.markdown)
    links = []
    for link in _links(lines, consumed):
        keys = _identifier_keys(link.markdown)
        if keys and not keys & cited:
            links.append(link)
            cited |= keys
    return links


def _entry_results(
    entries: list[_Found], links: list[_Found], origin: str
) -> list[tuple[int, CitedReference | InputProblem]]:
    """Entries and links in the order of their lines, keyed by position (empty ones skipped)."""
    ordered = sorted([*entries, *links], key=lambda found: found.line)
    position = 0
    results: list[tuple[int, CitedReference | InputProblem]] = []
    link_ids = {id(link) for link in links}
    for found in ordered:
        position += 1
        where = f"{origin}:{found.line}"
        if id(found) in link_ids:
            reference = _link_reference(found, key=str(position), origin=where)
            if reference is None:
                position -= 1
                continue
            results.append((found.line, reference))
            continue
        plain = markdown_to_text(found.markdown)
        if not plain:
            position -= 1
            continue
        results.append(
            (found.line, reference_from_string(plain, key=str(position), origin=where, source=found.markdown))
        )
    return results


def _footnote_results(
    footnotes: list[_Found], origin: str
) -> list[tuple[int, CitedReference | InputProblem]]:
    """One reference per footnote, keyed by its label (a problem for an empty one)."""
    results: list[tuple[int, CitedReference | InputProblem]] = []
    for footnote in footnotes:
        plain = markdown_to_text(footnote.markdown)
        label = footnote.label or str(footnote.line)
        if not plain:
            results.append(
                (
                    footnote.line,
                    InputProblem(
                        origin=origin, line=footnote.line, message=f"empty footnote [^{label}]", key=label
                    ),
                )
            )
            continue
        reference = reference_from_string(
            plain, key=label, origin=f"{origin}:{footnote.line}", source=footnote.markdown
        )
        results.append((footnote.line, reference))
    return results
