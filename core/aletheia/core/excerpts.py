"""Paper text, the tolerant verbatim-excerpt check, and the paper's sentences (pure).

The seed's rule (§6.4) is a substring check after whitespace normalisation. PDF text breaks it in
ways that are not the quote's fault, so `locate_excerpt` compares a *match key* of both sides,
built by the same function (`match_key`), which folds only what a text extractor may change:

- every run of whitespace is one space (the seed's rule);
- ligatures are spelled out (`ﬁ` -> `fi`, `ﬂ` -> `fl`, `ﬀ`, `ﬃ`, `ﬄ`, `ﬅ`, `ﬆ`);
- curly quotes and primes become `'` / `"`, every dash and the minus sign becomes `-`;
- soft hyphens, zero-width characters and the BOM disappear;
- a hyphen between a letter or digit and a letter or digit is dropped together with any
  whitespace after it, so `exam-\\nple`, `exam- ple` and `example` agree (and so do
  `state-of-the-\\nart` and `state-of-the-art`).

Because both sides go through the same function, a quote that is a verbatim substring of the text
always matches; the folds only widen what counts as verbatim to what extraction garbles. Nothing
else is tolerated: no case folding, no punctuation removal, no fuzzy matching. An excerpt that
fails is dropped by the caller, never repaired. A match is reported as the span of the *paper's*
text it covers (whitespace-normalised), so the artifact quotes the paper, not the proposal, and
that stored quote passes the seed's strict `excerpt_verifies` against the paper text.

Sentences are split here too (`split_sentences`); terms and ranking are in `lexical_ranking`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from aletheia.core.text import normalize_whitespace

__all__ = [
    "USUAL_SECTIONS",
    "ExcerptMatch",
    "PaperText",
    "TextBlock",
    "TextOrigin",
    "locate_excerpt",
    "match_key",
    "sentences_of",
    "split_sentences",
    "strip_quote_marks",
]

# `pmc_jats`: the JATS XML of an open-access PubMed Central article (Europe PMC's `fullTextXML`).
TextOrigin = Literal["arxiv_html", "html", "pmc_jats", "pdf_docling", "pdf_text", "abstract"]


class TextBlock(BaseModel):
    """A stretch of a paper's text (a paragraph, or a page's text under one heading) and where it is."""

    model_config = ConfigDict(frozen=True)

    text: str
    section: str | None = None  # the heading it sits under: "Abstract", "3.1 Method"
    page: int | None = None  # 1-based, for PDFs
    paragraph: int | None = None  # 1-based within its section, where paragraphs are known


# The unnumbered section headings most papers use, lower-case (each reader of headings adds its own).
USUAL_SECTIONS: Final = frozenset(
    {
        "abstract",
        "introduction",
        "background",
        "related work",
        "method",
        "methods",
        "materials and methods",
        "results",
        "discussion",
        "conclusion",
        "conclusions",
        "acknowledgements",
        "acknowledgments",
    }
)


class PaperText(BaseModel):
    """The text of one paper as extracted, in reading order."""

    model_config = ConfigDict(frozen=True)

    blocks: tuple[TextBlock, ...]
    origin: TextOrigin
    pages: int | None = None

    @property
    def text(self) -> str:
        """All blocks, separated by blank lines: the text excerpts are checked against."""
        return "\n\n".join(block.text for block in self.blocks)


# --- the match key --------------------------------------------------------------------------------

_CHAR_MAP: Final[dict[str, str]] = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "ft",
    "\ufb06": "st",
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201b": "'",
    "\u2032": "'",
    "\u00b4": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u201f": '"',
    "\u2033": '"',
    "\u00ab": '"',
    "\u00bb": '"',
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2015": "-",
    "\u2212": "-",
    "\ufe63": "-",
    "\uff0d": "-",
    "\u00ad": "",  # soft hyphen
    "\u200b": "",
    "\u200c": "",
    "\u200d": "",
    "\u2060": "",
    "\ufeff": "",
}


def _is_word_char(char: str) -> bool:
    return char.isalnum()


@dataclass(frozen=True)
class _Keyed:
    key: str
    origin: tuple[int, ...]  # origin[i]: index in the source text of key[i]


@functools.lru_cache(maxsize=32)
def _keyed(text: str) -> _Keyed:
    """The match key of `text`, with the source position of every key character. Cached: locating
    every candidate excerpt of a claim keys the same paper text again for each one."""
    out: list[str] = []
    origin: list[int] = []
    length = len(text)
    i = 0
    while i < length:
        char = text[i]
        mapped = _CHAR_MAP.get(char, char)
        if mapped == "-" and out and _is_word_char(out[-1]):
            # A hyphen after a word character: dropped, with the whitespace after it, when a word
            # character follows (a line-break hyphenation or a compound; both sides alike).
            j = i + 1
            while j < length and (text[j].isspace() or _CHAR_MAP.get(text[j]) == ""):
                j += 1
            if j < length and _is_word_char(_CHAR_MAP.get(text[j], text[j])[:1] or " "):
                i = j
                continue
        if mapped.isspace() or char.isspace():
            if out and out[-1] != " ":
                out.append(" ")
                origin.append(i)
            i += 1
            continue
        for piece in mapped:
            out.append(piece)
            origin.append(i)
        i += 1
    if out and out[-1] == " ":
        out.pop()
        origin.pop()
    return _Keyed("".join(out), tuple(origin))


def match_key(text: str) -> str:
    """The form both a quote and the paper are compared in (see the module docstring)."""
    return _keyed(text).key


_QUOTE_MARKS: Final = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb"


def strip_quote_marks(quote: str) -> str:
    """A proposed quote without the quotation marks around it (`"..."` -> `...`)."""
    text = quote.strip()
    while len(text) >= 2 and text[0] in _QUOTE_MARKS and text[-1] in _QUOTE_MARKS:
        text = text[1:-1].strip()
    return text


class ExcerptMatch(BaseModel):
    """Where a quote was found: the paper's own text of the span, and its location."""

    model_config = ConfigDict(frozen=True)

    text: str  # the paper's text over the matched span, whitespace-normalised
    section: str | None
    page: int | None
    paragraph: int | None
    end_page: int | None = None  # when the span runs onto a later page

    @property
    def location(self) -> str:
        """`Abstract, paragraph 2`, `Section 3.1 Method, p. 4`, `pp. 4-5`, or `Full text`."""
        parts: list[str] = []
        if self.section:
            heading = self.section.strip()
            parts.append(heading if heading.lower() == "abstract" else f"Section {heading}")
        if self.paragraph is not None and self.page is None:
            parts.append(f"paragraph {self.paragraph}")
        if self.page is not None:
            if self.end_page is not None and self.end_page != self.page:
                parts.append(f"pp. {self.page}-{self.end_page}")
            else:
                parts.append(f"p. {self.page}")
        return ", ".join(parts) if parts else "Full text"


