"""Which sentences of a research text need a citation, and what a citation looks like: rule tables.

Both tables are data, read by `claim_text.find_claims`; a rule is a row, tested by its own case
in `tests/unit/test_claim_rules.py`. A change to a row is a change to what `aletheia claims`
reports (docs/claims.md, "Which sentences need a citation").

`CLAIM_RULES`: strong algorithmic and empirical statements. Each row names what it catches
(`kind`), the regular expression, and why such a sentence needs a source. `OWN_WORK` marks a
sentence about the document's own contribution ("we prove", "our method outperforms"): it is
reported, but it needs the paper's own evidence, not a citation (precision first: the tool must
not ask an author to cite their own result).

`CITATION_MARKERS`: the forms a citation takes in LaTeX, Markdown/pandoc and plain text, each with
the group that holds its keys and how those keys are resolved against the bibliography
(`by`: key, position, author_year, footnote). A sentence that carries a marker of one of the
`CLAIM_MAKING_STYLES` is a claim whether or not a rule catches it: it is judged against the paper
it cites (`pipeline/cited_claims.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

# bump when a row changes: reports name the version that found them (1.1.0: a sentence with a
# citation marker is a claim, whether or not a rule catches it)
RULES_VERSION: Final = "1.1.0"


@dataclass(frozen=True)
class ClaimRule:
    name: str
    kind: str  # algorithmic | empirical | comparative | priority | consensus
    pattern: str
    why: str
    flags: int = re.IGNORECASE
    compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", re.compile(self.pattern, self.flags))


_UNITS = (
    r"ms|µs|us|ns|s|sec|seconds?|minutes?|hours?|days?|GB|MB|KB|TB|PB|GiB|MiB|GHz|MHz|kHz|Hz|"
    r"nm|µm|mm|cm|km|kg|mg|µg|ng|mL|ml|µL|°C|K|eV|keV|MeV|GeV|TeV|dB|mW|kW|MW|GW|W|V|mV|mA|"
    r"FLOPs?|GFLOPs?|TFLOPs?|params|parameters|tokens|pp|bits?|bytes?|fps|FPS|Mpc|kpc|pc|M_?\\?odot"
)

CLAIM_RULES: Final[tuple[ClaimRule, ...]] = (
    ClaimRule(
        "complexity_bound",
        "algorithmic",
        r"(?<![A-Za-z\\])(?:\\mathcal\s*\{\s*O\s*\}|\\tilde\s*\{\s*O\s*\}|\\Theta|\\Omega|\\widetilde\s*\{\s*O\s*\}"
        r"|O|Θ|Ω|Õ)\s*\\?(?:left)?\(\s*(?:1|[^()\n]{0,40}?(?:\b[nmkdNTVE]\b|log)[^()\n]{0,40}?)\s*\\?(?:right)?\)",
        "an asymptotic bound is a result someone proved",
        flags=0,
    ),
    ClaimRule(
        "hardness",
        "algorithmic",
        r"\b(?:NP|PSPACE|EXPTIME|#P|APX)[- ](?:hard|complete)(?:ness)?\b|\bundecidable\b",
        "a hardness result is a theorem with a source",
    ),
    ClaimRule(
        "proven",
        "algorithmic",
        r"\b(?:proven|provably|has been (?:proved|proven|shown)|have been (?:proved|proven|shown)"
        r"|was (?:proved|proven|shown)|were (?:proved|proven|shown)|it is (?:well[- ])?known that"
        r"|is known to|are known to|(?:upper|lower) bound of)\b",
        "'proven' or 'known' points at somebody else's proof",
    ),
    ClaimRule(
        "optimal",
        "algorithmic",
        # An optimality claim ("X is optimal", "an optimal algorithm", "minimax optimal"), not the
        # everyday noun phrase ("the optimal times", "optimal transport").
        r"\b(?:minimax|asymptotically|provably|Pareto|information[- ]theoretically|worst[- ]case)"
        r"[- ]optimal\b"
        r"|\b(?:is|are|be|been|being|remains?)\s+(?:(?:also|still|not|near|nearly|essentially)\s+)?optimal\b"
        r"|\boptimal(?:ity)?\s+(?:of\s+)?(?:algorithms?|bounds?|rates?|regret|(?:sample\s+)?complexity|convergence"
        r"|estimators?|approximation ratio)\b|\btight (?:upper |lower )?bounds?\b",
        "optimality is a claim that needs its proof",
    ),
    ClaimRule(
        "state_of_the_art",
        "comparative",
        r"\bstate[- ]of[- ]the[- ]art\b|\bSOTA\b|\bbest[- ](?:known|performing|reported)\b",
        "'state of the art' names results that were published somewhere",
    ),
    ClaimRule(
        "outperforms",
        "comparative",
        r"\b(?:outperform(?:s|ed|ing)?|surpass(?:es|ed|ing)?|superior to|better than|beats)\b",
        "a comparison between methods rests on reported experiments",
    ),
    ClaimRule(
        "first_to",
        "priority",
        r"\b(?:the first (?:to|work|method|paper|approach|algorithm|study|system|model)\b(?! in (?:this|our))"
        r"|for the first time|first (?:introduced|proposed|described|shown|observed|reported) (?:by|in))\b",
        "a priority claim is about the literature",
    ),
    ClaimRule(
        "percentage",
        "empirical",
        r"(?<![\w.])\d+(?:\.\d+)?\s?(?:\\?%|percent\b|per cent\b)",
        "a measured proportion comes from a study",
    ),
    ClaimRule(
        "quantity_with_unit",
        "empirical",
        r"(?<![\w.])\d+(?:[.,]\d+)?(?:\s?[x×]\s?10\^?\{?-?\d+\}?)?[\s~]?(?:" + _UNITS + r")(?![\w/])",
        "a measured quantity comes from a measurement",
        flags=0,
    ),
    ClaimRule(
        "speedup",
        "empirical",
        r"(?<![\w.])\d+(?:\.\d+)?\s?(?:x|×|times|-fold|fold)\s+(?:faster|slower|speed-?ups?|fewer|more|less|"
        r"smaller|larger|higher|lower|improvement|reduction)\b",
        "a speed-up factor comes from an experiment",
    ),
    ClaimRule(
        "consensus",
        "consensus",
        r"\b(?:studies (?:have )?(?:shown|found|suggest)|research (?:has shown|shows|suggests)"
        r"|it has been (?:shown|reported|observed|demonstrated)|evidence (?:suggests|shows|indicates)"
        r"|previous (?:work|studies|research) (?:has|have) (?:shown|found|demonstrated)"
        r"|industry[- ]standard|de facto standard|widely (?:used|adopted|accepted|believed))\b",
        "an appeal to the literature needs the literature",
    ),
)

# The document's own contribution: reported, never asked for a citation.
OWN_WORK: Final = re.compile(
    r"\b(?:we|our|ours|us|this (?:paper|work|article|study|thesis|section|note|chapter)"
    r"|the proposed|in this (?:paper|work|article|study)|here we)\b",
    re.IGNORECASE,
)


# Sections that report the document's own measurements: a sentence there whose only triggers are
# empirical (a percentage, a quantity, a speed-up) states the paper's own result.
OWN_RESULT_SECTIONS: Final = re.compile(
    r"\b(?:results?|experiments?|experimental|evaluations?|ablations?|findings|benchmarks?|performance"
    r"|implementation|methods?|methodology|analysis|discussion|conclusions?|case stud(?:y|ies))\b",
    re.IGNORECASE,
)
EMPIRICAL_KIND: Final = "empirical"
COMPARATIVE_KIND: Final = "comparative"
# Sections about the literature: a number stated there reports somebody's measurement. Anywhere
# else under a heading (methods, setup, results, a topic section), a sentence whose only triggers
# are empirical states the document's own numbers.
LITERATURE_SECTIONS: Final = re.compile(
    r"\b(?:introduction|background|related|prior|previous|literature|motivation|overview|preliminar"
    r"|state[- ]of[- ]the[- ]art|survey|abstract|review)",
    re.IGNORECASE,
)
# A "sentence" with fewer words than this, or whose tokens are mostly not words, is a table row, an
# equation or a caption fragment, not a claim.
MIN_WORDS: Final = 3
MIN_WORD_SHARE: Final = 0.5


@dataclass(frozen=True)
class CitationMarker:
    name: str
    style: str  # latex | pandoc | numeric | author_year | footnote
    by: str  # key | position | author_year | footnote
    pattern: str
    flags: int = 0
    compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", re.compile(self.pattern, self.flags))


_NAME = r"[A-Z][\w'’\-]+(?:\s(?:van|von|de|der|da|di|du|le|la)\s[A-Z][\w'’\-]+)?"
_AUTHORS = _NAME + r"(?:\s+et\s+al\.?|\s+(?:and|&)\s+" + _NAME + r")?"
_YEAR = r"(?:1[89]|20)\d{2}[a-z]?"

# Group 1 holds the keys (or the whole list for author-year forms).
CITATION_MARKERS: Final[tuple[CitationMarker, ...]] = (
    CitationMarker(
        "latex_cite",
        "latex",
        "key",
        r"\\(?:[Cc]ite[a-z]*|[Pp]arencite|[Tt]extcite|[Aa]utocite|[Ff]ootcite|[Ss]martcite|[Ff]ullcite"
        r"|nocite)\*?\s*(?:\[[^\]]*\]\s*){0,2}\{([^{}]+)\}",
    ),
    CitationMarker(
        "pandoc_brackets", "pandoc", "key", r"\[((?:[^\[\]@]*-?@[\w:.#$%&+?<>~/-]+[^\[\]@]*?)+)\]"
    ),
    CitationMarker("pandoc_in_text", "pandoc", "key", r"(?:(?<=\s)|^)@([A-Za-z_][\w:.#$%&+?<>~/-]*[\w])"),
    CitationMarker("markdown_footnote", "footnote", "footnote", r"\[\^([^\]\s]+)\](?!:)"),
    CitationMarker(
        "numeric_brackets",
        "numeric",
        "position",
        r"(?<![/=])\[(\d{1,4}(?:\s*[-–,;]\s*\d{1,4})*)\](?!\()",
    ),
    CitationMarker(
        "author_year_parenthetical",
        "author_year",
        "author_year",
        # "(Vaswani et al., 2017; Devlin et al., 2019a, 2020)", and PDF text's "(Cohan et al. , 2019 )"
        rf"\(\s*((?:(?:see|e\.g\.,?|cf\.)\s+)?{_AUTHORS}\s*,?\s*{_YEAR}"
        rf"(?:\s*[,;]\s*(?:{_AUTHORS}\s*,?\s*)?{_YEAR})*)\s*\)",
    ),
    CitationMarker(
        "author_year_narrative",
        "author_year",
        "author_year",
        r"(" + _AUTHORS + r"\s+\(" + _YEAR + r"\))",
    ),
)

# Quarto and pandoc-crossref cross-references share the citation syntax (`@tbl-summary`,
# `[@fig:plot]`): a label with one of these prefixes points into the document, not at a reference.
CROSS_REFERENCE_KEY: Final = re.compile(
    r"(?:fig|tbl|sec|eq|lst|thm|lem|cor|prp|cnj|def|exm|exr|rem|sol|apx)[-:]", re.IGNORECASE
)

# The marker styles that make a sentence a claim on their own (issue 19): a sentence that cites a
# paper says something the paper should say, so it is judged against that paper. A Markdown
# footnote is not among them: footnotes hold remarks as often as references, and the marker alone
# cannot tell which (a footnote still counts as the citation of a sentence a rule caught).
CLAIM_MAKING_STYLES: Final = frozenset({"latex", "pandoc", "numeric", "author_year"})

# Where the text stops being prose to check (the reference list itself).
REFERENCE_HEADINGS: Final = re.compile(
    r"^\s*(?:#{1,6}\s*|\\(?:section|chapter)\*?\{|\*\*)?\s*(?:\d+(?:\.\d+)*\.?\s+)?"
    r"(?:references?|bibliography|works\s+cited|literature\s+cited)\s*(?:\}|\*\*)?\s*:?\s*$",
    re.IGNORECASE,
)
