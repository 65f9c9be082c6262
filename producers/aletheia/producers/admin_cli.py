"""`aletheia admin ...`: operator actions on the database (the embedded SQLite or the service's
PostgreSQL, whichever `ALETHEIA_DATABASE_URL` names).

`admin clear-database` exit codes: 0 cleared; 1 refused, jobs are queued or running; 2 not
confirmed (the operator did not type DELETE).
"""

from __future__ import annotations

import getpass
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

CONFIRMATION = "DELETE"


@click.group()
def admin() -> None:
    """Operator actions on the database."""


def _operator() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return "unknown"


def _remove_report_folders(reports: Path, job_ids: list[str]) -> int:
    """The writer's folders of the deleted jobs (`<reports dir>/<job id>/`), and nothing else."""
    removed = 0
    root = reports.resolve()
    for job_id in job_ids:
        folder = (reports / job_id).resolve()
        if folder.parent == root and folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed


@admin.command("clear-database")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation (scripts).")
def clear_database_command(yes: bool) -> None:
    """Delete every job, item, verdict, report and claim; keep the Tier-0 library, the raw source
    cache, the retraction data, the predatory-venue list, the registered repositories, the audit
    trail and the settings.

    Asks the operator to type DELETE (read from stdin) unless --yes; refuses while any job is
    queued or running. The clearing is written to the audit trail (scope `admin`).
    """
    from aletheia.config import get_settings
    from aletheia.storage.admin import (
        ADMIN_SCOPE,
        DATABASE_CLEARED,
        JobsRunning,
        clear_database,
        unfinished_job_ids,
    )
    from aletheia.storage.audit_log import AuditLog
    from aletheia.storage.db import engine_for, session_factory

    settings = get_settings()
    engine = engine_for(settings.sqlalchemy_url())
    with session_factory(engine)() as s:
        running = unfinished_job_ids(s)
    if running:
        click.echo(f"aletheia: not cleared: {JobsRunning(running)}; wait for them to finish", err=True)
        sys.exit(1)
    _confirm(engine, yes)
    try:
        result = clear_database(engine)
    except JobsRunning as exc:  # a job was submitted between the first check and now
        click.echo(f"aletheia: not cleared: {exc}; wait for them to finish", err=True)
        sys.exit(1)
    folders = _remove_report_folders(settings.reports_path(), result.job_ids)
    body: dict[str, Any] = {
        "at": datetime.now(UTC).isoformat(),
        "operator": _operator(),
        "database": engine.dialect.name,
        "deleted": result.deleted,
        "jobs_by_kind": result.by_kind,
        "report_folders_removed": folders,
        "confirmed": "--yes" if yes else "typed",
    }
    log = AuditLog(engine, anchor_file=settings.audit_anchor_file)
    log.append(ADMIN_SCOPE, [(DATABASE_CLEARED, body)])
    log.commit_job(ADMIN_SCOPE)  # sealed under a Merkle root at once, like a finished job
    deleted = result.deleted
    click.echo(
        f"cleared: {deleted['jobs']} jobs, {deleted['items']} items, {deleted['verdicts']} verdicts, "
        f"{deleted['artifacts']} report/artifact rows, {folders} report folders"
    )


def _confirm(engine: Any, yes: bool) -> None:
    """Say what will be deleted and what is kept; unless --yes, exit 2 when the operator does not
    type the confirmation."""
    from aletheia.storage.admin import counts

    before = counts(engine)
    where = engine.url.render_as_string(hide_password=True)
    click.echo(
        f"{where}: {before['jobs']} jobs, {before['items']} items, {before['verdicts']} verdicts, "
        f"{before['artifacts']} report/artifact rows will be deleted; the library, retraction data, "
        "predatory-venue list, raw source cache and audit trail are kept.",
        err=True,
    )
    if not yes:
        click.echo(f"Type {CONFIRMATION} to confirm: ", nl=False, err=True)
        answer = sys.stdin.readline().strip()
        if answer != CONFIRMATION:
            click.echo("aletheia: not confirmed; nothing deleted", err=True)
            sys.exit(2)


COMMANDS = (admin,)
