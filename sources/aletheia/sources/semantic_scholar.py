"""Semantic Scholar's Academic Graph API: a pure paper parser and a polite, batching client.

Endpoints used (`{ALETHEIA_SEMANTIC_SCHOLAR_URL}/graph/v1/...`): `paper/{id}` for one paper,
`POST paper/batch` for up to 500 (its answer is a list aligned with the ids sent, `null` for the
ids S2 does not know), `paper/search` and `paper/search/match` (the single best title match; 404
when there is none), and `paper/search/bulk` for many title matches at once (`s2_titles`). Ids
take S2's prefixed forms: `DOI:`, `ARXIV:`, `PMID:`, `PMCID:`, `CorpusId:`, `MAG:`, `ACL:`,
`URL:`, or a bare 40-hex paperId.

Parser choices, all visible in `parse_s2_paper`:

- `venue` is S2's `venue` string, else `publicationVenue.name`, else `journal.name`. The names S2
  publishes besides it are kept: `publicationVenue.alternate_names` (and `publicationVenue.name`
  when `venue` is another form of it) in `venue_aliases`, a different `journal.name` in
  `other_venues`, `publicationVenue.issn`/`alternate_issns` in `issn`, `externalIds.DBLP` in
  `dblp_key`. The first of `publicationVenue.name`, `journal.name`, `venue` that is not a preprint
  server is `published_venue`: S2 merges a preprint and its published version, so a paper known by
  an arXiv id is a published record as soon as S2 names a venue (it is never marked a preprint).
- `externalIds` fill `doi`, `arxiv_id`, `pmid`, `pmcid`; S2 merges a preprint and its published
  version into one paper, so one record may carry both a DOI and an arXiv id.
- S2 has no flag for a cut author list; the list counts as truncated only when the payload itself
  ends it with an "et al." / "others" entry. Its length is never taken as a sign.
- `publicationTypes` map to a `work_type` only for the container types (JournalArticle,
  Conference, Book, BookSection, Dataset); genre tags (Review, CaseReport, ...) say nothing of it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote

from aletheia.core.arxiv_ids import clean_arxiv_id
from aletheia.core.authors import parse_name
from aletheia.core.identifiers import clean_doi, clean_pmcid, clean_pmid
from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.core.text import normalize_whitespace
from aletheia.core.venues import is_no_venue_claim
from aletheia.sources.base import RawCache, SourceParseError, SourceRecord, Transport
from aletheia.sources.batching import Coalescer
from aletheia.sources.cache import SearchMemo, cache_key, for_base_url, read_cached
from aletheia.sources.s2_titles import (
    BULK_PATH,
    MAX_QUERY_CHARS,
    SEPARATOR,
    bulk_answer,
    bulk_query,
    share_halves,
    title_batchable,
    title_term,
    title_words,
)
from aletheia.sources.title_batches import BatchAnswer, TitleBatcher, title_batcher
from aletheia.sources.transport.factory import transport_from_settings

if TYPE_CHECKING:
    import httpx

    from aletheia.config.settings import Settings
    from aletheia.sources.transport.breaker import CircuitBreaker
    from aletheia.sources.transport.limiter import RateLimiter
    from aletheia.sources.transport.polite import PoliteTransport

__all__ = [
    "MAX_BATCH_IDS",
    "PAPER_FIELDS",
    "SemanticScholarClient",
    "canonical_paper_id",
    "parse_s2_paper",
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

_WORK_TYPES = {
    "Conference": "proceedings-article",
    "JournalArticle": "journal-article",
    "BookSection": "book-chapter",
    "Book": "book",
    "Dataset": "dataset",
}
_TRUNCATION_MARKERS = frozenset({"et al", "et al.", "others", "and others", "et. al.", "..."})
_PAPER_ID = re.compile(r"^[0-9a-f]{40}$", re.IGNORECASE)
_PREFIXED = re.compile(r"^(?P<prefix>[A-Za-z]+):(?P<value>.+)$", re.DOTALL)


# --- the pure parser ------------------------------------------------------------------------------


def _str(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise SourceParseError(SOURCE, f"{what} is not a string: {type(value).__name__}")
    text = normalize_whitespace(value)
    return text or None


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SourceParseError(SOURCE, f"{what} is not an object: {type(value).__name__}")
    return value


def _authors(value: Any) -> tuple[tuple[Author, ...], bool]:
    if value is None:
        return (), False
    if not isinstance(value, list):
        raise SourceParseError(SOURCE, f"authors is not a list: {type(value).__name__}")
    names = [_str(_mapping(a, "author").get("name"), "author name") for a in value]
    truncated = False
    if names and names[-1] is not None and names[-1].lower() in _TRUNCATION_MARKERS:
        truncated = True
        names = names[:-1]
    parsed = (parse_name(name) for name in names if name)
    # A name that is only punctuation parses to nothing: it is no author.
    return tuple(a for a in parsed if a.family or a.given or a.literal), truncated


def _year(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise SourceParseError(SOURCE, f"year is not an integer: {value!r}")
    return value


def _str_list(value: Any, what: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise SourceParseError(SOURCE, f"{what} is not a list: {type(value).__name__}")
    return [text for item in value if (text := _str(item, what))]


def _distinct(
    names: Sequence[str | None], *, exclude: Sequence[str | None] = (), claims_only: bool = False
) -> tuple[str, ...]:
    """The names, each once (case-insensitive), without the excluded ones (and, with `claims_only`,
    without preprint-server names such as "ArXiv")."""
    seen = {name.casefold() for name in exclude if name}
    kept: list[str] = []
    for name in names:
        if not name or name.casefold() in seen or (claims_only and is_no_venue_claim(name)):
            continue
        seen.add(name.casefold())
        kept.append(name)
    return tuple(kept)


def _venue_aliases(
    publication_venue: Mapping[str, Any], venue: str | None, pv_name: str | None
) -> tuple[str, ...]:
    alternates = _str_list(publication_venue.get("alternate_names"), "publicationVenue.alternate_names")
    return _distinct([pv_name, *alternates], exclude=(venue,))


def _issns(publication_venue: Mapping[str, Any]) -> tuple[str, ...]:
    values = [
        *_str_list(publication_venue.get("issn"), "publicationVenue.issn"),
        *_str_list(publication_venue.get("alternate_issns"), "publicationVenue.alternate_issns"),
    ]
    return _distinct([value.upper() for value in values])


def parse_s2_paper(p: Mapping[str, Any]) -> WorkRecord:
    """One S2 paper object (any subset of `PAPER_FIELDS`, plus `paperId`) as a `WorkRecord`."""
    if not isinstance(p, Mapping):
        raise SourceParseError(SOURCE, f"paper is not an object: {type(p).__name__}")
    paper_id = _str(p.get("paperId"), "paperId")
    external = _mapping(p.get("externalIds"), "externalIds")
    authors, truncated = _authors(p.get("authors"))

    publication_venue = _mapping(p.get("publicationVenue"), "publicationVenue")
    venue_field = _str(p.get("venue"), "venue")
    pv_name = _str(publication_venue.get("name"), "publicationVenue.name")
    journal_name = _str(_mapping(p.get("journal"), "journal").get("name"), "journal.name")
    venue = venue_field or pv_name or journal_name
    types = p.get("publicationTypes") or []
    if not isinstance(types, list):
        raise SourceParseError(SOURCE, "publicationTypes is not a list")
    work_type = next((_WORK_TYPES[t] for t in _WORK_TYPES if t in types), None)

    doi = clean_doi(str(external["DOI"])) if external.get("DOI") else None
    arxiv = clean_arxiv_id(str(external["ArXiv"])) if external.get("ArXiv") else None
    pmid = clean_pmid(str(external["PubMed"])) if external.get("PubMed") else None
    # S2 gives a PMCID as bare digits ("6543210"); alone, clean_pmcid rightly takes those for a PMID.
    pmc_value = str(external.get("PubMedCentral") or "")
    pmcid = clean_pmcid(pmc_value if pmc_value.upper().startswith("PMC") else f"PMC{pmc_value}")

    urls: dict[str, str] = {}
    if url := _str(p.get("url"), "url"):
        urls["s2"] = url
    if pdf := _str(_mapping(p.get("openAccessPdf"), "openAccessPdf").get("url"), "openAccessPdf.url"):
        urls["pdf"] = pdf
        # The same link under the key the full-text chain reads for every source (`oa_fulltext`).
        urls["oa_pdf"] = pdf
    if external.get("DBLP"):
        urls["dblp"] = f"https://dblp.org/rec/{external['DBLP']}"
    if external.get("CorpusId") is not None:
        urls["corpus"] = f"https://api.semanticscholar.org/CorpusId:{external['CorpusId']}"

    dblp = _str(external.get("DBLP"), "externalIds.DBLP") if external.get("DBLP") else None
    score = p.get("matchScore")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise SourceParseError(SOURCE, f"matchScore is not a number: {score!r}")
    return WorkRecord(
        source=SOURCE,
        source_id=paper_id,
        title=_str(p.get("title"), "title"),
        authors=authors,
        authors_truncated=truncated,
        year=_year(p.get("year")),
        venue=venue,
        work_type=work_type,
        doi=doi,
        arxiv_id=arxiv.id if arxiv else None,
        pmid=pmid,
        pmcid=pmcid,
        abstract=_str(p.get("abstract"), "abstract"),
        urls=urls,
        score=float(score) if score is not None else None,
        venue_aliases=_venue_aliases(publication_venue, venue, pv_name),
        other_venues=_distinct((journal_name,), exclude=(venue,), claims_only=True),
        issn=_issns(publication_venue),
        dblp_key=dblp,
        published_venue=next(
            (v for v in (pv_name, journal_name, venue_field) if not is_no_venue_claim(v)), None
        ),
    )


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


class SemanticScholarClient:
    """Papers by id (single, batched, or coalesced), relevance search and best title match.

    Concurrent `paper()` calls within `coalesce_window` seconds go out as one request: alone, as
    `GET paper/{id}`; together, as one `POST paper/batch` (which S2 counts as a single request
    against its 1 request/second allowance). Answers, negative ones included, are cached by the
    canonical id (`canonical_paper_id`).
    """

    source: Final = SOURCE

    def __init__(
        self,
        transport: Transport,
        *,
        cache: RawCache | None = None,
        api_key: str | None = None,
        coalesce_window: float = 0.02,
        title_batch: int = 0,
    ) -> None:
        self.transport = transport
        # A cached answer belongs to the base URL that gave it (`cache.for_base_url`).
        self.cache = cache = for_base_url(cache, transport.base_url)
        self._searches = SearchMemo(SOURCE, cache, transport.stats)
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

    def _url(self, path: str) -> str:
        return f"{self.transport.base_url.rstrip('/')}{path}"

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

        return await self._searches.get(
            path,
            params,
            lambda: self.transport.get_json(path, params=params, headers=self._headers, kind="search"),
            parse,
            found=_has_data,
            url=url,
        )

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

    async def _ask_titles(self, titles: list[str]) -> BatchAnswer[Mapping[str, Any]]:
        params = {"query": bulk_query(titles), "fields": _FIELDS_PARAM}
        payload = await self.transport.get_json(
            BULK_PATH, params=params, headers=self._headers, kind="search"
        )
        if payload is None:
            raise SourceParseError(SOURCE, "an empty answer to a title batch")
        return bulk_answer(payload)

    # --- cache and fetch ---------------------------------------------------------------------------

    async def _cached(self, canonical: str) -> tuple[bool, SourceRecord | None]:
        return await read_cached(
            self.cache, SOURCE, cache_key("paper", canonical), self.transport.stats, parse_s2_paper
        )

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
            if self.cache is not None:
                await self.cache.put(
                    SOURCE, cache_key("paper", canonical), paper, found=paper is not None, url=url
                )
        return results


def semantic_scholar_transport(
    http: httpx.AsyncClient, settings: Settings, limiter: RateLimiter, breaker: CircuitBreaker | None = None
) -> PoliteTransport:
    """The polite transport to Semantic Scholar, from settings: base URL, limits, key, on/off.

    Politeness is enforced here, by the transport's shared bucket `semantic_scholar:single`:
    S2 allows an API key 1 request per second across all endpoints (and the keyless pool is shared
    by everyone), so `settings.semantic_scholar_limits` defaults to rate 1, burst 1, one request in
    flight. A batch POST is one request, which is why `paper()` coalesces.
    """
    key = settings.semantic_scholar_api_key
    headers = {"x-api-key": key.get_secret_value()} if key is not None else None
    return transport_from_settings(
        SOURCE, http, settings, limiter, breaker, base_url=settings.semantic_scholar_url, headers=headers
    )
