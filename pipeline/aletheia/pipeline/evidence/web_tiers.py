"""Tiers 4 and 5 in the evidence gatherer (docs/sources.md, "The web tier" and after).

- `fetch_cited_url`: a reference of a kind outside the indexes (a web page, a blog post, a code
  repository: `work_kinds.classify_kind(...).out_of_scope`) with a URL has that URL fetched, when the
  web tier is on (`ALETHEIA_WEB_TIER`), through the SSRF-safe fetcher; `core.web` reads the answer.
  Off, nothing is recorded and the reference stays `out_of_scope` as before.
- `web_search_candidates`: for a reference no source found, a web search (Tavily or Brave, behind
  a key) for identifiers in its results' URLs; each candidate is looked up by its identifier and
  recorded as a search hit, so `decide` compares it with the citation like any other. The web
  search itself is never evidence. Without a key the search is recorded as skipped.
- `llm_suggestion`: for a reference still not found, the model's suggestion (`llm_fallback`),
  recorded as a suggestion, never evidence; without a key recorded as skipped.

Each function records through `ask` (the gatherer's `_ask`, which turns failures into FAILED
answers), so a skipped or failed tier is in the verdict's trail, never silently left out.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

from aletheia.core.evidence import QueryKind
from aletheia.core.records import CitedReference, SourceName
from aletheia.core.verdicts import Reason, Verdict, VerdictStatus
from aletheia.sources.base import SourceRecord, SourceStats, SourceUnavailableError
from aletheia.sources.web_search import NO_KEY, WebSearchClient

if TYPE_CHECKING:
    import httpx

    from aletheia.config import Settings
    from aletheia.pipeline.evidence.llm_fallback import ReferenceSuggester
    from aletheia.pipeline.llm.client import LLM
    from aletheia.sources.base import RawCache
    from aletheia.sources.transport.limiter import RateLimiter
    from aletheia.sources.web_page import WebPageClient

Lookup = Callable[[], Awaitable[Any]]
Ask = Callable[[SourceName, QueryKind, str, Lookup], Awaitable[list[SourceRecord]]]
# Records that are no scholarly work: never remembered in the Tier-0 library. (Perseus and CCEL
# records are passages of a canonical text, not works: Tier 3 reads them by URN, never by search.)
NOT_LIBRARY_SOURCES: Final = frozenset(
    {
        SourceName.WEB,
        SourceName.TAVILY,
        SourceName.BRAVE_SEARCH,
        SourceName.LLM,
        SourceName.PERSEUS,
        SourceName.CCEL,
    }
)
# At most this many identifiers found by a web search are looked up.
MAX_CANDIDATES: Final = 3
_URL: Final = re.compile(r"https?://[^\s{}\\<>\"]+")


class SourceGateway(Protocol):
    """What these tiers need of `pipeline.gateway.SourceGateway` (which builds `WebTiers`)."""

    web_tiers: WebTiers

    def doi_lookups(self, doi: str) -> list[tuple[SourceName, Lookup]]: ...

    def arxiv_lookups(self, arxiv_id: str, version: int | None) -> list[tuple[SourceName, Lookup]]: ...

    def pmid_lookups(self, pmid: str) -> list[tuple[SourceName, Lookup]]: ...


@dataclass
class WebTiers:
    page: WebPageClient
    search: WebSearchClient | None
    suggester: ReferenceSuggester
    search_skipped: str = NO_KEY

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        http: httpx.AsyncClient,
        limiter: RateLimiter,
        *,
        user_agent: str,
        llm: LLM | None = None,
        cache: RawCache | None = None,
    ) -> WebTiers:
        from aletheia.pipeline.evidence.llm_fallback import suggester_from_settings
        from aletheia.sources.web_page import web_client_from_settings
        from aletheia.sources.web_search import web_search_from_settings

        search = None if settings.offline else web_search_from_settings(http, settings, limiter)
        return cls(
            page=web_client_from_settings(settings, limiter, user_agent=user_agent, cache=cache),
            search=search,
            suggester=suggester_from_settings(settings, llm, limiter),
            search_skipped="skipped: offline" if settings.offline else NO_KEY,
        )

    def stats(self) -> dict[str, SourceStats]:
        """The tiers that are on, for the report's per-source figures."""
        out: dict[str, SourceStats] = {}
        if self.page.enabled:
            out[SourceName.WEB.value] = self.page.stats
        if self.search is not None:
            out[self.search.source.value] = self.search.transport.stats
        return out


