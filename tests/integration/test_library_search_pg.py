"""Tier 0 for claims (issue 29) on the service's database: PostgreSQL full text (`ts_rank_cd` over
the weighted tsvector the GIN index holds), the same expectations as SQLite's FTS5."""

from __future__ import annotations

import uuid

from aletheia.storage.db import engine_for
from aletheia.storage.library import SqlLibrary
from tests.integration.private_postgres import PrivatePostgres
from tests.unit.test_library_search import check_search


def test_postgresql_full_text_search(postgres: PrivatePostgres) -> None:
    url = postgres.create_database(f"library_{uuid.uuid4().hex[:8]}")
    engine = engine_for(url)
    check_search(SqlLibrary(engine))
    with engine.connect() as conn:
        plan = "\n".join(
            row[0]
            for row in conn.exec_driver_sql(
                "SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_library_works_search'"
            )
        )
    assert "gin" in plan.lower()
