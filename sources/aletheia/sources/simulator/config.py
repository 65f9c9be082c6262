"""How the simulator behaves per source: rate limits, concurrency caps, latency and faults.

`SimulatorConfig()` is the documented public limits (Crossref 10/s single and 3/s search with at
most 3 requests in flight, OpenAlex 10/s, Semantic Scholar 1/s, arXiv one request per 3 s, PubMed
3/s or 10/s with an API key); `SimulatorConfig.unlimited()` turns every limit off for fast tests.
Faults are probabilities per request, per source and optionally per request kind; they are drawn
from a RNG seeded with `seed`, so a run with the same requests in the same order injects the same
faults.
"""

from __future__ import annotations

from typing import Any, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

SimSource = Literal[
    "crossref",
    "openalex",
    "semantic_scholar",
    "arxiv_api",
    "arxiv",
    "pubmed",
    "europe_pmc",
    "dblp",
    "acl_anthology",
    "open_library",
    "google_books",
    "perseus",
    "ccel",
    "tavily",
    "brave_search",
]
# The Literal's own values, in order: a new source is named once.
SIM_SOURCES: Final[tuple[SimSource, ...]] = get_args(SimSource)
RequestKind = Literal["single", "search", "batch", "fulltext"]
REQUEST_KINDS: Final[tuple[RequestKind, ...]] = ("single", "search", "batch", "fulltext")
FaultName = Literal["error_500", "error_503", "hang", "reset", "malformed"]
FAULT_NAMES: Final[tuple[FaultName, ...]] = ("error_500", "error_503", "hang", "reset", "malformed")


class FaultRates(BaseModel):
    """Probability, per request, of each fault. They are exclusive: at most one per request."""

    model_config = ConfigDict(extra="forbid")

    error_500: float = Field(default=0.0, ge=0.0, le=1.0)
    error_503: float = Field(default=0.0, ge=0.0, le=1.0)
    hang: float = Field(default=0.0, ge=0.0, le=1.0)  # accept, then never answer
    reset: float = Field(default=0.0, ge=0.0, le=1.0)  # close the socket with a TCP RST
    malformed: float = Field(default=0.0, ge=0.0, le=1.0)  # 200 with a truncated body

    @model_validator(mode="after")
    def _at_most_one(self) -> FaultRates:
        if self.total > 1.0 + 1e-9:
            raise ValueError(f"fault probabilities add up to {self.total:g} > 1")
        return self

    @property
    def total(self) -> float:
        return self.error_500 + self.error_503 + self.hang + self.reset + self.malformed


class SourceSimConfig(BaseModel):
    """One source. `rate=None` means no rate limit, `concurrency=None` no cap."""

    model_config = ConfigDict(extra="forbid")

    rate: float | None = Field(default=None, gt=0)  # requests per second, sustained
    burst: float = Field(default=1.0, ge=1.0)
    # A separate, usually lower, bucket for search requests (Crossref documents one).
    search_rate: float | None = Field(default=None, gt=0)
    search_burst: float = Field(default=1.0, ge=1.0)
    # PubMed: a request carrying `api_key` is held to this rate instead.
    rate_with_key: float | None = Field(default=None, gt=0)
    burst_with_key: float = Field(default=1.0, ge=1.0)
    concurrency: int | None = Field(default=None, ge=1)
    latency_ms: float = Field(default=0.0, ge=0.0)  # added to every answer
    jitter_ms: float = Field(default=0.0, ge=0.0)  # plus uniform [0, jitter_ms)
    faults: FaultRates = Field(default_factory=FaultRates)
    # Per-kind fault rates replace `faults` for that kind of request.
    faults_by_kind: dict[RequestKind, FaultRates] = Field(default_factory=dict)
    # "bucket": token buckets (rate, burst); "sliding": N = rate x window admitted requests in any
    # window of one second (or 1 / rate when longer), counted on arrival, as services that document
    # "N per second" count them (burst ignored).
    limit_mode: Literal["bucket", "sliding"] = "bucket"
    # Network jitter on the way in: each request waits uniform [0, arrival_jitter_ms) before it is
    # counted and limited, so requests sent evenly arrive unevenly, as over a real network.
    arrival_jitter_ms: float = Field(default=0.0, ge=0.0)
    hang_seconds: float = Field(default=120.0, gt=0)  # longer than any client's timeout
    # Retry-After sent with a 429; None: the time until the bucket has a token, rounded up.
    retry_after: float | None = Field(default=None, ge=0)
    # Schema drift: keys of the JSON answers (element names of the XML ones) renamed, old -> new,
    # wherever they occur (the nightly contract check's test: issue 29).
    renamed_keys: dict[str, str] = Field(default_factory=dict)

    def faults_for(self, kind: RequestKind) -> FaultRates:
        return self.faults_by_kind.get(kind, self.faults)


def _documented() -> dict[SimSource, SourceSimConfig]:
    return {
        "crossref": SourceSimConfig(rate=10, burst=10, search_rate=3, search_burst=3, concurrency=3),
        "openalex": SourceSimConfig(rate=10, burst=10),
        "semantic_scholar": SourceSimConfig(rate=1, burst=1),
        "arxiv_api": SourceSimConfig(rate=1 / 3, burst=1),
        "arxiv": SourceSimConfig(rate=1 / 3, burst=1),
        "pubmed": SourceSimConfig(rate=3, burst=3, rate_with_key=10, burst_with_key=10),
        # DBLP's FAQ: one or two seconds between requests; the ACL Anthology documents none.
        "dblp": SourceSimConfig(rate=0.5, burst=1),
        "acl_anthology": SourceSimConfig(rate=1, burst=1),
        "europe_pmc": SourceSimConfig(rate=5, burst=5),
        # Books and canonical texts document no number: the product's own default, one per second.
        "open_library": SourceSimConfig(rate=1, burst=1),
        "google_books": SourceSimConfig(rate=1, burst=1),
        "perseus": SourceSimConfig(rate=1, burst=1),
        "ccel": SourceSimConfig(rate=1, burst=1),
        # Web search (Tier 4): Brave's free plan, 1 query per second; Tavily as well.
        "tavily": SourceSimConfig(rate=1, burst=1),
        "brave_search": SourceSimConfig(rate=1, burst=1),
    }


class SimulatorConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed: int = 0
    sources: dict[SimSource, SourceSimConfig] = Field(default_factory=_documented)
    # Papers Semantic Scholar holds beyond the universe, generated in the field's phrases and
    # matched by its bulk search (`s2_corpus`): 0, the universe alone.
    semantic_scholar_corpus: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _every_source(self) -> SimulatorConfig:
        for source in SIM_SOURCES:
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
        return cls(seed=seed).merged({"sources": {source: dict(patch) for source in SIM_SOURCES}})

    @classmethod
    def unlimited(cls, seed: int = 0) -> SimulatorConfig:
        """No rate limits, no concurrency caps, no latency, no faults."""
        return cls(seed=seed, sources={source: SourceSimConfig() for source in SIM_SOURCES})

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
