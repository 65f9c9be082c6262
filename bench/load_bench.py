"""Load: many jobs submitted at once through the queue, all of them completing, memory bounded,
the global source limits holding across worker processes.

    python bench/load_bench.py [--jobs 50] [--refs-per-job 400] [--retrieval-processes 2]
                               [--limits documented --sliding-window --jitter-ms 50]
                               [--out bench/out/load.json]

Runs on a Redis and a PostgreSQL of its own (a private `redis-server` and a private cluster on free
ports; nothing else on the machine is touched), with the sources served by the loopback simulator,
which enforces per-source rates and concurrency caps and answers 429 beyond them. The clients are
configured to 90% of those rates, shared through Redis by every retrieval process.

Measured: wall time from the first submit to the last job done; throughput; per-job latency;
exact counts of items, verdicts and artifacts (none lost, none twice); the simulator's 429s and
peak in-flight requests per source against the caps; the peak resident memory of each worker
process tree, of Redis, and the database size, sampled every second.

Issue 11: `--sliding-window` makes the simulator count each rate over a sliding window, as the
services do, after delaying every request by up to `--jitter-ms` of network jitter; the clients
are then given the simulator's own rates (their GCRA pacing, `gcra.pace`, keeps the margin), and
the report adds the bound: the requests made of each source divided by its rate, the busiest one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.integration.private_postgres import PrivatePostgres  # noqa: E402 - the repository root is on the path now
from tests.integration.queue_stack import PrivateRedis, Stack, bibtex_for, make_universe, stack_env  # noqa: E402

# What the simulator enforces (scaled up from the documented limits so that 20,000 references fit
# in minutes, not hours), and what the clients are held to: 90% of the rate, the same caps.
LIMITS: dict[str, tuple[dict[str, dict[str, Any]], dict[str, str]]] = {
    "scaled": (
        {
            "crossref": {"rate": 60, "burst": 20, "concurrency": 6, "search_rate": 20, "search_burst": 5},
            "openalex": {"rate": 60, "burst": 20, "concurrency": 8},
            "semantic_scholar": {"rate": 20, "burst": 5, "concurrency": 4},
        },
        {
            "crossref_limits": json.dumps({"rate": 54, "burst": 10, "concurrency": 6, "search_rate": 18}),
            "openalex_limits": json.dumps({"rate": 54, "burst": 10, "concurrency": 8}),
            "semantic_scholar_limits": json.dumps({"rate": 18, "burst": 3, "concurrency": 4}),
        },
    ),
    # The documented public limits (Crossref 10/s, list queries 3/s, 3 in flight; OpenAlex 10/s):
    # here the limits, not the machine, bound the throughput, and any overshoot is a 429.
    "documented": (
        {
            "crossref": {"rate": 10, "burst": 10, "concurrency": 3, "search_rate": 3, "search_burst": 3},
            "openalex": {"rate": 10, "burst": 10, "concurrency": 5},
            "semantic_scholar": {"rate": 1, "burst": 1, "concurrency": 1},
        },
        {
            "crossref_limits": json.dumps({"rate": 9, "burst": 5, "concurrency": 3, "search_rate": 2.7}),
            "openalex_limits": json.dumps({"rate": 9, "burst": 5, "concurrency": 5}),
            "semantic_scholar_limits": json.dumps({"rate": 0.9, "burst": 1, "concurrency": 1}),
        },
    ),
}


def configure(env: dict[str, str]) -> None:
    """This process becomes a producer of the stack (its settings are the stack's)."""
    for key in [k for k in os.environ if k.startswith("ALETHEIA_")]:
        del os.environ[key]
    os.environ.update({k: v for k, v in env.items() if k.startswith("ALETHEIA_")})
    from aletheia.config.settings import reset_settings_cache

    reset_settings_cache()


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(parent, []).append(int(entry.name))
    return tree


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_kib(pid: int, tree: dict[int, list[int]]) -> int:
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        total += _rss_kib(current)
        todo.extend(tree.get(current, []))
    return total


class Sampler(threading.Thread):
    """Peak RSS per worker tree and of Redis, Redis used_memory and queue length, every second."""

    def __init__(self, stack: Stack, redis_pid: int, redis_url: str) -> None:
        super().__init__(daemon=True)
        self.stack, self.redis_pid, self.redis_url = stack, redis_pid, redis_url
        self.peak_rss_mib: dict[str, float] = {}
        self.peak_redis_used_mib = 0.0
        self.peak_retrieval_queue = 0
        self.samples: list[dict[str, Any]] = []
        self.stop_event = threading.Event()

    def run(self) -> None:
        import redis

        client = redis.Redis.from_url(self.redis_url)
        started = time.monotonic()
        while not self.stop_event.is_set():
            tree = _children()
            row: dict[str, Any] = {"t": round(time.monotonic() - started, 1)}
            for name, process in list(self.stack.workers.items()):
                mib = tree_rss_kib(process.pid, tree) / 1024
                row[name] = round(mib, 1)
                self.peak_rss_mib[name] = max(self.peak_rss_mib.get(name, 0.0), mib)
            redis_mib = _rss_kib(self.redis_pid) / 1024
            self.peak_rss_mib["redis"] = max(self.peak_rss_mib.get("redis", 0.0), redis_mib)
            try:
                used = int(client.info("memory")["used_memory"]) / (1024 * 1024)
                queued = int(client.llen("retrieval"))
            except redis.RedisError:
                used, queued = 0.0, 0
            self.peak_redis_used_mib = max(self.peak_redis_used_mib, used)
            self.peak_retrieval_queue = max(self.peak_retrieval_queue, queued)
            row["redis_used"] = round(used, 1)
            row["retrieval_queue"] = queued
            self.samples.append(row)
            self.stop_event.wait(1.0)
        client.close()


def sql(database_url: str, query: str) -> list[Any]:
    from sqlalchemy import create_engine, text

    engine = create_engine(database_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(query)).all())
    finally:
        engine.dispose()


