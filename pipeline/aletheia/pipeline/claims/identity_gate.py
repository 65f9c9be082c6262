"""The triangulation gate of a claim's paper: a second source that knows the work must agree on
its identity (seed 000 §5), and the paper's retraction status from both records and the gateway's
retraction notices."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aletheia.core.arxiv_ids import arxiv_id_from_doi
from aletheia.core.records import CitedReference, RetractionKind, SourceName, WorkRecord
from aletheia.core.retraction import combine_retraction_status
from aletheia.core.triangulate import TriangulationResult, triangulate
from aletheia.pipeline.claims.model import FieldDisagreement, SourcesFailed
from aletheia.sources.base import SourceError, SourceRecord


@dataclass
class IdentityCheck:
    """The gate's outcome for one candidate: the second source's record and the comparison, or
    neither (single-source) with the reason in `notes`."""

    primary: WorkRecord
    secondary: SourceRecord | None
    result: TriangulationResult | None
    notes: list[str]
    consulted: list[SourceName]

    @property
    def conflicts(self) -> list[FieldDisagreement]:
        if self.result is None or self.secondary is None:
            return []
        return [
            FieldDisagreement(
                field=conflict.field,
                primary_source=self.primary.source,
                primary_value=conflict.primary_value,
                secondary_source=self.secondary.record.source,
                secondary_value=conflict.secondary_value,
                similarity=conflict.similarity,
            )
            for conflict in self.result.conflicts
        ]

    @property
    def agreed(self) -> bool:
        return self.result is None or self.result.verified


def _secondary_lookups(
    gateway: Any, record: WorkRecord
) -> list[tuple[SourceName, str, Callable[[], Awaitable[Any]]]]:
    """Seed §5.1's order: OpenAlex by DOI (Crossref after it), else arXiv by id, else PubMed."""
    lookups: list[tuple[SourceName, str, Callable[[], Awaitable[Any]]]] = []
    doi = record.doi if record.doi and arxiv_id_from_doi(record.doi) is None else None
    if doi:
        lookups.append((SourceName.OPENALEX, f"doi:{doi}", lambda: gateway.openalex.work_by_doi(doi)))
        lookups.append((SourceName.CROSSREF, f"doi:{doi}", lambda: gateway.crossref.work_by_doi(doi)))
    arxiv = record.arxiv_id or (
        parsed.id if record.doi and (parsed := arxiv_id_from_doi(record.doi)) else None
    )
    if arxiv:
        lookups.append((SourceName.ARXIV, f"arxiv:{arxiv}", lambda: gateway.arxiv.by_id(arxiv)))
        lookups.append(
            (
                SourceName.SEMANTIC_SCHOLAR,
                f"arxiv:{arxiv}",
                lambda: gateway.semantic_scholar.paper(f"ARXIV:{arxiv}"),
            )
        )
    if record.pmid:
        pmid = record.pmid
        lookups.append((SourceName.PUBMED, f"pmid:{pmid}", lambda: gateway.pubmed.by_pmid(pmid)))
    return [lookup for lookup in lookups if lookup[0] != record.source]


async def identity_check(gateway: Any, record: WorkRecord) -> IdentityCheck:
    """Triangulate `record` against the first second source that knows it (seed 000 §5).

    No identifier to look up: single-source, noted `no_secondary_source_available` (§5.1). Every
    second source answered "not found": single-source too, noted `secondary_not_found: ...`.
    Raises `SourcesFailed` when a second source could not be asked and none answered.
    """
    consulted = [record.source]
    notes: list[str] = []
    failures: list[str] = []
    lookups = _secondary_lookups(gateway, record)
    if not lookups:
        return IdentityCheck(record, None, None, ["no_secondary_source_available"], consulted)
    for source, query, lookup in lookups:
        try:
            found = await lookup()
        except SourceError as exc:
            failures.append(f"{source.value}: {exc}")
            continue
        if source not in consulted:
            consulted.append(source)
        if found is None:
            notes.append(f"secondary_not_found: {source.value} {query}")
            continue
        result = triangulate(record, found.record)
        notes.extend(f"secondary_unavailable: {failure}" for failure in failures)
        return IdentityCheck(record, found, result, notes, consulted)
    if failures:
        raise SourcesFailed(failures[0].partition(": ")[0], "; ".join(failures))
    return IdentityCheck(record, None, None, notes, consulted)


def _retraction(gateway: Any, check: IdentityCheck) -> tuple[RetractionKind, str | None]:
    records = [check.primary] + ([check.secondary.record] if check.secondary else [])
    notices = [notice for record in records for notice in record.retraction_notices]
    lookup = getattr(gateway, "retraction_notices", None)
    if lookup is not None:
        cited = CitedReference(key="claim", doi=check.primary.doi, pmid=check.primary.pmid)
        notices.extend(lookup(cited, records))
    status = combine_retraction_status(notices, consulted=check.consulted)
    notice = status.notice
    return status.kind, notice.notice_doi if notice else None
