"""Every setting Aletheia reads, in one typed object.

Names are part of the interface (other tools rely on them): each source's base URL comes from
`ALETHEIA_<SOURCE>_URL` and defaults to the real host; API keys use the names their services
document (`OPENALEX_API_KEY`, `SEMANTIC_SCHOLAR_API_KEY`, `NCBI_API_KEY`). Nothing is read at
import time: call `get_settings()` when a value is first needed.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, BaseModel, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class SourceLimits(BaseModel):
    """Politeness for one source: a token bucket (rate, burst) and a concurrency cap."""

    rate: float  # requests per second, sustained
    burst: int = 1
    concurrency: int = 3
    search_rate: float | None = None  # a lower rate for search endpoints, where documented


def _default_data_dir() -> Path:
    # XDG data home, as a user expects; the embedded SQLite database and the Tier-0 library live here.
    import os

    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "aletheia"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="ALETHEIA_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
    )

    # --- where things live -------------------------------------------------------------------
    data_dir: Path = Field(default_factory=_default_data_dir)
    database_url: SecretStr | None = None  # default: sqlite in data_dir
    broker_url: SecretStr | None = None  # unset: embedded, in-process pipeline
    redis_url: SecretStr | None = None  # global rate limits and cache; defaults to broker_url if redis

    # --- sources -----------------------------------------------------------------------------
    crossref_url: str = "https://api.crossref.org"
    openalex_url: str = "https://api.openalex.org"
    semantic_scholar_url: str = "https://api.semanticscholar.org"
    arxiv_api_url: str = "https://export.arxiv.org"
    arxiv_url: str = "https://arxiv.org"
    pubmed_url: str = "https://eutils.ncbi.nlm.nih.gov"
    dblp_url: str = "https://dblp.org"  # {base}/search/publ/api, {base}/rec/{key}.xml
    acl_anthology_url: str = "https://aclanthology.org"  # {base}/{anthology id}.bib
    europe_pmc_url: str = "https://www.ebi.ac.uk"  # {base}/europepmc/webservices/rest/...
    # Tier 1 books and Tier 3 canonical texts (issue 12).
    open_library_url: str = "https://openlibrary.org"
    google_books_url: str = "https://www.googleapis.com"
    perseus_url: str = "https://scaife-cts.perseus.org"
    ccel_url: str = "https://www.ccel.org"
    retraction_watch_csv: str | None = None
    # Tier 4, the web (docs/sources.md, "The web tier"). Off by default: the fetcher is the one
    # place that reaches arbitrary hosts. The allow-list is for tests only (a local server on
    # 127.0.0.1): comma-separated CIDRs let through although private or loopback; empty in service.
    web_tier: bool = False
    web_tier_allow_networks: str = ""
    web_tier_ports: str = "80,443"
    web_tier_max_bytes: int = 300_000
    web_tier_timeout_seconds: float = 10.0
    web_tier_max_redirects: int = 5
    # A fetched page's answer (status, final URL, redirects, titles; never the body) is kept in the
    # raw cache: a page that answered 2xx for a week, any other HTTP status for an hour.
    web_tier_cache_ttl_seconds: int = 7 * 24 * 3600
    web_tier_failure_cache_ttl_seconds: int = 3600
    # Open-access full text for claims (docs/claims.md, "Full text"): the PDF or HTML that OpenAlex
    # and Semantic Scholar point to, fetched through the same SSRF-safe fetcher, so the web tier's
    # ports, allow-list and redirect bound apply to every such host. On by default (these are the
    # sources' own links, not URLs from user input); its own size and time bounds, since a paper's
    # PDF is far larger than the page titles the web tier reads.
    oa_fulltext: bool = True
    oa_fulltext_max_bytes: int = 50 * 1024 * 1024
    oa_fulltext_timeout_seconds: float = 60.0
    # Web search finds candidates only (never evidence); skipped without a key.
    tavily_url: str = "https://api.tavily.com"
    brave_search_url: str = "https://api.search.brave.com"

    mailto: str | None = None
    openalex_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("OPENALEX_API_KEY", "ALETHEIA_OPENALEX_API_KEY")
    )
    semantic_scholar_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("SEMANTIC_SCHOLAR_API_KEY", "ALETHEIA_SEMANTIC_SCHOLAR_API_KEY"),
    )
    ncbi_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("NCBI_API_KEY", "ALETHEIA_NCBI_API_KEY")
    )
    google_books_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("GOOGLE_BOOKS_API_KEY", "ALETHEIA_GOOGLE_BOOKS_API_KEY")
    )
    tavily_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("TAVILY_API_KEY", "ALETHEIA_TAVILY_API_KEY")
    )
    brave_search_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("BRAVE_SEARCH_API_KEY", "ALETHEIA_BRAVE_SEARCH_API_KEY"),
    )

    # Comma-separated source names to turn off, e.g. "semantic_scholar,pubmed".
    disabled_sources: str = ""
    # Offline: consult only the Tier-0 library (and the bundled snapshot); no network at all.
    offline: bool = False
    # The local snapshot mirror (issue 32; docs/sources.md, "The mirror tier"): identifiers and
    # title searches are asked of the dumps loaded with `aletheia mirror load` before the APIs.
    # `aletheia verify --no-mirror` turns it off for a run.
    mirror: bool = True
    # A complete mirror proves a title absent from its source only while its snapshot (with the
    # increments of `aletheia mirror update`) is at most this many days old; past that, the API
    # is asked, as without a mirror.
    mirror_max_age_days: int = Field(default=45, ge=0)
    # Past that age, a complete mirror still proves absent a work cited with a year whose next year
    # ended at least this many days before its snapshot (the work would have been recorded by then,
    # even cited a year early). The regular delay of indexing is weeks; records made later than
    # that are late deposits a longer lag barely reduces (measured on recorded Crossref answers);
    # docs/sources.md, "The mirror tier".
    mirror_indexing_lag_days: int = Field(default=90, ge=0)

    # Per-source politeness (documented limits; see docs/sources.md). Override with JSON, e.g.
    # ALETHEIA_CROSSREF_LIMITS='{"rate": 5, "burst": 5, "concurrency": 2}'.
    crossref_limits: SourceLimits = SourceLimits(rate=10, burst=10, concurrency=3, search_rate=3)
    openalex_limits: SourceLimits = SourceLimits(rate=10, burst=10, concurrency=5)
    semantic_scholar_limits: SourceLimits = SourceLimits(rate=1, burst=1, concurrency=1)
    arxiv_limits: SourceLimits = SourceLimits(rate=1 / 3, burst=1, concurrency=1)
    pubmed_limits: SourceLimits = SourceLimits(rate=3, burst=3, concurrency=3)
    pubmed_limits_with_key: SourceLimits = SourceLimits(rate=10, burst=10, concurrency=5)
    # DBLP's FAQ ("Am I allowed to crawl the dblp website?"): "you should always be fine when
    # waiting for at least one or two seconds between two consecutive requests"; excess gets a 429
    # with Retry-After. One request every 2 s, one at a time. The ACL Anthology documents no limit
    # for its static files: one per second, one at a time, as a courtesy.
    dblp_limits: SourceLimits = SourceLimits(rate=0.5, burst=1, concurrency=1)
    acl_anthology_limits: SourceLimits = SourceLimits(rate=1, burst=1, concurrency=1)
    # Europe PMC documents no number; EBI asks for moderate, identified use: 5 per second, 2 at once.
    europe_pmc_limits: SourceLimits = SourceLimits(rate=5, burst=5, concurrency=2)
    # Open Library asks for an identifying User-Agent and moderate traffic (no number documented
    # for the JSON APIs): one request per second. Google Books: 1,000 requests a day without a
    # paid quota; one per second keeps a job well inside any per-minute quota. Perseus (Scaife CTS)
    # and CCEL document no limit: one per second each, as a courtesy.
    open_library_limits: SourceLimits = SourceLimits(rate=1, burst=1, concurrency=1)
    google_books_limits: SourceLimits = SourceLimits(rate=1, burst=1, concurrency=1)
    perseus_limits: SourceLimits = SourceLimits(rate=1, burst=1, concurrency=1)
    ccel_limits: SourceLimits = SourceLimits(rate=1, burst=1, concurrency=1)
    # The web tier fetches one page per web reference (any host: a global pace, a few at a time).
    # Brave's free plan allows 1 query/s; Tavily documents no per-second rate: 1/s as well.
    web_limits: SourceLimits = SourceLimits(rate=5, burst=5, concurrency=4)
    # Open-access full text: any repository or publisher host, one global pace, two at a time.
    oa_fulltext_limits: SourceLimits = SourceLimits(rate=2, burst=2, concurrency=2)
    tavily_limits: SourceLimits = SourceLimits(rate=1, burst=1, concurrency=1)
    brave_search_limits: SourceLimits = SourceLimits(rate=1, burst=1, concurrency=1)

    http_timeout: float = 20.0
    http_attempts: int = 4
    circuit_failure_threshold: int = 5
    circuit_reset_seconds: float = 30.0
    cache_ttl_seconds: int = 30 * 24 * 3600
    negative_cache_ttl_seconds: int = 24 * 3600
    # Venue registries' answers (OpenAlex sources, DBLP venues, Crossref journals; issue 21): asked
    # once per distinct venue name and kept for long, since a venue's names change over years. An
    # answer holding no venue at all expires sooner: a new venue is registered within weeks.
    venue_cache_ttl_seconds: int = 180 * 24 * 3600
    venue_negative_cache_ttl_seconds: int = 30 * 24 * 3600
    # The quiet gap a batch of lookups or titles waits for one more (`batching.Coalescer`; at most
    # ten gaps). Under the sources' limits references reach a stage a few a second, so a 20 ms gap
    # sent nearly every title alone: HALLMARK dev's first 400 entries made 919 requests with 20 ms,
    # 727 with 500 ms, 663 with 1,000 ms (docs/benchmarks.md, section 8); through the engine, at
    # 128 references in flight, all 1,119 made 1,377 with 1,000 ms and 998 with 3,000 ms. A batch
    # goes before its window when every step of the process waits on one (`batching.Quiescence`),
    # so a lone reference does not wait for it; a caller that marks no step waits up to this long
    # at each batched step.
    coalesce_window_ms: float = 3000.0
    # OpenAlex stage-1 title searches sent together as one boolean `title.search` (issue 11):
    # titles per request (0 or 1: off), and OpenAlex's documented URL limit (about 4 KB).
    openalex_title_batch: int = 25
    openalex_max_url_bytes: int = 4000
    # A complete OpenAlex title batch also proves a title absent (issue 23); false: positive
    # findings only, every other title asked alone (as before).
    openalex_title_absence: bool = True
    # arXiv title searches sent together as `ti:"..." OR ti:"..."` (issue 23): titles per request
    # (0 or 1: off). A complete batch answer proves a title absent (docs/sources.md).
    arxiv_title_batch: int = 20
    # Semantic Scholar stage-3 title matches sent together as one bulk search `(w1 w2) | (w3 w4)`
    # (issue 23): titles per request (0 or 1: off). A complete answer proves a title absent.
    semantic_scholar_title_batch: int = 25
    # DBLP title searches proved absent a few at a time, as one AND of `|` clauses (issue 23):
    # titles per request (0 or 1: off; at most 3, the clauses multiply).
    dblp_title_batch: int = 3
    # Crossref's title search (no OR: one title a request) asked after the other indexes, only for
    # a work none of them found (issue 23); false: second, as before.
    crossref_search_last: bool = True

    # --- LLM -----------------------------------------------------------------------------------
    anthropic_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("ANTHROPIC_API_KEY", "ALETHEIA_ANTHROPIC_API_KEY")
    )
    llm_model: str = "claude-sonnet-4-5"
    # Who judges whether an excerpt supports a claim (docs/claims.md): `auto` is Claude when a key
    # is set and the offline rules otherwise; `rules` never asks a model; `anthropic` needs the key.
    claim_judge: Literal["auto", "rules", "anthropic"] = "auto"
    llm_temperature: float = 0.0
    # Every model call draws from the global limiter's `llm` bucket (ALETHEIA_LLM_LIMITS):
    # Anthropic's lowest usage tier allows 50 requests a minute.
    llm_limits: SourceLimits = SourceLimits(rate=50 / 60, burst=5, concurrency=4)

    # --- parsing -----------------------------------------------------------------------------
    docling_artifacts_path: Path | None = None  # Docling's layout model; absent -> model-free PDF path
    max_input_bytes: int = 200 * 1024 * 1024
    max_pdf_pages: int = 500
    pdf_timeout_seconds: float = 120.0
    # PDF text extraction runs in a child process with these limits (docs/reliability.md); off only
    # for debugging. 0 MB: no memory limit.
    pdf_sandbox: bool = True
    pdf_memory_limit_mb: int = 1024

    # --- service -----------------------------------------------------------------------------
    audit_schedule: str = "0 3 * * 1"  # crontab: Mondays 03:00 UTC
    retraction_refresh_schedule: str = "0 4 * * *"
    mirror_update_schedule: str = "30 4 * * *"  # crontab: the mirror's increments (issue 32), daily
    # The live-API contract check (seed 000 §10.4): one real query per source, nightly.
    contract_check_schedule: str = "30 2 * * *"
    flower_user: str = "aletheia"
    flower_password: SecretStr | None = None
    # Flower listens here; the compose file binds 0.0.0.0 inside its container and publishes the
    # port on the host's 127.0.0.1 only.
    flower_address: str = "127.0.0.1"
    flower_port: int = 5555
    # The queue (docs/service.md). A message not acknowledged within the visibility timeout is
    # handed out again, so it must stay above the longest task (the parsing time limit).
    visibility_timeout_seconds: int = 3600
    parsing_time_limit_seconds: int = 900
    # Broker connections per worker process: a thread or gevent pool with many slots needs more.
    redis_max_connections: int = 64
    # A retrieval task waits in place for a rate-limit token at most this long; a longer wait goes
    # back to the queue as a retry with a countdown, so no worker slot sleeps on a token.
    retrieval_token_wait_seconds: float = 0.2
    # Beat re-drives unfinished work from the database this often (`aletheia redrive`), and a step
    # holds the work it runs by a lease renewed every third of `lease_seconds`: work whose lease
    # expired (its worker died) or that waits with no message left for it (the broker lost it) is
    # sent again, so a killed worker or a lost Redis costs minutes, not the visibility timeout.
    redrive_interval_seconds: int = 30
    lease_seconds: int = 120
    # One beat per deployment (workers/single_beat.py): the beat sending the schedule holds a lock
    # in Redis that lapses this long after its last renewal (renewed every third of it); a second
    # beat waits, and takes over within about this long after the first one dies.
    beat_lock_seconds: int = Field(default=30, ge=3)
    reports_dir: Path | None = None  # rendered job reports; default: data_dir / "reports"

    # --- audit trail (docs/reliability.md) ----------------------------------------------------------
    # Job Merkle roots are committed again, chained, across jobs at most this often.
    audit_global_commit_seconds: int = 3600
    # Each global commit is also appended to this file as one JSON line: put it where the database's
    # users cannot rewrite it (append-only or object-locked storage) to anchor the trail outside it.
    audit_anchor_file: Path | None = None

    @model_validator(mode="after")
    def _web_tier_lists(self) -> Settings:
        """The fetcher's address lists, read only when the web tier or the open-access full text
        (which fetches through the same fetcher) is on (both off, they are never used): a bad
        entry is an error naming the setting and the value, not a failure at first fetch."""
        if self.web_tier or self.oa_fulltext:
            _check_web_tier_lists(self.web_tier_allow_networks, self.web_tier_ports)
        return self

    @property
    def disabled(self) -> frozenset[str]:
        return frozenset(s.strip() for s in self.disabled_sources.split(",") if s.strip())

    def sqlalchemy_url(self) -> str:
        if self.database_url is not None:
            return self.database_url.get_secret_value()
        return f"sqlite:///{self.data_dir / 'aletheia.sqlite3'}"

    def redis_connection_url(self) -> str | None:
        if self.redis_url is not None:
            return self.redis_url.get_secret_value()
        if self.broker_url is not None and self.broker_url.get_secret_value().startswith("redis"):
            return self.broker_url.get_secret_value()
        return None

    def reports_path(self) -> Path:
        return self.reports_dir if self.reports_dir is not None else self.data_dir / "reports"

    def limits_for(self, source: str) -> SourceLimits:
        if source == "pubmed" and self.ncbi_api_key is not None:
            return self.pubmed_limits_with_key
        limits: SourceLimits = getattr(self, f"{source}_limits")
        return limits


def _check_web_tier_lists(networks: str, ports: str) -> None:
    import ipaddress

    for entry in (n.strip() for n in networks.split(",")):
        if not entry:
            continue
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError as exc:
            raise ValueError(
                f"ALETHEIA_WEB_TIER_ALLOW_NETWORKS: {entry!r} is not an IP network (CIDR): {exc}"
            ) from None
    for entry in (p.strip() for p in ports.split(",")):
        if entry and not (entry.isdigit() and 0 < int(entry) < 65536):
            raise ValueError(f"ALETHEIA_WEB_TIER_PORTS: {entry!r} is not a port number (1-65535)")


@functools.cache
def get_settings() -> Settings:
    return Settings()


def reset_settings_cache() -> None:
    """For tests and for processes that change the environment after start-up."""
    get_settings.cache_clear()
