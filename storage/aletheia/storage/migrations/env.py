"""Alembic environment: runs on the connection handed over by `aletheia.storage.db.migrate`,
or on `sqlalchemy.url` when invoked from the alembic command line."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from aletheia.storage.models import Base

target_metadata = Base.metadata
config = context.config


def run() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = config.get_main_option("sqlalchemy.url")
    if url is None:
        from aletheia.config import get_settings

        url = get_settings().sqlalchemy_url()
    engine = create_engine(url)
    with engine.begin() as conn:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


run()
