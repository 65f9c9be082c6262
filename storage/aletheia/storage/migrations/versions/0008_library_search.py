"""library_works: full-text search over the verified library, for claims (issue 29, seed 004's Tier 0)

A column `abstract_text` (the record's abstract), and an index over the normalised title and it:
SQLite's FTS5 (an external-content table kept in step by triggers, BM25 ranking, Porter stemming);
PostgreSQL's full text (a GIN index on the weighted `tsvector` the store queries). No model.

Create Date: 2026-11-28 21:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007_mirror"

# The PostgreSQL expression the index holds; `storage/library_search.py` queries the same one.
PG_DOCUMENT = (
    "setweight(to_tsvector('english', coalesce(title_key, '')), 'A')"
    " || setweight(to_tsvector('english', coalesce(abstract_text, '')), 'B')"
)

SQLITE_STATEMENTS = (
    "CREATE VIRTUAL TABLE library_works_fts USING fts5("
    "title_key, abstract_text, content='library_works', content_rowid='id', tokenize='porter unicode61')",
    "CREATE TRIGGER library_works_fts_insert AFTER INSERT ON library_works BEGIN"
    " INSERT INTO library_works_fts(rowid, title_key, abstract_text)"
    " VALUES (new.id, new.title_key, new.abstract_text); END",
    "CREATE TRIGGER library_works_fts_delete AFTER DELETE ON library_works BEGIN"
    " INSERT INTO library_works_fts(library_works_fts, rowid, title_key, abstract_text)"
    " VALUES ('delete', old.id, old.title_key, old.abstract_text); END",
    "CREATE TRIGGER library_works_fts_update AFTER UPDATE ON library_works BEGIN"
    " INSERT INTO library_works_fts(library_works_fts, rowid, title_key, abstract_text)"
    " VALUES ('delete', old.id, old.title_key, old.abstract_text);"
    " INSERT INTO library_works_fts(rowid, title_key, abstract_text)"
    " VALUES (new.id, new.title_key, new.abstract_text); END",
)


def upgrade() -> None:
    op.add_column("library_works", sa.Column("abstract_text", sa.Text(), nullable=True))
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        op.execute("UPDATE library_works SET abstract_text = json_extract(record, '$.abstract')")
        for statement in SQLITE_STATEMENTS:
            op.execute(statement)
        op.execute("INSERT INTO library_works_fts(library_works_fts) VALUES ('rebuild')")
    else:
        op.execute("UPDATE library_works SET abstract_text = (record::json ->> 'abstract')")
        op.execute(f"CREATE INDEX ix_library_works_search ON library_works USING GIN (({PG_DOCUMENT}))")


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        for name in ("insert", "delete", "update"):
            op.execute(f"DROP TRIGGER IF EXISTS library_works_fts_{name}")
        op.execute("DROP TABLE IF EXISTS library_works_fts")
    else:
        op.execute("DROP INDEX IF EXISTS ix_library_works_search")
    op.drop_column("library_works", "abstract_text")
