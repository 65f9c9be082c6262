"""Many title searches in one request, with absence proved where the batch is exact (issue 23).

arXiv (`ti:"..." OR ti:"..."`), Semantic Scholar's bulk search (`"..." | "..."`, `s2_titles`)
and OpenAlex's `title.search` (`(w1 w2) OR (w3 w4)`, `openalex_titles`) document a boolean OR of
title queries, so several references' title searches that wait at the same moment can go out as
one request (`Coalescer` gathers them, `TitleBatcher` cuts and sends them for every source). arXiv's
answer is shared out here, by pure rules (the others keep their own rule for a clear match, and
prove absence by the same test, `proved_absent`):

- **found**: the items whose title matches a reference's title under the decisive title rule
  (`TITLE_THRESHOLD`), best first: a positive finding, as with OpenAlex.
- **absent** (an empty answer, the same as its own search's empty answer): only when the batch
  is *complete* (the service says how many items matched the whole query and all of them came
  back) and *no* item of it loosely holds the title's words. A reference's own query is one
  disjunct of the batch query, so what its own search would return is a subset of a complete
  batch answer; and whatever a phrase or all-words search returns holds every word of the title,
  up to the service's stemming. "Loosely" is looser than stemming: each word of three letters
  or more of the title (stop words aside: an index may drop them from the query) must start, by
  its first three letters, some word of the item's title.
  A stemmer matches two words by a common stem, which starts both ("mapping" and "maps": "map";
  "studies" and "study": "studi"), so words that share a stem of three letters or more share
  their first three (four would miss "mapping" for "maps"). So "no item loosely holds it" means
  its own search would have come back empty.
- **miss** (None): anything else (an incomplete batch, an item that loosely holds the title but
  does not clearly match it, a lone title, a short title, a failed request). A miss is asked as
  its own search, as before: a batch miss is never read as "not found" by default.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

from aletheia.core.text import strip_accents
from aletheia.core.titles import TITLE_THRESHOLD, title_similarity
from aletheia.sources.base import SourceError
from aletheia.sources.batching import Coalescer

T = TypeVar("T")
K = TypeVar("K")
Q = TypeVar("Q", bound=Hashable)  # what one search asks: its title, or its title and author

# A title of one or two words matches too much to share a request (as `openalex_titles`).
MIN_TITLE_WORDS: Final = 3
# Words shorter than this are not required of an item (stop words, and stemmers' short forms).
LOOSE_PREFIX: Final = 3

_WORD: Final = re.compile(r"[^\W_]+")
# Lucene's default English stop words: an index may drop them from a query, so an item it
# returns need not hold them, and they are never required of one.
STOP_WORDS: Final = frozenset(
    (
        *("a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is"),
        *("it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there"),
        *("these", "they", "this", "to", "was", "will", "with"),
    )
)


def _words(text: str) -> list[str]:
    return _WORD.findall(strip_accents(text).lower())


def loose_prefixes(text: str) -> set[str]:
    """The `LOOSE_PREFIX`-letter prefixes of a title's words, and of each run of words joined (so
    that "self-attention" also offers "sel" for "selfattention")."""
    words = _words(text)
    return {w[:LOOSE_PREFIX] for w in words} | {"".join(words[i:])[:LOOSE_PREFIX] for i in range(len(words))}


def required_prefixes(title: str) -> set[str]:
    """The prefixes an item must offer to possibly be what `title`'s own search returns."""
    return {w[:LOOSE_PREFIX] for w in _words(title) if len(w) >= LOOSE_PREFIX and w not in STOP_WORDS}


def prefix_run(text: str) -> tuple[str, ...]:
    """The `LOOSE_PREFIX`-letter prefixes of a text's words of that length or more, in order:
    what a phrase of those words looks like through any stemmer (shorter words are left out on
    both sides, as stop words may be)."""
    return tuple(w[:LOOSE_PREFIX] for w in _words(text) if len(w) >= LOOSE_PREFIX and w not in STOP_WORDS)


def holds_run(held: tuple[str, ...], run: Sequence[str]) -> bool:
    """`held` (an item title's `prefix_run`) holds `run` as a contiguous part."""
    width, wanted = len(run), tuple(run)
    return width > 0 and any(held[i : i + width] == wanted for i in range(len(held) - width + 1))


def loosely_holds(item_title: str, title: str) -> bool:
    wanted = required_prefixes(title)
    return bool(wanted) and wanted <= loose_prefixes(item_title)


def proved_absent(title: str, held: Iterable[set[str]], *, complete: bool) -> bool:
    """Whether a batch answer proves `title`'s own search empty: the answer is complete and no
    item of it (`held`: each item title's `loose_prefixes`) loosely holds the title's words."""
    wanted = required_prefixes(title)
    return complete and bool(wanted) and not any(wanted <= prefixes for prefixes in held)


@dataclass(frozen=True)
class BatchAnswer(Generic[T]):
    """One batch request's answer: its items with their titles, and whether it is complete (every
    item that matched the whole query is here)."""

    items: Sequence[tuple[str, T]]
    complete: bool


