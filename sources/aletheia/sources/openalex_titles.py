"""OpenAlex stage-1 title searches, many titles in one request (issue 11).

OpenAlex documents boolean search in search filters ("Including any of the words AND, OR, or NOT
in any of your searches will enable boolean search [...] You can use this in all searches,
including using the search parameter, and using search filters"; parentheses group, words not
separated by an operator are ANDed; docs.openalex.org, search-entities). So the title searches of
many references that wait at the same moment go out as one

    /works?filter=title.search:(w1 w2 w3) OR (w4 w5 w6) OR ...&per-page=200

Each group is one title's words, ANDed, which is what the single search
(`title.search:w1 w2 w3`) asks for that title; the whole URL is kept under OpenAlex's limit of
about 4 KB (`max_url_bytes`), and `per-page=200` is OpenAlex's maximum.

The answer is distributed by the product's own title comparison. A *positive* finding: a
reference gets the works of the batch whose title holds every word of its title and matches it
under the decisive title rule (`core.titles.TITLE_THRESHOLD`), and, when the search names an
author, that have an author whose name holds every word of it (the single search's
`raw_author_name.search`). *Absent* (issue 23, `absence=True`): the answer is complete (`meta.count`
no more than the works that came back) and no work of it loosely holds the title's words
(`title_batches.loose_prefixes`). The single search asks the same words of the same field, and an
author besides, so what it returns is a subset of a complete batch answer, and holds every word
of the title up to stemming: none there means its own answer would have been empty. Anything else
is a *miss*, never a "not found" (200 results cut from more prove nothing about one title): the
caller asks OpenAlex the single search as before. A lone title, a title of fewer than
`MIN_TITLE_WORDS` words (it would flood the shared results), and a batch that failed are misses
too. Both checks are at least as strict as the single search, so whatever a reference gets from a
batch is what its own search would have returned (the works matching it best, up to `per_page`).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

from aletheia.core.text import normalize_title
from aletheia.core.titles import TITLE_THRESHOLD, title_similarity
from aletheia.sources.title_batches import BatchAnswer, TitleBatcher, loose_prefixes, proved_absent

# OpenAlex's largest page.
MAX_RESULTS: Final = 200
# Titles per request, by default (`ALETHEIA_OPENALEX_TITLE_BATCH`); the URL budget may cut it.
DEFAULT_MAX_TITLES: Final = 25
# "The whole request URL is limited to about 4 KB" (developers.openalex.org, guides/searching).
DEFAULT_MAX_URL_BYTES: Final = 4000
# A title of one or two words matches thousands of works and would crowd the others out.
MIN_TITLE_WORDS: Final = 3

_WORD: Final = re.compile(r"[^\W_]+")
_OPERATORS: Final = frozenset({"AND", "OR", "NOT"})


def query_words(text: str) -> list[str]:
    """The words of `text` as a boolean group may carry them: runs of letters and digits only (no
    Elasticsearch query-string syntax: quotes, parentheses, `-`, `*`, `?`, `~`, `:`), and an
    upper-case AND / OR / NOT lower-cased so that it stays a word."""
    return [w.lower() if w in _OPERATORS else w for w in _WORD.findall(text)]


def title_group(title: str) -> str:
    """One title as a group of ANDed words: `(w1 w2 w3)`."""
    return "(" + " ".join(query_words(title)) + ")"


def batch_filter(titles: Iterable[str]) -> str:
    """The `filter` value that asks for any of `titles`."""
    return "title.search:" + " OR ".join(title_group(t) for t in titles)


def _tokens(text: str) -> set[str]:
    # Folded, with a final plural "s" dropped on both sides: looser than this, a work could pass
    # that OpenAlex's own AND of the words would not return; stricter only sends a reference back
    # to its single search.
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in normalize_title(text).split()}


@dataclass(frozen=True)
class TitleQuery:
    """One reference's stage-1 search: the title and the author it is searched with."""

    title: str
    author: str | None


def _work_title(work: Mapping[str, Any]) -> str:
    title = work.get("title") or work.get("display_name")
    return title if isinstance(title, str) else ""


def _author_names(work: Mapping[str, Any]) -> list[str]:
    names: list[str] = []
    for authorship in work.get("authorships") or []:
        if not isinstance(authorship, Mapping):
            continue
        raw = authorship.get("raw_author_name")
        if isinstance(raw, str):
            names.append(raw)
        author = authorship.get("author")
        if isinstance(author, Mapping) and isinstance(author.get("display_name"), str):
            names.append(author["display_name"])
    return names


