"""A database already at the newest migration is opened without Alembic (a third of a second from
every process start; `aletheia status` must start fast), and one that is not is still migrated."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine

from aletheia.storage.db import MIGRATIONS_DIR, at_head, dispose_engines, migrate, script_head


def test_the_head_read_from_the_files_is_alembics() -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    assert [script_head()] == ScriptDirectory.from_config(config).get_heads()


def test_a_new_database_is_migrated_and_then_left_alone(tmp_path: Path) -> None:
    from alembic import command

    engine = create_engine(f"sqlite:///{tmp_path / 'new.sqlite3'}")
    assert not at_head(engine)  # no alembic_version table yet
    migrate(engine)
    assert at_head(engine)

    # An older schema (the code was upgraded, the database not yet) is migrated by Alembic.
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    old = create_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with old.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0003")
    assert not at_head(old)
    old.dispose()
    dispose_engines()
    code = (
        "import sys; from aletheia.storage.db import engine_for; engine_for(sys.argv[1]); "
        "print('alembic' in sys.modules)"
    )

    def opened_with_alembic() -> bool:
        run = subprocess.run([sys.executable, "-c", code, url], capture_output=True, text=True, check=True)
        return run.stdout.strip() == "True"

    assert opened_with_alembic()  # behind: Alembic brought it to the head
    assert at_head(create_engine(url))
    assert not opened_with_alembic()  # at the head: one SELECT, no Alembic


def test_disposing_the_engines_closes_them_and_the_next_ask_opens_a_new_one(tmp_path: Path) -> None:
    from aletheia.storage.db import engine_for

    url = f"sqlite:///{tmp_path / 'held.sqlite3'}"
    first = engine_for(url)
    assert engine_for(url) is first
    with first.connect():
        pass
    pool = first.pool  # dispose() gives the engine a new pool: the old one is what must be emptied
    assert pool.checkedin() == 1  # the pooled connection a forgotten engine would leak
    dispose_engines()
    assert pool.checkedin() == 0
    second = engine_for(url)
    assert second is not first
    dispose_engines()