# Fabricated references in each job's bibliography (the rest are works of the universe).
FABRICATED_PER_JOB = 2


def run(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    from aletheia.sources.simulator import SimulatorConfig
    from aletheia.sources.simulator.server import SimulatorServer
    from aletheia.sources.simulator.universe import Universe

    sim_limits, client_limits = LIMITS[args.limits]
    if args.sliding_window:
        patch = {"limit_mode": "sliding", "arrival_jitter_ms": args.jitter_ms}
        sim_limits = {name: limits | patch for name, limits in sim_limits.items()}
        client_limits = paced_client_limits(sim_limits)
    works = make_universe(args.jobs * (args.refs_per_job - FABRICATED_PER_JOB), seed="L")
    redis = PrivateRedis(tmp)
    redis.start()
    postgres = PrivatePostgres()
    postgres.init()
    postgres.start()
    assert redis.process is not None
    try:
        database_url = postgres.create_database("aletheia_load")
        config = SimulatorConfig.unlimited().merged({"sources": sim_limits})
        with SimulatorServer(Universe.from_records(works), config) as sim:
            env = stack_env(
                broker_url=redis.url, database_url=database_url, data_dir=tmp / "data",
                simulator_env=sim.env(), **client_limits,
            )  # fmt: skip
            configure(env)
            stack = Stack(env=env, workdir=tmp)
            try:
                _start_workers(stack, args)
                sampler = Sampler(stack, redis.process.pid, redis.url)
                sampler.start()
                paths = _write_jobs(tmp, works, args)
                sim.reset()
                timing = _submit_and_wait(paths, database_url, args.timeout)
                sampler.stop_event.set()
                sampler.join()
                stats = sim.stats()["sources"]
                rows = _database_rows(database_url)
            finally:
                stack.stop()
    finally:
        redis.kill()
        postgres.remove()
    return _figures(args, sim_limits, stats, timing, rows, sampler)


def _start_workers(stack: Stack, args: argparse.Namespace) -> None:
    names = []
    for n in range(args.retrieval_processes):
        stack.start_worker(f"retrieval{n}", ["retrieval"], concurrency=args.threads)
        names.append(f"retrieval{n}")
    stack.start_worker("control", ["control", "parsing", "evidence"], concurrency=2)
    stack.start_worker("writer", ["writer"], concurrency=1)
    stack.wait_for_workers([*names, "control", "writer"])


def _write_jobs(tmp: Path, works: list[Any], args: argparse.Namespace) -> list[Path]:
    """One bibliography a job: its share of the universe's works, and the fabricated references."""
    per_job = args.refs_per_job - FABRICATED_PER_JOB
    paths = []
    for j in range(args.jobs):
        path = tmp / f"job{j}.bib"
        path.write_text(bibtex_for(works[j * per_job : (j + 1) * per_job], fabricated=FABRICATED_PER_JOB))
        paths.append(path)
    return paths


def _submit_and_wait(paths: list[Path], database_url: str, timeout: float) -> dict[str, Any]:
    """Every job submitted at once, then waited for (up to `timeout` seconds): the seconds the
    submits and the whole run took, and the jobs still pending."""
    from aletheia.producers.client import AletheiaClient

    client = AletheiaClient()
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=10) as pool:  # "at once": 50 submits in parallel
        job_ids = list(pool.map(lambda p: client.submit([p]), paths))
    submitted = time.monotonic() - started
    pending = set(job_ids)
    deadline = started + timeout
    while pending and time.monotonic() < deadline:
        rows = sql(database_url, "SELECT id, status FROM jobs WHERE status IN ('done', 'failed')")
        pending -= {job_id for job_id, _status in rows}
        time.sleep(1.0)
    return {"submitted": submitted, "wall": time.monotonic() - started, "pending": pending}


