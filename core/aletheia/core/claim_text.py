"""Find the claims of a research text that need a citation, and the citations they carry. Pure.

    findings = find_claims(text, fmt="latex")      # every sentence a rule caught, or that cites
    [f for f in findings if f.unsupported]          # find_unsupported_claims
    judged_sentence(text, finding)                  # what the judge reads: the markers cut out

The text is first reduced to its prose (`prose_mask`): what is not prose (LaTeX comments and
preamble, display math, code blocks, Markdown footnote definitions, the reference list itself) is
blanked with spaces, so every offset and line number still points into the original text. The
prose is cut into sentences (paragraph breaks, then sentence ends not after an abbreviation or an
initial); each sentence is matched against the rule table and the citation markers
(`claim_rules`). A sentence is a claim when a rule catches it or when it carries a citation marker
(`CLAIM_MAKING_STYLES`): a sentence that cites a paper says what the paper should say. Which
reference a marker means is the pipeline's question (`pipeline/claims_text`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any, Final

from aletheia.core.claim_rules import (
    CITATION_MARKERS,
    CLAIM_MAKING_STYLES,
    CLAIM_RULES,
    COMPARATIVE_KIND,
    CROSS_REFERENCE_KEY,
    EMPIRICAL_KIND,
    LITERATURE_SECTIONS,
    MIN_WORD_SHARE,
    MIN_WORDS,
    OWN_RESULT_SECTIONS,
    OWN_WORK,
    REFERENCE_HEADINGS,
)

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


@dataclass(frozen=True)
class Trigger:
    rule: str
    kind: str
    text: str
    start: int  # offsets into the document
    end: int


@dataclass(frozen=True)
class CitationMark:
    marker: str  # the name of the CITATION_MARKERS row
    style: str
    by: str  # key | position | author_year | footnote
    text: str  # as written
    keys: tuple[str, ...]
    start: int
    end: int


@dataclass(frozen=True)
class ClaimFinding:
    sentence: str
    line: int
    start: int
    end: int
    triggers: tuple[Trigger, ...]
    citations: tuple[CitationMark, ...]
    own_work: bool
    section: str | None = None

    @property
    def needs_citation(self) -> bool:
        return not self.own_work

    @property
    def unsupported(self) -> bool:
        return self.needs_citation and not self.citations

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["needs_citation"] = self.needs_citation
        out["unsupported"] = self.unsupported
        return out


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


_PANDOC_KEY = re.compile(r"-?@([\w:.#$%&+?<>~/-]*\w)")
_AUTHOR_NAME = re.compile(r"(?<![\w'’-])(?!(?:See|Cf|E\.g)\b)([A-Z][\w'’\-]+)")
_YEAR_IN = re.compile(r"(?<!\d)((?:1[89]|20)\d{2})(?!\d)")
MAX_RANGE: Final = 50


def _keys(by: str, body: str) -> tuple[str, ...]:
    if by == "key":
        if "@" in body:
            return tuple(_PANDOC_KEY.findall(body))
        return tuple(k.strip() for k in body.split(",") if k.strip())
    if by == "position":
        out: list[str] = []
        for part in re.split(r"\s*[,;]\s*", body):
            lo, _, hi = part.replace("–", "-").partition("-")
            if hi and lo.strip().isdigit() and hi.strip().isdigit() and 0 <= int(hi) - int(lo) <= MAX_RANGE:
                out.extend(str(n) for n in range(int(lo), int(hi) + 1))
            elif lo.strip().isdigit():
                out.append(str(int(lo)))
        return tuple(out)
    if by == "author_year":
        last_name = ""
        keys: list[str] = []
        for part in body.split(";"):
            name = _AUTHOR_NAME.search(part)
            last_name = name.group(1) if name else last_name
            if last_name:
                keys.extend(f"{last_name} {year}" for year in _YEAR_IN.findall(part))
        return tuple(keys)
    return (body,)


def find_citations(text: str, start: int = 0, end: int | None = None) -> list[CitationMark]:
    """Every citation marker in text[start:end], earlier rows winning over overlapping later ones."""
    end = len(text) if end is None else end
    taken: list[tuple[int, int]] = []
    found: list[CitationMark] = []
    for row in CITATION_MARKERS:
        for m in row.compiled.finditer(text, start, end):
            if any(m.start() < b and a < m.end() for a, b in taken):
                continue
            keys = _keys(row.by, m.group(1))
            if row.style == "pandoc":
                keys = tuple(k for k in keys if not CROSS_REFERENCE_KEY.match(k))
            if not keys:
                continue
            taken.append((m.start(), m.end()))
            found.append(CitationMark(row.name, row.style, row.by, m.group(0), keys, m.start(), m.end()))
    return sorted(found, key=lambda c: c.start)


def _triggers(sentence: str, offset: int) -> list[Trigger]:
    out = []
    for rule in CLAIM_RULES:
        for m in rule.compiled.finditer(sentence):
            out.append(Trigger(rule.name, rule.kind, m.group(0), offset + m.start(), offset + m.end()))
    return sorted(out, key=lambda t: (t.start, t.rule))


_HEADINGS: Final = {
    "markdown": re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE),
    "latex": re.compile(r"\\(?:chapter|(?:sub){0,2}section)\*?\s*(?:\[[^\]]*\])?\{([^{}]*)\}"),
}


def _sections(text: str, fmt: str) -> list[tuple[int, str]]:
    """(offset, heading) of every section heading, in order."""
    pattern = _HEADINGS.get(fmt)
    return [(m.start(), m.group(1).strip()) for m in pattern.finditer(text)] if pattern else []


def _own_work(
    sentence: str, triggers: list[Trigger], section: str | None, citing: list[CitationMark]
) -> bool:
    """The document's own contribution: said so ("we", "our"), or numbers (and, in a results
    section, comparisons) stated under a heading that is not about the literature. Never when the
    sentence cites a paper: "we follow [3]" says something [3] should bear out."""
    if citing:
        return False
    if OWN_WORK.search(sentence):
        return True
    if section is None:
        return False
    kinds = {t.kind for t in triggers}
    if kinds <= {EMPIRICAL_KIND} and not LITERATURE_SECTIONS.search(section):
        return True
    return kinds <= {EMPIRICAL_KIND, COMPARATIVE_KIND} and OWN_RESULT_SECTIONS.search(section) is not None


_WORD = re.compile(r"[(\"“]?(?:[A-Za-z][A-Za-z'’-]+|[AaI])[,;:.!?)\"”]*$")


_MATH_OR_MARKUP = re.compile(r"\$[^$]*\$|\\[A-Za-z]+\*?(?:\[[^\]]*\])?(?:\{[^{}]*\})?|\[[^\]]*\]|[~{}]")


def is_prose(sentence: str) -> bool:
    """Enough words, and mostly words (inline math and LaTeX commands set aside): not a table
    row, an equation or a caption fragment."""
    tokens = _MATH_OR_MARKUP.sub(" ", sentence).split()
    words = sum(1 for t in tokens if _WORD.match(t))
    return words >= MIN_WORDS and words >= MIN_WORD_SHARE * len(tokens)


_INLINE_MATH = re.compile(r"(?<!\\)\$[^$\n]+?(?<!\\)\$|\\\(.*?\\\)")


def _citing(citations: list[CitationMark], text: str, prose: str, start: int, end: int) -> list[CitationMark]:
    """The markers that make their sentence a claim: a citing style, in the prose and outside
    inline math (a `[3]` in inline code or in `$a[3]$` is an index, not a citation)."""
    math = [(m.start(), m.end()) for m in _INLINE_MATH.finditer(text, start, end)]
    return [
        c
        for c in citations
        if c.style in CLAIM_MAKING_STYLES
        and prose[c.start : c.end] == text[c.start : c.end]
        and not any(a < c.end and c.start < b for a, b in math)
    ]


def find_claims(text: str, *, fmt: str = "plain") -> list[ClaimFinding]:
    """Every sentence of `text` that a claim rule catches or that cites a paper, with its triggers
    and citations."""
    prose = prose_mask(text, fmt)
    sections = _sections(text, fmt)
    findings = []
    line, counted = 1, 0
    for start, end in iter_sentences(prose):
        sentence = prose[start:end]
        if not is_prose(sentence):
            continue
        triggers = _triggers(sentence, start)
        # Citations are read from the original text: a marker is prose even where math is not.
        citations = [
            c
            for c in find_citations(text, start, end)
            if not any(t.start < c.end and c.start < t.end for t in triggers if t.rule == "complexity_bound")
        ]
        citing = _citing(citations, text, prose, start, end)
        if not triggers and not citing:
            continue
        line += text.count("\n", counted, start)
        counted = start
        section = next((name for offset, name in reversed(sections) if offset < start), None)
        findings.append(
            ClaimFinding(
                sentence=" ".join(text[start:end].split()),
                line=line,
                start=start,
                end=end,
                triggers=tuple(triggers),
                citations=tuple(citations),
                own_work=_own_work(sentence, triggers, section, citing),
                section=section,
            )
        )
    return findings


def find_unsupported_claims(text: str, *, fmt: str = "plain") -> list[ClaimFinding]:
    """The claims that need a citation and carry none."""
    return [f for f in find_claims(text, fmt=fmt) if f.unsupported]


# Commands whose argument is the sentence's own words (kept); any other command with an argument
# (\ref, \label, \url, \footnote) is dropped with it, and a bare one (\log, \alpha) keeps its name.
_TEX_WORD_WRAPPERS: Final = frozenset(
    {
        *("emph", "textit", "textbf", "textsc", "texttt", "textrm", "textsf", "textsl", "underline"),
        *("mbox", "text", "mathrm", "mathit", "mathbf", "mathsf", "mathtt", "operatorname"),
    }
)
_TEX_COMMAND = re.compile(r"\\([A-Za-z]+)\*?(?:\[[^\]]*\])?(\{[^{}]*\})?")
_TEX_ESCAPED = re.compile(r"\\([%&$#_])")
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_EMPTIED_BRACKETS = re.compile(r"\(\s*(?:(?:see|e\.g\.|cf\.),?\s*)?[,;]?\s*\)|\[\s*\]", re.IGNORECASE)
_LOOSE_SPACE = re.compile(r"\s+([,.;:!?)\]])|([(\[])\s+")


def _tex_command(m: re.Match[str]) -> str:
    name, argument = m.group(1), m.group(2)
    if argument is None:
        return name
    return argument[1:-1] if name in _TEX_WORD_WRAPPERS else " "


def judged_sentence(text: str, finding: ClaimFinding) -> str:
    """The claim as the judge reads it: the sentence with its citation markers cut out and its
    markup reduced to words (`\\emph{x}` is `x`, a `\\ref{...}` goes, `$O(n)$` is `O(n)`, a
    Markdown link is its text). A marker is a pointer, not part of what the paper must say."""
    pieces: list[str] = []
    position = finding.start
    for mark in finding.citations:
        pieces.append(text[position : mark.start])
        position = max(position, mark.end)
    pieces.append(text[position : finding.end])
    sentence = _TEX_ESCAPED.sub(r"\1", "".join(pieces))
    for _ in range(3):  # nested wrappers: \emph{\textbf{x}}
        sentence = _TEX_COMMAND.sub(_tex_command, sentence)
    sentence = _MD_LINK.sub(r"\1", sentence)
    sentence = re.sub(r"[{}$~]", " ", sentence.replace("--", "-"))
    sentence = _EMPTIED_BRACKETS.sub(" ", sentence)
    return _LOOSE_SPACE.sub(lambda m: m.group(1) or m.group(2), " ".join(sentence.split()))


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
