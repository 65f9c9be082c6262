"""What the core knows of each source, written once: one `SourceFacts` record per source (issue 31).

Every report's name for a source (`source_display`), how far it is trusted (`trust`, its level in
`data/source_trust.json`), its tier in ADR 004's sense (`transparency`), whether its search must
have answered before "no source has it" is evidence (`coverage.search_coverage`) and the shape of
its documented 404 (`sources/transport/not_found.py`) are read from here, never listed again.

The sources layer's registry (`aletheia.sources.registry`: the client, its settings, built on the
gateway's HTTP client) points at these records; the simulator's route table serves them. A source
added at run time (a test's toy source) is a row put into `SOURCE_FACTS`: `SourceName(name)` then
accepts its name (`records.SourceName._missing_`) wherever a record names its source.

Pure data: no I/O, nothing of ours but the enums below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Final, Literal

__all__ = ["SOURCE_FACTS", "Coverage", "FactView", "NotFound", "SourceFacts", "Tier", "facts_of"]


class Tier(IntEnum):
    """ADR 004's tiers: 0 the library, 1 books, 2 scholarly APIs and full text, 3 classical texts,
    4 the web, 5 an LLM's suggestion."""

    LIBRARY = 0
    BOOKS = 1
    SCHOLARLY = 2
    CLASSICAL = 3
    WEB = 4
    LLM = 5


# When a source's search must have answered before "no source has it" is evidence (`coverage`):
# for every work, a work that could be a preprint, one in a life-science venue, a CS work.
Coverage = Literal["always", "preprint", "biomedical", "computer_science"]


@dataclass(frozen=True, slots=True)
class NotFound:
    """The request kinds whose 404 the source documents as "no such record", and the body it
    documents: any body, a JSON object with an `error` member, or exactly `text`. A 404 of any
    other kind or shape is a route the source does not have (issue 20)."""

    kinds: frozenset[str]
    body: Literal["any", "json_error", "text"] = "any"
    text: str = ""


ANY_404: Final = NotFound(frozenset({"single"}))  # an unknown key answers 404, whatever its body
NO_404: Final = NotFound(frozenset())  # answers 200 even when it finds nothing


@dataclass(frozen=True, slots=True)
class SourceFacts:
    name: str  # the `SourceName` value: the key of records, limits, settings and caches
    display: str  # how every report names it (issue 20: one name in every format)
    trust: str  # its level in `data/source_trust.json` (seed 003)
    tier: Tier
    coverage: Coverage | None = None  # None: its silence is never needed for "not found"
    not_found: NotFound | None = None  # None: any 404 is an answer (no recording pins one down)


def _facts(*rows: SourceFacts) -> dict[str, SourceFacts]:
    return {row.name: row for row in rows}


_S = Tier.SCHOLARLY
# In the order the sources' searches are listed in coverage (the general indexes first). A plain
# dict, not a frozen mapping: a test's toy source is put in with `monkeypatch.setitem`.
SOURCE_FACTS: Final[dict[str, SourceFacts]] = _facts(
    SourceFacts(
        "openalex",
        "OpenAlex",
        "aggregator_index",
        _S,
        "always",
        NotFound(frozenset({"single"}), "json_error"),
    ),
    SourceFacts(
        "crossref",
        "Crossref",
        "doi_registry",
        _S,
        "always",
        NotFound(frozenset({"single", "venue"}), "text", "Resource not found."),
    ),
    SourceFacts(
        "semantic_scholar",
        "Semantic Scholar",
        "aggregator_index",
        _S,
        "always",
        NotFound(frozenset({"single", "search"}), "json_error"),
    ),
    SourceFacts("arxiv", "arXiv", "curated_index", _S, "preprint", NO_404),
    SourceFacts("pubmed", "PubMed", "curated_index", _S, "biomedical", NO_404),
    SourceFacts("dblp", "DBLP", "curated_index", _S, "computer_science", ANY_404),
    SourceFacts("acl_anthology", "ACL Anthology", "curated_index", _S, None, ANY_404),
    SourceFacts("europe_pmc", "Europe PMC", "curated_index", _S, None, NO_404),
    SourceFacts("retraction_watch", "Retraction Watch", "curated_index", _S),
    SourceFacts("library", "the local library", "curated_index", Tier.LIBRARY),
    SourceFacts("open_library", "Open Library", "aggregator_index", Tier.BOOKS),
    SourceFacts("google_books", "Google Books", "aggregator_index", Tier.BOOKS),
    SourceFacts("perseus", "Perseus", "curated_index", Tier.CLASSICAL),
    SourceFacts("ccel", "CCEL", "curated_index", Tier.CLASSICAL),
    # Tier 4: the cited page proves that a page answers with a title; web search engines only find
    # candidates, but a verdict they alone stand behind is a web verdict.
    SourceFacts("web", "the cited web page", "web_page", Tier.WEB),
    SourceFacts("tavily", "Tavily web search", "search_hit", Tier.WEB, None, NO_404),
    SourceFacts("brave_search", "Brave web search", "search_hit", Tier.WEB, None, NO_404),
    SourceFacts("llm", "the LLM fallback", "model_output", Tier.LLM),
)


class FactView(Mapping[str, str]):
    """`SourceName` value -> one fact of its record (`read(facts)`), read from the records each time
    (a live view: a source added at run time is in it)."""

    def __init__(self, read: Callable[[SourceFacts], str]) -> None:
        self._read = read

    def __getitem__(self, name: str) -> str:
        return self._read(SOURCE_FACTS[name])

    def __iter__(self) -> Iterator[str]:
        return iter(SOURCE_FACTS)

    def __len__(self) -> int:
        return len(SOURCE_FACTS)


def facts_of(source: object) -> SourceFacts | None:
    """The facts of a source (a `SourceName` or its value); None for a name no record has."""
    return SOURCE_FACTS.get(str(getattr(source, "value", source) or ""))
