"""A library work for the claims universe's happy claim (`fixtures/claims/universe.jsonl`): shared
by the Tier 0 tests in-process (`test_claims_e2e`) and on the pools (`test_claim_jobs`)."""

from __future__ import annotations

from aletheia.core.records import Author, SourceName, WorkRecord

# Plausible (most of the claim's words) but no sentence says it: not_enough, not a contradiction.
NEAR_MISS = WorkRecord(
    source=SourceName.CROSSREF,
    title="Notes on Sensor Fusion",
    authors=(Author(given="Ada", family="Quinn"),),
    year=2020,
    doi="10.5555/notes.2020.1",
    abstract="Trimmed median aggregation is a robust statistic. Byzantine sensor nodes appear in"
    " one third of field deployments.",
)
