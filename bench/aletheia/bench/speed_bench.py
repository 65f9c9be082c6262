"""Issue 4, speed: `aletheia verify` on a generated N-entry BibTeX file against an unthrottled
simulator, the pipeline pinned to one core. Figures: references per second (wall), CPU seconds,
and the peak resident memory of the `aletheia verify` process (ru_maxrss of the child), for
several N to show whether memory grows with the input."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from aletheia.bench.common import SimulatorProcess, machine
from aletheia.bench.synthetic import citation_bibtex, generate
from aletheia.sources.simulator import SimulatorConfig, universe_from_records


def _child_env(sim: SimulatorProcess, data_dir: Path) -> dict[str, str]:
    fast = json.dumps({"rate": 100000, "burst": 1000, "concurrency": 64, "search_rate": 100000})
    env = {
        **os.environ,
        **sim.env(),
        "ALETHEIA_DATA_DIR": str(data_dir),
        "ALETHEIA_MAILTO": "bench@example.org",
    }
    for name in ("CROSSREF", "OPENALEX", "SEMANTIC_SCHOLAR", "ARXIV", "PUBMED"):
        env[f"ALETHEIA_{name}_LIMITS"] = fast
    return env


def run_one(n: int, *, seed: int = 4, cpu: int | None = 0, concurrency: int = 64) -> dict[str, Any]:
    works = generate(n, doi_share=0.7, arxiv_share=0.2, seed=seed)
    tmp = Path(tempfile.mkdtemp(prefix="aletheia-speed-"))
    try:
        universe_path = tmp / "universe.jsonl"
        universe_from_records([w.record for w in works], universe_path)
        bib = tmp / f"refs-{n}.bib"
        with bib.open("w", encoding="utf-8") as fh:
            for i, w in enumerate(works):
                fh.write(citation_bibtex(w, f"ref{i}"))
        del works
        with SimulatorProcess(universe_path, SimulatorConfig.unlimited()) as sim:
            script = Path(sys.executable).with_name("aletheia")
            aletheia = str(script) if script.exists() else shutil.which("aletheia") or "aletheia"
            cmd = [
                aletheia,
                "verify",
                str(bib),
                "--format",
                "jsonl",
                "-o",
                str(tmp / "out.jsonl"),
                "--concurrency",
                str(concurrency),
            ]
            if cpu is not None and shutil.which("taskset"):
                cmd = ["taskset", "-c", str(cpu), *cmd]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            proc, peak_kib = _run_sampling_peak(cmd, env=_child_env(sim, tmp / "data"))
            elapsed = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            stats = sim.stats()
        lines = (
            sum(1 for _ in (tmp / "out.jsonl").open(encoding="utf-8")) if (tmp / "out.jsonl").exists() else 0
        )
        return {
            "references": n,
            "exit_code": proc.returncode,
            "stderr_tail": proc.stderr[-500:],
            "output_lines": lines,
            "wall_seconds": round(elapsed, 2),
            "refs_per_second": round(n / elapsed, 1),
            "cpu_seconds": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 2),
            "peak_rss_mib": round(peak_kib / 1024, 1),
            "simulator_requests": stats["totals"]["requests"],
            "pinned_cpu": cpu,
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run_sampling_peak(
    cmd: list[str], *, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run `cmd` and return its peak resident memory (KiB) from `VmHWM` in /proc, read until it
    exits. Not `ru_maxrss`: Linux carries a process's high-water mark across fork and exec, so the
    child would report this (large) benchmark process's memory as its own."""
    import tempfile as _tempfile

    with _tempfile.TemporaryFile("w+") as out, _tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(cmd, env=env, stdout=out, stderr=err, text=True)
        peak = 0
        status = Path(f"/proc/{child.pid}/status")
        while child.poll() is None:
            with contextlib.suppress(OSError, ValueError, IndexError):
                for line in status.read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
            time.sleep(0.1)
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(cmd, child.returncode, out.read(), err.read())
    return done, peak


def run(*, sizes: tuple[int, ...] = (10_000, 100_000), cpu: int | None = 0) -> dict[str, Any]:
    """Each size in its own Python process, so that ru_maxrss is that size's alone."""
    results = []
    for n in sizes:
        code = (
            "import json,sys; from aletheia.bench.speed_bench import run_one; "
            f"print(json.dumps(run_one({n}, cpu={cpu!r})))"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {"benchmark": "speed", "machine": machine(), "runs": results}


def format_report(f: dict[str, Any]) -> str:
    lines = ["references  wall s   refs/s  cpu s  peak RSS MiB  exit"]
    for r in f["runs"]:
        lines.append(
            f"{r['references']:>10}  {r['wall_seconds']:>6}  {r['refs_per_second']:>7}  "
            f"{r['cpu_seconds']:>5}  {r['peak_rss_mib']:>12}  {r['exit_code']}"
        )
    return "\n".join(lines)
