"""The parsers of source answers (issue 12's tiers) as fuzz targets, and what counts as a failure.

Shared by the Hypothesis suite (tests/unit/test_source_parsers_hostile.py) and the atheris harness
(tests/fuzz/fuzz_parsers.py). A source's answer is untrusted input: whatever it is, a parser
returns its typed result (a record, a list of records, None for "no such thing") or raises the
typed `SourceParseError` ("not the documented shape": the queue fails fast on it). Any other
exception, a result of another type, or a hang is a failure.

Two families: parsers of text (XML, HTML, BibTeX: DBLP's record XML, the ACL Anthology's BibTeX,
Europe PMC's JATS, Perseus CTS passages, CCEL pages, fetched web pages, Google Books snippets) and
parsers of decoded JSON (DBLP's search, Open Library, Google Books, Europe PMC's search, Tavily,
Brave).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from aletheia.core.records import WorkRecord
from aletheia.sources.acl_anthology_parse import parse_acl_bibtex
from aletheia.sources.base import SourceParseError
from aletheia.sources.book_snippets import parse_book_snippets, snippet_text
from aletheia.sources.books_parse import (
    parse_google_books_volumes,
    parse_open_library_edition,
    parse_open_library_search,
)
from aletheia.sources.canonical_parse import parse_ccel_page, parse_cts_passage
from aletheia.sources.dblp_parse import parse_dblp_search, parse_dblp_xml_record
from aletheia.sources.europe_pmc_parse import EuropePmcHit, JatsArticle, parse_jats, parse_search
from aletheia.sources.safe_xml import parse_untrusted_xml
from aletheia.sources.web_parse import parse_web_page
from aletheia.sources.web_search import parse_brave, parse_tavily

__all__ = ["JSON_TARGETS", "TEXT_TARGETS", "check"]

ISBN: Final = "9780262035613"


def _dblp_xml(text: str) -> WorkRecord:
    return parse_dblp_xml_record(parse_untrusted_xml(text, source="dblp", allow_doctype=True))


def _web_page(text: str) -> WorkRecord:
    # The header's charset comes from the text too, so odd codecs are reached (`charset=idna`).
    charset = text[:12].split("\n", 1)[0]
    body = text.encode("utf-8", errors="surrogatepass")
    record, _ = parse_web_page(
        url="https://example.org/a",
        final_url="https://web.archive.org/web/20200101000000/https://example.org/a",
        status=200,
        content_type=f"text/html; charset={charset}",
        body=body,
    )
    return record


TEXT_TARGETS: Final[Mapping[str, Callable[[str], Any]]] = {
    "dblp_xml": _dblp_xml,
    "acl_bibtex": lambda text: parse_acl_bibtex(text, None),
    "europe_pmc_jats": parse_jats,
    "cts_passage": parse_cts_passage,
    "ccel_page": lambda text: parse_ccel_page(text, path="/ccel/augustine/confess.x.xxvii.html"),
    "web_page_html": _web_page,
    "google_books_snippet_text": snippet_text,
}

JSON_TARGETS: Final[Mapping[str, Callable[[Any], Any]]] = {
    "dblp_search_json": parse_dblp_search,
    "open_library_edition": lambda payload: parse_open_library_edition(payload, ["Ian Goodfellow"]),
    "open_library_search": parse_open_library_search,
    "google_books_volumes": parse_google_books_volumes,
    "google_books_snippets": lambda payload: parse_book_snippets(payload, ISBN),
    "europe_pmc_search": parse_search,
    "tavily": parse_tavily,
    "brave": parse_brave,
}

_RESULT_TYPES: Final = (WorkRecord, JatsArticle, EuropePmcHit, str)


def check(target: Callable[[Any], Any], value: Any) -> None:
    """Run one parser on one input: a typed result or `SourceParseError`, nothing else."""
    try:
        result = target(value)
    except SourceParseError:
        return
    items = result if isinstance(result, list) else [result]
    for item in items:
        if item is not None and not isinstance(item, _RESULT_TYPES):
            raise AssertionError(f"a parser returned {type(item).__name__}: {item!r}")