_MIN_QUOTE_KEY: Final = 12  # shorter "quotes" (a word or two) prove nothing


def locate_excerpt(quote: str, paper: PaperText) -> ExcerptMatch | None:
    """Find `quote` in the paper under the tolerant rule; None when it is not there (or too short).

    The quote may span blocks (a paragraph broken across pages); its location is the block it
    starts in, with the page it ends on.
    """
    wanted = match_key(strip_quote_marks(quote))
    if len(wanted) < _MIN_QUOTE_KEY:
        return None
    joined = paper.text
    keyed = _keyed(joined)
    start = keyed.key.find(wanted)
    if start < 0:
        return None
    end = start + len(wanted)
    source_start, source_end = keyed.origin[start], keyed.origin[end - 1] + 1
    starts: list[int] = []
    offset = 0
    for block in paper.blocks:
        starts.append(offset)
        offset += len(block.text) + 2
    first = _block_at(starts, source_start)
    last = _block_at(starts, source_end - 1)
    block = paper.blocks[first]
    end_page = paper.blocks[last].page
    return ExcerptMatch(
        text=normalize_whitespace(joined[source_start:source_end]),
        section=block.section,
        page=block.page,
        paragraph=block.paragraph,
        end_page=end_page if end_page != block.page else None,
    )


def _block_at(starts: Sequence[int], position: int) -> int:
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= position:
            low = middle
        else:
            high = middle - 1
    return low


# --- sentences --------------------------------------------------------------------------------------

# Abbreviations after which a period does not end a sentence.
_ABBREVIATION_TEXT: Final = (
    "al e.g i.e etc fig figs eq eqs ref refs sec secs vs cf approx resp no nos vol pp ca dr mr mrs ms"
    " prof st tab table et"
)
_ABBREVIATIONS: Final = frozenset(_ABBREVIATION_TEXT.split())
_SENTENCE_END: Final = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph: split after `.`, `!`, `?` before a capital or digit, except after
    common abbreviations (`et al.`, `e.g.`, `Fig.`), initials (`J. Smith`) and inside numbers."""
    flat = normalize_whitespace(text)
    if not flat:
        return []
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(flat):
        cut = match.start()
        before = flat[start:cut]
        last_word = before.rsplit(" ", 1)[-1].rstrip(".!?\"')]").lower()
        if last_word in _ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha()):
            continue
        sentence = flat[start : match.end()].strip()
        if sentence:
            sentences.append(sentence)
        start = match.end()
    tail = flat[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def sentences_of(paper: PaperText) -> list[tuple[str, int]]:
    """(sentence, index of its block) for every sentence of the paper, in order."""
    return [
        (sentence, index)
        for index, block in enumerate(paper.blocks)
        for sentence in split_sentences(block.text)
    ]
