"""Semantic Scholar title matches, many titles in one bulk search (issue 23).

`GET /graph/v1/paper/search/bulk` documents a boolean query over each paper's title and abstract:
terms are stemmed in English and all must be present by default, `|` is OR, `+` AND, `-` NOT,
`"..."` a phrase, `*` a prefix, `( )` precedence and `~N` a fuzzy word or a sloppy phrase. One call
returns up to 1,000 papers, and a continuation `token` only when more matched. So the stage-3
title matches of references that wait at the same moment go out as one query, each title cut in
two halves, each half a quoted phrase:

    query="w1 w2 w3" | "w4 w5 w6" | "v1 v2" | "v3 v4 v5" | ...

(words: letters and digits only, so that no word is read as an operator; a `-` would negate).

Why halves. The single search this stands in for is `paper/search/match`, S2's fuzzy best title
match, which may offer a paper whose title differs from the cited one by a word (HALLMARK's
near-miss titles: "Learning Neural Networks is ER-complete" for "Training Neural Networks is
ER-complete"). A whole-title query cannot see that paper; a title that differs by one word
substituted, inserted or dropped still holds one of the two halves word for word. Phrases, not
word groups: on an index of 200 million abstracts a few common words together match thousands of
papers, a phrase of them far fewer, and an answer cut at 1,000 proves nothing.

What the answer is taken for (`share_halves`): a paper is a *candidate* for a cited title when its
own title holds one of the title's halves as a run of words, word for word up to stemming
(`title_batches.holds_run`: three-letter prefixes of the words of three letters or more, shorter
words left out on both sides; a paper one word away holds the other half so);

- **found**: exactly one candidate, and it matches under the decisive title rule: the match
  `match` would give; or, in a complete answer, one candidate that matches while every other is
  not even a near miss (`NEAR_MISS_THRESHOLD`): `match` answers the closest title (beside a near
  miss, its choice is not ours to guess);
- **absent** (S2's 404 "Title match not found"): the answer is complete and holds no candidate.
  Every paper whose title is the cited one, or one word away from it, would be in it;
- **miss**: anything else (an incomplete answer, a near miss, several close candidates): `match` is
  asked alone, as before. So is a title another index already saw a near miss of (the gateway's
  `alone`): a title two words away is beyond the halves, and only `match` can judge it.

A batch cut short (more than a page matched) is asked again in parts, as many as its answer's
`total` says should each fit a page (`split_titles`, up to `MAX_SPLIT_DEPTH` levels), when that is
at most half as many requests as its titles; else, and for a part still cut short, each title goes
to `match`. Against the real index a batch of common phrases matches millions of papers: no split
is then worth it, and none is made.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from aletheia.core.field_rules import NEAR_MISS_THRESHOLD
from aletheia.core.titles import TITLE_THRESHOLD, title_similarity
from aletheia.sources.base import SourceParseError
from aletheia.sources.title_batches import BatchAnswer, holds_run, prefix_run, required_prefixes

BULK_PATH: Final = "/graph/v1/paper/search/bulk"
# Titles per request by default (`ALETHEIA_SEMANTIC_SCHOLAR_TITLE_BATCH`; 0 or 1: off).
DEFAULT_MAX_TITLES: Final = 25
# S2 documents no URL limit; this keeps a batch URL under about 4 KB once escaped.
MAX_QUERY_CHARS: Final = 2000
SEPARATOR: Final = " | "
# Words in each half of a title, at least: a one-word phrase matches far too much; and words of
# three letters or more, by which a candidate is recognised (one such word would make every title
# that shares it a candidate).
MIN_HALF_WORDS: Final = 2
MIN_HALF_PREFIXES: Final = 2
# The most papers one bulk call returns (documented): more come with a continuation token.
BULK_PAGE: Final = 1000
# A batch cut short is asked again in parts sized for this share of a page each (`split_titles`):
# the answer's `total` is the whole query's, and one title's phrases may match more than another's.
SPLIT_PAGE_SHARE: Final = 0.6
# Times a part cut short is split again before its titles are asked as `match` calls.
MAX_SPLIT_DEPTH: Final = 2

_WORD: Final = re.compile(r"[^\W_]+")
T = TypeVar("T")


def title_words(title: str) -> str:
    """A title as S2 bulk words: letters and digits only (no operator survives), lower case."""
    return " ".join(_WORD.findall(title.lower()))


def halves(words: str) -> tuple[str, str]:
    """A title's words (`title_words`) in two contiguous halves, cut where each half keeps the
    most words `loose_prefixes` can recognise (three letters or more), then most evenly."""
    split = words.split()
    cuts = range(MIN_HALF_WORDS, len(split) - MIN_HALF_WORDS + 1)
    if not cuts:
        middle = len(split) // 2
        return " ".join(split[:middle]), " ".join(split[middle:])
    best = max(
        cuts,
        key=lambda i: (
            min(len(required_prefixes(" ".join(split[:i]))), len(required_prefixes(" ".join(split[i:])))),
            -abs(len(split) - 2 * i),
        ),
    )
    return " ".join(split[:best]), " ".join(split[best:])


def title_batchable(words: str) -> bool:
    """Long enough for each half to single out its candidates: `MIN_HALF_WORDS` words, of which
    `MIN_HALF_PREFIXES` of three letters or more, in each."""
    return all(
        len(half.split()) >= MIN_HALF_WORDS and len(required_prefixes(half)) >= MIN_HALF_PREFIXES
        for half in halves(words)
    )


def title_term(words: str) -> str:
    """One title's part of a bulk query: its two halves as phrases."""
    first, second = halves(words)
    return f'"{first}"{SEPARATOR}"{second}"'


