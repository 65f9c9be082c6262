"""What verifying one reference gives: the reference as cited, its verdict, the evidence, and
the raw payloads the evidence was parsed from (kept for storage and replay). A module of its own so
that what only reads outcomes (the writer, `aletheia report`) does not load the evidence gatherer.
"""

from __future__ import annotations

from dataclasses import dataclass

from aletheia.core.evidence import Evidence
from aletheia.core.records import CitedReference
from aletheia.core.verdicts import Verdict
from aletheia.sources.base import SourceRecord


@dataclass
class ReferenceOutcome:
    cited: CitedReference
    verdict: Verdict
    evidence: Evidence
    raw: list[SourceRecord]
