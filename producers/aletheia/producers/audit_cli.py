"""`aletheia audit-log verify|show|commit` and `aletheia replay`: checking the record after the fact.

Both read the database the settings name (the embedded SQLite by default, PostgreSQL in the
service), so the same commands check either.

Exit codes: `audit-log verify` 0 intact, 1 tampered (the first bad event of each job is named),
2 no such job; `replay` 0 every verdict (a claim job: every excerpt judgement and the support it
implies) the same, 1 some differ, 2 no such job.
"""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import click


def _engine() -> Any:
    from aletheia.config import get_settings
    from aletheia.storage.db import engine_for

    return engine_for(get_settings().sqlalchemy_url())


def _audit_log() -> Any:
    from aletheia.config import get_settings
    from aletheia.storage.audit_log import AuditLog

    return AuditLog(_engine(), anchor_file=get_settings().audit_anchor_file)


def _job_exists(engine: Any, job_id: str) -> bool:
    from aletheia.storage.stores import JobStore

    return JobStore(engine).job(job_id) is not None


@click.group("audit-log")
def audit_log() -> None:
    """The tamper-evident decision log: every source consulted, comparison, verdict and artifact,
    hash-chained per job, with Merkle roots committed per job and across jobs."""


@audit_log.command("verify")
@click.argument("job_id", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def verify_command(job_id: str | None, as_json: bool) -> None:
    """Check the trail of JOB_ID (every job when omitted): exit 0 intact, 1 tampered."""
    from aletheia.storage.audit_verify import verify_all, verify_job

    log = _audit_log()
    if job_id is not None:
        if not log.entries(job_id) and not log.commits(job_id) and not _job_exists(log.engine, job_id):
            click.echo(f"aletheia: no job {job_id}", err=True)
            sys.exit(2)
        jobs = [verify_job(log, job_id)]
        global_problems: list[Any] = []
    else:
        jobs, global_problems = verify_all(log)
    tampered = [j for j in jobs if not j.intact]
    if as_json:
        report = {
            "intact": not tampered and not global_problems,
            "jobs": [
                {
                    "job_id": j.job_id,
                    "events": j.events,
                    "committed_events": j.committed_events,
                    "intact": j.intact,
                    "problems": [str(p) for p in j.problems],
                    "warnings": j.warnings,
                }
                for j in jobs
            ],
            "global_problems": [str(p) for p in global_problems],
        }
        click.echo(json.dumps(report, indent=2))
    else:
        for j in jobs:
            if j.intact:
                note = f"; {'; '.join(j.warnings)}" if j.warnings else ""
                click.echo(
                    f"intact    job {j.job_id}: {j.events} events, {j.committed_events} committed{note}"
                )
            else:
                first = j.first_problem
                click.echo(f"TAMPERED  {first}")
                for more in j.problems[1:]:
                    click.echo(f"          also: {more}")
        for p in global_problems:
            click.echo(f"TAMPERED  {p}")
        click.echo(
            f"{len(jobs)} job(s) checked, {len(tampered)} tampered"
            + (f", {len(global_problems)} problem(s) in the global commits" if global_problems else "")
        )
    sys.exit(1 if tampered or global_problems else 0)


@audit_log.command("show")
@click.argument("job_id")
def show_command(job_id: str) -> None:
    """Print the trail of JOB_ID, one JSON object per event."""
    from aletheia.storage.audit_log import iter_event_lines

    log = _audit_log()
    entries = log.entries(job_id)
    if not entries and not _job_exists(log.engine, job_id):
        click.echo(f"aletheia: no job {job_id}", err=True)
        sys.exit(2)
    for line in iter_event_lines(entries):
        click.echo(line)
    for commit in log.commits(job_id):
        click.echo(json.dumps({"merkle_commit": {"root": commit.root, "prior": commit.prior,
                                                  "events": commit.event_count}}))  # fmt: skip


@audit_log.command("commit")
def commit_command() -> None:
    """Commit the job roots not yet covered into a new global root now (beat does it hourly)."""
    info = _audit_log().commit_global()
    if info is None:
        click.echo("nothing to commit: every job commit is covered")
        return
    click.echo(f"global commit {info.id}: root {info.root} over {info.event_count} job commit(s)")


@click.command("replay")
@click.argument("job_id")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def replay_command(job_id: str, as_json: bool) -> None:
    """Recompute every verdict of JOB_ID from its stored evidence with the current logic and list
    the differences: exit 0 none, 1 some. A claim or claims-text job: every excerpt judgement in
    its audit trail judged again by the rules judge."""
    from aletheia.core.errors import JobNotFound
    from aletheia.pipeline.audit.replay import job_kind, replay_job
    from aletheia.pipeline.jobs.kinds import JobKind

    engine = _engine()
    try:
        # A claim job or a claims-text job has no verdict rows: it is replayed from its trail.
        if job_kind(engine, job_id) in (JobKind.CLAIM, JobKind.CLAIMS_TEXT):
            _replay_claims(engine, job_id, as_json)
        report = replay_job(engine, job_id)
    except JobNotFound:
        click.echo(f"aletheia: no job {job_id}", err=True)
        sys.exit(2)
    _report_replay(
        as_json,
        report.as_json(),
        [f"{d.describe()}  (stored under logic {d.stored_logic_version})" for d in report.differences],
        report.not_replayable,
        f"{report.replayed} verdict(s) replayed under logic {report.logic_version}: "
        f"{report.same} the same, {len(report.differences)} different",
    )


def _replay_claims(engine: Any, job_id: str, as_json: bool) -> NoReturn:
    from aletheia.core.claim_judge import JUDGE_NAME
    from aletheia.pipeline.audit.replay import replay_claim_job

    report = replay_claim_job(engine, job_id)
    _report_replay(
        as_json,
        {"job_id": job_id, "judge": JUDGE_NAME, **report.as_json()},
        [diff.describe() for diff in report.differences],
        report.not_replayable,
        f"{report.judged} excerpt judgement(s) replayed under {JUDGE_NAME}: {report.same} the same,"
        f" {len(report.differences)} different; {report.decisions_checked} claim decision(s) checked",
    )


def _report_replay(
    as_json: bool, document: dict[str, Any], differences: list[str], skipped: list[str], summary: str
) -> NoReturn:
    """A replay's result, as JSON or as one line a difference, one a skipped entry and the summary;
    then the exit: 0 when nothing differs, 1 otherwise."""
    if as_json:
        click.echo(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        for difference in differences:
            click.echo(f"DIFFERS  {difference}")
        for note in skipped:
            click.echo(f"skipped  {note}")
        click.echo(summary)
    sys.exit(1 if differences else 0)


COMMANDS = (audit_log, replay_command)
