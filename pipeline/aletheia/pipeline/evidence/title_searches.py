"""The searches `SourceGateway.search_stages` orders (docs/sources.md, "Which source is asked
when"): each source's title search as a `SearchCall`, asked of the mirror first where one is
loaded (`mirror_tier`), and every registered source's title search."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, NamedTuple, Protocol

from aletheia.core.records import CitedReference, SourceName
from aletheia.pipeline.evidence.gateway_parts import searchable
from aletheia.sources.base import SourceRecord

Lookup = Callable[[], Awaitable[Any]]
# How many PMIDs of a PubMed title search are fetched (esearch ranks by relevance).
PUBMED_SEARCH_RESULTS = 3


class SearchCall(NamedTuple):
    """One search of one source: what is asked (recorded as the answer's query) and the call."""

    source: SourceName
    query: str
    call: Lookup


class Gateway(Protocol):
    """What these searches use of `SourceGateway` (which imports this module)."""

    crossref: Any
    openalex: Any
    semantic_scholar: Any
    arxiv: Any
    pubmed: Any
    cs: Any
    clients: Any

    def mirrored_search(
        self, source: SourceName, title: str, live: Lookup, *, cited_year: int | None = None
    ) -> Lookup: ...


def first_author(cited: CitedReference) -> str | None:
    if not cited.authors:
        return None
    return cited.authors[0].family or cited.authors[0].literal or None


def crossref_search(gw: Gateway, whole: str, title: str | None, year: int | None) -> SearchCall:
    """Crossref's bibliographic search of `whole` (asked of the mirror by the title first)."""
    return SearchCall(
        SourceName.CROSSREF,
        whole,
        gw.mirrored_search(
            SourceName.CROSSREF,
            title or whole,
            lambda: gw.crossref.search(whole, rows=5),
            cited_year=year,
        ),
    )


def title_searches(
    gw: Gateway, cited: CitedReference, title: str, near_miss_seen: Callable[[], bool]
) -> tuple[SearchCall, SearchCall, list[SearchCall]]:
    """The title searches of `search_stages`: OpenAlex's, Semantic Scholar's title match, and
    the specialised indexes' (arXiv, PubMed, DBLP, every registered title search)."""
    author = first_author(cited)
    openalex = SearchCall(
        SourceName.OPENALEX,
        f"{title} | author: {author}" if author else title,
        gw.mirrored_search(
            SourceName.OPENALEX,
            title,
            searchable(
                SourceName.OPENALEX,
                lambda: gw.openalex.search(title=title, author=author, per_page=5),
            ),
            cited_year=cited.year,
        ),
    )
    s2_match = SearchCall(
        SourceName.SEMANTIC_SCHOLAR,
        title,
        gw.mirrored_search(
            SourceName.SEMANTIC_SCHOLAR,
            title,
            lambda: gw.semantic_scholar.match_title(title, alone=near_miss_seen()),
            cited_year=cited.year,
        ),
    )
    arxiv = SearchCall(
        SourceName.ARXIV,
        title,
        searchable(SourceName.ARXIV, lambda: gw.arxiv.search(title=title, max_results=5)),
    )
    pubmed = SearchCall(
        SourceName.PUBMED, title, searchable(SourceName.PUBMED, lambda: pubmed_search(gw, title))
    )
    # DBLP (one request every 2 s) only after the general indexes missed the work.
    dblp = SearchCall(
        SourceName.DBLP,
        title,
        gw.mirrored_search(SourceName.DBLP, title, gw.cs.dblp_search(title), cited_year=cited.year),
    )
    return openalex, s2_match, [arxiv, pubmed, dblp, *registered_searches(gw, title, author)]


def registered_searches(gw: Gateway, title: str, author: str | None) -> list[SearchCall]:
    """The title search of every registered source whose record has one (`SourceSpec.title_search`):
    a new search source is asked without a line here."""
    from aletheia.sources.registry import SOURCES

    return [
        SearchCall(
            SourceName(name),
            title,
            searchable(SourceName(name), partial(spec.title_search, gw.clients[name], title, author)),
        )
        for name, spec in SOURCES.items()
        if spec.title_search is not None and name in gw.clients
    ]


async def pubmed_search(gw: Gateway, title: str) -> list[SourceRecord]:
    """PubMed's title search gives PMIDs; their records come from efetch (cached by PMID)."""
    pmids = await gw.pubmed.search(title=title, retmax=PUBMED_SEARCH_RESULTS)
    if not pmids:
        return []
    found = await gw.pubmed.by_pmids(pmids)
    return [record for pmid in pmids if (record := found.get(pmid)) is not None]
