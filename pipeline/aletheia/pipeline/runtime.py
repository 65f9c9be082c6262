"""The process-wide context: settings, database, stores, and the source gateway.

The embedded default and the workers build the same runtime; only the database URL (SQLite or
PostgreSQL) and the limiter (in-process or Redis) differ, both from settings.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aletheia.config import Settings, get_settings
from aletheia.core.records import SourceName, WorkRecord
from aletheia.sources.base import CachedRaw, RawCache, SourceParseError, SourceRecord
from aletheia.sources.cache import namespace_ttls
from aletheia.storage.claim_store import ClaimStageStore
from aletheia.storage.db import engine_for
from aletheia.storage.leases import LeaseStore
from aletheia.storage.library import SqlLibrary
from aletheia.storage.lists import RetractionStore
from aletheia.storage.repositories import RepositoryStore
from aletheia.storage.stores import JobStore, SqlRawCache

if TYPE_CHECKING:  # the gateway (and httpx) are imported when a gateway is opened: `aletheia
    # status` and the other producers that only read rows start without them
    from aletheia.pipeline.evidence.gateway import SourceGateway
    from aletheia.sources.transport.limiter import RateLimiter

BUNDLED_SNAPSHOT = "snapshot.jsonl"


def parse_source_payload(source: str, raw: Any) -> list[WorkRecord]:
    """Parse one raw payload of a source with that source's own parser (the path a mirror uses)."""
    if source == SourceName.CROSSREF:
        from aletheia.sources.crossref import parse_crossref_message

        return parse_crossref_message(raw if "message" in raw else {"message": raw, "message-type": "work"})
    if source == SourceName.OPENALEX:
        from aletheia.sources.openalex import parse_openalex_list, parse_openalex_work

        return parse_openalex_list(raw) if "results" in raw else [parse_openalex_work(raw)]
    if source == SourceName.SEMANTIC_SCHOLAR:
        from aletheia.sources.semantic_scholar_parse import parse_s2_paper

        return [parse_s2_paper(raw)]
    if source == SourceName.ARXIV:
        from aletheia.sources.arxiv_parse import parse_arxiv_feed

        return parse_arxiv_feed(raw)
    if source == SourceName.PUBMED:
        from aletheia.sources.pubmed import parse_pubmed_raw

        return parse_pubmed_raw(raw)
    raise SourceParseError(source, "unknown source in library file")


@dataclass
class LibraryImport:
    records: int = 0
    problems: list[str] = field(default_factory=list)


def _holds_a_work(record: WorkRecord) -> bool:
    identified = record.doi or record.arxiv_id or record.pmid or record.isbn or record.authors
    return bool(record.title and record.title.strip() and identified)


def import_library_lines(library: SqlLibrary, lines: Iterable[str], *, origin: str) -> LibraryImport:
    """Load source records (`{"source": ..., "raw": ..., "fetched_at"?: ...}` per line) into Tier 0."""
    result = LibraryImport()
    batch: list[SourceRecord] = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            fetched = (
                datetime.fromisoformat(entry["fetched_at"]) if entry.get("fetched_at") else datetime.now(UTC)
            )
            records = parse_source_payload(entry["source"], entry["raw"])
            # A payload that holds no work (`{"foo": "bar"}` parses to an empty record) is refused:
            # the library must never "verify" a citation against nothing (issue 20).
            if not records or not all(_holds_a_work(r) for r in records):
                raise ValueError(
                    f"{entry['source']} payload holds no work (a title and an identifier or authors)"
                )
            for record in records:
                batch.append(SourceRecord(record=record, raw=entry["raw"], fetched_at=fetched))
        except (ValueError, KeyError, TypeError, SourceParseError) as exc:
            result.problems.append(f"{origin}:{lineno}: {type(exc).__name__}: {exc}")
            continue
        if len(batch) >= 200:
            result.records += library.remember_sync(batch, origin=origin)
            batch = []
    if batch:
        result.records += library.remember_sync(batch, origin=origin)
    return result