def _database_rows(database_url: str) -> dict[str, Any]:
    """What the run left in the database: jobs and their latency, items, verdicts, artifacts."""
    latency = "extract(epoch FROM finished_at - created_at)"
    return {
        "jobs": sql(database_url, f"SELECT status, {latency} FROM jobs WHERE kind='bibliography'"),  # noqa: S608
        "items": sql(database_url, "SELECT count(*), count(DISTINCT (job_id, position)) FROM items")[0],
        "verdicts": sql(database_url, "SELECT count(*), count(DISTINCT item_id) FROM verdicts")[0],
        "by_verdict": dict(sql(database_url, "SELECT status, count(*) FROM verdicts GROUP BY status")),
        "artifacts": sql(database_url, "SELECT count(*), count(DISTINCT path) FROM artifacts")[0],
        "db_size": sql(database_url, "SELECT pg_database_size(current_database())")[0][0],
        "audit_events": sql(database_url, "SELECT count(*) FROM audit_events")[0][0],
    }


def _figures(
    args: argparse.Namespace,
    sim_limits: dict[str, dict[str, Any]],
    stats: dict[str, Any],
    timing: dict[str, Any],
    rows: dict[str, Any],
    sampler: Sampler,
) -> dict[str, Any]:
    total = args.jobs * args.refs_per_job
    wall, jobs = timing["wall"], rows["jobs"]
    latencies = sorted(float(seconds) for status, seconds in jobs if status == "done" and seconds is not None)
    return {
        "date": datetime.now(UTC).isoformat(),
        "machine": {"cpus": os.cpu_count()},
        "limits": args.limits,
        "jobs": args.jobs,
        "references": total,
        "retrieval_processes": args.retrieval_processes,
        "limit_mode": "sliding" if args.sliding_window else "bucket",
        "arrival_jitter_ms": args.jitter_ms if args.sliding_window else 0.0,
        "status_429_total": sum(st.get("status_429", 0) for st in stats.values()),
        "bound_s": bound_seconds(stats, sim_limits),
        "wall_over_bound": round(wall / max(bound_seconds(stats, sim_limits), 1e-9), 2),
        "threads_per_retrieval_process": args.threads,
        "all_done": not timing["pending"],
        "jobs_by_status": {s: sum(1 for st, _ in jobs if st == s) for s in {st for st, _ in jobs}},
        "submit_s": round(timing["submitted"], 2),
        "wall_s": round(wall, 1),
        "refs_per_s": round(total / wall, 1),
        "job_latency_s": {
            "min": round(latencies[0], 1),
            "median": round(statistics.median(latencies), 1),
            "p90": round(latencies[int(0.9 * (len(latencies) - 1))], 1),
            "max": round(latencies[-1], 1),
        }
        if latencies
        else None,
        "items": {"rows": rows["items"][0], "distinct": rows["items"][1]},
        "verdicts": {
            "rows": rows["verdicts"][0],
            "distinct_items": rows["verdicts"][1],
            "by_status": rows["by_verdict"],
        },
        "artifacts": {"rows": rows["artifacts"][0], "distinct_paths": rows["artifacts"][1]},
        "audit_events": rows["audit_events"],
        "sources": _source_figures(stats, sim_limits, wall),
        "peak_rss_mib": {k: round(v, 1) for k, v in sampler.peak_rss_mib.items()},
        "peak_redis_used_mib": round(sampler.peak_redis_used_mib, 1),
        "peak_retrieval_queue": sampler.peak_retrieval_queue,
        "database_mib": round(rows["db_size"] / (1024 * 1024), 1),
        "rss_timeline": sampler.samples[:: max(1, len(sampler.samples) // 60)],
    }


def _source_figures(
    stats: dict[str, Any], sim_limits: dict[str, dict[str, Any]], wall: float
) -> dict[str, dict[str, Any]]:
    return {
        name: {
            "requests": stats[name]["requests"],
            "by_kind": stats[name]["by_kind"],
            "status_429": stats[name]["status_429"],
            "max_in_flight": stats[name]["max_in_flight"],
            "cap": sim_limits.get(name, {}).get("concurrency"),
            "requests_per_s": round(stats[name]["requests"] / wall, 1),
            "rate_limit": sim_limits.get(name, {}).get("rate"),
            "search_rate_limit": sim_limits.get(name, {}).get("search_rate"),
        }
        for name in ("crossref", "openalex", "semantic_scholar")
    }


def paced_client_limits(sim_limits: dict[str, dict[str, Any]]) -> dict[str, str]:
    """The clients held to the simulator's own rates and caps, no burst: GCRA paces them below
    the rate by the jitter margin itself (`gcra.pace`)."""
    out: dict[str, str] = {}
    for name, limits in sim_limits.items():
        client: dict[str, Any] = {
            "rate": limits["rate"],
            "burst": limits["rate"],
            "concurrency": limits["concurrency"],
        }
        if "search_rate" in limits:
            client["search_rate"] = limits["search_rate"]
        out[f"{name}_limits"] = json.dumps(client)
    return out


def bound_seconds(stats: dict[str, Any], sim_limits: dict[str, dict[str, Any]]) -> float:
    """The bound of the requests made: each bucket's requests over its rate, the busiest bucket
    (Crossref's searches and list queries count against its search rate, as the simulator does)."""
    seconds = [0.0]
    for name, limits in sim_limits.items():
        st = stats.get(name, {})
        by_kind: dict[str, int] = st.get("by_kind", {})
        if "search_rate" in limits:
            searches = by_kind.get("search", 0)
            seconds.append(searches / limits["search_rate"])
            seconds.append((st.get("requests", 0) - searches) / limits["rate"])
        else:
            seconds.append(st.get("requests", 0) / limits["rate"])
    return round(max(seconds), 2)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--jobs", type=int, default=50)
    parser.add_argument("--refs-per-job", type=int, default=400)
    parser.add_argument("--retrieval-processes", type=int, default=2)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--limits", choices=sorted(LIMITS), default="scaled")
    parser.add_argument("--sliding-window", action="store_true", help="count rates over a sliding window")
    parser.add_argument("--jitter-ms", type=float, default=0.0, help="network jitter before counting")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "load.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="aletheia-load-") as tmp:
        result = run(args, Path(tmp))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "rss_timeline"}, indent=2, default=str))
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
