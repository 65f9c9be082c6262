"""What every benchmark needs: the machine, a simulator in its own process, a gateway to it."""

from __future__ import annotations

import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from aletheia.config import Settings
from aletheia.core.bibliography import InputProblem, parse_text
from aletheia.core.errors import AletheiaError
from aletheia.core.records import CitedReference
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.sources.base import RawCache
from aletheia.sources.cache import MemoryRawCache
from aletheia.sources.io_thread import IoThreadClient
from aletheia.sources.simulator import SimulatorConfig, env_for
from aletheia.sources.transport.figures import request_figures
from aletheia.sources.transport.ratelimit import LocalRateLimiter
from aletheia.sources.transport.user_agent import user_agent

# <repo>/../shared/data, where the benchmark data sets live (never copied into the repo).
SHARED_DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data"


class DataMissing(RuntimeError, AletheiaError):
    """The benchmark data (../shared/data) is not there."""


def machine() -> dict[str, Any]:
    """The machine a figure was measured on (cores, CPU model, RAM, Python)."""
    cpu = "unknown"
    mem_kb = 0
    try:
        with Path("/proc/cpuinfo").open(encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        with Path("/proc/meminfo").open(encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    mem_kb = int(line.split()[1])
                    break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "ram_gib": round(mem_kb / 1024 / 1024, 1),
        "python": platform.python_version(),
    }


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class SimulatorProcess:
    """The simulator served by a child process, so that it does not share the GIL (nor a core)
    with the pipeline being measured. Counters are read over HTTP (`/_sim/stats`)."""

    def __init__(self, universe_path: Path, config: SimulatorConfig) -> None:
        self.universe_path = universe_path
        self.config = config
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._proc: subprocess.Popen[bytes] | None = None
        self._config_file: Path | None = None

    def __enter__(self) -> SimulatorProcess:
        fd, name = tempfile.mkstemp(suffix=".json", prefix="aletheia-sim-config-")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(self.config.model_dump_json())
        self._config_file = Path(name)
        self._proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "aletheia.bench.simproc",
                str(self.universe_path),
                str(self.port),
                str(self._config_file),
            ],
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"the simulator exited with status {self._proc.returncode}")
            try:
                if httpx.get(f"{self.base_url}/_sim/health", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.__exit__(None, None, None)
        raise RuntimeError("the simulator did not start within 120 s")

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        if self._config_file is not None:
            self._config_file.unlink(missing_ok=True)

    def cpu_seconds(self) -> float:
        """User + system CPU time the simulator process has used so far (from /proc)."""
        if self._proc is None:
            return 0.0
        try:
            fields = (
                Path(f"/proc/{self._proc.pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
            )
        except OSError:
            return 0.0
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks

    def stats(self) -> dict[str, Any]:
        data: dict[str, Any] = httpx.get(f"{self.base_url}/_sim/stats", timeout=30).json()
        return data

    def reset(self) -> None:
        httpx.post(f"{self.base_url}/_sim/reset", timeout=30)

    def env(self) -> dict[str, str]:
        return env_for(self.base_url)


def simulator_settings(base_url: str, **overrides: Any) -> Settings:
    """Settings whose source URLs point at the simulator; no Redis, no cache directory shared
    with anything else."""
    urls = {name.removeprefix("ALETHEIA_").lower(): value for name, value in env_for(base_url).items()}
    values: dict[str, Any] = {"mailto": "bench@example.org", **urls, **overrides}
    return Settings(**values)


def unthrottled_limits() -> dict[str, Any]:
    """Client-side politeness lifted, for runs against `SimulatorConfig.unlimited()` whose
    figures are about accuracy or CPU, not about the sources' limits."""
    from aletheia.config.settings import SourceLimits

    fast = SourceLimits(rate=100_000, burst=1_000, concurrency=64, search_rate=100_000)
    return {
        f"{name}_limits": fast
        for name in (
            *("crossref", "openalex", "semantic_scholar", "arxiv", "pubmed", "dblp", "acl_anthology"),
            *("open_library", "google_books", "perseus", "ccel"),
        )
    }


@asynccontextmanager
async def simulated_gateway(
    settings: Settings, cache: RawCache | None = None, mirror: Any = None
) -> AsyncIterator[SourceGateway]:
    """A gateway as the runtime builds one, minus the SQLite cache and library (every answer is
    fetched, so the simulator's counters are the pipeline's real traffic); `cache` stands in for
    the SQLite raw cache when a second run of the same file is measured; `mirror`, a loaded
    `MirrorTier` (issue 32), is asked before the sources it copies."""
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=32)
    async with IoThreadClient(
        headers={"User-Agent": user_agent()}, timeout=settings.http_timeout, limits=limits
    ) as http:
        yield SourceGateway(settings, http, LocalRateLimiter(), cache=cache, mirror=mirror)


def through_the_engine(
    refs: list[CitedReference],
    settings: Settings,
    concurrency: int,
    *,
    requests: dict[str, Any] | None = None,
    cache: RawCache | None = None,
    mirror: Any = None,
) -> list[Any]:
    """Every reference through the engine against the simulated sources (the bench's run): a
    bibliography job whose steps run in this process (`verify.verify_references`, as `aletheia
    verify` and `aletheia fix`), on a store of the run's own (SQLite in a temporary folder: its
    rows are thrown away) and the simulated gateway (no raw cache nor library read: every answer
    is fetched). Outcomes in input order. `requests`, when given, receives the run's request
    figures (`gateway.request_figures`)."""
    from aletheia.pipeline.jobs.context import LoopThread
    from aletheia.pipeline.jobs.in_process import verify_references
    from aletheia.pipeline.runtime import Runtime
    from aletheia.storage.db import engine_for

    loop = LoopThread("aletheia-bench")
    opened = simulated_gateway(settings, cache, mirror)
    try:
        gateway = loop.run(opened.__aenter__())
        with tempfile.TemporaryDirectory(prefix="aletheia-bench-store-") as tmp:
            # No database URL: SQLite in the data folder (`Settings.sqlalchemy_url`).
            runtime = Runtime.open(settings.model_copy(update={"database_url": None, "data_dir": Path(tmp)}))
            try:
                run = verify_references(
                    runtime,
                    refs,
                    input_description={"bench": len(refs)},
                    concurrency=concurrency,
                    gateway=gateway,
                    runner=loop,
                )
            finally:
                engine_for(runtime.settings.sqlalchemy_url()).dispose()
        if requests is not None:
            stats = gateway.stats()
            requests.update(request_figures(stats, len(run.outcomes)))
            # Many titles a request (issue 23): batches sent, cut short, and what they proved.
            requests["title_batches"] = {
                name: {k: v for k, v in sorted(st.extra.items()) if k.startswith("title_batch")}
                for name, st in stats.items()
                if any(k.startswith("title_batch") for k in st.extra)
            }
        return run.outcomes
    finally:
        loop.run(opened.__aexit__(None, None, None))
        loop.close()


def requests_twice(
    refs: list[CitedReference], settings: Settings, concurrency: int
) -> tuple[list[Any], dict[str, Any], float]:
    """The run (cold: no cache, no library) with its request figures, then the same references
    again through a raw cache filled by a first pass (a second run of the same file, as
    `aletheia verify` does with its SQLite cache): `{"cold": ..., "second_run": ...}`, and the
    cold run's wall seconds."""
    cold: dict[str, Any] = {}
    started = time.perf_counter()
    outcomes = through_the_engine(refs, settings, concurrency, requests=cold)
    elapsed = time.perf_counter() - started
    cache = MemoryRawCache(ttl_seconds=3600, negative_ttl_seconds=3600, max_entries=1_000_000)
    through_the_engine(refs, settings, concurrency, cache=cache)
    second: dict[str, Any] = {}
    through_the_engine(refs, settings, concurrency, requests=second, cache=cache)
    return outcomes, {"cold": cold, "second_run": second}, elapsed


def requests_twice_against(
    records: list[dict[str, Any]], refs: list[CitedReference], concurrency: int, *, name: str
) -> tuple[list[Any], dict[str, Any], float]:
    """`requests_twice` against a simulator (no limits) serving `records`, written in a temporary
    folder named for the bench (`name`)."""
    from aletheia.sources.simulator import universe_from_records

    with tempfile.TemporaryDirectory(prefix=f"aletheia-bench-{name}-") as tmp:
        universe_path = Path(tmp) / f"{name}-universe.jsonl"
        universe_from_records(records, universe_path)
        with SimulatorProcess(universe_path, SimulatorConfig.unlimited()) as sim:
            settings = simulator_settings(sim.base_url, data_dir=Path(tmp), **unthrottled_limits())
            return requests_twice(refs, settings, concurrency)


def json_objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in a parsed response, outermost first (a recorded source answer nests
    its records at any depth)."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from json_objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from json_objects(value)


def percent(share: float | None) -> str:
    """A share as a table cell: "12.3%", or "—" when there was nothing to divide."""
    return "—" if share is None else f"{100 * share:.1f}%"


def format_requests(figures: dict[str, Any]) -> str:
    """One line per run: requests per reference, by kind and by source."""
    lines = []
    for run, f in figures.items():
        # Venue-registry requests (issue 21) count in the total like every other request.
        sources = ", ".join(
            f"{name} {s['total']} ({s['lookup']}/{s['batch']}/{s['search']}/{s.get('venue', 0)})"
            for name, s in f["by_source"].items()
            if s["total"]
        )
        kinds = f["by_kind"]
        lines.append(
            f"HTTP requests ({run}): {f['total']} = {f['per_reference']:.3f} per reference; "
            f"lookup {kinds['lookup']}, batch {kinds['batch']}, search {kinds['search']}, "
            f"venue {kinds.get('venue', 0)}; "
            f"by source (lookup/batch/search/venue): {sources or 'none'}"
        )
    return "\n".join(lines)


def parse_bibtex(text: str, origin: str) -> list[CitedReference]:
    refs: list[CitedReference] = []
    for item in parse_text(text, origin=origin):
        if isinstance(item, InputProblem):
            raise ValueError(f"benchmark input does not parse: {item.origin}:{item.line}: {item.message}")
        refs.append(item)
    return refs


def bibtex_escape(value: str) -> str:
    return value.replace("{", "").replace("}", "")


def bibtex_entry(key: str, entry_type: str, fields: Iterable[tuple[str, str | None]]) -> str:
    lines = [f"@{entry_type}{{{key},"]
    lines.extend(f"  {name} = {{{value}}}," for name, value in fields if value)
    lines.append("}")
    return "\n".join(lines) + "\n"


def dump(figures: dict[str, Any]) -> str:
    return json.dumps(figures, indent=2, sort_keys=False, default=str)


def disagreements(verdict: Any) -> str:
    """The fields a source contradicted, for a bench's list of flags: `name: cited=... found=... (source)`."""
    parts = []
    for name, ev in verdict.fields.items():
        if ev.agrees is False:
            source = ev.source.value if ev.source is not None else "?"
            parts.append(f"{name}: cited={ev.cited!r} found={ev.found!r} ({source})")
    return "; ".join(parts)
