"""DBLP title searches, a few titles in one request (issue 23).

DBLP's search help documents its query language word by word: words are matched as prefixes
("sig" matches "SIGIR"), a space is AND ("codd model"), `|` between words is OR ("graph|network"),
and (since 2017) no phrase and no NOT. There is no grouping: `a b|c d` is a AND (b OR c) AND d,
never (a b) OR (c d). So two titles cannot simply be OR-ed as arXiv's or Semantic Scholar's are.

What the documented operators can say is the same thing in conjunctive form: (a AND b) OR (c AND d)
is (a|c) AND (a|d) AND (b|c) AND (b|d), one `|` clause per choice of a word from each title. The
clauses multiply (n words in each of t titles: n^t clauses), so a batch takes at most
`MAX_TITLES` titles and each title only its `WORDS_PER_TITLE` longest words. Fewer words make a
looser query, never a stricter one: every record a title's own search returns (all of its words,
as prefixes) holds those words too, so it is in the batch's answer.

The answer is used to prove absence only (`share_absence`): when it is complete (`@total` no more
than the hits sent) and no hit loosely holds the title's words (`title_batches.loose_prefixes`,
over everything DBLP indexes of a record: title, authors, venue, year, as its search matches
all of them), the title's own search would have come back empty. Any other title (a hit that might
be its, an incomplete answer, a failed request) is a miss, asked as its own search: DBLP ranks its
own answer, and which five hits it would have sent is not ours to guess.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, TypeVar

from aletheia.sources.dblp_parse import dblp_hits
from aletheia.sources.title_batches import (
    LOOSE_PREFIX,
    STOP_WORDS,
    BatchAnswer,
    loose_prefixes,
    proved_absent,
)

T = TypeVar("T")

# Titles per request by default (`ALETHEIA_DBLP_TITLE_BATCH`; 0 or 1: off) and at most: with
# four words a title, three titles make 64 clauses of three words (about 1.5 KB).
DEFAULT_MAX_TITLES: Final = 3
MAX_TITLES: Final = 3
WORDS_PER_TITLE: Final = 4
# DBLP caps `h` at 1,000 hits; a batch of invented titles matches a handful.
BATCH_HITS: Final = 1000


def batch_words(query: str) -> tuple[str, ...]:
    """The words of a title's own query (`dblp.dblp_query`) a batch asks for: its longest
    `WORDS_PER_TITLE` words of `LOOSE_PREFIX` letters or more, stop words aside (the rarest, as a
    rule), lower case."""
    lowered = (w.lower() for w in query.split())
    words = dict.fromkeys(w for w in lowered if len(w) >= LOOSE_PREFIX and w not in STOP_WORDS)
    return tuple(sorted(words, key=lambda w: (-len(w), w))[:WORDS_PER_TITLE])


def title_batchable(query: str) -> bool:
    return len(batch_words(query)) >= 2


def batch_query(queries: Iterable[str]) -> str:
    """(all words of title 1) OR (all words of title 2) ..., as DBLP's AND of `|` clauses."""
    clauses: dict[str, None] = {}
    for choice in itertools.product(*(batch_words(q) for q in queries)):
        clauses.setdefault("|".join(dict.fromkeys(choice)), None)
    return " ".join(clauses)


def _text(value: Any) -> Iterable[str]:
    """Every string in a hit's `info` (authors' names, venue, title, year...)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _text(item)
    elif isinstance(value, list):
        for item in value:
            yield from _text(item)


def hit_text(hit: Mapping[str, Any]) -> str:
    return " ".join(_text(hit.get("info")))


def batch_answer(payload: Any) -> BatchAnswer[Mapping[str, Any]]:
    """A search answer as (everything indexed of a hit, hit) pairs; complete when `@total` is no
    more than the hits that came back."""
    hits = dblp_hits(payload)
    total: Any = None
    result = payload.get("result") if isinstance(payload, Mapping) else None
    counts = result.get("hits") if isinstance(result, Mapping) else None
    if isinstance(counts, Mapping):
        total = counts.get("@total")
    complete = isinstance(total, str | int) and str(total).isdigit() and int(total) <= len(hits)
    return BatchAnswer(items=[(hit_text(hit), hit) for hit in hits], complete=complete)


def share_absence(queries: Sequence[str], answer: BatchAnswer[T], limit: int) -> dict[str, list[T] | None]:
    """Each title's query -> `[]` when the batch proves its own search empty, else None."""
    held = [loose_prefixes(text) for text, _ in answer.items]
    return {query: [] if proved_absent(query, held, complete=answer.complete) else None for query in queries}
