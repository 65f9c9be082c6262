"""Google Books page snippets for a quote cited from a book (issue 12, Tier 1): the pure parser of
`searchInfo.textSnippet` (HTML-escaped, `<b>` tags), the search inside a book against the simulator
(faults, 429s, cache), the decision (`core.book_quotes`: a verbatim snippet is an exact quote, no
snippet is unverified content and never an accusation) and the pipeline end to end.

The payloads are modelled on the documented volumes answer (`items[].searchInfo.textSnippet`, "a
text snippet containing the search query"); no real answer of this form is recorded in ../shared.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, Outcome, QueryKind, SourceAnswer
from aletheia.core.records import Author, CitedReference, SourceName, WorkRecord
from aletheia.core.transparency import ContentType, VerificationStatus, transparency
from aletheia.core.verdicts import FLAGGED_STATUSES, Reason, Verdict, VerdictStatus
from aletheia.sources.base import RateLimitedError, SourceParseError
from aletheia.sources.book_snippets import BookTextSearch, parse_book_snippets, snippet_query, snippet_text
from aletheia.sources.cache import MemoryRawCache
from aletheia.sources.google_books import GoogleBooksClient
from aletheia.sources.simulator import SimulatorConfig, SimulatorServer
from tests.integration.sim_pipeline import run_embedded, sim_settings, universe
from tests.unit import tier_client_support as support
from tests.unit.tier_client_support import requests, transport

tier_sim, http = support.tier_sim, support.http  # the fixtures

ISBN = "9780262035613"
AUTHORS = (
    Author(given="Ian", family="Goodfellow"),
    Author(given="Yoshua", family="Bengio"),
    Author(given="Aaron", family="Courville"),
)
# In the simulator's text of the book (`simulator/book_text.py`), verbatim.
QUOTE = "Inventors have long dreamed of creating machines that think."
# The same words, one changed: Google finds nothing; a misquote is never confirmed.
MISQUOTE = "Inventors have always dreamed of creating machines that think."


def volume(isbn: str = ISBN, snippet: str | None = None, **info: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "kind": "books#volume",
        "id": "sim1",
        "volumeInfo": {
            "title": "Deep Learning",
            "authors": ["Ian Goodfellow", "Yoshua Bengio", "Aaron Courville"],
            "publishedDate": "2016-11-18",
            "industryIdentifiers": [{"type": "ISBN_13", "identifier": isbn}],
            **info,
        },
    }
    if snippet is not None:
        item["searchInfo"] = {"textSnippet": snippet}
    return item


def answer(*items: dict[str, Any]) -> dict[str, Any]:
    payload: dict[str, Any] = {"kind": "books#volumes", "totalItems": len(items)}
    if items:
        payload["items"] = list(items)
    return payload


# --- the parser -----------------------------------------------------------------------------------


def test_snippet_text_drops_tags_then_decodes_entities() -> None:
    raw = (
        "...people wondered whether such <b>machines</b> might become &quot;intelligent&quot;, "
        "over a hundred years&nbsp;before one was built. It&#39;s <b>AI</b> &amp; more<br>next page. "
        "The tag &lt;b&gt; is text here..."
    )
    assert snippet_text(raw) == (
        '...people wondered whether such machines might become "intelligent", over a hundred years '
        "before one was built. It's AI & more next page. The tag <b> is text here..."
    )


@given(st.text(max_size=200), st.lists(st.integers(min_value=0, max_value=200), max_size=5))
def test_snippet_text_recovers_the_page_text_from_any_escaped_bolded_form(text: str, cuts: list[int]) -> None:
    """Whatever the page's text and wherever Google puts its bold tags, the snippet's plain text is
    the page's text with its whitespace normalised (tags between words add no letters)."""
    escaped = html.escape(text)
    # Tags only between characters of the escaped text, never inside an entity.
    safe = sorted({c for c in cuts if c <= len(escaped) and "&" not in escaped[max(0, c - 8) : c]})
    pieces, at = [], 0
    for i, cut in enumerate(safe):
        pieces.append(escaped[at:cut])
        pieces.append("<b>" if i % 2 == 0 else "</b>")
        at = cut
    pieces.append(escaped[at:])
    assert snippet_text("".join(pieces)) == " ".join(text.split())


def test_parse_keeps_volumes_of_the_isbn_that_have_a_snippet() -> None:
    payload = answer(
        volume(snippet="<b>Inventors</b> have long dreamed of creating <b>machines</b> that think."),
        volume(isbn="9780387310732", snippet="Inventors have long dreamed..."),  # another book
        volume(),  # no searchInfo: no page shown
        volume(snippet="   "),
    )
    records = parse_book_snippets(payload, "0-262-03561-8")  # the ISBN-10 form of the same book
    assert len(records) == 1
    record = records[0]
    assert isinstance(record, WorkRecord) and record.source is SourceName.GOOGLE_BOOKS
    assert record.abstract == QUOTE and ISBN in record.isbn
    assert parse_book_snippets(answer(), ISBN) == []  # totalItems 0, no `items`


