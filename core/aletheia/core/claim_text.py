"""Find the claims of a research text that need a citation, and the citations they carry. Pure.

    findings = find_claims(text, fmt="latex")      # every sentence a rule caught, or that cites
    [f for f in findings if f.unsupported]          # find_unsupported_claims
    judged_sentence(text, finding)                  # what the judge reads: the markers cut out

The text is first reduced to its prose and cut into sentences (`research_prose`: what is not prose
is blanked, so every offset and line number still points into the original text); each sentence is
matched against the rule table and the citation markers (`claim_rules`). A sentence is a claim when
a rule catches it or when it carries a citation marker (`CLAIM_MAKING_STYLES`): a sentence that
cites a paper says what the paper should say. Which reference a marker means is the pipeline's
question (`pipeline/claims_text`).
"""

from __future__ import annotations

import re
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
)
from aletheia.core.research_prose import iter_sentences, prose_mask


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
