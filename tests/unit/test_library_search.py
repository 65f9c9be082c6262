"""Tier 0 for claims (issue 29): full-text search over the verified library, SQLite's FTS5 with
BM25 (the PostgreSQL twin is tests/integration/test_library_search_pg.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from aletheia.core.records import Author, SourceName, WorkRecord
from aletheia.sources.base import SourceRecord
from aletheia.storage.db import engine_for
from aletheia.storage.library import SqlLibrary
from aletheia.storage.library_search import MAX_TERMS, search_terms

NOW = datetime(2026, 5, 23, tzinfo=UTC)
WORKS = [
    WorkRecord(
        source=SourceName.OPENALEX,
        title="Attention Is All You Need",
        authors=(Author(given="Ashish", family="Vaswani"),),
        year=2017,
        doi="10.5555/attention",
        abstract="The Transformer dispenses with recurrence and convolutions entirely.",
    ),
    WorkRecord(
        source=SourceName.CROSSREF,
        title="Recurrent Networks for Speech",
        doi="10.5555/speech",
        abstract="Recurrence models speech well.",
    ),
    WorkRecord(
        source=SourceName.CROSSREF,
        title="Lichen Growth on Granite",
        doi="10.5555/lichen",
        abstract="Lichens grow about half a millimetre per year.",
    ),
]


def fill(library: SqlLibrary) -> None:
    library.remember_sync([SourceRecord(work, None, NOW) for work in WORKS])


def check_search(library: SqlLibrary) -> None:
    """The same expectations on either database."""
    fill(library)
    titles = [r.record.title for r in library.search_sync(["Transformers", "dispense", "with", "recurrence"])]
    # Stemmed (transformers/transformer, dispense/dispenses); the work holding most terms first.
    assert titles == ["Attention Is All You Need", "Recurrent Networks for Speech"]
    assert [r.record.title for r in library.search_sync(["lichens"], limit=5)] == ["Lichen Growth on Granite"]
    # By title: exactly the normalised title, first, whatever the words.
    by_title = library.search_sync(["recurrence"], title="lichen growth on granite.")
    first, *rest = [r.record.title for r in by_title]
    assert first == "Lichen Growth on Granite"
    assert sorted(rest) == ["Attention Is All You Need", "Recurrent Networks for Speech"]
    assert library.search_sync(["quantum", "annealing"]) == []
    # Query syntax never reaches the index: quotes, operators, NEAR, wildcards are plain words.
    hostile = library.search_sync(['"', "NEAR(", "*", "lichens)", "-", ":", "^", "title_key:", "{x}"])
    assert [r.record.title for r in hostile] == ["Lichen Growth on Granite"]
    # An update keeps the index in step: the old abstract's words no longer find the work.
    changed = WORKS[2].model_copy(update={"abstract": "Mosses on basalt."})
    library.remember_sync([SourceRecord(changed, None, NOW)])
    assert library.search_sync(["millimetre"]) == []
    assert [r.record.title for r in library.search_sync(["basalt"])] == ["Lichen Growth on Granite"]


def test_sqlite_fts5_search(tmp_path: Path) -> None:
    check_search(SqlLibrary(engine_for(f"sqlite:///{tmp_path / 'db.sqlite3'}")))


def test_an_existing_library_is_indexed_by_the_migration(tmp_path: Path) -> None:
    """Rows stored before migration 0007 get their abstract and their index entry from it."""
    from alembic import command
    from alembic.config import Config

    from aletheia.storage.db import MIGRATIONS_DIR, make_engine

    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0006")
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO library_works (identity, doi, title_key, source, record, fetched_at, origin)"
            " VALUES ('doi:10.5555/lichen', '10.5555/lichen', 'lichen growth on granite', 'crossref', ?,"
            " '2026-05-23 00:00:00', 'verified')",
            (WORKS[2].model_dump_json(),),
        )
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
    hits = SqlLibrary(engine).search_sync(["millimetre"])
    assert [r.record.doi for r in hits] == ["10.5555/lichen"]


@pytest.mark.parametrize(
    ("words", "terms"),
    [
        (["Transformers", "dispense"], ["transformers", "dispense"]),
        (['"quoted"', "NEAR(a b)", "x*"], ["quoted", "near"]),  # one-letter tokens dropped
        (["α-synuclein", "IL-6"], ["α", "synuclein", "il"]),
        (["Same", "same", "SAME"], ["same"]),
    ],
)
def test_search_terms_are_plain_tokens(words: list[str], terms: list[str]) -> None:
    assert search_terms(words) == [t for t in terms if len(t) > 1]


def test_search_terms_are_bounded() -> None:
    assert len(search_terms([f"word{i}" for i in range(100)])) == MAX_TERMS
