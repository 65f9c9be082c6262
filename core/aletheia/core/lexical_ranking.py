"""Lexical comparison of a claim with a paper's sentences (pure): content terms, polarity, BM25.

Ranking (`rank_sentences`, `coverage`) is BM25 over sentences with a small stemmer: the
deterministic stand-in for a model's judgement, used when no LLM is configured. A sentence that
shares a claim's terms may still say the opposite (`polarity_conflict`: a negation on one side
only, an effect stated in the opposite direction). Sentences themselves come from `excerpts`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final

from pydantic import BaseModel, ConfigDict

from aletheia.core.text import strip_accents

__all__ = [
    "NEGATION_WORDS",
    "STOPWORDS",
    "RankedSentence",
    "content_terms",
    "coverage",
    "polarity_conflict",
    "rank_sentences",
    "stem",
]

_STOPWORD_TEXT: Final = """
a about above after again against all also although am among an and any are as at be because been
before being below between both but by can could did do does doing done down during each either etc
few for from further had has have having he her here hers herself him himself his how however i if
in into is it its itself just may me might more most much must my neither no nor not of off on once
only or other our ours ourselves out over own per same shall she should since so some such than that
the their theirs them themselves then there therefore these they this those through thus to too
under until up upon us very via was we were what when where whether which while who whom whose why
will with within without would yet you your
"""
STOPWORDS: Final = frozenset(_STOPWORD_TEXT.split())
# Words that flip a statement; a sentence and a claim that disagree on them do not support each other.
_NEGATION_TEXT: Final = (
    "not no never none neither nor without cannot lack lacks lacking absence absent fail fails failed"
    " unable unrelated insufficient"
)
NEGATION_WORDS: Final = frozenset(_NEGATION_TEXT.split())
_WORD: Final = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
_SUFFIXES: Final = (
    "ational",
    "ations",
    "ation",
    "ments",
    "ment",
    "ities",
    "ity",
    "ness",
    "ings",
    "ing",
    "edly",
    "ies",
    "ied",
    "ed",
    "es",
    "ly",
    "s",
)


def stem(word: str) -> str:
    """A light suffix-stripping stemmer: `increases`, `increased`, `increasing` -> `increas`."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            return word[: -len(suffix)]
    return word


def _words(text: str) -> list[str]:
    folded = strip_accents(text).casefold()
    return _WORD.findall(folded)


def content_terms(text: str) -> list[str]:
    """Stemmed words of `text` that carry content: no stop words, no single characters."""
    return [stem(word) for word in _words(text) if word not in STOPWORDS and len(word) > 1]


def coverage(query_terms: Iterable[str], text: str) -> float:
    """Share of the distinct query terms that occur in `text` (0.0 when there are none)."""
    wanted = set(query_terms)
    if not wanted:
        return 0.0
    return len(wanted & set(content_terms(text))) / len(wanted)


def _negated(text: str) -> bool:
    words = _words(text)
    return any(word in NEGATION_WORDS or word.endswith("n't") for word in words)


# Directions of an effect. A sentence that shares a claim's terms but states the opposite direction
# ("X increases Y" / "X decreased Y") is a contradiction that lexical overlap cannot see.
_DIRECTION_PAIRS: Final = (
    ("increas", "decreas"),
    ("rais", "lower"),
    ("higher", "lower"),
    ("more", "less"),
    ("greater", "smaller"),
    ("enhanc", "impair"),
    ("improv", "wors"),
    ("promot", "inhibit"),
    ("activat", "suppress"),
    ("upregul", "downregul"),
    ("gain", "loss"),
    ("positiv", "negativ"),
    ("benefit", "harm"),
    ("accelerat", "slow"),
    ("induc", "prevent"),
    ("elevat", "reduc"),
)
_DIRECTION_OF: Final[dict[str, list[tuple[tuple[str, str], int]]]] = {}
for _pair in _DIRECTION_PAIRS:
    for _side, _prefix in enumerate(_pair):
        _DIRECTION_OF.setdefault(_prefix, []).append((_pair, _side))


def _directions(text: str) -> dict[tuple[str, str], set[int]]:
    found: dict[tuple[str, str], set[int]] = {}
    for word in _words(text):
        stemmed = stem(word)
        for prefix, uses in _DIRECTION_OF.items():
            if stemmed.startswith(prefix):
                for pair, side in uses:
                    found.setdefault(pair, set()).add(side)
    return found


def polarity_conflict(claim: str, sentence: str) -> bool:
    """The sentence likely says the opposite of the claim: it flips the claim's polarity an odd
    number of times, counting a negation present on one side only and every effect stated in the
    opposite direction ("increases" against "decreased"). Two flips cancel: "less sleep worsens
    memory" says what "more sleep improves memory" says."""
    flips = int(_negated(claim) != _negated(sentence))
    claim_dirs, sentence_dirs = _directions(claim), _directions(sentence)
    for pair, sides in claim_dirs.items():
        other = sentence_dirs.get(pair)
        if len(sides) == 1 and other is not None and len(other) == 1 and other != sides:
            flips += 1
    return flips % 2 == 1


class RankedSentence(BaseModel):
    model_config = ConfigDict(frozen=True)

    index: int
    text: str
    score: float  # BM25
    coverage: float  # share of the claim's terms in the sentence


_K1: Final = 1.2
_B: Final = 0.75


def rank_sentences(claim: str, sentences: Sequence[str]) -> list[RankedSentence]:
    """BM25 of every sentence against the claim (IDF from these sentences), best first.

    Sentences with no term in common score 0 and are left out.
    """
    query = list(dict.fromkeys(content_terms(claim)))
    if not query or not sentences:
        return []
    docs = [Counter(content_terms(sentence)) for sentence in sentences]
    lengths = [sum(doc.values()) for doc in docs]
    average = (sum(lengths) / len(lengths)) or 1.0
    frequency = Counter(term for doc in docs for term in set(doc))
    total = len(docs)
    ranked: list[RankedSentence] = []
    wanted = set(query)
    for index, (doc, length) in enumerate(zip(docs, lengths, strict=True)):
        score = 0.0
        for term in query:
            count = doc.get(term, 0)
            if not count:
                continue
            idf = math.log(1 + (total - frequency[term] + 0.5) / (frequency[term] + 0.5))
            score += idf * count * (_K1 + 1) / (count + _K1 * (1 - _B + _B * length / average))
        if score > 0:
            share = len(wanted & set(doc)) / len(wanted)
            ranked.append(RankedSentence(index=index, text=sentences[index], score=score, coverage=share))
    ranked.sort(key=lambda item: (-item.score, item.index))
    return ranked
