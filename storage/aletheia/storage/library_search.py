"""Full-text search over the verified library (`library_works`), for claims (issue 29: seed 004's
Tier 0, "semantic search on claim keywords"; here lexical: no model can be downloaded).

The index is the normalised title and the abstract (migration 0007). On SQLite, FTS5 ranks by BM25
(`bm25()`, the title weighted `TITLE_WEIGHT` times the abstract) with Porter stemming; on
PostgreSQL, `ts_rank_cd` over the weighted `tsvector` (title `A`, abstract `B`) the GIN index holds,
English stemming, the rows holding most of the words first. The query is the claim's words, any of
them (OR): ranking puts the rows holding most of them (on SQLite, the rarest weigh most) first;
which of them may support the claim is the reasoner's decision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from sqlalchemy import Engine, select, text

from aletheia.core.text import normalize_title
from aletheia.storage.models import LibraryWork

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

__all__ = ["TITLE_WEIGHT", "search_library_ids", "search_library_rows", "search_terms"]

TITLE_WEIGHT: Final = 2.0
MAX_TERMS: Final = 24
_TOKEN: Final = re.compile(r"[^\W_]+", re.UNICODE)

# The same expression as migration 0007's index, so PostgreSQL uses it.
_PG_DOCUMENT: Final = (
    "setweight(to_tsvector('english', coalesce(title_key, '')), 'A')"
    " || setweight(to_tsvector('english', coalesce(abstract_text, '')), 'B')"
)


def _pg_query(count: int) -> str:
    """Rows matching any term, those holding the most terms first (PostgreSQL's ranks have no
    inverse document frequency, so a one-word title match would otherwise beat an abstract holding
    most of the claim), then by `ts_rank_cd`. Constants and placeholders only: the words are bound."""
    held = " + ".join(f"(({_PG_DOCUMENT}) @@ to_tsquery('english', :t{i}))::int" for i in range(count))
    return (
        f"SELECT id FROM library_works WHERE ({_PG_DOCUMENT}) @@ to_tsquery('english', :query)"  # noqa: S608
        f" ORDER BY ({held}) DESC, ts_rank_cd({_PG_DOCUMENT}, to_tsquery('english', :query)) DESC, id"
        " LIMIT :limit"
    )


def search_terms(words: Sequence[str]) -> list[str]:
    """The words as index tokens: letters and digits only (no query syntax can get through),
    lower-cased, each once, at most `MAX_TERMS`."""
    tokens = (token.lower() for word in words for token in _TOKEN.findall(word))
    return list(dict.fromkeys(t for t in tokens if len(t) > 1))[:MAX_TERMS]


def search_library_ids(engine: Engine, words: Sequence[str], limit: int) -> list[int]:
    """The ids of the library rows that best match any of `words`, best first (at most `limit`)."""
    terms = search_terms(words)
    if not terms or limit <= 0:
        return []
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            rows = conn.execute(
                text(
                    "SELECT rowid FROM library_works_fts WHERE library_works_fts MATCH :query"
                    " ORDER BY bm25(library_works_fts, :title_weight, 1.0) LIMIT :limit"
                ),
                {
                    "query": " OR ".join(f'"{term}"' for term in terms),
                    "title_weight": TITLE_WEIGHT,
                    "limit": limit,
                },
            )
        else:
            params: dict[str, object] = {"query": " | ".join(terms), "limit": limit}
            params.update({f"t{i}": term for i, term in enumerate(terms)})
            rows = conn.execute(text(_pg_query(len(terms))), params)
        return [int(row[0]) for row in rows]


def search_library_rows(
    session: Session, engine: Engine, words: Sequence[str], title: str | None, limit: int
) -> list[LibraryWork]:
    """The rows of the works whose normalised title is `title`'s, then those `words` match best (a
    work's records come out one after another only as the index ranks them; the caller groups)."""
    ids = search_library_ids(engine, words, limit * 4)
    key = normalize_title(title)[:300] if title else ""
    by_title = list(session.scalars(select(LibraryWork).where(LibraryWork.title_key == key))) if key else []
    found = {row.id: row for row in session.scalars(select(LibraryWork).where(LibraryWork.id.in_(ids)))}
    rows = [*by_title, *(found[i] for i in ids if i in found)]
    return list({row.id: row for row in rows}.values())
