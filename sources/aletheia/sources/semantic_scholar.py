"""Semantic Scholar's Academic Graph API: a polite, batching client (the paper parser, and its
choices, are in `semantic_scholar_parse`).

Endpoints used (`{ALETHEIA_SEMANTIC_SCHOLAR_URL}/graph/v1/...`): `paper/{id}` for one paper,
`POST paper/batch` for up to 500 (its answer is a list aligned with the ids sent, `null` for the
ids S2 does not know), `paper/search` and `paper/search/match` (the single best title match; 404
when there is none), and `paper/search/bulk` for many title matches at once (`s2_titles`). Ids
take S2's prefixed forms: `DOI:`, `ARXIV:`, `PMID:`, `PMCID:`, `CorpusId:`, `MAG:`, `ACL:`,
`URL:`, or a bare 40-hex paperId.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote

from aletheia.core.arxiv_ids import clean_arxiv_id
from aletheia.core.identifiers import clean_doi, clean_pmcid, clean_pmid
from aletheia.core.records import SourceName
from aletheia.core.text import normalize_whitespace
from aletheia.sources.base import RawCache, SourceParseError, SourceRecord, Transport
from aletheia.sources.batching import Coalescer
from aletheia.sources.cache import cache_key
from aletheia.sources.client_base import SourceClientBase
from aletheia.sources.s2_titles import (
    BULK_PATH,
    MAX_QUERY_CHARS,
    MAX_SPLIT_DEPTH,
    SEPARATOR,
    SplitAnswer,
    bulk_answer,
    bulk_query,
    bulk_total,
    share_halves,
    split_titles,
    title_batchable,
    title_term,
    title_words,
)
from aletheia.sources.semantic_scholar_parse import parse_s2_paper
from aletheia.sources.title_batches import BatchAnswer, TitleBatcher, title_batcher
from aletheia.sources.transport.factory import source_transport
from aletheia.sources.transport.item_stats import count_extra

if TYPE_CHECKING:
    from aletheia.config.settings import Settings

__all__ = [
    "MAX_BATCH_IDS",
    "PAPER_FIELDS",
    "SemanticScholarClient",
    "canonical_paper_id",
    "semantic_scholar_transport",
]

SOURCE = SourceName.SEMANTIC_SCHOLAR

PAPER_FIELDS = (
    "title",
    "authors",
    "year",
    "venue",
    "publicationVenue",
    "externalIds",
    "abstract",
    "publicationTypes",
    "journal",
    "url",
    "openAccessPdf",
    "isOpenAccess",
)
_FIELDS_PARAM = ",".join(PAPER_FIELDS)
MAX_BATCH_IDS = 500  # the documented limit of POST /graph/v1/paper/batch

_PAPER_ID = re.compile(r"^[0-9a-f]{40}$", re.IGNORECASE)
_PREFIXED = re.compile(r"^(?P<prefix>[A-Za-z]+):(?P<value>.+)$", re.DOTALL)


def canonical_paper_id(raw: str) -> str | None:
    """The id as S2 takes it, in one spelling per paper (the cache key), or None if malformed.

    `doi:10.1000/ABC` and `10.1000/abc` -> `DOI:10.1000/abc`; `arXiv:2104.12255v2` ->
    `ARXIV:2104.12255` (S2 resolves arXiv ids without versions); `CorpusID:42` -> `CorpusId:42`.
    """
    text = raw.strip()
    if _PAPER_ID.match(text):
        return text.lower()
    match = _PREFIXED.match(text)
    if match is None or match.group("prefix").lower() in {"http", "https"}:
        doi = clean_doi(text)
        return f"DOI:{doi}" if doi else None
    prefix, value = match.group("prefix").upper(), match.group("value").strip()
    if prefix == "DOI":
        doi = clean_doi(value)
        return f"DOI:{doi}" if doi else None
    if prefix == "ARXIV":
        arxiv = clean_arxiv_id(value)
        return f"ARXIV:{arxiv.id}" if arxiv else None
    if prefix == "PMID":
        pmid = clean_pmid(value)
        return f"PMID:{pmid}" if pmid else None
    if prefix == "PMCID":
        pmcid = clean_pmcid(value if value.upper().startswith("PMC") else f"PMC{value}")
        return f"PMCID:{pmcid.removeprefix('PMC')}" if pmcid else None
    if prefix == "CORPUSID":
        return f"CorpusId:{int(value)}" if value.isascii() and value.isdigit() else None
    if prefix in {"MAG", "ACL", "URL"} and value:
        return f"{prefix}:{value}"
    return None


# --- the client -----------------------------------------------------------------------------------


def _has_data(payload: Any) -> bool:
    return bool(isinstance(payload, Mapping) and payload.get("data"))


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _paper_path(canonical: str) -> str:
    # S2 takes the id as a raw path, a DOI's `/` and the prefix's `:` included.
    return "/graph/v1/paper/" + quote(canonical, safe="/:")


def _search_query(text: str) -> str:
    # S2's search documentation: hyphenated terms yield no matches; replace them with spaces.
    return normalize_whitespace(text.replace("-", " "))


class SemanticScholarClient(SourceClientBase):
    """Papers by id (single, batched, or coalesced), relevance search and best title match.

    Concurrent `paper()` calls within `coalesce_window` seconds go out as one request: alone, as
    `GET paper/{id}`; together, as one `POST paper/batch` (which S2 counts as a single request
    against its 1 request/second allowance). Answers, negative ones included, are cached by the
    canonical id (`canonical_paper_id`).
    """

    source = SOURCE

    def __init__(
        self,
        transport: Transport,
        *,
        cache: RawCache | None = None,
        api_key: str | None = None,
        coalesce_window: float = 0.02,
        title_batch: int = 0,
    ) -> None:
        super().__init__(transport, cache=cache)
        # Needed only on a transport built without the key (`semantic_scholar_transport` sets it).
        self._headers = {"x-api-key": api_key} if api_key else None
        self._coalescer: Coalescer[str, SourceRecord] = Coalescer(
            self._fetch, max_batch=MAX_BATCH_IDS, window=coalesce_window
        )
        # Title matches of references waiting together, OR-ed in one bulk search (issue 23).
        self._titles: TitleBatcher[str, Mapping[str, Any]] | None = title_batcher(
            self._ask_titles,
            title_batch=title_batch,
            max_query_chars=MAX_QUERY_CHARS,
            term_chars=lambda words: len(title_term(words)),
            separator_chars=len(SEPARATOR),
            limit=1,
            window=coalesce_window,
            stats=transport.stats.extra,
            share=share_halves,
            batchable=title_batchable,
        )

    @staticmethod
    def _canonical(paper_id: str) -> str:
        canonical = canonical_paper_id(paper_id)
        if canonical is None:
            raise ValueError(f"not a Semantic Scholar paper id: {paper_id!r}")
        return canonical

    async def paper(self, paper_id: str) -> SourceRecord | None:
        """The paper `paper_id` names (`DOI:...`, `ARXIV:...`, `PMID:...`, `CorpusId:...`, a
        paperId), or None when S2 does not know it. Raises ValueError for a malformed id."""
        canonical = self._canonical(paper_id)
        hit, record = await self._cached(canonical)
        if hit:
            return record
        return await self._coalescer.get(canonical)

    async def search(
        self, query: str, *, year: int | str | None = None, limit: int = 10
    ) -> list[SourceRecord]:
        """S2's relevance search, best first. `year` is a year or a range (`"2019-2021"`)."""
        path = "/graph/v1/paper/search"
        params: dict[str, Any] = {
            "query": _search_query(query),
            "fields": _FIELDS_PARAM,
            "limit": limit,
            "year": str(year) if year is not None else None,
        }
        url = self._url(path)

        def parse(payload: Any, fetched_at: datetime, from_cache: bool) -> list[SourceRecord]:
            if payload is None:
                return []
            if not isinstance(payload, Mapping):
                raise SourceParseError(SOURCE, "search response is not an object")
            # An empty result has no `data` at all (`{"total": 0, "offset": 0}`).
            hits = payload.get("data") or []
            if not isinstance(hits, list):
                raise SourceParseError(SOURCE, "search `data` is not a list")
            return [SourceRecord(parse_s2_paper(hit), hit, fetched_at, url, from_cache) for hit in hits]

        return await self._search_json(path, params, parse, found=_has_data, headers=self._headers)

    async def match_title(self, title: str, *, alone: bool = False) -> SourceRecord | None:
        """S2's single best match for a title (`score` is its matchScore), or None (S2 says 404).

        With title batching on, the match is first asked of a shared bulk search (`s2_titles`),
        which answers it when it can prove what `match` would say; `alone` skips that, for a
        title whose near misses only `match` itself can judge."""
        path = "/graph/v1/paper/search/match"
        params = {"query": _search_query(title), "fields": _FIELDS_PARAM}
        url = self._url(path)
        words = title_words(_search_query(title))
        batcher = self._titles if words and not alone else None

        async def fetch() -> Any:
            if batcher is not None:
                papers = await batcher.find(words, 1)
                if papers is not None:
                    # What the shared bulk search proved: the one clear match, or S2's 404.
                    return {"data": list(papers)} if papers else None
            return await self.transport.get_json(path, params=params, headers=self._headers, kind="search")

        def parse(payload: Any, fetched_at: datetime, from_cache: bool) -> SourceRecord | None:
            if payload is None:
                return None
            hits = payload.get("data") if isinstance(payload, Mapping) else None
            if not isinstance(hits, list):
                raise SourceParseError(SOURCE, "title match response has no `data` list")
            if not hits:
                return None
            return SourceRecord(parse_s2_paper(hits[0]), hits[0], fetched_at, url, from_cache)

        return await self._searches.get(path, params, fetch, parse, found=_has_data, url=url)

    async def _ask_titles(self, titles: list[str], depth: int = 0) -> BatchAnswer[Mapping[str, Any]]:
        """One bulk search of `titles`; when S2 cuts it short (more than a page matched), its
        titles asked again in parts sized by the answer's `total` (`split_titles`), each part
        that is cut short in turn split again up to `MAX_SPLIT_DEPTH` times: a few bulk calls
        instead of one `match` call per title."""
        params = {"query": bulk_query(titles), "fields": _FIELDS_PARAM}
        payload = await self.transport.get_json(
            BULK_PATH, params=params, headers=self._headers, kind="search"
        )
        if payload is None:
            raise SourceParseError(SOURCE, "an empty answer to a title batch")
        answer = bulk_answer(payload)
        parts = (
            None if answer.complete or depth >= MAX_SPLIT_DEPTH else split_titles(titles, bulk_total(payload))
        )
        if not parts:
            return answer
        count_extra(self.transport.stats, "title_batch_splits")
        answers = await asyncio.gather(*(self._ask_titles(part, depth + 1) for part in parts))
        return SplitAnswer(
            items=answer.items,
            complete=False,
            parts=tuple((tuple(part), part_answer) for part, part_answer in zip(parts, answers, strict=True)),
        )

    # --- cache and fetch ---------------------------------------------------------------------------

    async def _cached(self, canonical: str) -> tuple[bool, SourceRecord | None]:
        return await self._read(cache_key("paper", canonical), parse_s2_paper)

    async def _fetch(self, canonical_ids: list[str]) -> dict[str, SourceRecord | None]:
        """Ask S2 for ids not in the cache: one GET for a lone id, one batch POST for several."""
        if len(canonical_ids) == 1:
            path = _paper_path(canonical_ids[0])
            payload = await self.transport.get_json(
                path, params={"fields": _FIELDS_PARAM}, headers=self._headers, kind="single"
            )
            payloads: list[Any] = [payload]
        else:
            payload = await self.transport.post_json(
                "/graph/v1/paper/batch",
                json={"ids": canonical_ids},
                params={"fields": _FIELDS_PARAM},
                headers=self._headers,
                kind="batch",
            )
            if not isinstance(payload, list) or len(payload) != len(canonical_ids):
                raise SourceParseError(SOURCE, "batch response is not a list aligned with the ids sent")
            payloads = payload
        fetched_at = _utcnow()
        results: dict[str, SourceRecord | None] = {}
        for canonical, paper in zip(canonical_ids, payloads, strict=True):
            url = self._url(_paper_path(canonical))
            record = (
                SourceRecord(parse_s2_paper(paper), paper, fetched_at, url) if paper is not None else None
            )
            results[canonical] = record
            await self._store(cache_key("paper", canonical), paper, url)
        return results


def _api_key_header(settings: Settings) -> dict[str, str] | None:
    key = settings.semantic_scholar_api_key
    return {"x-api-key": key.get_secret_value()} if key is not None else None


# The polite transport to Semantic Scholar, from settings: base URL, limits, key, on/off.
#
# Politeness is enforced here, by the transport's shared bucket `semantic_scholar:single`: S2
# allows an API key 1 request per second across all endpoints (and the keyless pool is shared by
# everyone), so `settings.semantic_scholar_limits` defaults to rate 1, burst 1, one request in
# flight. A batch POST is one request, which is why `paper()` coalesces.
semantic_scholar_transport: Final = source_transport(SOURCE, headers=_api_key_header)
