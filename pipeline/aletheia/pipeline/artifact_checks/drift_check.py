"""`aletheia audit`: the drift check of the citation artifacts already written.

`audit_existing_citations(root, gateway)` (tier 4 of seed 000 §8): re-asks the sources for every
artifact's identifiers and reports drift: a DOI now resolving to a different work, a retraction, a
corrected first author, a changed year or title, an identifier that no longer resolves. A
disagreement a human accepted when the artifact was written (`overridden_conflicts`, seed 000
§5.4) is listed as accepted, with the reason, not as drift, for as long as the source says what was
accepted. (The CLI command and these names keep the word "audit"; the module is named for what it
checks, apart from the audit trail of `pipeline/audit/`.)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict

from aletheia.core.artifact_overrides import accepted_override, overrides_of
from aletheia.core.artifacts import (
    ArtifactFormatError,
    CitationArtifact,
    parse_artifact,
    record_of_artifact,
)
from aletheia.core.arxiv_ids import arxiv_id_from_doi
from aletheia.core.records import CitedReference, RetractionKind, SourceName, WorkRecord
from aletheia.core.retraction import combine_retraction_status
from aletheia.core.triangulate import triangulate
from aletheia.pipeline.artifact_checks.link_check import CITATIONS_DIR
from aletheia.sources.base import SourceError, SourceRecord
from aletheia.sources.batching import Quiescence

__all__ = [
    "ArtifactAudit",
    "AuditReport",
    "Drift",
    "audit_existing_citations",
]


DriftKind = Literal[
    "doi_resolves_elsewhere",
    "retracted",
    "first_author_changed",
    "year_changed",
    "title_changed",
    "identifier_changed",
    "identifier_not_found",
    "unreachable",
    "unreadable",
]


class Drift(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: DriftKind
    source: str | None = None
    recorded: str | None = None
    current: str | None = None
    detail: str


class ArtifactAudit(BaseModel):
    path: str
    slug: str
    drifts: list[Drift] = []
    # Disagreements a human override accepted when the artifact was written: not drift.
    accepted: list[Drift] = []
    sources_checked: list[str] = []

    @property
    def drifted(self) -> bool:
        return any(d.kind not in ("unreachable",) for d in self.drifts)


class AuditReport(BaseModel):
    root: str
    artifacts: list[ArtifactAudit] = []

    @property
    def drifted(self) -> list[ArtifactAudit]:
        return [a for a in self.artifacts if a.drifted]

    @property
    def unreachable(self) -> list[ArtifactAudit]:
        return [a for a in self.artifacts if any(d.kind == "unreachable" for d in a.drifts)]

    def exit_code(self) -> int:
        """0: no drift; 1: drift in at least one artifact; 3: none, but some could not be checked."""
        if self.drifted:
            return 1
        return 3 if self.unreachable else 0


Lookup = tuple[SourceName, str, Callable[[], Awaitable[Any]]]


def _audit_lookups(gateway: Any, recorded: WorkRecord) -> list[Lookup]:
    lookups: list[Lookup] = []
    doi = recorded.doi if recorded.doi and arxiv_id_from_doi(recorded.doi) is None else None
    if doi:
        lookups.append((SourceName.OPENALEX, "doi", lambda: gateway.openalex.work_by_doi(doi)))
        lookups.append((SourceName.CROSSREF, "doi", lambda: gateway.crossref.work_by_doi(doi)))
    if recorded.arxiv_id:
        arxiv = recorded.arxiv_id
        lookups.append((SourceName.ARXIV, "arxiv_id", lambda: gateway.arxiv.by_id(arxiv)))
    if recorded.pmid:
        pmid = recorded.pmid
        lookups.append((SourceName.PUBMED, "pmid", lambda: gateway.pubmed.by_pmid(pmid)))
    return lookups


_FIELD_DRIFT: Final[dict[str, DriftKind]] = {
    "first_author_surname": "first_author_changed",
    "year": "year_changed",
    "title": "title_changed",
    "doi": "identifier_changed",
    "arxiv_id": "identifier_changed",
}


class _DriftLog:
    """The drifts of one artifact, each (kind, current value) once: sources that agree on a change
    report it once."""

    def __init__(self, audit: ArtifactAudit) -> None:
        self.audit = audit
        self._seen: set[tuple[str, str | None]] = set()

    def add(self, drift: Drift) -> None:
        if (drift.kind, drift.current) not in self._seen:
            self._seen.add((drift.kind, drift.current))
            self.audit.drifts.append(drift)


async def _audit_one(
    gateway: Any, path: Path, relative: str, learnt: list[SourceRecord] | None = None
) -> ArtifactAudit:
    slug = path.name[: -len(".md")]
    audit = ArtifactAudit(path=relative, slug=slug)
    try:
        text = await asyncio.to_thread(path.read_text, encoding="utf-8")
        artifact = parse_artifact(text)
    except (ArtifactFormatError, UnicodeDecodeError, OSError) as exc:
        audit.drifts.append(Drift(kind="unreadable", detail=str(exc)))
        return audit
    recorded = record_of_artifact(artifact)
    log = _DriftLog(audit)
    found_records: list[WorkRecord] = []
    for source, by, lookup in _audit_lookups(gateway, recorded):
        try:
            found = await lookup()
        except SourceError as exc:
            log.add(Drift(kind="unreachable", source=source.value, detail=str(exc)))
            continue
        audit.sources_checked.append(source.value)
        if found is None:
            log.add(
                Drift(
                    kind="identifier_not_found",
                    source=source.value,
                    detail=f"{source.value} no longer knows the {by}",
                )
            )
            continue
        found_records.append(found.record)
        if learnt is not None:
            learnt.append(found)
        _field_drifts(artifact, recorded, found.record, source, by, log)
    retracted = _retraction_drift(gateway, slug, artifact, recorded, found_records)
    if retracted is not None:
        log.add(retracted)
    return audit


def _field_drifts(
    artifact: CitationArtifact,
    recorded: WorkRecord,
    fresh: WorkRecord,
    source: SourceName,
    by: str,
    log: _DriftLog,
) -> None:
    """The fields a source now says otherwise: drift, unless a human override accepted it."""
    overrides = overrides_of(artifact.frontmatter)
    reason = artifact.frontmatter.override_reason
    for conflict in triangulate(recorded, fresh).conflicts:
        kind = _FIELD_DRIFT.get(conflict.field, "identifier_changed")
        if by == "doi" and conflict.field == "title":
            kind = "doi_resolves_elsewhere"
        drift = Drift(
            kind=kind,
            source=source.value,
            recorded=conflict.primary_value,
            current=conflict.secondary_value,
            detail=f"{conflict.field}: artifact says {conflict.primary_value!r},"
            f" {source.value} now says {conflict.secondary_value!r}",
        )
        if accepted_override(conflict.field, conflict.primary_value, conflict.secondary_value, overrides):
            log.audit.accepted.append(
                drift.model_copy(update={"detail": f"{drift.detail} (accepted by override: {reason})"})
            )
        else:
            log.add(drift)


def _retraction_drift(
    gateway: Any,
    slug: str,
    artifact: CitationArtifact,
    recorded: WorkRecord,
    found_records: list[WorkRecord],
) -> Drift | None:
    """A retraction (or another notice) the artifact does not record yet, from the records found
    and the gateway's retraction data."""
    notices = [notice for record in found_records for notice in record.retraction_notices]
    lookup_notices = getattr(gateway, "retraction_notices", None)
    if lookup_notices is not None:
        notices.extend(
            lookup_notices(CitedReference(key=slug, doi=recorded.doi, pmid=recorded.pmid), found_records)
        )
    status = combine_retraction_status(notices)
    if not status.flagged or status.kind == artifact.frontmatter.retraction_status:
        return None
    notice = status.notice
    return Drift(
        kind="retracted",
        source=",".join(s.value for s in status.sources) or None,
        recorded=(artifact.frontmatter.retraction_status or RetractionKind.NONE).value,
        current=status.kind.value,
        detail=f"the work is now {status.kind.value}"
        + (f" (notice {notice.notice_doi})" if notice and notice.notice_doi else ""),
    )


