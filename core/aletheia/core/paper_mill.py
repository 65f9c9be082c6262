"""The `ai_generated_suspect` signal: heuristics for paper-mill and machine-generated papers
("not perfect; catch the obvious ones", seed 002). Never a verdict: a reported signal with the
evidence behind it.

Four indicators, each computed only from evidence that exists (an indicator without its evidence
is absent, never assumed):

- `tortured_phrases`: listed paraphrases of technical terms (`aletheia.core.tortured`) in the
  work's title, abstract or full text;
- `no_methods_section`: a full text with section headings, none of which is a methods-like
  section (methods, experiments, data, model, proofs, ... : broad on purpose, since a theory paper
  has no "Methods" and must not count);
- `authorship_not_found_elsewhere`: an index's author records of every author of the work
  (`aletheia.core.authorship`, OpenAlex `works_count`), none with another work; asked only when
  one of the other indicators already fired (`other_indicators`), so genuine references cost no
  request;
- `lower_tier_venue`: the venue is on the predatory or delisted list (`signals.PredatoryList`).

The signal fires on `TORTURED_ALONE` distinct tortured phrases, or on any `INDICATORS_TOGETHER`
indicators together: one tortured phrase, a theory paper without a methods section, a new author
or a listed venue is each common enough in genuine work that alone it says nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from aletheia.core.authorship import AuthorshipCheck
from aletheia.core.excerpts import USUAL_SECTIONS, PaperText
from aletheia.core.signals import Signal, SignalKind
from aletheia.core.text import fold
from aletheia.core.tortured import TorturedTable, find_tortured

__all__ = [
    "INDICATORS_TOGETHER",
    "MIN_SECTIONS",
    "TORTURED_ALONE",
    "WorkText",
    "ai_generated_signal",
    "has_methods_section",
    "headings_in_text",
    "other_indicators",
    "work_text_of_paper",
]

TORTURED_ALONE: Final = 2  # distinct tortured phrases that fire the signal on their own
INDICATORS_TOGETHER: Final = 2  # otherwise, this many indicators of different kinds
MIN_SECTIONS: Final = 3  # fewer headings than this is no sectioned full text: no methods indicator

# Headings that play the part of a methods section in some field. Matched on folded words.
_METHODS_LIKE: Final = re.compile(
    r"\b(?:method\w*|methodolog\w*|materials?|experiment\w*|approach\w*|procedure\w*|data\w*"
    r"|models?|modell?ing|implementation|evaluation|design|analysis|analyses|simulations?|setup|set up"
    r"|protocols?|proofs?|proving|theorems?|theor\w*|algorithms?|framework|measurements?"
    r"|observations?|techniques?|formalism|constructions?|preliminar\w*|derivations?|calculations?"
    r"|computations?|estimation|architecture|system|study|survey|case|sample\w*|participants?)\b"
)


def has_methods_section(headings: Sequence[str]) -> bool:
    return any(_METHODS_LIKE.search(fold(h)) for h in headings)


_MARKDOWN_HEADING: Final = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_LATEX_HEADING: Final = re.compile(r"\\(?:sub){0,2}section\*?\{([^{}]{1,120})\}")
_NUMBERED_HEADING: Final = re.compile(
    r"^(?:\d{1,2}(?:\.\d{1,2}){0,2}\.?|[IVX]{1,5}\.)\s+([A-Z][^.!?]{1,70})$"
)
_NAMED_HEADINGS: Final = USUAL_SECTIONS | {"methodology", "experiments", "evaluation"}


def _is_plain_heading(text: str) -> bool:
    numbered = _NUMBERED_HEADING.match(text) is not None and not re.search(r"\d{3,}|%|=", text)
    return numbered or fold(text) in _NAMED_HEADINGS


def headings_in_text(lines: Sequence[str]) -> tuple[str, ...]:
    """Section headings of a full text given as lines: Markdown `#` lines, LaTeX `\\section{}`,
    numbered headings ("2 Methods", "3.1 Data", "IV. RESULTS") and the usual named ones alone on a
    line ("Introduction", "Conclusion"). Unique, in order."""
    found: list[str] = []
    for line in lines:
        text = line.strip()
        if not text or len(text) > 90:
            latex = _LATEX_HEADING.findall(text)
            found.extend(latex)
            continue
        if m := _MARKDOWN_HEADING.match(text):
            found.append(m.group(1))
        elif latex := _LATEX_HEADING.findall(text):
            found.extend(latex)
        elif _is_plain_heading(text):
            found.append(text)
    return tuple(dict.fromkeys(h.strip() for h in found if h.strip()))


@dataclass(frozen=True)
class WorkText:
    """What is known of a work's text: each part by name (title, abstract, full_text), the full
    text's section headings when it has sections (None: no full text, or none with sections)."""

    parts: dict[str, str] = field(default_factory=dict)
    headings: tuple[str, ...] | None = None


