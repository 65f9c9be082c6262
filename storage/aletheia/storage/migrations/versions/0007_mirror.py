"""the local snapshot mirror (issue 32): source records from the DBLP, OpenAlex and Crossref dumps

SQLite (embedded default): `mirror_records` with an integer rowid, (source, record_id) unique, and
an FTS5 index of the normalised titles (`mirror_titles`, an external-content table kept by
triggers, so an upsert that replaces a record replaces its indexed title).
PostgreSQL (the service): `mirror_records` partitioned by source (LIST: one partition per dumped
source and a default), keyed by (source, record_id), with a trigram (pg_trgm) index and a full-text
index on the normalised titles. `raw` is the source's own text of the record, UTF-8, zlib-compressed
(the records are most of a mirror's size). The DDL is per dialect: FTS5 tables, triggers,
partitions and operator classes are not SQLAlchemy model material, and the store
(`storage/mirror.py`) speaks SQL.

Create Date: 2026-11-28 21:30:00
"""

from __future__ import annotations

from alembic import op

revision = "0007_mirror"
down_revision = "0006"

# The sources a dump is loaded for: one PostgreSQL partition each (anything else: the default one).
PARTITIONED_SOURCES = ("dblp", "openalex", "crossref")

# The columns of `mirror_records` on both dialects (`raw`: the dialect's bytes type).
_RECORD_COLUMNS = """source VARCHAR(32) NOT NULL,
        record_id VARCHAR(400) NOT NULL,
        doi VARCHAR(300),
        arxiv_id VARCHAR(64),
        title_norm TEXT NOT NULL,
        year INTEGER,
        raw {raw} NOT NULL,
        snapshot_date DATE NOT NULL,"""

_SQLITE = [
    f"""CREATE TABLE mirror_records (
        id INTEGER PRIMARY KEY,
        {_RECORD_COLUMNS.format(raw="BLOB")}
        CONSTRAINT uq_mirror_source_record UNIQUE (source, record_id)
    )""",
    "CREATE INDEX ix_mirror_doi ON mirror_records (doi) WHERE doi IS NOT NULL",
    "CREATE INDEX ix_mirror_arxiv ON mirror_records (arxiv_id) WHERE arxiv_id IS NOT NULL",
    """CREATE VIRTUAL TABLE mirror_titles USING fts5(
        title_norm, content='mirror_records', content_rowid='id', tokenize='unicode61'
    )""",
    """CREATE TRIGGER mirror_titles_ai AFTER INSERT ON mirror_records BEGIN
        INSERT INTO mirror_titles(rowid, title_norm) VALUES (new.id, new.title_norm);
    END""",
    """CREATE TRIGGER mirror_titles_ad AFTER DELETE ON mirror_records BEGIN
        INSERT INTO mirror_titles(mirror_titles, rowid, title_norm) VALUES ('delete', old.id, old.title_norm);
    END""",
    """CREATE TRIGGER mirror_titles_au AFTER UPDATE OF title_norm ON mirror_records BEGIN
        INSERT INTO mirror_titles(mirror_titles, rowid, title_norm) VALUES ('delete', old.id, old.title_norm);
        INSERT INTO mirror_titles(rowid, title_norm) VALUES (new.id, new.title_norm);
    END""",
    # The vocabulary of the index with each term's document count: the title search ORs a title's
    # rarest words (`storage/mirror.py`), so a misspelt common word does not lose the work.
    "CREATE VIRTUAL TABLE mirror_title_terms USING fts5vocab(mirror_titles, row)",
]

_POSTGRES = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    f"""CREATE TABLE mirror_records (
        {_RECORD_COLUMNS.format(raw="BYTEA")}
        PRIMARY KEY (source, record_id)
    ) PARTITION BY LIST (source)""",
    *(
        f"CREATE TABLE mirror_records_{name} PARTITION OF mirror_records FOR VALUES IN ('{name}')"
        for name in PARTITIONED_SOURCES
    ),
    "CREATE TABLE mirror_records_other PARTITION OF mirror_records DEFAULT",
    "CREATE INDEX ix_mirror_doi ON mirror_records (doi) WHERE doi IS NOT NULL",
    "CREATE INDEX ix_mirror_arxiv ON mirror_records (arxiv_id) WHERE arxiv_id IS NOT NULL",
    "CREATE INDEX ix_mirror_title_trgm ON mirror_records USING gin (title_norm gin_trgm_ops)",
    "CREATE INDEX ix_mirror_title_fts ON mirror_records USING gin (to_tsvector('simple', title_norm))",
]

# Both dialects: how far each dump file has been loaded (resuming after a kill), and per source
# the snapshot the mirror holds (its date, and whether it is a complete copy of the index).
_COMMON = [
    """CREATE TABLE mirror_files (
        path VARCHAR(1000) PRIMARY KEY,
        source VARCHAR(32) NOT NULL,
        size BIGINT NOT NULL,
        records BIGINT NOT NULL,
        done BOOLEAN NOT NULL,
        snapshot_date DATE NOT NULL,
        updated_at TIMESTAMP WITH TIME ZONE NOT NULL
    )""",
    """CREATE TABLE mirror_snapshots (
        source VARCHAR(32) PRIMARY KEY,
        snapshot_date DATE NOT NULL,
        complete BOOLEAN NOT NULL,
        updated_through DATE,
        updated_at TIMESTAMP WITH TIME ZONE NOT NULL
    )""",
]


def upgrade() -> None:
    statements = _POSTGRES if op.get_bind().dialect.name == "postgresql" else _SQLITE
    for statement in [*statements, *_COMMON]:
        op.execute(statement)


def downgrade() -> None:
    for table in ("mirror_snapshots", "mirror_files"):
        op.execute(f"DROP TABLE {table}")
    if op.get_bind().dialect.name != "postgresql":
        op.execute("DROP TABLE mirror_title_terms")
        op.execute("DROP TABLE mirror_titles")
    op.execute("DROP TABLE mirror_records")
