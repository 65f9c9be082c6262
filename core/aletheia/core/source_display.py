"""What every report calls each source: one table, so that no output mixes `dblp` with "Open
Library" (issue 20). Keys are `SourceName` values; a name the table lacks is shown as given."""

from __future__ import annotations

from typing import Final

SOURCE_NAMES: Final[dict[str, str]] = {
    "crossref": "Crossref",
    "openalex": "OpenAlex",
    "semantic_scholar": "Semantic Scholar",
    "arxiv": "arXiv",
    "pubmed": "PubMed",
    "retraction_watch": "Retraction Watch",
    "library": "the local library",
    "dblp": "DBLP",
    "acl_anthology": "ACL Anthology",
    "europe_pmc": "Europe PMC",
    "open_library": "Open Library",
    "google_books": "Google Books",
    "perseus": "Perseus",
    "ccel": "CCEL",
    "web": "the cited web page",
    "tavily": "Tavily web search",
    "brave_search": "Brave web search",
    "llm": "the LLM fallback",
}


def source_name(name: str | None) -> str:
    """The display name of a source ("semantic_scholar" -> "Semantic Scholar")."""
    return SOURCE_NAMES.get(name or "", name or "a source")
