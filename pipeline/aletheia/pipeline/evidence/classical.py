"""Tier 3, canonical texts: verify a canonical reference against the passage itself (the I/O half).

A reference that `core.canonical.canonical_reference` recognises ("Homer, Iliad 1.1", "John
3:16") is asked of no scholarly source and never searched: its work is looked up in the table of
canonical works, the passage is fetched from the work's service (Perseus CTS `GetPassage` by URN,
or the CCEL section page) when the table allows it, and `decide`'s canonical rows judge. A passage
beyond the work's structure needs no request: the structure is the evidence.
"""

from __future__ import annotations

from aletheia.core.canonical import canonical_reference, ccel_path, cts_passage_urn
from aletheia.core.decide import decide
from aletheia.core.evidence import Evidence, QueryKind
from aletheia.core.records import CitedReference
from aletheia.core.verdicts import Verdict
from aletheia.pipeline.evidence.gateway import SourceGateway
from aletheia.pipeline.evidence.tier_sources import Ask, Gathering


async def verify_canonical(
    cited: CitedReference, gw: SourceGateway, g: Gathering, ask: Ask, *, current_year: int
) -> tuple[Evidence, Verdict] | None:
    """The evidence and verdict of a canonical reference; None when the reference is not one."""
    resolution = canonical_reference(cited)
    if resolution is None:
        return None
    work = resolution.work
    if work is not None and resolution.in_range is not False:
        locator = (
            ccel_path(work, resolution.ref)
            if work.service == "ccel"
            else cts_passage_urn(work, resolution.ref)
        )
        if locator is not None:
            source, call = gw.tiers.passage_lookup(work.service, locator)
            await ask(source, QueryKind.PASSAGE, locator, call)
    evidence = g.evidence(gw, cited)
    return evidence, decide(cited, evidence, current_year=current_year)
