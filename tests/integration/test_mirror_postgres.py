"""The mirror on PostgreSQL (issue 32), the service's engine: migration 0007 partitions the records
by source and builds the trigram and full-text indexes; a load is resumable and idempotent (ids
as keys, INSERT ... ON CONFLICT); a misspelt title is found through pg_trgm; the gateway's lookups
read the same records a SQLite mirror gives."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest

from aletheia.pipeline.mirror.load import load_dump
from aletheia.storage.db import engine_for
from aletheia.storage.mirror import MirrorStore
from tests.integration.private_postgres import PrivatePostgres
from tests.unit.test_mirror_store import crossref_file

pytestmark = pytest.mark.integration
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mirror"
SNAPSHOT = date(2024, 5, 1)


def test_the_mirror_on_postgresql(postgres: PrivatePostgres, tmp_path: Path) -> None:
    engine = engine_for(postgres.create_database("mirror"))
    store = MirrorStore(engine)
    with engine.connect() as conn:
        partitions = {
            row[0]
            for row in conn.exec_driver_sql(
                "SELECT inhrelid::regclass::text FROM pg_inherits "
                "WHERE inhparent = 'mirror_records'::regclass"
            )
        }
        indexes = {row[0] for row in conn.exec_driver_sql("SELECT indexname FROM pg_indexes")}
    assert {
        "mirror_records_dblp",
        "mirror_records_openalex",
        "mirror_records_crossref",
        "mirror_records_semantic_scholar",  # migration 0009
    } <= partitions
    assert {"ix_mirror_title_trgm", "ix_mirror_title_fts"} <= indexes

    shutil.copy(FIXTURES / "dblp.dtd", tmp_path / "dblp.dtd")
    for name in (
        "dblp-sample.xml",
        "openalex-works-sample.jsonl",
        "crossref-sample.json",
        "s2-papers-sample.jsonl",
    ):
        shutil.copy(FIXTURES / name, tmp_path / name)
        load_dump(store, tmp_path / name, snapshot_date=SNAPSHOT)
    assert (store.count("dblp"), store.count("openalex"), store.count("crossref")) == (4, 2, 3)
    assert store.count("semantic_scholar") == 3
    with engine.connect() as conn:
        homes = conn.exec_driver_sql(
            "SELECT DISTINCT tableoid::regclass::text FROM mirror_records WHERE source = 'semantic_scholar'"
        ).all()
    assert homes == [("mirror_records_semantic_scholar",)]
    (hit,) = store.by_doi("10.1109/tkde.2019.0000001", "openalex")
    assert hit.record.record.source_id == "W4200000001" and hit.snapshot_date == SNAPSHOT

    # A killed load, resumed: each record once.
    big = crossref_file(tmp_path, 60, name="big.json.gz")
    real_write = store.write_batch
    calls = {"n": 0}

    def dies_after_two(*args: object, **kwargs: object) -> None:
        calls["n"] += 1
        if calls["n"] > 2:
            raise SystemExit("killed")
        real_write(*args, **kwargs)  # type: ignore[arg-type]

    store.write_batch = dies_after_two  # type: ignore[method-assign]
    with pytest.raises(SystemExit):
        load_dump(store, big, batch_records=20)
    store.write_batch = real_write  # type: ignore[method-assign]
    assert store.count("crossref") == 3 + 40
    resumed = load_dump(store, big, batch_records=20)
    assert resumed.resumed_at == 40 and store.count("crossref") == 3 + 60

    exact = store.search_title("Work number 17 on streaming joins", "crossref")
    assert exact[0].record.record.doi == "10.1000/w17"
    misspelt = store.search_title("Work nmuber 17 on streamng joins", "crossref")
    assert misspelt[0].record.record.doi == "10.1000/w17"
    found = store.search_title("Streaming joins over sliding windows in sublinear space", "dblp")
    assert found[0].record.record.dblp_key == "journals/tkde/MullerS19"
    size = store.size_bytes()
    assert size is not None and size > 0
    engine.dispose()


def test_migration_0009_moves_semantic_scholar_s_papers_and_back(postgres: PrivatePostgres) -> None:
    """Papers loaded before 0009 sat in the default partition: the upgrade moves them to their
    own, the downgrade back, and rows of other sources stay where they were."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine, text

    from aletheia.storage.db import MIGRATIONS_DIR

    engine = create_engine(postgres.create_database("mirror_0009"))
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))

    def migrate(step: object, revision: str) -> None:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            step(config, revision)  # type: ignore[operator]

    def homes() -> dict[str, str]:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT source, tableoid::regclass::text FROM mirror_records")).all()
        return {str(row[0]): str(row[1]) for row in rows}

    migrate(command.upgrade, "0008")
    with engine.begin() as conn:
        for source in ("semantic_scholar", "crossref", "elsewhere"):
            conn.execute(
                text(
                    "INSERT INTO mirror_records (source, record_id, title_norm, raw, snapshot_date) "
                    "VALUES (:source, 'r1', 'a title', '\\x00', '2024-01-01')"
                ),
                {"source": source},
            )
    assert homes()["semantic_scholar"] == "mirror_records_other"
    migrate(command.upgrade, "0009")
    assert homes() == {
        "semantic_scholar": "mirror_records_semantic_scholar",
        "crossref": "mirror_records_crossref",
        "elsewhere": "mirror_records_other",
    }
    migrate(command.downgrade, "0008")
    assert homes()["semantic_scholar"] == "mirror_records_other"
    engine.dispose()
