"""CLI start-up: how long `aletheia status JOB` and `aletheia report JOB` take, whole process.

    python bench/cli_startup.py [--runs 15] [--tree DIR ...] [--bytecode]
                                [--database-url URL --job ID] [--out bench/out/cli_startup.json]

Each command is started `--runs` times after one warm-up run that is not counted, and timed from
outside (start to exit, the interpreter's start-up and shut-down included): wall seconds from a
monotonic clock, CPU seconds (user + system) from the operating system's accounting of the
finished child. Min, median and max are printed; quote the median.

Without `--job`, a job is made first in a new embedded database (SQLite in a temporary data
directory): `aletheia submit examples/sample.bib` (10 references), offline, run in process. With
`--database-url` (PostgreSQL, say) and `--job`, an existing job is read there instead.

`--tree DIR` times another checkout of the code (the previous commit, say: `git worktree add
/tmp/before HEAD~1`, or `git archive HEAD~1 | tar -x -C /tmp/before`): its role folders go first
on `PYTHONPATH`, so the same console script runs that code; `--tree .` is this checkout. Given more
than once, the trees' runs alternate (A B A B ...), so that a machine whose load drifts during the
call weighs on each alike; each tree has its own job and database.

Python compiles a module's source at every start when its bytecode cannot be cached (with
`PYTHONDONTWRITEBYTECODE` set, as in the development containers: Aletheia's own modules are then
compiled each time, the installed packages' are not). `--bytecode` caches it in a temporary folder
(`PYTHONPYCACHEPREFIX`; the warm-up run writes it), as an installed wheel has it.
Figures: docs/benchmarks.md, "CLI start-up".
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "examples" / "sample.bib"
ROLE_FOLDERS = ("core", "config", "sources", "storage", "pipeline", "workers", "producers")
COMMANDS = {
    "aletheia status JOB": ["status", "{job}"],
    "aletheia report JOB --format json": ["report", "{job}", "--format", "json"],
    "aletheia report JOB": ["report", "{job}"],
    "aletheia status --help": ["status", "--help"],
}


@dataclass
class Tree:
    """One checkout of the code under test, with its own data directory and job."""

    label: str
    env: dict[str, str]
    job: str = ""
    walls: dict[str, list[float]] = field(default_factory=dict)
    cpus: dict[str, list[float]] = field(default_factory=dict)
    codes: dict[str, set[int]] = field(default_factory=dict)


def command_line() -> list[str]:
    """The console script beside this interpreter (what a user runs), else `python -m`."""
    script = Path(sys.executable).parent / "aletheia"
    if script.is_file():
        return [str(script)]
    found = shutil.which("aletheia")
    return [found] if found else [sys.executable, "-m", "aletheia.producers"]


def environment(
    data_dir: Path, database_url: str | None, tree: Path | None, pycache: Path | None
) -> dict[str, str]:
    env = {**os.environ, "ALETHEIA_DATA_DIR": str(data_dir), "ALETHEIA_OFFLINE": "true"}
    env.pop("ALETHEIA_BROKER_URL", None)
    if database_url:
        env["ALETHEIA_DATABASE_URL"] = database_url
    else:
        env.pop("ALETHEIA_DATABASE_URL", None)
    if tree is not None and tree != REPO:
        folders = [str(tree / name) for name in ROLE_FOLDERS]
        env["PYTHONPATH"] = os.pathsep.join([*folders, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def one_run(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds of one whole process, and its exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def spread(values: list[float]) -> dict[str, float]:
    return {
        "min": round(min(values), 3),
        "median": round(statistics.median(values), 3),
        "max": round(max(values), 3),
    }


def make_job(cli: list[str], env: dict[str, str], cwd: Path) -> str:
    proc = subprocess.run([*cli, "submit", str(SAMPLE)], env=env, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"`aletheia submit` failed (exit {proc.returncode}):\n{proc.stderr.strip()}")
    return proc.stdout.strip().splitlines()[-1]


def measure(trees: list[Tree], cli: list[str], cwd: Path, runs: int) -> None:
    for name, template in COMMANDS.items():
        for tree in trees:
            argv = [*cli, *(arg.format(job=tree.job) for arg in template)]
            one_run(argv, tree.env, cwd)  # warm-up: the file system's caches, not counted
            tree.walls[name], tree.cpus[name], tree.codes[name] = [], [], set()
        for _ in range(runs):
            for tree in trees:  # alternating: A B A B ...
                argv = [*cli, *(arg.format(job=tree.job) for arg in template)]
                wall, cpu, code = one_run(argv, tree.env, cwd)
                tree.walls[name].append(wall)
                tree.cpus[name].append(cpu)
                tree.codes[name].add(code)


def _result(trees: list[Tree], database_url: str | None, bytecode: bool, runs: int) -> dict[str, Any]:
    """The figures of every tree: each command's wall and CPU seconds (median, min, max), exit codes."""
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{os.cpu_count()} CPUs ({platform.processor() or platform.machine()}), "
        f"Python {platform.python_version()}",
        "database": "given" if database_url else "new SQLite (embedded default)",
        "bytecode": "cached" if bytecode else "as the environment has it",
        "runs": runs,
        "trees": {
            tree.label: {
                name: {
                    "wall_s": spread(tree.walls[name]),
                    "cpu_s": spread(tree.cpus[name]),
                    "exit_codes": sorted(tree.codes[name]),
                }
                for name in COMMANDS
            }
            for tree in trees
        },
    }


def _print_result(result: dict[str, Any], runs: int) -> None:
    print(f"{result['date']}  {result['machine']}  {runs} runs each  bytecode {result['bytecode']}")
    for label, figures in result["trees"].items():
        print(f"\ntree {label}")
        print(f"{'command':36} {'wall median (min-max) s':>26} {'cpu median (min-max) s':>26}  exit")
        for name, fig in figures.items():
            wall, cpu = fig["wall_s"], fig["cpu_s"]
            print(
                f"{name:36} {wall['median']:>10.3f} ({wall['min']:.3f}-{wall['max']:.3f})"
                f" {cpu['median']:>10.3f} ({cpu['min']:.3f}-{cpu['max']:.3f})  {fig['exit_codes']}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--tree",
        type=Path,
        action="append",
        help="Time this checkout of the code (PYTHONPATH); more than one: alternately. Default: this one.",
    )
    parser.add_argument("--bytecode", action="store_true", help="Cache the bytecode (in a temporary folder).")
    parser.add_argument(
        "--database-url", help="An existing database (give --job too); default: a new SQLite."
    )
    parser.add_argument("--job", help="An existing job's id; default: a new job over examples/sample.bib.")
    parser.add_argument("--out", type=Path, help="Also write the figures here as JSON.")
    args = parser.parse_args()
    if args.job and not args.database_url:
        parser.error("--job reads an existing database: give --database-url too")

    cli = command_line()
    folders = [path.resolve() for path in (args.tree or [REPO])]
    with tempfile.TemporaryDirectory(prefix="aletheia-cli-startup-") as tmp:
        cwd = Path(tmp)
        trees = []
        for n, folder in enumerate(folders):
            pycache = cwd / f"pycache{n}" if args.bytecode else None
            env = environment(cwd / f"data{n}", args.database_url, folder, pycache)
            trees.append(Tree(label=str(folder), env=env))
        for tree in trees:
            tree.job = args.job or make_job(cli, tree.env, cwd)
        measure(trees, cli, cwd, args.runs)

    result = _result(trees, args.database_url, args.bytecode, args.runs)
    _print_result(result, args.runs)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
