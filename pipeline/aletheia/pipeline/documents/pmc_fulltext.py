"""The PubMed Central step of the full-text chain (`fulltext.fetch_paper_text`): arXiv HTML, then
this, then the PDF, then the abstract.

A biomedical paper's open-access text is read from Europe PMC's JATS (`EuropePmcClient`): by the
record's PMCID when it has one, else by the PMCID Europe PMC gives for its PMID or DOI when it says
the work is open access. The step is taken for a record with a PMID or PMCID, or with a DOI in a
life-science venue (`core.coverage.is_biomedical`): asking Europe PMC about every DOI would cost a
request per paper for texts it does not hold.

Nothing here raises for a source failure or a text that is not there: each outcome is one line in
the chain's `attempts` (what the artifact's reviewer reads) and the chain goes on.
"""

from __future__ import annotations

from typing import Any

from aletheia.core.coverage import is_biomedical
from aletheia.core.excerpts import PaperText
from aletheia.core.records import CitedReference, WorkRecord
from aletheia.pipeline.documents.attempts import noted

__all__ = ["pmc_paper_text", "wants_pmc"]


def wants_pmc(record: WorkRecord) -> bool:
    """PubMed Central could hold the paper's text (see the module docstring)."""
    if record.pmcid or record.pmid:
        return True
    if not record.doi:
        return False
    venues = " ".join(v for v in (record.venue, record.published_venue) if v)
    return is_biomedical(CitedReference(key=record.doi, venue=venues or None))


async def pmc_paper_text(gateway: Any, record: WorkRecord, attempts: list[str]) -> PaperText | None:
    """The open-access PMC text of `record` (origin `pmc_jats`), or None; each step is noted in
    `attempts` as `pmc: ...`."""
    client = getattr(gateway, "europe_pmc", None)
    if client is None:
        attempts.append("pmc: no Europe PMC client")
        return None
    pmcid = record.pmcid
    if pmcid is None:
        locate = client.locate(doi=record.doi, pmid=record.pmid)
        hit = await noted("pmc", locate, "Europe PMC does not know the work", attempts)
        if hit is None:
            return None
        if not hit.full_text_available:
            held = hit.record.pmcid or "no PMCID"
            attempts.append(f"pmc: {held}, not in the open-access subset")
            return None
        pmcid = hit.record.pmcid
    article = await noted("pmc", client.full_text(pmcid), f"{pmcid} has no open-access full text", attempts)
    if article is None:
        return None
    if article.paper is None:
        attempts.append(f"pmc: {pmcid} is metadata only (no body)")
        return None
    paper: PaperText = article.paper
    attempts.append(f"pmc: {pmcid}, {paper.origin}, {len(paper.blocks)} blocks")
    return paper
