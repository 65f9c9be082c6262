"""The prose of a research text and its sentences (pure; read by `claim_text`, which finds claims).

A research text arrives as LaTeX, Markdown or plain text (`text_format` tells which). It is first
reduced to its prose (`prose_mask`): what is not prose (LaTeX comments and preamble, display math,
code blocks, Markdown footnote definitions, the reference list itself) is blanked with spaces, so
every offset and line number still points into the original text. The prose is cut into sentences
(`iter_sentences`: paragraph breaks, then sentence ends not after an abbreviation or an initial).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from aletheia.core.claim_rules import REFERENCE_HEADINGS

__all__ = ["FORMATS", "MAX_SENTENCE_CHARS", "iter_sentences", "prose_mask", "text_format"]


FORMATS: Final = ("latex", "markdown", "plain")
MAX_SENTENCE_CHARS: Final = 2_000  # a "sentence" longer than this is a table or a run-on; cut there

# Words whose trailing "." does not end a sentence ("et al.", "Fig. 3", "e.g.").
_ABBREVIATIONS: Final = frozenset(
    [
        "e.g",
        "i.e",
        "al",
        "fig",
        "figs",
        "eq",
        "eqs",
        "sec",
        "secs",
        "tab",
        "ref",
        "refs",
        "thm",
        "lem",
        "def",
        "prop",
        "cor",
        "ch",
        "pp",
        "vol",
        "no",
        "vs",
        "cf",
        "resp",
        "approx",
        "dr",
        "prof",
        "mr",
        "ms",
        "st",
        "jr",
        "sr",
        "ed",
        "eds",
        "app",
        "alg",
        "et",
    ]
)
_SENTENCE_END = re.compile(r"[.!?](?:[)\]\"”’']*)\s+(?=[\"“(\[\\]?[A-Z0-9\\])")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")

# --- LaTeX ---------------------------------------------------------------------------------------
_TEX_COMMENT = re.compile(r"(?<!\\)%[^\n]*")
_TEX_BEGIN_DOCUMENT = re.compile(r"\\begin\s*\{document\}")
_TEX_NON_PROSE_ENV = re.compile(
    r"\\begin\s*\{(equation|align|eqnarray|gather|multline|displaymath|verbatim|lstlisting|minted"
    r"|tabular|tikzpicture|algorithmic|algorithm|figure|table)(\*?)\}.*?\\end\s*\{\1\2\}",
    re.DOTALL,
)
_TEX_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$|\\\[.*?\\\]", re.DOTALL)
_TEX_BIBLIOGRAPHY = re.compile(
    r"\\begin\s*\{thebibliography\}|\\bibliography\s*\{|\\printbibliography|\\end\s*\{document\}"
)
_TEX_HEADING = re.compile(
    r"\\(?:part|chapter|(?:sub){0,2}section|paragraph|caption|label|title|author|date)\*?\s*(?:\[[^\]]*\])?"
    r"\{[^{}]*\}"
)

# --- Markdown ------------------------------------------------------------------------------------
_MD_FRONT_MATTER = re.compile(r"\A---\n.*?\n(?:---|\.\.\.)\n", re.DOTALL)
_MD_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~).*?^[ \t]{0,3}\1[^\n]*$", re.DOTALL | re.MULTILINE)
_MD_FOOTNOTE_DEF = re.compile(r"^[ \t]{0,3}\[\^[^\]\s]+\]:[^\n]*(?:\n(?:[ \t]{2,}|\t)[^\n]*)*", re.MULTILINE)
_MD_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t][^\n]*$", re.MULTILINE)
_MD_INLINE_CODE = re.compile(r"`[^`\n]+`")
_MD_LINK_TARGET = re.compile(r"(?<=\])\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def _blank(text: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        if text[i] != "\n":
            text[i] = " "


def _blank_all(chars: list[str], source: str, pattern: re.Pattern[str]) -> None:
    for m in pattern.finditer(source):
        _blank(chars, m.start(), m.end())


def _reference_section_start(text: str) -> int | None:
    """Offset of the last reference-list heading line, or None."""
    last = None
    offset = 0
    for line in text.splitlines(keepends=True):
        if REFERENCE_HEADINGS.match(line.rstrip("\n")):
            last = offset
        offset += len(line)
    return last


def prose_mask(text: str, fmt: str) -> str:
    """`text` with everything that is not prose blanked (same length, same line breaks)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown text format {fmt!r}; one of {', '.join(FORMATS)}")
    chars = list(text)
    if fmt == "latex":
        _blank_all(chars, text, _TEX_COMMENT)
        masked = "".join(chars)
        begin = _TEX_BEGIN_DOCUMENT.search(masked)
        if begin:
            _blank(chars, 0, begin.end())
        masked = "".join(chars)
        for pattern in (_TEX_NON_PROSE_ENV, _TEX_DISPLAY_MATH, _TEX_HEADING):
            _blank_all(chars, masked, pattern)
            masked = "".join(chars)
        end = _TEX_BIBLIOGRAPHY.search(masked, begin.end() if begin else 0)
        if end:
            _blank(chars, end.start(), len(chars))
    elif fmt == "markdown":
        for pattern in (_MD_FRONT_MATTER, _MD_FENCE, _HTML_COMMENT):
            _blank_all(chars, "".join(chars), pattern)
        masked = "".join(chars)
        refs = _reference_section_start(masked)
        if refs is not None:
            _blank(chars, refs, len(chars))
        for pattern in (_MD_FOOTNOTE_DEF, _MD_HEADING, _MD_INLINE_CODE, _MD_LINK_TARGET):
            _blank_all(chars, "".join(chars), pattern)
    else:
        refs = _reference_section_start(text)
        if refs is not None:
            _blank(chars, refs, len(chars))
    return "".join(chars)


