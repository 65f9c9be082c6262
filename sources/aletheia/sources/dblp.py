"""DBLP, the computer-science bibliography: conference papers that have no DOI, and the venue key.

Endpoints (`{ALETHEIA_DBLP_URL}`, default https://dblp.org):

- `/search/publ/api?q=...&format=json&h=N`: the publication search. Words are ANDed and matched
  as prefixes; `|` is OR and a leading `-` is NOT in DBLP's query language, so a title is asked
  as its plain words (`dblp_query`), no operator left in. A few titles at once are asked as one
  AND of `|` clauses, to prove absence (`dblp_titles`, issue 23).
- `/rec/{key}.xml`: one record by its DBLP key ("conf/nips/VaswaniSPUJGKP17"), the XML form the
  dblp FAQ documents ("What do I find in dblp.xml?").

Politeness: DBLP documents no rate but asks, in its FAQ ("Am I allowed to crawl the dblp
website?"), for "at least one or two seconds between two consecutive requests", and answers
excess with 429 and `Retry-After`. The default limits (`ALETHEIA_DBLP_LIMITS`) are one request
every two seconds, one at a time; the transport honours `Retry-After`. Answers are cached (searches
by request, records by key, negative answers too). The pure parsers are in `dblp_parse`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import quote

from aletheia.core.records import SourceName, WorkRecord
from aletheia.sources.base import RawCache, SourceParseError, SourceRecord, Transport
from aletheia.sources.cache import cache_key, item_records
from aletheia.sources.client_base import SourceClientBase
from aletheia.sources.dblp_parse import dblp_hits, parse_dblp_hit, parse_dblp_search, parse_dblp_xml_record
from aletheia.sources.dblp_titles import (
    BATCH_HITS,
    MAX_TITLES,
    batch_answer,
    batch_query,
    share_absence,
    title_batchable,
)
from aletheia.sources.safe_xml import parse_untrusted_xml
from aletheia.sources.title_batches import BatchAnswer, TitleBatcher, title_batcher
from aletheia.sources.transport.factory import contact_headers, source_transport

__all__ = ["DblpClient", "dblp_query", "dblp_transport", "is_dblp_key", "parse_dblp_search"]

SOURCE: Final = SourceName.DBLP
SEARCH_PATH: Final = "/search/publ/api"
# Hits asked per search: the work, its CoRR copy and a namesake fit in five.
DEFAULT_HITS: Final = 5
_WORD: Final = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# A DBLP key: a stream path and a record name ("conf/nips/X17", "journals/corr/abs-2106-09685").
_KEY: Final = re.compile(
    r"^(?:conf|journals|books|series|phd|reference|tr|persons|homepages|data)/[\w./+-]+$"
)


def is_dblp_key(value: str | None) -> bool:
    return bool(value) and _KEY.fullmatch(value or "") is not None


def dblp_query(title: str) -> str:
    """A title as DBLP search words: letters and digits only, so no word is read as an operator.
    ValueError when nothing searchable is left."""
    words = _WORD.findall(title)
    if not words:
        raise ValueError(f"no searchable word in {title!r}")
    return " ".join(words)


class DblpClient(SourceClientBase):
    """DBLP's publication search and records by key."""

    source = SOURCE

    def __init__(
        self,
        transport: Transport,
        *,
        cache: RawCache | None = None,
        title_batch: int = 0,
        coalesce_window: float = 0.02,
    ) -> None:
        super().__init__(transport, cache=cache)
        # Title searches of references waiting together, asked as one query to prove absence.
        self._titles: TitleBatcher[str, Mapping[str, Any]] | None = title_batcher(
            self._ask_titles,
            title_batch=min(title_batch, MAX_TITLES),
            # The clauses multiply, not add: `MAX_TITLES` bounds the query, not its length.
            max_query_chars=1_000_000,
            term_chars=len,
            separator_chars=1,
            limit=DEFAULT_HITS,
            window=coalesce_window,
            stats=transport.stats.extra,
            share=share_absence,
            batchable=title_batchable,
        )

    async def search(self, title: str, *, hits: int = DEFAULT_HITS) -> list[SourceRecord]:
        """DBLP's hits for a title, best first (memoised and cached by request)."""
        query = dblp_query(title)
        params: dict[str, Any] = {"q": query, "format": "json", "h": hits}
        url = self._url(SEARCH_PATH)
        batcher = self._titles

        async def fetch() -> Any:
            if batcher is not None and await batcher.find(query, hits) == []:
                # A shared batch proved this search empty: DBLP's own empty answer.
                return {"result": {"query": query, "hits": {"@total": "0", "@sent": "0", "@first": "0"}}}
            return await self.transport.get_json(SEARCH_PATH, params=params, kind="search")

        return await self._searches.get(
            SEARCH_PATH,
            params,
            fetch,
            item_records(dblp_hits, parse_dblp_hit, url),
            found=lambda payload: bool(payload is not None and dblp_hits(payload)),
            url=url,
        )

    async def _ask_titles(self, queries: list[str]) -> BatchAnswer[Mapping[str, Any]]:
        params = {"q": batch_query(queries), "format": "json", "h": BATCH_HITS}
        payload = await self.transport.get_json(SEARCH_PATH, params=params, kind="search")
        if payload is None:
            raise SourceParseError(SOURCE.value, "an empty answer to a title batch")
        return batch_answer(payload)

    async def by_key(self, key: str) -> SourceRecord | None:
        """The record a DBLP key names, or None when DBLP has no such key (cached either way).
        ValueError when `key` is not a DBLP key."""
        if not is_dblp_key(key):
            raise ValueError(f"not a DBLP key: {key!r}")
        path = f"/rec/{quote(key, safe='/')}.xml"
        return await self._record(
            cache_key("dblp", key),
            fetch=lambda: self.transport.get_text(path, kind="single"),
            parse=_parse_xml,
            url=self._url(path),
        )


def _parse_xml(text: Any) -> WorkRecord:
    if not isinstance(text, str):
        raise SourceParseError(SOURCE.value, "a DBLP record is XML text")
    return parse_dblp_xml_record(parse_untrusted_xml(text, source=SOURCE.value, allow_doctype=True))


# The polite transport to DBLP: base URL, limits, on/off from settings; a User-Agent naming
# Aletheia and a contact, as DBLP asks of scripts.
dblp_transport: Final = source_transport(SOURCE, headers=contact_headers)
