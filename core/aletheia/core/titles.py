"""Title comparison: the decisive title rule of the triangulation gate (seed 000 §5.2).

Two titles match when RapidFuzz `fuzz.ratio` on their `normalize_title` forms reaches
`TITLE_THRESHOLD` (0.92: the high-precision tier; 0.85-0.90 makes everything a duplicate).

Subtitles: sources disagree on whether the subtitle is part of the title (Crossref keeps it in a
separate field, some BibTeX files drop it). When exactly one side has a subtitle, its main title is
also compared with the other side's whole title, and so is its subtitle (some sources drop a
"SoK:" or "BERT:" lead-in), and the best score wins. The part compared must have at least
`MIN_PART_WORDS` words: "Reinforcement Learning" matches "Reinforcement Learning: An
Introduction", but "Dropout" does not match "Dropout: A Simple Way to Prevent Neural Networks from
Overfitting" on the strength of one word.

Deliberately strict elsewhere: a missing leading article ("The", "A") is not forgiven beyond what
the character ratio already tolerates, and no word-order or token-set tolerance is applied, because
near-miss titles ("for" -> "towards", "from" -> "with") are a known fabrication pattern and every
extra tolerance lets more of them through. Callers that need to tell an exact match from a
tolerated one use `titles_identical`.
"""

from __future__ import annotations

import re
from typing import Final

from rapidfuzz import fuzz

from aletheia.core.text import fold, normalize_title, normalize_whitespace

__all__ = [
    "MIN_PART_WORDS",
    "TITLE_THRESHOLD",
    "is_placeholder_title",
    "split_subtitle",
    "title_similarity",
    "titles_identical",
    "titles_match",
]

TITLE_THRESHOLD: Final = 0.92
MIN_PART_WORDS: Final = 2

# Where a subtitle starts: a colon (not one between digits, as in "2:1"), a spaced hyphen or en
# dash, an em dash (spaced or not), and the LaTeX spellings of the dashes. A question mark followed
# by more text ("Is X Y? A study of Z") also ends a main title, and stays with it.
_SUBTITLE_SEPARATOR = re.compile(r"\s*(?<!\d):(?!\d)\s*|\s+(?:-{1,3}|–)\s+|\s*(?:—|---)\s*|(?<=\?)\s+(?=\S)")


def split_subtitle(title: str) -> tuple[str, str | None]:
    """Split "Main: Subtitle" into ("Main", "Subtitle"); ("Title", None) when there is none.

    Only the first separator counts ("A: B: C" -> ("A", "B: C")). A separator at either end is
    not one: ": x" and "x:" come back whole, as does a side with no letters or digits.
    """
    text = normalize_whitespace(title)
    match = _SUBTITLE_SEPARATOR.search(text)
    if match is None:
        return text, None
    main, subtitle = text[: match.start()].strip(), text[match.end() :].strip()
    if fold(main) and fold(subtitle):
        return main, subtitle
    return text, None


def _ratio(a: str, b: str) -> float:
    return fuzz.ratio(a, b) / 100.0


def title_similarity(a: str, b: str) -> float:
    """Similarity of two titles in [0, 1]; 1.0 for titles that normalise to the same text.

    0.0 when either title normalises to nothing (punctuation only, empty). Symmetric.
    """
    norm_a, norm_b = normalize_title(a), normalize_title(b)
    if not norm_a or not norm_b:
        return 0.0
    best = _ratio(norm_a, norm_b)
    main_a, sub_a = split_subtitle(a)
    main_b, sub_b = split_subtitle(b)
    # Only when exactly one side has a subtitle: with subtitles on both sides, two different
    # subtitles are a real difference.
    if (sub_a is None) != (sub_b is None):
        main, sub = (main_a, sub_a) if sub_a is not None else (main_b, sub_b)
        whole = norm_b if sub_a is not None else norm_a
        for part in (main, sub or ""):
            norm_part = normalize_title(part)
            if len(norm_part.split()) >= MIN_PART_WORDS:
                best = max(best, _ratio(norm_part, whole))
    return best


def titles_match(a: str, b: str) -> bool:
    """Whether two titles name the same work under the decisive rule (>= `TITLE_THRESHOLD`)."""
    return title_similarity(a, b) >= TITLE_THRESHOLD


def titles_identical(a: str, b: str) -> bool:
    """Whether two titles normalise to the same non-empty text (no tolerance at all)."""
    norm_a = normalize_title(a)
    return bool(norm_a) and norm_a == normalize_title(b)


# Folded forms of titles that are templates, not titles.
_PLACEHOLDER_TITLES: Final = frozenset(
    {
        "title",
        "titles",
        "untitled",
        "no title",
        "notitle",
        "unknown",
        "unknown title",
        "none",
        "null",
        "n a",
        "na",
        "tbd",
        "tba",
        "todo",
        "to do",
        "to be determined",
        "to be announced",
        "placeholder",
        "placeholder title",
        "insert title",
        "insert title here",
        "your title",
        "your title here",
        "title here",
        "enter title",
        "add title",
        "sample title",
        "example title",
        "dummy title",
        "test title",
        "new title",
        "some title",
        "a title",
        "the title",
        "my title",
        "title of paper",
        "title of the paper",
        "title of the article",
        "title of article",
        "title of the work",
        "paper title",
        "article title",
        "book title",
        "chapter title",
        "work title",
        "document title",
        "xxx",
        "xxxx",
        "xxxxx",
        "lorem ipsum",
        "misc",
    }
)
_NUMBERED_PLACEHOLDER = re.compile(r"(?:paper |article |sample |example |dummy |test )?title \d{1,3}")
_ELLIPSIS_END = re.compile(r"(?:\.\s*\.\s*\.|…|\[\s*(?:\.\.\.|…)\s*\])\s*[\]\)}\"'”]*$")


def is_placeholder_title(title: str | None) -> bool:
    """Whether a title is a template ("Title", "[Paper title]", "TBD", "Lorem ipsum dolor...")
    or was cut off with an ellipsis ("Attention is all you...").

    A title that folds to nothing (empty, punctuation only) is a placeholder too.
    """
    if title is None:
        return True
    folded = fold(title)
    if not folded:
        return True
    if folded in _PLACEHOLDER_TITLES or _NUMBERED_PLACEHOLDER.fullmatch(folded):
        return True
    if folded.startswith("lorem ipsum"):
        return True
    return bool(_ELLIPSIS_END.search(title.strip()))