@pytest.mark.parametrize("payload", [None, [], "text", {"error": {"code": 400}}, {"items": "x"}])
def test_parse_refuses_what_is_not_a_volumes_answer(payload: Any) -> None:
    with pytest.raises(SourceParseError):
        parse_book_snippets(payload, ISBN)


def test_the_query_is_the_documented_phrase_and_isbn_form() -> None:
    assert snippet_query(ISBN, '"Machines" that  think') == f'"Machines that think" isbn:{ISBN}'
    assert snippet_query(ISBN, " ".join(["word"] * 50)).count("word") == 32


# --- the search inside a book, against the simulator ---------------------------------------------


def inside(
    sim: SimulatorServer, client: httpx.AsyncClient, cache: MemoryRawCache | None = None, **kw: Any
) -> BookTextSearch:
    return BookTextSearch(GoogleBooksClient(transport(sim, client, "google_books", **kw), cache=cache))


async def test_search_inside_finds_a_verbatim_snippet(
    tier_sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    found = await inside(tier_sim, http).search_inside("0262035618", QUOTE)
    assert len(found) == 1
    assert found[0].record.abstract is not None and QUOTE in found[0].record.abstract
    assert "<b>" in found[0].raw["items"][0]["searchInfo"]["textSnippet"]  # the raw answer is kept
    # A phrase the book does not have, or a book without searchable text: nothing, not an error.
    assert await inside(tier_sim, http).search_inside(ISBN, MISQUOTE) == []
    assert await inside(tier_sim, http).search_inside("9780387310732", QUOTE) == []
    with pytest.raises(ValueError):
        await inside(tier_sim, http).search_inside("9780262035614", QUOTE)  # bad check digit: never sent
    with pytest.raises(ValueError):
        await inside(tier_sim, http).search_inside(ISBN, ' " " ')


async def test_search_inside_is_cached_negative_answers_too(
    tier_sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=60)
    assert await inside(tier_sim, http, cache).search_inside(ISBN, QUOTE)
    assert await inside(tier_sim, http, cache).search_inside(ISBN, MISQUOTE) == []
    sent = requests(tier_sim, "google_books")
    again = inside(tier_sim, http, cache)  # a new process
    hit = await again.search_inside(ISBN, QUOTE)
    assert hit and hit[0].from_cache and QUOTE in (hit[0].record.abstract or "")
    assert await again.search_inside(ISBN, MISQUOTE) == []
    assert requests(tier_sim, "google_books") == sent


async def test_search_inside_survives_faults_and_honours_429(
    tier_sim: SimulatorServer, http: httpx.AsyncClient
) -> None:
    tier_sim.configure(
        SimulatorConfig.unlimited(seed=5).with_source("google_books", faults={"error_503": 0.5})
    )
    for _ in range(3):
        assert await inside(tier_sim, http, attempts=12).search_inside(ISBN, QUOTE)
    tier_sim.configure(
        SimulatorConfig.unlimited().with_source("google_books", rate=0.01, burst=1, retry_after=500)
    )
    search = inside(tier_sim, http)
    assert await search.search_inside(ISBN, QUOTE)
    with pytest.raises(RateLimitedError) as raised:
        await search.search_inside(ISBN, MISQUOTE)
    assert raised.value.retry_after == pytest.approx(500.0)


# --- the decision -----------------------------------------------------------------------------------


def cited(quote: str | None = QUOTE, **kw: Any) -> CitedReference:
    fields = {"publisher": "MIT Press", **({"quote": quote} if quote is not None else {})}
    base: dict[str, Any] = {
        "key": "goodfellow2016",
        "entry_type": "book",
        "title": "Deep Learning",
        "authors": AUTHORS,
        "year": 2016,
        "isbn": ISBN,
        "fields": fields,
    }
    base.update(kw)
    return CitedReference(**base)


def book(source: SourceName, **kw: Any) -> WorkRecord:
    base: dict[str, Any] = {
        "title": "Deep Learning",
        "authors": AUTHORS,
        "year": 2016,
        "isbn": (ISBN,),
        "work_type": "book",
    }
    base.update(kw)
    return WorkRecord(source=source, **base)


def isbn_answers() -> list[SourceAnswer]:
    return [
        SourceAnswer(source=s, kind=QueryKind.ISBN, query=ISBN, outcome=Outcome.FOUND, records=(book(s),))
        for s in (SourceName.OPEN_LIBRARY, SourceName.GOOGLE_BOOKS)
    ]


def snippets(*texts: str, outcome: Outcome | None = None, isbn: str = ISBN) -> SourceAnswer:
    records = tuple(book(SourceName.GOOGLE_BOOKS, abstract=t, isbn=(isbn,)) for t in texts)
    return SourceAnswer(
        source=SourceName.GOOGLE_BOOKS,
        kind=QueryKind.BOOK_TEXT,
        query=snippet_query(ISBN, QUOTE),
        outcome=outcome or (Outcome.FOUND if records else Outcome.NOT_FOUND),
        records=records,
    )


def run(c: CitedReference, *answers: SourceAnswer) -> Verdict:
    return decide(c, Evidence(answers=answers), current_year=2026)


def test_a_snippet_holding_the_quote_verbatim_is_an_exact_quote() -> None:
    page = "...the time of ancient Greece. " + QUOTE.replace(" ", "\n  ") + " This desire dates back..."
    v = run(cited(quote=f"“{QUOTE}”"), *isbn_answers(), snippets(page))
    assert v.status is VerdictStatus.VERIFIED and Reason.QUOTE_IN_BOOK_SNIPPET in v.reasons, v
    assert v.fields["quote"].agrees is True and v.fields["quote"].source is SourceName.GOOGLE_BOOKS
    t = transparency(v)
    assert t.content_type is ContentType.EXACT_QUOTE and t.verification_status is VerificationStatus.VERIFIED


@pytest.mark.parametrize(
    "answer",
    [
        snippets(),  # no page of the book holds the words
        snippets("...inventors have long dreamed of creating machines that think..."),  # case differs
        snippets("Inventors have long dreamed of creating..."),  # the snippet shows part of it
        snippets(QUOTE, isbn="9780387310732"),  # another book's page
        snippets(outcome=Outcome.FAILED),
        None,  # not asked
    ],
)
def test_no_verbatim_snippet_is_unverified_content_and_never_an_accusation(
    answer: SourceAnswer | None,
) -> None:
    v = run(cited(), *isbn_answers(), *([answer] if answer else []))
    assert v.status is VerdictStatus.VERIFIED and v.status not in FLAGGED_STATUSES, v  # the book is
    assert Reason.QUOTE_UNCONFIRMED_IN_BOOK in v.reasons and Reason.QUOTE_IN_BOOK_SNIPPET not in v.reasons
    assert v.fields["quote"].agrees is None  # not comparable: snippets are partial
    t = transparency(v)
    assert t.content_type is ContentType.UNVERIFIED_CONTENT
    assert t.verification_status is VerificationStatus.PARTIALLY_VERIFIED


def test_the_quote_rule_needs_a_book_and_a_quote() -> None:
    plain = run(cited(quote=None), *isbn_answers())
    assert transparency(plain).content_type is None and "quote" not in plain.fields
    short = run(cited(quote="machines"), *isbn_answers(), snippets("machines that think"))
    assert Reason.QUOTE_UNCONFIRMED_IN_BOOK in short.reasons  # a word proves nothing
    # An unknown book cited with a quote stays unverifiable, whatever the snippets.
    unknown = run(cited(), snippets())
    assert unknown.status is VerdictStatus.UNVERIFIABLE and unknown.status not in FLAGGED_STATUSES


# --- the pipeline, end to end ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    filler = {
        "title": "Urban heat islands",
        "authors": [{"given": "Kofi", "family": "Adeyemi"}],
        "year": 2015,
        "doi": "10.5555/filler.1",
    }
    with SimulatorServer(universe([filler]), SimulatorConfig.unlimited(seed=3)) as server:
        yield server


