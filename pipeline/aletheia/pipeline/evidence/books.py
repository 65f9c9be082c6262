"""Tier 1, books: ask the catalogues about a reference that is a book (the I/O half).

A book cited with an ISBN is looked up by it at Open Library and Google Books (an identifier
lookup, `QueryKind.ISBN`); when that does not settle it, the catalogues are searched by title and
first author (`QueryKind.SEARCH`). What they say is decided by `decide`'s book rows
(`core.book_rules`): a catalogue's silence is never evidence, one catalogue's search hit alone is
no proof. Called from `evidence.verify_reference` before the scholarly searches; returns whether
the book is settled (verified), in which case those searches are not needed.
"""

from __future__ import annotations

import asyncio

from aletheia.core.book_rules import book_query_title, is_book_like
from aletheia.core.decide import decide
from aletheia.core.evidence import QueryKind
from aletheia.core.records import CitedReference
from aletheia.core.verdicts import VerdictStatus
from aletheia.pipeline.evidence.book_quotes import ask_book_quote
from aletheia.pipeline.evidence.gateway import SourceGateway, search_title
from aletheia.pipeline.evidence.tier_sources import Ask, Gathering
from aletheia.pipeline.evidence.title_searches import first_author


async def gather_book_evidence(
    cited: CitedReference, gw: SourceGateway, g: Gathering, ask: Ask, *, current_year: int
) -> bool:
    """Ask the book catalogues (ISBN first, then title/author), then search inside the book for a
    quote the citation gives (`book_quotes`); True when the book is verified."""
    settled = await _ask_catalogues(cited, gw, g, ask, current_year=current_year)
    await ask_book_quote(cited, gw, g, ask, current_year=current_year)
    return settled


async def _ask_catalogues(
    cited: CitedReference, gw: SourceGateway, g: Gathering, ask: Ask, *, current_year: int
) -> bool:
    if not is_book_like(cited):
        return False
    tiers = gw.tiers
    if cited.isbn:
        isbn = cited.isbn
        await asyncio.gather(*(ask(s, QueryKind.ISBN, isbn, call) for s, call in tiers.isbn_lookups(isbn)))
        if decide(cited, g.evidence(gw, cited), current_year=current_year).status is VerdictStatus.VERIFIED:
            return True
    title = search_title(cited)
    if not title:
        return False
    searches = tiers.book_searches(book_query_title(title), first_author(cited))
    await asyncio.gather(*(ask(s, QueryKind.SEARCH, q, call) for s, q, call in searches))
    return decide(cited, g.evidence(gw, cited), current_year=current_year).status is VerdictStatus.VERIFIED