def share_out(titles: Sequence[str], answer: BatchAnswer[T], limit: int) -> dict[str, list[T] | None]:
    """Each title -> its clear matches (best first, at most `limit`), `[]` when the batch proves
    its own search empty, or None (a miss: ask it alone)."""
    held = [(loose_prefixes(name), name, item) for name, item in answer.items]  # each item read once
    out: dict[str, list[T] | None] = {}
    for title in titles:
        wanted = required_prefixes(title)
        loose = [(name, item) for prefixes, name, item in held if wanted <= prefixes]
        scored = sorted(
            ((-title_similarity(title, name), rank, item) for rank, (name, item) in enumerate(loose)),
            key=lambda s: (s[0], s[1]),
        )
        clear = [item for score, _, item in scored if -score >= TITLE_THRESHOLD]
        if clear:
            out[title] = clear[:limit]
        elif proved_absent(title, (prefixes for prefixes, _, _ in held), complete=answer.complete):
            out[title] = []
        else:
            out[title] = None
    return out


def pack(items: Sequence[K], size: Callable[[K], int], separator: int, budget: int) -> list[list[K]]:
    """`items` in order, cut into runs whose sizes, with a `separator` between two, fit `budget`
    (an item too large for it alone forms a run of one)."""
    out: list[list[K]] = []
    current: list[K] = []
    used = 0
    for item in items:
        item_size = size(item)
        extra = item_size + (separator if current else 0)
        if current and used + extra > budget:
            out.append(current)
            current, used, extra = [], 0, item_size
        current.append(item)
        used += extra
    if current:
        out.append(current)
    return out


def title_batchable(title: str) -> bool:
    return len(_words(title)) >= MIN_TITLE_WORDS and bool(required_prefixes(title))


AskBatch = Callable[[list[Q]], Awaitable[BatchAnswer[T]]]
Share = Callable[[Sequence[Q], BatchAnswer[T], int], dict[Q, list[T] | None]]


class TitleBatcher(Generic[Q, T]):
    """`await batcher.find(query, limit)` -> the items a shared batch found for `query` (a title,
    or OpenAlex's title and author), best first; `[]` when the batch proves its own search would
    be empty; or None: a miss, to be asked as its own search.

    Concurrent calls are coalesced (`Coalescer`: one batch in flight, the next filling meanwhile,
    so behind a slow limit the batches grow); a coalesced group is cut so that each request's
    query stays within `max_query_chars` (`term_chars(query)`: the length of one query's term).
    `share` says how an answer is shared out (`share_out`, or a source's own rule) and `batchable`
    which queries may share a request at all (`title_batchable`, or a source's own)."""

    def __init__(
        self,
        ask: AskBatch[Q, T],
        *,
        max_titles: int,
        max_query_chars: int,
        term_chars: Callable[[Q], int],
        separator_chars: int,
        limit: int,
        share: Share[Q, T],
        batchable: Callable[[Q], bool],
        window: float = 0.02,
        stats: dict[str, int] | None = None,
    ) -> None:
        if max_titles < 2:
            raise ValueError(f"a title batch needs at least 2 titles, got {max_titles!r}")
        self._ask = ask
        self.max_query_chars = max_query_chars
        self._term_chars = term_chars
        self._separator_chars = separator_chars
        self._limit = limit
        self._share = share
        self._batchable = batchable
        self.stats = stats if stats is not None else {}
        self._coalescer: Coalescer[Q, list[T]] = Coalescer(self._fetch, max_batch=max_titles, window=window)

    def _count(self, name: str, n: int = 1) -> None:
        self.stats[name] = self.stats.get(name, 0) + n

    async def find(self, query: Q, limit: int) -> list[T] | None:
        if not self._batchable(query):
            return None
        items = await self._coalescer.get(query)
        if items is None:
            self._count("title_batch_misses")
            return None
        self._count("title_batch_hits" if items else "title_batch_absent")
        return items[:limit]

    def chunks(self, queries: Sequence[Q]) -> list[list[Q]]:
        """`queries` cut so that each request fits `max_query_chars` (a title too long to share a
        request forms a chunk of one, which is never sent)."""
        return pack(queries, self._term_chars, self._separator_chars, self.max_query_chars)

    async def _fetch(self, queries: list[Q]) -> dict[Q, list[T] | None]:
        found: dict[Q, list[T] | None] = {}
        for chunk in self.chunks(queries):
            if len(chunk) < 2:  # one title is as cheap as its own search
                found.update(dict.fromkeys(chunk))
                continue
            try:
                answer = await self._ask(chunk)
            except SourceError:
                # A failed batch proves nothing: every title is asked on its own.
                self._count("title_batch_failures")
                found.update(dict.fromkeys(chunk))
                continue
            self._count("title_batches")
            self._count("title_batch_titles", len(chunk))
            if not answer.complete:  # cut short: it proves no title absent
                self._count("title_batch_incomplete")
            # Off the event loop (a page of hundreds of items against dozens of titles): held on
            # it, this would delay requests the limiter already admitted (`transport.LARGE_BODY_BYTES`).
            found.update(await asyncio.to_thread(self._share, chunk, answer, self._limit))
        return found


def title_batcher(
    ask: AskBatch[str, T],
    *,
    title_batch: int,
    window: float,
    stats: dict[str, int],
    max_query_chars: int,
    term_chars: Callable[[str], int],
    separator_chars: int,
    limit: int,
    share: Share[str, T] | None = None,
    batchable: Callable[[str], bool] | None = None,
) -> TitleBatcher[str, T] | None:
    """A source client's `TitleBatcher` of `title_batch` titles a request, or None when batching is
    off (no coalescing window, or fewer than two titles a request)."""
    if not window or title_batch < 2:
        return None
    return TitleBatcher(
        ask,
        max_titles=title_batch,
        max_query_chars=max_query_chars,
        term_chars=term_chars,
        separator_chars=separator_chars,
        limit=limit,
        window=window,
        stats=stats,
        share=share or share_out,
        batchable=batchable or title_batchable,
    )