def _ends_sentence(prose: str, dot: int) -> bool:
    """A `.` at `dot` ends a sentence unless it closes an abbreviation or an initial."""
    if prose[dot] != ".":
        return True
    word = _WORD_BEFORE.search(prose, max(0, dot - 12), dot + 1)
    if not word:
        return True
    token = word.group(1).rstrip(".").lower()
    if token in _ABBREVIATIONS or token.replace(".", "") in ("eg", "ie"):
        return False
    return not (len(token) == 1 and word.group(1)[0].isupper())  # "J. Smith"


def iter_sentences(prose: str) -> Iterator[tuple[int, int]]:
    """(start, end) offsets of each sentence of the masked text, blank ones skipped."""
    pos = 0
    for brk in [*_PARAGRAPH_BREAK.finditer(prose), None]:
        end = brk.start() if brk else len(prose)
        start = pos
        for m in _SENTENCE_END.finditer(prose, pos, end):
            if _ends_sentence(prose, m.start()):
                yield from _trimmed(prose, start, m.end())
                start = m.end()
        yield from _trimmed(prose, start, end)
        pos = brk.end() if brk else len(prose)


def _trimmed(prose: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while start < end and prose[start].isspace():
        start += 1
    while end > start and prose[end - 1].isspace():
        end -= 1
    while end - start > MAX_SENTENCE_CHARS:
        yield start, start + MAX_SENTENCE_CHARS
        start += MAX_SENTENCE_CHARS
    if end > start:
        yield start, end


_LATEX_HINT = re.compile(r"\\(?:documentclass|begin\s*\{document\}|section\*?\{|cite[a-z]*\{)")
_MARKDOWN_HINT = re.compile(r"^(?:#{1,6}\s|\[\^[^\]]+\]:|```)|\[@[\w:-]+|\]\(https?://", re.MULTILINE)


def text_format(text: str, name: str = "") -> str:
    """latex, markdown or plain: from the file extension, else from the content."""
    lower = name.lower()
    if lower.endswith((".tex", ".ltx", ".latex")):
        return "latex"
    if lower.endswith((".md", ".markdown", ".qmd", ".rmd", ".mdx")):
        return "markdown"
    if lower.endswith(".txt"):
        return "plain"
    if _LATEX_HINT.search(text):
        return "latex"
    if _MARKDOWN_HINT.search(text):
        return "markdown"
    return "plain"