def cited_url(cited: CitedReference) -> str | None:
    """The URL the reference cites: its `url`, else the first one in `howpublished` or `note`."""
    if cited.url:
        return cited.url.strip()
    for name in ("url", "howpublished", "note"):
        m = _URL.search(cited.fields.get(name, ""))
        if m:
            return m.group().rstrip(".,;)]")
    return None


def nothing_found(verdict: Verdict) -> bool:
    """No source found the work, and there was enough to search for."""
    return (
        verdict.match is None
        and verdict.status in (VerdictStatus.NOT_FOUND, VerdictStatus.UNVERIFIABLE)
        and Reason.INSUFFICIENT_METADATA not in verdict.reasons
        and Reason.WEB_PAGE_UNREACHABLE not in verdict.reasons
    )


async def fetch_cited_url(cited: CitedReference, gw: SourceGateway, ask: Ask) -> None:
    tiers = gw.web_tiers
    url = cited_url(cited)
    if not tiers.page.enabled or url is None:
        return
    await ask(SourceName.WEB, QueryKind.URL, url, lambda: tiers.page.check(url))


def _skipped(source: SourceName, why: str) -> Lookup:
    async def run() -> Any:
        raise SourceUnavailableError(source.value, why)

    return run


async def web_search_candidates(query: str | None, gw: SourceGateway, ask: Ask) -> bool:
    """Search the web for `query` (the reference's bibliographic query, `gateway.search_text`);
    look up the identifiers its results point at. True if any was looked up."""
    if not query:
        return False
    search = gw.web_tiers.search
    if search is None:
        await ask(
            SourceName.TAVILY,
            QueryKind.WEB_SEARCH,
            query,
            _skipped(SourceName.TAVILY, gw.web_tiers.search_skipped),
        )
        return False
    hits = await ask(search.source, QueryKind.WEB_SEARCH, query, lambda: search.search(query))
    lookups: list[tuple[SourceName, str, Lookup]] = []
    seen: set[str] = set()
    for hit in hits:
        work = hit.record
        if len(seen) >= MAX_CANDIDATES:
            break
        if work.doi and work.doi not in seen:
            seen.add(work.doi)
            lookups += [
                (s, f"web search candidate doi:{work.doi}", call) for s, call in gw.doi_lookups(work.doi)
            ]
        elif work.arxiv_id and work.arxiv_id not in seen:
            seen.add(work.arxiv_id)
            source, call = gw.arxiv_lookups(work.arxiv_id, None)[0]
            lookups.append((source, f"web search candidate arXiv:{work.arxiv_id}", call))
        elif work.pmid and work.pmid not in seen:
            seen.add(work.pmid)
            source, call = gw.pmid_lookups(work.pmid)[0]
            lookups.append((source, f"web search candidate PMID:{work.pmid}", call))
    # One at a time: each is a lookup of its source, under that source's limits.
    for source, query_text, call in lookups:
        await ask(source, QueryKind.SEARCH, query_text, call)
    return bool(lookups)


async def llm_suggestion(cited: CitedReference, gw: SourceGateway, ask: Ask) -> None:
    suggester = gw.web_tiers.suggester
    await ask(
        SourceName.LLM,
        QueryKind.SUGGESTION,
        cited.title or cited.raw or cited.key,
        lambda: suggester.suggest(cited),
    )