def test_a_book_cited_with_a_quote_is_searched_inside_once(sim: SimulatorServer, tmp_path: Path) -> None:
    refs = [
        cited(key="quoted", origin="test:quoted"),
        cited(key="misquoted", quote=MISQUOTE, origin="test:misquoted"),
        cited(key="no_isbn", quote=QUOTE, isbn=None, origin="test:no_isbn"),
        cited(key="plain", quote=None, origin="test:plain"),
    ]
    result = run_embedded(sim_settings(tmp_path, sim), refs)
    by_key = {r["key"]: r for r in result.references}
    quoted, misquoted = by_key["quoted"], by_key["misquoted"]
    assert quoted["verdict"] == "verified" and "quote_in_book_snippet" in quoted["reasons"], quoted
    assert quoted["content_type"] == "exact_quote"
    asked = [a for a in quoted["trace"] if a["kind"] == "book_text"]
    assert len(asked) == 1 and asked[0]["source"] == "google_books" and asked[0]["outcome"] == "found"
    assert misquoted["verdict"] == "verified" and misquoted["content_type"] == "unverified_content", misquoted
    assert "quote_unconfirmed_in_book" in misquoted["reasons"]
    # Without an ISBN cited, the matched book's ISBN is searched inside.
    no_isbn = by_key["no_isbn"]
    assert [a["outcome"] for a in no_isbn["trace"] if a["kind"] == "book_text"] == ["found"], no_isbn["trace"]
    assert not [a for a in by_key["plain"]["trace"] if a["kind"] == "book_text"]
