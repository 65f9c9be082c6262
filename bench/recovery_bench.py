"""Recovery benchmark (issue 33): how long a job takes to finish after PostgreSQL or Redis came back.

    python bench/recovery_bench.py [--refs 200] [--runs 2] [--scenarios baseline pg10 pg30 redis]
                                   [--out bench/out/recovery.json]

Each run is one bibliography job of `--refs` references on real Celery workers (retrieval: 4
threads; control, parsing, evidence and writer: one process of 2 threads), beat running, every
setting at its default (lease 120 s, re-drive every 30 s, visibility timeout 3,600 s), over a Redis
and a PostgreSQL of its own (a private `redis-server` without persistence and a private cluster,
on free ports) and the loopback simulator with 30 ms of latency per request, as
tests/integration/test_recovery.py runs them. After the first 30 verdicts:

- `baseline`: nothing happens;
- `pg10`, `pg30`: PostgreSQL is stopped (`pg_ctl stop -m fast`) and started again 10 s / 30 s later;
- `redis`: Redis is killed with SIGKILL and started again, empty, 2 s later (a worker that died on
  the lost connection is started again, as a supervisor would).

Measured: the job's wall time from submit to done, and from the service's return (the restart) to
done; how soon the work moved again (the first verdict decided after the return; for Redis, when
the re-drive that found its data lost ran); the items re-driven. Every run is checked: the job
done, one verdict per reference. Compare `after_return_s` with the baseline's pace for the items
still unsettled at the fault (`unsettled_at_fault`): the rest is what the fault cost.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.integration.job_checks import wait_for  # noqa: E402 - the root is on the path now
from tests.integration.private_postgres import PrivatePostgres  # noqa: E402 - the root is on the path now
from tests.integration.queue_stack import PrivateRedis, Stack, bibtex_for, make_universe, stack_env  # noqa: E402

FIRST_VERDICTS = 30


class Database:
    """Reads the job's progress; tolerates the database being away."""

    def __init__(self, url: str) -> None:
        from sqlalchemy import create_engine

        self.engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"), pool_pre_ping=True)

    def scalar(self, query: str, **params: Any) -> Any:
        from sqlalchemy import text

        try:
            with self.engine.connect() as conn:
                return conn.execute(text(query), params).scalar()
        except Exception:  # PostgreSQL stopped on purpose
            return None

    def close(self) -> None:
        self.engine.dispose()


def one_run(
    scenario: str,
    refs: int,
    postgres: PrivatePostgres,
    sim_env: dict[str, str],
    tmp: Path,
    *,
    root_kept: bool = False,
) -> dict[str, Any]:
    workdir = tmp / f"{scenario}-{uuid.uuid4().hex[:6]}"
    workdir.mkdir()
    redis = PrivateRedis(workdir)
    redis.start()
    database_url = postgres.create_database(f"recovery_{uuid.uuid4().hex[:8]}")
    env = stack_env(
        broker_url=redis.url, database_url=database_url, data_dir=workdir / "data", simulator_env=sim_env
    )
    stack = Stack(env=env, workdir=workdir)
    db = Database(database_url)
    pools = {"retrieval": ["retrieval"], "control": ["control", "parsing", "evidence", "writer"]}
    try:
        _start_service(stack, pools)
        bib = workdir / "refs.bib"
        bib.write_text(bibtex_for(make_universe(refs, seed=f"r{scenario}")))
        submitted = time.monotonic()
        job_id = stack.cli("submit", str(bib)).stdout.strip()

        def done_items() -> int:
            return int(
                db.scalar("SELECT count(*) FROM items WHERE job_id=:j AND status='done'", j=job_id) or 0
            )

        wait_for(lambda: done_items() >= FIRST_VERDICTS, 300, "the first verdicts", step=0.2)
        back, back_at = _inject_fault(scenario, postgres, redis, stack, pools)
        pending_at_fault = refs - done_items()
        wait_for(
            lambda: db.scalar("SELECT status FROM jobs WHERE id=:j", j=job_id) == "done",
            900,
            "the job",
            step=0.2,
        )
        finished = time.monotonic()
        _assert_one_verdict_each(db, job_id, refs, scenario)
        redriven, first_verdict, redrive_at = _recovery(db, job_id, workdir, back_at)
        return {
            "logs": str(workdir) if root_kept else None,
            "scenario": scenario,
            "refs": refs,
            "wall_s": round(finished - submitted, 1),
            "after_return_s": round(finished - back, 1) if back is not None else None,
            "unsettled_at_fault": pending_at_fault,
            "first_verdict_after_return_s": _since(back_at, first_verdict),
            "redrive_after_return_s": _since(back_at, redrive_at),
            "items_redriven": sum(int(r.get("items", 0)) for r in redriven),
        }
    finally:
        db.close()
        stack.stop()
        redis.kill()


