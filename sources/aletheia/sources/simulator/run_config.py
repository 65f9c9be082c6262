"""The simulator's whole configuration: a seed and every route's knobs (`config.SourceSimConfig`),
each source's defaulting to its route's documented limits (`routes.SimRoute.documented`).

`SimulatorConfig()` is the documented public limits; `SimulatorConfig.unlimited()` turns every limit
off for fast tests; `merged` applies a `POST /_sim/config` patch. Apart from `config.py` (the knobs
of one source, which the routes' records hold) so that the route table imports no module that
imports it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from aletheia.sources.simulator.config import SimSource, SourceSimConfig
from aletheia.sources.simulator.routes import SIM_ROUTES

__all__ = ["SimulatorConfig"]


def _documented() -> dict[SimSource, SourceSimConfig]:
    """Every route's documented limits (its record's `documented`)."""
    return {name: route.documented.model_copy(deep=True) for name, route in SIM_ROUTES.items()}


class SimulatorConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed: int = 0
    sources: dict[SimSource, SourceSimConfig] = Field(default_factory=_documented)
    # Papers Semantic Scholar holds beyond the universe, generated in the field's phrases and
    # matched by its bulk search (`s2_corpus`): 0, the universe alone.
    semantic_scholar_corpus: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _every_source(self) -> SimulatorConfig:
        unknown = sorted(set(self.sources) - set(SIM_ROUTES))
        if unknown:
            raise ValueError(f"the simulator serves no source {unknown} (its routes: {sorted(SIM_ROUTES)})")
        for source in SIM_ROUTES:
            self.sources.setdefault(source, SourceSimConfig())
        return self

    @classmethod
    def documented(cls, seed: int = 0) -> SimulatorConfig:
        return cls(seed=seed)

    @classmethod
    def sliding_window(cls, seed: int = 0, arrival_jitter_ms: float = 0.0) -> SimulatorConfig:
        """The documented limits counted over a sliding window on arrival, with network jitter:
        what a service answers 429 to (issue 11)."""
        patch = {"limit_mode": "sliding", "arrival_jitter_ms": arrival_jitter_ms}
        return cls(seed=seed).merged({"sources": {source: dict(patch) for source in SIM_ROUTES}})

    @classmethod
    def unlimited(cls, seed: int = 0) -> SimulatorConfig:
        """No rate limits, no concurrency caps, no latency, no faults."""
        return cls(seed=seed, sources={source: SourceSimConfig() for source in SIM_ROUTES})

    def source(self, name: SimSource) -> SourceSimConfig:
        return self.sources[name]

    def merged(self, patch: dict[str, Any]) -> SimulatorConfig:
        """This config with `patch` applied: `{"seed": 3, "sources": {"crossref": {"rate": 1}}}`
        changes only what it names (nested objects merge, other values replace)."""
        data = self.model_dump()
        _deep_merge(data, patch)
        return SimulatorConfig.model_validate(data)

    def with_source(self, name: SimSource, **changes: Any) -> SimulatorConfig:
        return self.merged({"sources": {name: changes}})


def _deep_merge(target: dict[str, Any], patch: dict[str, Any]) -> None:
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _deep_merge(target[key], value)
        else:
            target[key] = value
