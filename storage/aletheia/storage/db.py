"""Engines, sessions, migrations and a portable upsert.

SQLite (embedded default) and PostgreSQL (the service) run the same schema, created by Alembic
migrations (`storage/aletheia/storage/migrations/`), never by `create_all` outside tests.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import DBAPIError

if TYPE_CHECKING:  # the ORM is imported by the stores that use sessions, not to open an engine:
    # `aletheia status` reads through Core alone (`job_reads.py`; docs/benchmarks.md, "CLI start-up")
    from sqlalchemy.orm import Session, sessionmaker
    from sqlalchemy.sql.dml import Insert

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
_REVISION_LINE = re.compile(r"^(revision|down_revision)\s*(?::[^=\n]*)?=\s*(.*?)\s*$", re.MULTILINE)


def _sqlite_path(url: str) -> Path | None:
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        return Path(url.removeprefix("sqlite:///"))
    return None


SQLITE_POOL_SIZE = 32


def make_engine(url: str) -> Engine:
    path = _sqlite_path(url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    if url.startswith("sqlite"):
        # A pool as large as the threads that use it at once (the inline dispatcher's, the
        # database threads): an overflow connection is closed on return and a new one opened (and
        # its pragmas run) at the next checkout, which under load was every few transactions.
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            pool_size=SQLITE_POOL_SIZE,
            max_overflow=SQLITE_POOL_SIZE,
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            # WAL lets a report read while the pipeline writes; foreign keys are off by default.
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()

        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10)


def script_head() -> str | None:
    """The newest migration's revision, read from the text of the migration files, or None when
    that is not one plain chain (a merge, a revision written otherwise): Alembic then decides."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (MIGRATIONS_DIR / "versions").glob("*.py"):
        found = dict(_REVISION_LINE.findall(path.read_text(encoding="utf-8")))
        revision, parent = found.get("revision", ""), found.get("down_revision", "")
        quoted = re.fullmatch(r"[\"']([^\"']+)[\"']", revision)
        if quoted is None:
            return None
        revisions.add(quoted.group(1))
        if parent != "None":
            parent_quoted = re.fullmatch(r"[\"']([^\"']+)[\"']", parent)
            if parent_quoted is None:
                return None
            parents.add(parent_quoted.group(1))
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def at_head(engine: Engine) -> bool:
    """True when the database already stands at the newest migration (one `SELECT`)."""
    head = script_head()
    if head is None:
        return False
    try:
        with engine.connect() as conn:
            stamped = [row[0] for row in conn.exec_driver_sql("SELECT version_num FROM alembic_version")]
    except DBAPIError:  # no alembic_version table: a new database
        return False
    return stamped == [head]


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest migration (idempotent; safe from several processes on Postgres).

    A database already at the newest migration is left alone without importing Alembic and
    loading every migration script: that took a third of a second from every process, and
    `aletheia status` must start fast (docs/benchmarks.md, "CLI start-up")."""
    if at_head(engine):
        return
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # Two workers starting at once must not both create the tables.
            conn.exec_driver_sql("SELECT pg_advisory_xact_lock(71520260)")
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


_ENGINES: dict[str, Engine] = {}
_ENGINES_LOCK = threading.Lock()


def engine_for(url: str) -> Engine:
    """The process's one engine for `url`, migrated to head the first time it is asked for."""
    with _ENGINES_LOCK:
        engine = _ENGINES.get(url)
        if engine is None:
            engine = make_engine(url)
            migrate(engine)
            _ENGINES[url] = engine
        return engine


def dispose_engines() -> None:
    """Close every engine `engine_for` holds and forget them: a database dropped and created
    again is migrated at the next ask. Forgetting without closing would leave the pooled
    connections to the garbage collector, which psycopg warns about (ResourceWarning)."""
    with _ENGINES_LOCK:
        engines = list(_ENGINES.values())
        _ENGINES.clear()
    for engine in engines:
        engine.dispose()


def session_factory(engine: Engine) -> sessionmaker[Session]:
    from sqlalchemy.orm import sessionmaker

    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    with session_factory(engine).begin() as session:
        yield session


def upsert(
    session: Session,
    table: Any,
    rows: Sequence[dict[str, Any]],
    *,
    conflict: Sequence[str],
    update: Sequence[str],
) -> None:
    """INSERT ... ON CONFLICT (conflict) DO UPDATE SET update: a repeated task is harmless."""
    if not rows:
        return
    dialect = session.get_bind().dialect.name
    # The statement carries no values: the rows go as executemany parameters, so the compiled
    # statement is cached once per (table, conflict, update) instead of compiled for every call
    # (compiling was a third of `aletheia verify`'s CPU time on SQLite).
    stmt: Insert
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        pg = pg_insert(table)
        stmt = (
            pg.on_conflict_do_update(index_elements=list(conflict), set_={c: pg.excluded[c] for c in update})
            if update
            else pg.on_conflict_do_nothing(index_elements=list(conflict))
        )
    else:
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        lite = sqlite_insert(table)
        stmt = (
            lite.on_conflict_do_update(
                index_elements=list(conflict), set_={c: lite.excluded[c] for c in update}
            )
            if update
            else lite.on_conflict_do_nothing(index_elements=list(conflict))
        )
    session.execute(stmt, [dict(row) for row in rows])
