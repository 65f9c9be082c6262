"""The facts of one case (`Case`): what `decide`'s status table reads, as `case.establish` finds them.

A plain record of facts, filled in stages (`case_identifiers`, `case_search`, `case`); no rule
decides a status here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aletheia.core.acl_ids import cited_acl_id
from aletheia.core.classical_case import CanonicalFacts
from aletheia.core.evidence import Evidence, QueryKind
from aletheia.core.field_evidence import Findings
from aletheia.core.records import CitedReference, RetractionKind, WorkRecord
from aletheia.core.verdicts import Reason
from aletheia.core.web import WebCheck, WebState
from aletheia.core.work_kinds import Kind
from aletheia.core.works import Assessment, Work

__all__ = ["Case"]


@dataclass
class Case:
    """The facts of one reference, established before any rule decides."""

    cited: CitedReference
    evidence: Evidence
    signals: list[Reason] = field(default_factory=list)
    kind: Kind | None = None
    works: list[Work] = field(default_factory=list)
    assessments: dict[int, Assessment] = field(default_factory=dict)
    identity: Work | None = None
    via_search: bool = False
    conflict: Work | None = None
    conflict_reason: Reason | None = None  # the identifier kind that points elsewhere
    several_candidates: bool = False
    nowhere: list[QueryKind] = field(default_factory=list)
    id_failed: bool = False
    search_failed: bool = False
    search_complete: bool = False
    chimera: bool = False
    # Cited as this year's (or next year's) work with no identifier: the indexes may not hold it
    # yet, so their silence (or a title by its authors they lack) is no evidence (issue 28).
    too_recent: bool = False
    standing: RetractionKind = RetractionKind.NONE
    retraction: dict[str, Any] = field(default_factory=dict)
    sources_agree: bool = True  # triangulation found no conflict (or had one source only)
    triangulated: bool = False  # two independent sources agreed
    secondary: WorkRecord | None = None
    findings: Findings = field(default_factory=Findings)
    canonical: CanonicalFacts | None = None  # a canonical reference to a classical text (Tier 3)
    # The web tier's fetch of the cited URL, read once: only for a kind outside the indexes that
    # carries no sign of invention (`core.web`); NOT_ASKED otherwise.
    web: WebCheck = field(default_factory=lambda: WebCheck(WebState.NOT_ASKED))

    @property
    def has_identifier(self) -> bool:
        return bool(self.cited.doi or self.cited.arxiv_id or self.cited.pmid or cited_acl_id(self.cited))

    @property
    def insufficient(self) -> bool:
        return not self.cited.title and not self.has_identifier and not self.cited.raw
