"""OpenAlex author records: how many works each author of a work has (`works_count`), the
evidence of the `authorship_not_found_elsewhere` paper-mill indicator (`aletheia.core.authorship`).

One request for a whole author set: `/authors?filter=openalex_id:A1|A2|...` (OR-ed values with
`|`, up to 100 of them, which is also the largest page), through the client's transport (limiter,
breaker, counters) and cache (one entry per author, `author:A...`, so a co-author of another
suspect work is not asked twice). Only the fields used are asked for (`select`).

`parse_openalex_author` and `parse_openalex_authors` are pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, Protocol

from aletheia.core.authorship import AuthorWorks
from aletheia.core.records import SourceName
from aletheia.sources.base import RawCache, SourceParseError, Transport
from aletheia.sources.cache import cache_key, lookup_many
from aletheia.sources.openalex_bylines import openalex_author_id
from aletheia.sources.transport.item_stats import count

__all__ = ["MAX_AUTHORS_PER_REQUEST", "fetch_authors", "parse_openalex_author", "parse_openalex_authors"]

SOURCE: Final = SourceName.OPENALEX
MAX_AUTHORS_PER_REQUEST: Final = 100  # OpenAlex's cap on OR-ed values, and its largest page
SELECTED: Final = "id,display_name,works_count"


class AuthorsClient(Protocol):
    """What `fetch_authors` uses of `OpenAlexClient` (named here so this module does not import it)."""

    cache: RawCache | None
    transport: Transport

    def _params(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]: ...

    def _url(self, path: str) -> str: ...


def parse_openalex_author(raw: Any) -> AuthorWorks | None:
    """One author object; None when it has no readable id or no `works_count`."""
    if not isinstance(raw, Mapping):
        return None
    author_id = openalex_author_id(raw.get("id"))
    count = raw.get("works_count")
    if author_id is None or not isinstance(count, int) or isinstance(count, bool) or count < 0:
        return None
    name = raw.get("display_name")
    return AuthorWorks(id=author_id, name=name if isinstance(name, str) else None, works_count=count)


def parse_openalex_authors(payload: Any) -> list[AuthorWorks]:
    """The authors of a list response (`{"meta": ..., "results": [...]}`), unreadable ones left out."""
    results = payload.get("results") if isinstance(payload, Mapping) else None
    if not isinstance(results, list):
        raise SourceParseError(SOURCE, "not an OpenAlex list response (no `results` list)")
    return [a for a in (parse_openalex_author(r) for r in results) if a is not None]


async def fetch_authors(client: AuthorsClient, ids: Iterable[str]) -> dict[str, AuthorWorks | None]:
    """Each author id (`A...` or its URL) -> its record, None when OpenAlex has none. Cached
    answers first, the rest in one filter request per 100 ids. Raises `SourceError` as every
    client call does (the caller treats that as no evidence)."""
    wanted = {i: i for i in (openalex_author_id(v) for v in ids) if i is not None}

    async def cached(author_id: str) -> tuple[bool, AuthorWorks | None]:
        entry = await client.cache.get(SOURCE, cache_key("author", author_id)) if client.cache else None
        if entry is None:
            return False, None
        count(client.transport.stats, "cache_hits")
        return True, parse_openalex_author(entry.raw) if entry.found else None

    async def fetch(chunk: list[str]) -> dict[str, AuthorWorks | None]:
        params = client._params(
            {"filter": "openalex_id:" + "|".join(chunk), "per-page": len(chunk), "select": SELECTED}
        )
        payload = await client.transport.get_json("/authors", params=params, kind="batch")
        raws: dict[str, Any] = {}
        if payload is not None:
            parse_openalex_authors(payload)  # refuses a body that is no list response
            for raw in payload["results"]:
                returned = openalex_author_id(raw.get("id")) if isinstance(raw, Mapping) else None
                if returned is not None:
                    raws.setdefault(returned, raw)
        found: dict[str, AuthorWorks | None] = {}
        for author_id in chunk:
            raw = raws.get(author_id)
            if client.cache is not None:
                url = client._url(f"/authors/{author_id}")
                await client.cache.put(
                    SOURCE, cache_key("author", author_id), raw, found=raw is not None, url=url
                )
            found[author_id] = parse_openalex_author(raw) if raw is not None else None
        return found

    return await lookup_many(wanted, cached, fetch, batch=MAX_AUTHORS_PER_REQUEST)