def _artifact_files(root: Path) -> tuple[Path, list[Path]]:
    base = root.resolve()
    citations = base.joinpath(*CITATIONS_DIR)
    if not citations.is_dir() or citations.is_symlink():
        return base, []
    found = [p for p in citations.iterdir() if p.suffix == ".md" and not p.name.startswith(".")]
    return base, sorted(p for p in found if not p.is_symlink())


async def audit_existing_citations(
    root: Path | str,
    gateway: Any,
    *,
    concurrency: int = 4,
    learnt: list[SourceRecord] | None = None,
    quiescence: Quiescence | None = None,
) -> AuditReport:
    """Re-check every artifact in `root/docs/citations/` against the sources (see the module
    docstring). The weekly beat task calls this with the worker's gateway; every record the
    sources gave is appended to `learnt` (the audit keeps them in the Tier-0 library). With
    `quiescence`, each artifact being audited is a marked task for the sources' batching: their
    lookups go once all of them wait, not after the coalescing window."""
    base, paths = await asyncio.to_thread(_artifact_files, Path(root))
    report = AuditReport(root=str(base))
    gate = asyncio.Semaphore(concurrency)
    marked = quiescence.running if quiescence is not None else contextlib.nullcontext

    async def one(path: Path) -> ArtifactAudit:
        async with gate:
            with marked():
                return await _audit_one(gateway, path, "/".join(CITATIONS_DIR) + "/" + path.name, learnt)

    report.artifacts = list(await asyncio.gather(*(one(p) for p in paths)))
    return report
