"""`python -m aletheia.workers.migrate`: bring the database to the newest schema, then exit.

The compose file's one-shot `migrate` service and ops/start run it before any worker starts (the
workers would migrate on first use too, under an advisory lock, but a failing migration should stop
the deployment before it begins, not inside a task).
"""

from __future__ import annotations

from aletheia.config import get_settings
from aletheia.storage.db import make_engine, migrate


def main() -> None:
    settings = get_settings()
    engine = make_engine(settings.sqlalchemy_url())
    try:
        migrate(engine)
    finally:
        engine.dispose()
    print(f"aletheia: database schema is current ({engine.url.render_as_string(hide_password=True)})")


if __name__ == "__main__":
    main()