def bulk_query(titles: Iterable[str]) -> str:
    """The bulk query for titles given as `title_words`."""
    return SEPARATOR.join(title_term(t) for t in titles)


@dataclass(frozen=True)
class SplitAnswer(BatchAnswer[T]):
    """A batch cut short, asked again in parts (`split_titles`): each part's titles are shared
    out of that part's own answer, which holds every paper the part's query matched when it is
    complete; the first answer's items are kept for the record only."""

    parts: tuple[tuple[tuple[str, ...], BatchAnswer[T]], ...] = ()


def split_titles(titles: Sequence[str], total: int | None) -> list[list[str]] | None:
    """A batch whose bulk search matched `total` papers, more than one page: the titles in parts
    whose queries should each fit a page (`SPLIT_PAGE_SHARE` of it, on the batch's average per
    title), or None when that needs more parts than half the titles, when `match` calls cost no
    more (a one-title part is asked as `match`, which also judges near misses)."""
    if not total or total <= BULK_PAGE or len(titles) < 4:
        return None
    parts = math.ceil(total / (BULK_PAGE * SPLIT_PAGE_SHARE))
    if parts > len(titles) // 2:
        return None
    size = math.ceil(len(titles) / parts)
    return [list(titles[i : i + size]) for i in range(0, len(titles), size)]


def share_halves(titles: Sequence[str], answer: BatchAnswer[T], limit: int) -> dict[str, list[T] | None]:
    """Each title -> `[its one clear match]`, `[]` (proved absent) or None (ask `match` alone)."""
    if isinstance(answer, SplitAnswer):
        out: dict[str, list[T] | None] = dict.fromkeys(titles)
        for part, part_answer in answer.parts:
            out.update(share_halves(part, part_answer, limit))
        return out
    held = [(prefix_run(name), name, item) for name, item in answer.items]  # each paper read once
    out = {}
    for title in titles:
        runs = [prefix_run(half) for half in halves(title)]
        candidates = [
            (name, item) for prefixes, name, item in held if any(holds_run(prefixes, r) for r in runs)
        ]
        clear = _clear_match(title, candidates, complete=answer.complete)
        if clear is not None:
            out[title] = [clear][:limit]
        elif answer.complete and not candidates:
            out[title] = []
        else:
            out[title] = None
    return out


def _clear_match(title: str, candidates: Sequence[tuple[str, T]], *, complete: bool) -> T | None:
    """The paper `match` would give for `title`, when the answer shows it: its one candidate,
    if that matches under the decisive title rule; or, in a complete answer (every paper holding
    a half is in it), the one candidate that matches while every other is not even a near miss
    (`NEAR_MISS_THRESHOLD`): `match` answers the closest title."""
    scored = [(title_similarity(title, name), item) for name, item in candidates]
    matching = [item for score, item in scored if score >= TITLE_THRESHOLD]
    if len(matching) != 1:
        return None
    if len(scored) == 1 or (complete and sum(score >= NEAR_MISS_THRESHOLD for score, _ in scored) == 1):
        return matching[0]
    return None


def bulk_answer(payload: Any) -> BatchAnswer[Mapping[str, Any]]:
    """A bulk search's JSON as (title, paper) pairs; complete when S2 gave no continuation token.

    An empty answer is `{"total": 0, "data": []}` (or without `data`)."""
    if not isinstance(payload, Mapping):
        raise SourceParseError("semantic_scholar", "bulk search response is not an object")
    papers = payload.get("data") or []
    if not isinstance(papers, list) or not all(isinstance(p, Mapping) for p in papers):
        raise SourceParseError("semantic_scholar", "bulk search `data` is not a list of papers")
    items: Sequence[tuple[str, Mapping[str, Any]]] = [(str(p.get("title") or ""), p) for p in papers]
    # The token is present only when more papers matched than came back.
    return BatchAnswer(items=items, complete=not payload.get("token") and len(items) <= BULK_PAGE)


def bulk_total(payload: Any) -> int | None:
    """How many papers the bulk query matched in all (S2's `total`), when the answer says."""
    total = payload.get("total") if isinstance(payload, Mapping) else None
    return total if isinstance(total, int) and not isinstance(total, bool) else None