def matching_works(
    query: TitleQuery, works: Sequence[Mapping[str, Any]], limit: int
) -> list[Mapping[str, Any]]:
    """The works of a batch answer that `query` clearly found, best first, at most `limit`: every
    word of the title in the work's title, the titles matching under `TITLE_THRESHOLD`, and (when
    the query names an author) every word of the author in one of the work's author names."""
    return distribute([query], works, limit)[query] or []


def distribute(
    queries: Sequence[TitleQuery],
    works: Sequence[Mapping[str, Any]],
    limit: int,
    *,
    complete: bool = False,
) -> dict[TitleQuery, list[Mapping[str, Any]] | None]:
    """`matching_works` for every query of a batch (None: a miss; `[]`: proved absent, only when
    the batch is `complete`), each work's title read once."""
    prepared = [(rank, work, _work_title(work)) for rank, work in enumerate(works)]
    tokens = [_tokens(title) for _, _, title in prepared]
    loose = [loose_prefixes(title) for _, _, title in prepared] if complete else []
    out: dict[TitleQuery, list[Mapping[str, Any]] | None] = {}
    for query in queries:
        wanted = _tokens(query.title)
        author = _tokens(query.author) if query.author else set()
        scored: list[tuple[float, int, Mapping[str, Any]]] = []
        for (rank, work, title), words in zip(prepared, tokens, strict=True):
            if not wanted or not wanted <= words:
                continue
            if author and not any(author <= _tokens(name) for name in _author_names(work)):
                continue
            similarity = title_similarity(query.title, title)
            if similarity >= TITLE_THRESHOLD:
                scored.append((-similarity, rank, work))
        scored.sort(key=lambda item: (item[0], item[1]))
        if scored:
            out[query] = [work for _, _, work in scored[:limit]]
        elif proved_absent(query.title, loose, complete=complete):
            out[query] = []
        else:
            out[query] = None
    return out


FetchPage = Callable[[dict[str, Any]], Awaitable[Any]]


def share_works(
    queries: Sequence[TitleQuery], answer: BatchAnswer[Mapping[str, Any]], limit: int
) -> dict[TitleQuery, list[Mapping[str, Any]] | None]:
    """A batch answer shared out among its queries (`distribute`)."""
    return distribute(queries, [work for _, work in answer.items], limit, complete=answer.complete)


def batchable(query: TitleQuery) -> bool:
    return len(query_words(query.title)) >= MIN_TITLE_WORDS


def title_batcher(
    fetch_page: FetchPage,
    *,
    max_titles: int = DEFAULT_MAX_TITLES,
    max_url_bytes: int = DEFAULT_MAX_URL_BYTES,
    base_bytes: int = 0,
    window: float = 0.02,
    stats: dict[str, int] | None = None,
    absence: bool = True,
) -> TitleBatcher[TitleQuery, Mapping[str, Any]]:
    """OpenAlex's `TitleBatcher`: `await batcher.find(TitleQuery(title, author), limit)` -> the
    works a shared batch clearly found for that search (best first; `[]` when the batch proves its
    single search empty, only with `absence`), or None: a miss, to be asked as a single search.

    Concurrent searches within `window` seconds (up to `max_titles`) share a request; each request's
    URL stays under `max_url_bytes` (`base_bytes` being the rest of the URL: host, path, key,
    contact, page size)."""

    async def ask(chunk: list[TitleQuery]) -> BatchAnswer[Mapping[str, Any]]:
        params = {"filter": batch_filter(q.title for q in chunk), "per-page": MAX_RESULTS}
        payload = await fetch_page(params)
        results = payload.get("results") if isinstance(payload, Mapping) else None
        works = [w for w in results or [] if isinstance(w, Mapping)]
        meta = payload.get("meta") if isinstance(payload, Mapping) else None
        count = meta.get("count") if isinstance(meta, Mapping) else None
        # Complete: OpenAlex counted no more works for the whole query than came back.
        complete = absence and isinstance(count, int) and count <= len(works)
        return BatchAnswer(items=[(_work_title(work), work) for work in works], complete=complete)

    return TitleBatcher(
        ask,
        max_titles=max_titles,
        max_query_chars=max_url_bytes - base_bytes - len("&filter=") - len(quote("title.search:")),
        term_chars=lambda query: len(quote(title_group(query.title), safe="")),
        separator_chars=len(quote(" OR ", safe="")),
        limit=MAX_RESULTS,
        share=share_works,
        batchable=batchable,
        window=window,
        stats=stats,
    )
