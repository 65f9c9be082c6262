"""The database does not answer: one line and its own exit code, never a traceback (issue 30:
`aletheia wait`, `status`, `report` and `audit-log verify` printed ~140 lines and exited 1, "job
failed", while PostgreSQL was down and the job itself was healthy).

Every command goes through `cli.LazyGroup.invoke`, which turns such an error into the line below
and `exits.DATABASE_UNREACHABLE`; `aletheia wait` keeps waiting through it (`AletheiaClient.wait`'s
`on_database_down`). sqlalchemy is imported only once an error is in hand.
"""

from __future__ import annotations


def is_database_down(exc: BaseException) -> bool:
    """The database could not be reached or dropped the connection (not a bad query)."""
    if not type(exc).__module__.startswith("sqlalchemy"):
        return False
    from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

    return isinstance(exc, OperationalError | InterfaceError) or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated
    )


def database_down_line(exc: BaseException) -> str:
    """`the database at URL (password hidden) does not answer (the driver's first line)`."""
    from sqlalchemy.engine import make_url

    from aletheia.config import get_settings

    url = make_url(get_settings().sqlalchemy_url()).render_as_string(hide_password=True)
    reason = (str(getattr(exc, "orig", None) or exc) or type(exc).__name__).strip().splitlines()[0]
    return f"the database at {url} does not answer ({reason})"