@dataclass
class Runtime:
    settings: Settings
    jobs: JobStore
    cache: SqlRawCache
    library: SqlLibrary
    retractions: RetractionStore

    @classmethod
    def open(cls, settings: Settings | None = None) -> Runtime:
        settings = settings or get_settings()
        engine = engine_for(settings.sqlalchemy_url())
        rt = cls(
            settings=settings,
            jobs=JobStore(engine),
            cache=SqlRawCache(
                engine,
                ttl=settings.cache_ttl_seconds,
                negative_ttl=settings.negative_cache_ttl_seconds,
                ttls_by_namespace=namespace_ttls(settings),
            ),
            library=SqlLibrary(engine),
            retractions=RetractionStore(engine),
        )
        rt.ensure_bundled_snapshot()
        return rt

    # The stores the job steps use beside the four above, over the same engine, built once.
    @cached_property
    def claim_stages(self) -> ClaimStageStore:
        return ClaimStageStore(self.jobs.engine)

    @cached_property
    def leases(self) -> LeaseStore:
        return LeaseStore(self.jobs.engine)

    @cached_property
    def repositories(self) -> RepositoryStore:
        return RepositoryStore(self.jobs.engine)

    def ensure_bundled_snapshot(self) -> None:
        """First run: load the snapshot of real source records shipped with Aletheia into Tier 0."""
        if self.library.count() > 0:
            return
        snapshot = resources.files("aletheia.pipeline").joinpath("data", BUNDLED_SNAPSHOT)
        with resources.as_file(snapshot) as path:
            if Path(path).is_file():
                with Path(path).open(encoding="utf-8") as fh:
                    import_library_lines(self.library, fh, origin=f"import:bundled/{BUNDLED_SNAPSHOT}")

    def retraction_index(self) -> Any:
        from aletheia.sources.retraction_watch import RetractionIndex

        csv = self.settings.retraction_watch_csv
        if csv and self.retractions.count() == 0 and Path(csv).is_file():
            self.load_retractions(csv)
        if self.retractions.count() == 0:
            return None
        return RetractionIndex.from_rows(self.retractions.rows())

    def load_retractions(self, path: str) -> int:
        from aletheia.sources.retraction_watch import parse_retraction_watch_csv

        with Path(path).open(encoding="utf-8", errors="replace", newline="") as fh:
            rows = [row.as_storage_row() for row in parse_retraction_watch_csv(fh)]
        return self.retractions.replace(rows)

    @asynccontextmanager
    async def gateway(
        self, *, limiter: RateLimiter | None = None, fresh: bool = False
    ) -> AsyncIterator[SourceGateway]:
        """The process's gateway; `limiter` replaces the one built from settings (the queue's
        retrieval workers wrap it so that a long wait for a token becomes a retry). `fresh`: every
        answer asked of the source again — the raw cache is written, never read, and the Tier-0
        library is not consulted (the weekly audit: a paper retracted since its last check)."""
        import httpx

        from aletheia.pipeline.evidence.gateway import SourceGateway
        from aletheia.sources.io_thread import IoThreadClient
        from aletheia.sources.transport.ratelimit import build_rate_limiter
        from aletheia.sources.transport.user_agent import user_agent

        limiter = limiter if limiter is not None else build_rate_limiter(self.settings)
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=32)
        # The sources' requests leave from an event loop of their own (`io_thread`): on this
        # one, busy with decisions, a granted request could wait long enough to break the pacing.
        async with IoThreadClient(
            headers={"User-Agent": user_agent()},
            timeout=self.settings.http_timeout,
            limits=limits,
            follow_redirects=True,
        ) as http:
            yield SourceGateway(
                self.settings,
                http,
                limiter,
                cache=WriteOnlyCache(self.cache) if fresh else self.cache,
                library=None if fresh else self.library,
                retractions=self.retraction_index(),
                # The weekly audit (`fresh`) asks the sources what they say now, not a snapshot.
                mirror=None if fresh else self.mirror_tier(),
            )

    def mirror_tier(self) -> Any:
        """The local snapshot mirror's tier (issue 32), or None: turned off (`ALETHEIA_MIRROR`,
        `aletheia verify --no-mirror`) or nothing loaded into it."""
        if not self.settings.mirror:
            return None
        from aletheia.pipeline.evidence.mirror_tier import MirrorTier
        from aletheia.storage.mirror import MirrorStore

        return MirrorTier.open(
            MirrorStore(self.jobs.engine),
            max_age_days=self.settings.mirror_max_age_days,
            indexing_lag_days=self.settings.mirror_indexing_lag_days,
        )


class WriteOnlyCache:
    """A raw cache that is never read: each lookup goes to the source, and its answer still
    refreshes the cache for the runs that follow (`Runtime.gateway(fresh=True)`)."""

    def __init__(self, inner: RawCache) -> None:
        self.inner = inner

    async def get(self, source: str, key: str) -> CachedRaw | None:
        return None

    async def put(self, source: str, key: str, raw: Any, *, found: bool, url: str | None = None) -> None:
        await self.inner.put(source, key, raw, found=found, url=url)