def work_text_of_paper(
    paper: PaperText, *, title: str | None = None, abstract: str | None = None
) -> WorkText:
    """A cited work's text as the full-text chain fetched it (`pipeline/fulltext.py`: arXiv HTML,
    Europe PMC, PDF) with the source's title and abstract: the body for tortured phrases, the
    blocks' section headings (or, when the converter named none, those found in the text) for
    the methods indicator. An abstract-only text is no full text: no headings, no methods check."""
    parts = {k: v for k, v in (("title", title), ("abstract", abstract)) if v}
    if paper.origin == "abstract":
        return WorkText(parts=parts or {"abstract": paper.text})
    sections = tuple(
        dict.fromkeys(b.section.strip() for b in paper.blocks if b.section and b.section.strip())
    )
    headings = sections or headings_in_text(paper.text.splitlines())
    return WorkText(parts={**parts, "full_text": paper.text}, headings=headings or None)


def _tortured_evidence(text: WorkText, table: TorturedTable | None) -> list[dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for where, part in text.parts.items():
        for match in find_tortured(part, table):
            entry = found.setdefault(match.phrase, {**match.as_json(), "count": 0, "where": []})
            entry["count"] += match.count
            entry["where"].append(where)
    return list(found.values())


def _indicators(
    text: WorkText, listed_venue: str | None, table: TorturedTable | None
) -> tuple[list[str], dict[str, Any], list[dict[str, Any]]]:
    indicators: list[str] = []
    evidence: dict[str, Any] = {}
    phrases = _tortured_evidence(text, table)
    if phrases:
        indicators.append("tortured_phrases")
        evidence["tortured_phrases"] = phrases
    headings = text.headings
    if headings is not None and len(headings) >= MIN_SECTIONS and not has_methods_section(headings):
        indicators.append("no_methods_section")
        evidence["sections"] = list(headings[:20])
    if listed_venue:
        indicators.append("lower_tier_venue")
        evidence["venue_listed_by"] = listed_venue
    return indicators, evidence, phrases


def other_indicators(
    text: WorkText, *, listed_venue: str | None = None, table: TorturedTable | None = None
) -> list[str]:
    """The indicators that hold without asking about the authors: the authorship question is only
    worth a request when one of these already fired."""
    return _indicators(text, listed_venue, table)[0]


def ai_generated_signal(
    text: WorkText,
    *,
    authorship: AuthorshipCheck | None = None,
    listed_venue: str | None = None,
    table: TorturedTable | None = None,
) -> Signal | None:
    """`ai_generated_suspect` with the indicators that hold and the evidence of each, or None.

    `authorship`: the index's author records of the work's authors (None: not asked, no
    indicator); the indicator holds only when every author was found with at most one work.
    `listed_venue`: the predatory list entry's source when the venue is listed."""
    indicators, evidence, phrases = _indicators(text, listed_venue, table)
    if authorship is not None and authorship.found_elsewhere() is False:
        indicators.append("authorship_not_found_elsewhere")
        evidence["authors"] = authorship.as_evidence()
    fires = len(phrases) >= TORTURED_ALONE or len(indicators) >= INDICATORS_TOGETHER
    if not fires:
        return None
    return Signal(
        kind=SignalKind.AI_GENERATED_SUSPECT,
        evidence={
            "indicators": indicators,
            **evidence,
            "checked": sorted(text.parts),
            "explanation": explanation(indicators, phrases),
        },
        source="aletheia",
    )


def explanation(indicators: Sequence[str], phrases: Sequence[dict[str, Any]]) -> str:
    """One short paragraph a reader can check against the evidence."""
    said: list[str] = []
    if phrases:
        shown = ", ".join(f"“{p['phrase']}” for {p['expected']}" for p in phrases[:4])
        said.append(f"tortured phrases (paraphrased technical terms, a paper-mill fingerprint): {shown}")
    if "no_methods_section" in indicators:
        said.append("a full text with sections but none describing methods, data or proofs")
    if "authorship_not_found_elsewhere" in indicators:
        said.append("no author has another work in the index (OpenAlex author records)")
    if "lower_tier_venue" in indicators:
        said.append("a venue on the predatory or delisted list")
    return "; ".join(said) + ". A heuristic: read the work before relying on it; the verdict stands."