def _start_service(stack: Stack, pools: dict[str, list[str]]) -> None:
    """The retrieval and control workers (and their beat), ready before the job is submitted."""
    stack.start_worker("retrieval", pools["retrieval"], concurrency=4)
    stack.start_worker("control", pools["control"], concurrency=2)
    stack.wait_for_workers(["retrieval", "control"])
    stack.start_beat()


def _inject_fault(
    scenario: str, postgres: PrivatePostgres, redis: PrivateRedis, stack: Stack, pools: dict[str, list[str]]
) -> tuple[float | None, datetime | None]:
    """The scenario's fault: PostgreSQL down for `pgN` seconds, or Redis killed and restarted (its
    data lost); when the service was back (monotonic, and as a time), None without a fault."""
    if scenario.startswith("pg"):
        postgres.stop()
        time.sleep(float(scenario[2:]))
        postgres.start()
        return time.monotonic(), datetime.now(UTC)
    if scenario == "redis":
        redis.kill()
        time.sleep(2.0)
        redis.start()
        back, back_at = time.monotonic(), datetime.now(UTC)
        time.sleep(3.0)
        stack.restart_exited(pools)
        return back, back_at
    return None, None


def _assert_one_verdict_each(db: Database, job_id: str, refs: int, scenario: str) -> None:
    verdicts = db.scalar(
        "SELECT count(*) FROM (SELECT item_id FROM verdicts WHERE job_id=:j GROUP BY item_id "
        "HAVING count(*) = 1) once",
        j=job_id,
    )
    assert verdicts == refs, f"{scenario}: {verdicts} items with exactly one verdict of {refs}"


def _recovery(
    db: Database, job_id: str, workdir: Path, back_at: datetime | None
) -> tuple[list[dict[str, Any]], Any, datetime | None]:
    """How soon the work moved again: the re-drives the control worker logged, the first verdict
    decided after the service's return, and (Redis) the re-drive that found the broker's data lost."""
    control_log = (workdir / "control.log").read_text(errors="replace")
    redriven = [_json(line) for line in control_log.splitlines() if "re-drove unfinished work" in line]
    first_verdict = (
        db.scalar(
            "SELECT min(decided_at) FROM verdicts WHERE job_id=:j AND decided_at > :t",
            j=job_id,
            t=back_at,
        )
        if back_at is not None
        else None
    )
    lost = [r for r in redriven if r.get("broker_lost") and back_at is not None]
    redrive_at = datetime.fromisoformat(lost[0]["ts"]) if lost else None
    return redriven, first_verdict, redrive_at


def _since(start: datetime | None, end: datetime | None) -> float | None:
    return round((end - start).total_seconds(), 1) if start is not None and end is not None else None


def _json(line: str) -> dict[str, Any]:
    try:
        found = json.loads(line)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--refs", type=int, default=200)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--scenarios", nargs="+", default=["baseline", "pg10", "pg30", "redis"])
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "recovery.json")
    parser.add_argument("--keep", type=Path, help="keep every run's logs in this folder")
    args = parser.parse_args()
    for scenario in args.scenarios:
        if scenario not in {"baseline", "pg10", "pg30", "redis"}:
            parser.error(f"unknown scenario {scenario!r} (baseline, pg10, pg30, redis)")

    from aletheia.sources.simulator import SimulatorConfig
    from aletheia.sources.simulator.server import SimulatorServer
    from aletheia.sources.simulator.universe import Universe

    works = [w for s in args.scenarios for w in make_universe(args.refs, seed=f"r{s}")]
    config = SimulatorConfig.unlimited().merged(
        {"sources": {s: {"latency_ms": 30} for s in ("crossref", "openalex", "semantic_scholar")}}
    )
    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "load_at_start": os.getloadavg()},
        "date": datetime.now(UTC).isoformat(),
        "runs": [],
    }
    postgres = PrivatePostgres()
    postgres.init()
    postgres.start()
    try:
        with (
            SimulatorServer(Universe.from_records(works), config) as sim,
            tempfile.TemporaryDirectory(prefix="aletheia-recovery-") as tmp,
        ):
            root = Path(tmp) if args.keep is None else args.keep
            root.mkdir(parents=True, exist_ok=True)
            for _ in range(args.runs):
                for scenario in args.scenarios:
                    row = one_run(
                        scenario, args.refs, postgres, sim.env(), root, root_kept=args.keep is not None
                    )
                    print(json.dumps(row), flush=True)
                    results["runs"].append(row)
    finally:
        postgres.remove()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
