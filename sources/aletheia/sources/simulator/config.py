"""How the simulator behaves for one source: rate limits, concurrency caps, latency and faults.

Each route's documented limits (`routes.SIM_ROUTES`: Crossref 10/s single and 3/s search with at
most 3 requests in flight, OpenAlex 10/s, Semantic Scholar 1/s, arXiv one request per 3 s, PubMed
3/s or 10/s with an API key) are the defaults of `run_config.SimulatorConfig()`. Faults are
probabilities per request, per source and optionally per request kind; they are drawn from a RNG
seeded with `seed`, so a run with the same requests in the same order injects the same faults.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

# A source's name in the simulator: a key of `routes.SIM_ROUTES` (the route table says which).
SimSource = str
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
