"""A quote cited from a book, against the book's page snippets (Tier 1, Google Books). Pure.

When a book citation carries a quoted excerpt (`quote`, `excerpt` or `quotation` field:
`classical_case.cited_quote`), the pipeline searches inside the book for it (`QueryKind.BOOK_TEXT`:
Google Books' `q="phrase" isbn:...`, `sources/book_snippets.py`). A snippet is a few lines of one
page, so the two answers are not symmetric:

- a snippet of a volume carrying the cited ISBN (or the matched book's) that holds the quote
  verbatim, compared with the excerpt machinery's match key (`excerpts.match_key`: whitespace,
  ligatures, quote marks and dashes folded, nothing else; no case folding), is evidence the quote
  is in the book: `quote_in_book_snippet` (content type `exact_quote`);
- anything else (no snippet, a snippet with other words, a failed or impossible search, a quote too
  short to prove anything) is `quote_unconfirmed_in_book` (content type `unverified_content`):
  never an accusation, since Google shows only some pages of some books. The field evidence's
  `agrees` is None (not comparable), never False.

Neither reason changes the verdict's status: that is the book's (its identity and fields). They
say what the quote is, for the transparency fields (`core.transparency`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from aletheia.core.book_rules import is_book_like
from aletheia.core.classical_case import cited_quote
from aletheia.core.evidence import Evidence, Outcome, QueryKind
from aletheia.core.excerpts import match_key
from aletheia.core.field_evidence import Findings
from aletheia.core.isbn import normalise_isbn
from aletheia.core.records import CitedReference, SourceName, WorkRecord
from aletheia.core.verdicts import FieldEvidence, Reason

__all__ = ["MIN_QUOTE_KEY", "book_quote_findings", "quote_in_snippet"]

MIN_QUOTE_KEY: Final = 12  # as `excerpts.locate_excerpt`: a word or two proves nothing
SNIPPET_SHOWN: Final = 500


def quote_in_snippet(quote: str, snippet: str) -> bool:
    """The quote, whole and verbatim (under the match key), inside the snippet's text."""
    wanted = match_key(quote)
    return len(wanted) >= MIN_QUOTE_KEY and wanted in match_key(snippet)


def _isbns(cited: CitedReference, book: Iterable[WorkRecord]) -> set[str]:
    out = {isbn for r in book for isbn in r.isbn}
    cited_isbn = normalise_isbn(cited.isbn) if cited.isbn else None
    if cited_isbn:
        out.add(cited_isbn)
    return out


def book_quote_findings(
    cited: CitedReference, evidence: Evidence, book: Iterable[WorkRecord], f: Findings
) -> None:
    """The quote's reason, field evidence and note, for a book-like citation that cites a quote;
    `book` is the matched work's records (empty when none matched)."""
    quote = cited_quote(cited)
    if quote is None or not is_book_like(cited):
        return
    isbns = _isbns(cited, book)
    answers = [a for a in evidence.for_kind(QueryKind.BOOK_TEXT) if a.source is SourceName.GOOGLE_BOOKS]
    snippets = [
        r
        for a in answers
        if a.outcome is Outcome.FOUND
        for r in a.records
        if r.abstract and isbns.intersection(r.isbn)
    ]
    hit = next((r for r in snippets if quote_in_snippet(quote, r.abstract or "")), None)
    shown = hit or (snippets[0] if snippets else None)
    f.fields["quote"] = FieldEvidence(
        cited=quote,
        found=(shown.abstract or "")[:SNIPPET_SHOWN] if shown else None,
        source=SourceName.GOOGLE_BOOKS if answers else None,
        agrees=True if hit else None,
    )
    if hit is not None:
        f.add(Reason.QUOTE_IN_BOOK_SNIPPET)
        hit_isbns = ", ".join(sorted(hit.isbn))
        f.notes.append(f"quote: verbatim in a Google Books page snippet of ISBN {hit_isbns}")
        return
    f.add(Reason.QUOTE_UNCONFIRMED_IN_BOOK)
    if len(match_key(quote)) < MIN_QUOTE_KEY:
        why = "too short to prove anything"
    elif snippets:
        why = "the book's page snippets do not hold it verbatim (snippets show a few lines only)"
    elif any(a.outcome is Outcome.FOUND or a.outcome is Outcome.NOT_FOUND for a in answers):
        why = "no page snippet of the book holds it (Google Books shows some pages only: no evidence)"
    elif answers:
        why = "the search inside the book failed"
    else:
        why = "not searched inside the book (no ISBN to search, or Google Books not asked)"
    f.notes.append(f"quote: unconfirmed; {why}")
