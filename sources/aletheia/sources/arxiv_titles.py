"""arXiv title searches, many titles in one request (issue 23).

The API manual documents boolean operators (AND, OR, ANDNOT) between field terms of
`search_query`, double quotes grouping words into a phrase of one field, and parentheses for
precedence ("search_query and id_list logic", "Details of Query Construction"). A reference's own
title search is `ti:"w1 w2 w3"` (`arxiv._search_words`), so the title searches of references that
wait at the same moment go out as

    search_query=ti:"w1 w2 w3" OR ti:"w4 w5 w6" OR ...&max_results=100

each disjunct being exactly one reference's own query. The feed's `opensearch:totalResults`
counts every entry that matched the whole query, so when it is no more than the entries that came
back the answer is complete, and a title none of whose entries loosely holds it is proved absent
(`title_batches.share_out`); otherwise only clear matches count and the rest are asked alone.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from typing import Final

from aletheia.sources.safe_xml import parse_untrusted_xml
from aletheia.sources.title_batches import BatchAnswer

# Titles per request by default (`ALETHEIA_ARXIV_TITLE_BATCH`; 0 or 1: off).
DEFAULT_MAX_TITLES: Final = 20
# Entries asked per batch: the manual allows 2,000 per page; a hundred keeps the feed small and is
# far more than the few entries a batch of invented or unfound titles matches.
BATCH_MAX_RESULTS: Final = 100
# arXiv documents no URL limit; this keeps a batch URL under about 4 KB once escaped.
MAX_QUERY_CHARS: Final = 2000
SEPARATOR: Final = " OR "

_ATOM: Final = "{http://www.w3.org/2005/Atom}"
_OPENSEARCH: Final = "{http://a9.com/-/spec/opensearch/1.1/}"


def title_term(words: str) -> str:
    """One title's term, exactly the single search's (`words` from `arxiv._search_words`)."""
    return f'ti:"{words}"'


def batch_query(titles: Iterable[str]) -> str:
    return SEPARATOR.join(title_term(t) for t in titles)


def batch_answer(entries: Sequence[tuple[str, str]], total_results: int | None) -> BatchAnswer[str]:
    """(title, one-entry feed) pairs of a batch feed; complete when the feed's own count says
    every match came back (no count: not complete)."""
    complete = total_results is not None and total_results <= len(entries)
    return BatchAnswer(items=list(entries), complete=complete)


def feed_of(raws: Sequence[str]) -> str:
    """The entries' one-entry feeds (`ArxivEntry.raw`) as one feed: the envelope a reference's own
    search would have had, cached under its key, with its count."""
    feed = ET.Element(f"{_ATOM}feed")
    ET.SubElement(feed, f"{_OPENSEARCH}totalResults").text = str(len(raws))
    for raw in raws:
        feed.extend(parse_untrusted_xml(raw, source="arxiv", allow_doctype=False).findall(f"{_ATOM}entry"))
    return ET.tostring(feed, encoding="unicode")
