"""Counters per source, readable from any thread (the server runs in its own event loop thread)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from aletheia.sources.simulator.routes import SIM_ROUTES


@dataclass
class SourceCounters:
    requests: int = 0
    by_status: Counter[int] = field(default_factory=Counter)
    by_kind: Counter[str] = field(default_factory=Counter)
    rate_limited: int = 0  # 429s from the token bucket
    concurrency_limited: int = 0  # 429s from the in-flight cap
    faults: Counter[str] = field(default_factory=Counter)
    ids_requested: Counter[str] = field(default_factory=Counter)
    in_flight: int = 0
    max_in_flight: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "by_status": {str(code): n for code, n in sorted(self.by_status.items())},
            "by_kind": dict(sorted(self.by_kind.items())),
            "rate_limited": self.rate_limited,
            "concurrency_limited": self.concurrency_limited,
            "status_429": self.by_status.get(429, 0),
            "faults": dict(sorted(self.faults.items())),
            "faults_injected": sum(self.faults.values()),
            "ids_requested": dict(self.ids_requested),
            "in_flight": self.in_flight,
            "max_in_flight": self.max_in_flight,
        }


class SimulatorStats:
    """One `SourceCounters` per source, plus `_other` for paths no source serves."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sources: dict[str, SourceCounters] = {}
        self._started = time.time()
        self.reset()

    def reset(self) -> None:
        with self._lock:
            in_flight = {name: c.in_flight for name, c in self._sources.items()}
            # Every route's counters, read at each reset (a route added later counts from then).
            self._sources = {name: SourceCounters() for name in (*SIM_ROUTES, "_other")}
            for name, count in in_flight.items():
                self._sources[name].in_flight = count
            self._started = time.time()

    def begin(self, source: str, kind: str, ids: list[str]) -> None:
        with self._lock:
            counters = self._sources[source]
            counters.requests += 1
            counters.by_kind[kind] += 1
            counters.ids_requested.update(ids)

    def enter(self, source: str) -> int:
        """One more request in flight; returns how many are in flight now."""
        with self._lock:
            counters = self._sources[source]
            counters.in_flight += 1
            counters.max_in_flight = max(counters.max_in_flight, counters.in_flight)
            return counters.in_flight

    def leave(self, source: str) -> None:
        with self._lock:
            self._sources[source].in_flight -= 1

    def status(self, source: str, code: int) -> None:
        with self._lock:
            self._sources[source].by_status[code] += 1

    def limited(self, source: str, *, concurrency: bool) -> None:
        with self._lock:
            counters = self._sources[source]
            if concurrency:
                counters.concurrency_limited += 1
            else:
                counters.rate_limited += 1

    def fault(self, source: str, name: str) -> None:
        with self._lock:
            self._sources[source].faults[name] += 1

    def source(self, source: str) -> dict[str, Any]:
        with self._lock:
            return self._sources[source].as_dict()

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            sources = {name: c.as_dict() for name, c in self._sources.items()}
        totals = {
            "requests": sum(s["requests"] for s in sources.values()),
            "status_429": sum(s["status_429"] for s in sources.values()),
            "faults_injected": sum(s["faults_injected"] for s in sources.values()),
        }
        return {
            "since": self._started,
            "uptime_seconds": time.time() - self._started,
            "totals": totals,
            "sources": sources,
        }
